# SPDX-License-Identifier: Apache-2.0
# bash completion for dcbtop. Every flag of every command is listed here;
# cmd/dcbtop/clisource_test.go fails when one is missing, or when this
# names a flag or a command that dcbtop does not have.
_dcbtop() {
    local cur prev words cword
    _init_completion || return
    case $prev in
        -i) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
        --expect) COMPREPLY=($(compgen -W "roce-k8s azure-local" -- "$cur") $(compgen -f -- "$cur")); return ;;
        -r|-w|-o|--local|--web.config.file) _filedir; return ;;
        --snapshot-dir|--textfile) _filedir -d; return ;;
        --willing) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --trust) COMPREPLY=($(compgen -W "dscp,pcp pcp dscp" -- "$cur")); return ;;
        --pfc-storm-timeout) COMPREPLY=($(compgen -W "off auto 100" -- "$cur")); return ;;
        --dcbx-mode) COMPREPLY=($(compgen -W "host lld-managed host,ieee host,cee lld-managed,ieee lld-managed,cee" -- "$cur")); return ;;
        --duration|--tx-interval|--speed|--metrics|--web.listen-address|--wait|--counters-interval|--local-mac|--frame|--from|--dscp|--dscp-delete|--pfc-delay|--buffer|--maxrate|--rewr-dscp|--rewr-dscp-delete|--roce-tos) return ;;
    esac
    local commands="apply bundle check demo help show version"
    if [[ $cword -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur")); return
    fi
    if [[ ${words[1]} == help && $cword -eq 2 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur")); return
    fi
    if [[ ${words[1]} == apply && $cur != -* ]]; then
        _filedir json; return
    fi
    local opts
    case ${words[1]} in
        apply) opts="-i --willing --trust --dscp --dscp-delete --pfc-delay --buffer --maxrate --dcbx-mode --pfc-storm-timeout --rewr-dscp --rewr-dscp-delete --roce-tos --dry-run --forget --help" ;;
        bundle) opts="-i --duration --redact -o --help" ;;
        check) opts="-i -r --local-mac --expect --wait --json --junit --textfile --help" ;;
        demo) opts="--json --events --text --duration --speed --no-mouse --color --metrics --web.listen-address --web.systemd-socket --web.config.file --snapshot-dir --help" ;;
        help) opts="--help" ;;
        show) opts="-i --json --wait --help" ;;
        version) opts="--help" ;;
        *) opts="-i -r --json --events --text --frames --frame --from --duration -w --speed --local-mac --agent --local --willing --tx-interval --force --no-mouse --color --metrics --web.listen-address --web.systemd-socket --web.config.file --snapshot-dir --counters-interval --version --help" ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _dcbtop dcbtop
