// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/testbed"
)

func TestDamerauLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"json", "json", 0},
		{"", "json", 4},
		{"jsn", "json", 1},    // a deletion
		{"jsoon", "json", 1},  // an insertion
		{"jsob", "json", 1},   // a substitution
		{"josn", "json", 1},   // a transposition
		{"chekc", "check", 1}, // a transposition
		{"ca", "abc", 2},      // 3 as optimal string alignment
		{"evnets", "events", 1},
		{"frobnicate", "force", 6},
	}
	for _, tt := range tests {
		if got := damerauLevenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("damerauLevenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := damerauLevenshtein(tt.b, tt.a); got != tt.want {
			t.Errorf("damerauLevenshtein(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	root := []string{"i", "r", "json", "events", "duration", "no-mouse", "color", "metrics", "snapshot-dir",
		"speed", "w", "agent", "local", "willing", "tx-interval", "force", "counters-interval", "version", "help"}
	cmds := []string{"apply", "check", "demo", "help", "version"}
	tests := []struct {
		typed      string
		candidates []string
		want       string
	}{
		{"jsn", root, "json"},
		{"JSON", root, "json"},
		{"evnets", root, "events"},
		{"colour", root, "color"},
		{"snapshotdir", root, "snapshot-dir"},
		{"tx-intervall", root, "tx-interval"},
		{"counters", root, "counters-interval"}, // a unique prefix
		{"ver", root, "version"},                // a unique prefix
		{"co", root, ""},                        // color, counters-interval
		{"x", root, ""},                         // one letter from -i, -r, -w
		{"e", root, ""},                         // a prefix of one letter
		{"frobnicate", root, ""},
		{"chekc", cmds, "check"},
		{"dmeo", cmds, "demo"},
		{"aply", cmds, "apply"},
		{"hlep", cmds, "help"},
		{"verison", cmds, "version"},
		{"x.pcap", cmds, ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.typed, tt.candidates); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// TestSuggestions: an unknown flag or command that looks like a typo of
// one gets "did you mean", instead of the pointer to --help.
func TestSuggestions(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--jsn"}, 2, "dcbtop: unknown flag --jsn (did you mean --json?)\n"},
		{[]string{"-jsn"}, 2, "dcbtop: unknown flag -jsn (did you mean --json?)\n"},
		{[]string{"-r", "x", "--evnets"}, 2, "dcbtop: unknown flag --evnets (did you mean --events?)\n"},
		{[]string{"--counters=2s"}, 2, "dcbtop: unknown flag --counters (did you mean --counters-interval?)\n"},
		{[]string{"--hlep"}, 2, "dcbtop: unknown flag --hlep (did you mean --help?)\n"},
		{[]string{"--frobnicate"}, 2, "dcbtop: unknown flag --frobnicate (see dcbtop --help)\n"},
		{[]string{"chekc"}, 2, "dcbtop: unknown command \"chekc\" (did you mean check?)\n"},
		{[]string{"dmeo", "--json"}, 2, "dcbtop: unknown command \"dmeo\" (did you mean demo?)\n"},
		{[]string{"x.pcap"}, 2, "dcbtop: unexpected argument \"x.pcap\" (see dcbtop --help)\n"},
		{[]string{"-r", "x", "chekc"}, 2, "dcbtop: unexpected argument \"chekc\" (see dcbtop --help)\n"},
		{[]string{"--json", "check"}, 2, "dcbtop: unexpected argument \"check\" (the command comes first: dcbtop check ...)\n"},
		{[]string{"demo", "--sped", "2"}, 2, "dcbtop: demo: unknown flag --sped (did you mean --speed?)\n"},
		{[]string{"apply", "--wiling", "on"}, 2, "dcbtop: apply: unknown flag --wiling (did you mean --willing?)\n"},
		{[]string{"check", "--jsn"}, 3, "dcbtop check: UNKNOWN: unknown flag --jsn (did you mean --json?)\n"},
		{[]string{"check", "--wiat", "1s"}, 3, "dcbtop check: UNKNOWN: unknown flag --wiat (did you mean --wait?)\n"},
		{[]string{"check", "--bogus"}, 3, "dcbtop check: UNKNOWN: unknown flag --bogus (dcbtop check --help)\n"},
		{[]string{"help", "chekc"}, 2, "dcbtop: help: unknown command \"chekc\" (did you mean check?)\n"},
		{[]string{"help", "bogus"}, 2, "dcbtop: help: unknown command \"bogus\" (the commands: apply, bundle, check, demo, help, show, version)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || out != "" {
				t.Errorf("exit %d, stdout %q; want %d, nothing", code, out, tt.code)
			}
			if diff := cmp.Diff(tt.stderr, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHelpCommand: dcbtop help [COMMAND] prints what --help prints.
func TestHelpCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"help"}, usage},
		{[]string{"help", "check"}, checkUsage},
		{[]string{"help", "apply"}, applyUsage},
		{[]string{"help", "demo"}, demoUsage},
		{[]string{"help", "help"}, helpUsage},
		{[]string{"help", "version"}, versionUsage},
		{[]string{"help", "--help"}, helpUsage},
		{[]string{"version", "-h"}, versionUsage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != ExitOK || errOut != "" {
				t.Errorf("exit %d, stderr %q; want 0, nothing", code, errOut)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
	// Each command's help is what COMMAND --help prints.
	for _, c := range commands() {
		if c.name == "" {
			continue
		}
		_, viaHelp, _ := runCLI(t, "help", c.name)
		code, viaFlag, _ := runCLI(t, c.name, "--help")
		if code != ExitOK || viaFlag != viaHelp {
			t.Errorf("dcbtop %s --help: exit %d; same as dcbtop help %s: %v", c.name, code, c.name, viaFlag == viaHelp)
		}
	}
	code, _, errOut := runCLI(t, "help", "check", "demo")
	if want := "dcbtop: help: unexpected argument \"demo\" (one COMMAND at most) (see dcbtop help --help)\n"; code != ExitUsage || errOut != want {
		t.Errorf("help check demo: exit %d, stderr %q; want 2, %q", code, errOut, want)
	}
}

// TestVersionCommand: dcbtop version prints what --version prints.
func TestVersionCommand(t *testing.T) {
	saved, savedRev := version, revision
	t.Cleanup(func() { version, revision = saved, savedRev })
	version, revision = "v1.2.3", "0123456789ab"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != ExitOK || out != "dcbtop v1.2.3 (git 0123456789ab)\n" || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, _, errOut := runCLI(t, "version", "now")
	if want := "dcbtop: version: unexpected argument \"now\" (see dcbtop version --help)\n"; code != ExitUsage || errOut != want {
		t.Errorf("version now: exit %d, stderr %q; want 2, %q", code, errOut, want)
	}
}

// TestVersionInfo: the Makefile's -ldflags win; without them, what Go
// embeds in a plain go build.
func TestVersionInfo(t *testing.T) {
	const rev = "7aadf03c1d2e3f405162738495a6b7c8d9e0f1a2"
	build := func(mainVersion string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/dcbtop/dcbtop", Version: mainVersion}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	tests := []struct {
		name              string
		version, revision string
		bi                *debug.BuildInfo
		want              [2]string
	}{
		{"no build info", "dev", "unknown", nil, [2]string{"dev", "unknown"}},
		{"ldflags", "v0.9.0-3-g7aadf03", "7aadf03", build("(devel)", "vcs.revision", rev, "vcs.modified", "true"),
			[2]string{"v0.9.0-3-g7aadf03", "7aadf03"}},
		{"plain go build, clean", "dev", "unknown", build("v0.0.0-20261125190000-7aadf03c1d2e", "vcs.revision", rev, "vcs.modified", "false"),
			[2]string{"v0.0.0-20261125190000-7aadf03c1d2e", "7aadf03c1d2e"}},
		{"plain go build, changed", "dev", "unknown", build("v0.0.0-20261125190000-7aadf03c1d2e+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			[2]string{"v0.0.0-20261125190000-7aadf03c1d2e+dirty", "7aadf03c1d2e-dirty"}},
		{"no module version", "dev", "unknown", build("(devel)", "vcs.revision", rev), [2]string{"dev", "7aadf03c1d2e"}},
		{"go install module@version", "dev", "unknown", build("v1.0.0"), [2]string{"v1.0.0", "unknown"}},
		{"-buildvcs=false", "dev", "unknown", build("(devel)"), [2]string{"dev", "unknown"}},
		{"short revision", "dev", "unknown", build("", "vcs.revision", "abc"), [2]string{"dev", "abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, r := versionInfo(tt.version, tt.revision, tt.bi)
			if diff := cmp.Diff(tt.want, [2]string{v, r}); diff != "" {
				t.Errorf("versionInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBashCompletion runs dcbtop.bash's function in bash (with the two
// bash-completion helpers it uses stubbed) on typical command lines.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	const stubs = `
_init_completion() { words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; cur=${words[cword]}; prev=${words[cword-1]}; }
_filedir() { COMPREPLY=("<files${1:+ $1}>"); }
complete() { :; }
`
	tests := []struct {
		words []string // the last is the word completed
		want  string
	}{
		{[]string{"dcbtop", ""}, "apply bundle check demo help show version"},
		{[]string{"dcbtop", "ch"}, "check"},
		{[]string{"dcbtop", "--cou"}, "--counters-interval"},
		{[]string{"dcbtop", "--no"}, "--no-mouse"},
		{[]string{"dcbtop", "--counters-interval", ""}, ""},
		{[]string{"dcbtop", "--color", ""}, "auto always never"},
		{[]string{"dcbtop", "-i", "lo", "--wi"}, "--willing"},
		{[]string{"dcbtop", "--snapshot-dir", ""}, "<files -d>"},
		{[]string{"dcbtop", "demo", "--no"}, "--no-mouse"},
		{[]string{"dcbtop", "demo", "--s"}, "--speed --snapshot-dir"},
		{[]string{"dcbtop", "check", "--j"}, "--json --junit"},
		{[]string{"dcbtop", "check", "--expect", "roce"}, "roce-k8s roce_integration_test.go"}, // presets, then files
		{[]string{"dcbtop", "check", "--expect", "az"}, "azure-local"},
		{[]string{"dcbtop", "apply", "-i", "lo", "p"}, "<files json>"},
		{[]string{"dcbtop", "apply", "--"}, "--willing --trust --dscp --dscp-delete --pfc-delay --buffer --maxrate --dcbx-mode --pfc-storm-timeout --rewr-dscp --rewr-dscp-delete --roce-tos --dry-run --forget --help"},
		{[]string{"dcbtop", "help", "d"}, "demo"},
		{[]string{"dcbtop", "version", "--"}, "--help"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			var words strings.Builder
			for _, w := range tt.words {
				words.WriteString(" '" + w + "'")
			}
			script := stubs + "source " + bashPath + "\nCOMP_WORDS=(" + words.String() + ")\nCOMP_CWORD=" +
				strconv.Itoa(len(tt.words)-1) + "\n_dcbtop\necho \"${COMPREPLY[*]}\"\n"
			out, err := exec.Command(bash, "--norc", "--noprofile", "-c", script).CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v: %s", err, out)
			}
			if diff := cmp.Diff(tt.want, strings.TrimSuffix(string(out), "\n")); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestZshCompletion runs _dcbtop in zsh with _arguments and _describe
// stubbed: each command line reaches the specs of its command, the
// command word taking the program's place.
func TestZshCompletion(t *testing.T) {
	testbed.RequireCommands(t, "zsh") // make deps installs it; CI may not skip
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Fatal(err)
	}
	const stubs = `
_arguments() { print -r -- "_arguments ${words[1]} $CURRENT $#" }
_describe() { print -r -- "_describe $*" }
`
	// arrayLen is the number of elements of the array name in _dcbtop.
	file := readDoc(t, zshPath)
	arrayLen := func(name string) int {
		_, rest, _ := strings.Cut(file, "\n  "+name+"=(\n")
		body, _, _ := strings.Cut(rest, "\n  )\n")
		return len(strings.Split(body, "\n"))
	}
	tests := []struct {
		words []string // the last is the word completed
		want  string   // the command word, CURRENT and the number of specs
	}{
		{[]string{"dcbtop", ""}, "_describe -t commands dcbtop command subcommands"},
		{[]string{"dcbtop", "--js"}, fmt.Sprintf("_arguments dcbtop 2 %d", arrayLen("opts_dcbtop"))},
		{[]string{"dcbtop", "-i", "lo", "--w"}, fmt.Sprintf("_arguments dcbtop 4 %d", arrayLen("opts_dcbtop"))},
		{[]string{"dcbtop", "check", "--j"}, fmt.Sprintf("_arguments check 2 %d", arrayLen("opts_check"))},
		{[]string{"dcbtop", "demo", "--no"}, fmt.Sprintf("_arguments demo 2 %d", arrayLen("opts_demo"))},
		{[]string{"dcbtop", "apply", "-i", "lo", ""}, fmt.Sprintf("_arguments apply 4 %d", arrayLen("opts_apply"))},
		{[]string{"dcbtop", "help", ""}, fmt.Sprintf("_arguments help 2 %d", arrayLen("opts_help"))},
		{[]string{"dcbtop", "version", "--"}, fmt.Sprintf("_arguments version 2 %d", arrayLen("opts_version"))},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			script := stubs + "source " + zshPath + " >/dev/null\nwords=("
			for _, w := range tt.words {
				script += " '" + w + "'"
			}
			script += ")\nCURRENT=" + strconv.Itoa(len(tt.words)) + "\n_dcbtop\n"
			out, err := exec.Command(zsh, "-f", "-c", script).CombinedOutput()
			if err != nil {
				t.Fatalf("zsh: %v: %s", err, out)
			}
			if diff := cmp.Diff(tt.want, strings.TrimSuffix(string(out), "\n")); diff != "" {
				t.Errorf("completion (-want +got):\n%s", diff)
			}
		})
	}
}
