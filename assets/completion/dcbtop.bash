# bash completion for dcbtop
_dcbtop() {
    local cur prev words cword
    _init_completion || return
    case $prev in
        -i) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
        -r|-w|--local|--expect) _filedir; return ;;
        --snapshot-dir) _filedir -d; return ;;
        --willing) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --duration|--tx-interval|--speed|--metrics|--wait) return ;;
    esac
    if [[ $cword -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "demo apply check" -- "$cur")); return
    fi
    if [[ ${words[1]} == demo ]]; then
        COMPREPLY=($(compgen -W "--json --events --duration --speed --metrics --color --snapshot-dir --help" -- "$cur"))
        return
    fi
    if [[ ${words[1]} == check ]]; then
        COMPREPLY=($(compgen -W "-i -r --expect --wait --json --junit --help" -- "$cur"))
        return
    fi
    if [[ ${words[1]} == apply ]]; then
        [[ $cur == -* ]] && COMPREPLY=($(compgen -W "-i --willing --help" -- "$cur")) || _filedir json
        return
    fi
    COMPREPLY=($(compgen -W "-i -r --json --events --duration -w --speed --agent --local --willing --tx-interval --force --metrics --color --snapshot-dir --version --help" -- "$cur"))
}
complete -F _dcbtop dcbtop
