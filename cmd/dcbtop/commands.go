// SPDX-License-Identifier: Apache-2.0

package main

// dcbtop's commands (dcbtop COMMAND [ARGS]), dcbtop help [COMMAND] and
// dcbtop version. The table is the one list of commands: Run dispatches
// on it, and clisource_test.go holds --help, dcbtop(8), the completions
// and the Usage block of docs/usage.md to every command's flags.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
)

// A command is one of dcbtop's commands.
type command struct {
	name  string // "" for dcbtop itself
	usage string // its help: dcbtop COMMAND --help, dcbtop help COMMAND
	// flags defines the command's flags, with their defaults, on options
	// of their own: the FlagSet the command parses its arguments with.
	flags func() *flag.FlagSet
	run   func(ctx context.Context, args []string, env Env) int
}

// commands returns dcbtop itself (name "", run nil: Run parses its flags)
// and its commands in the order of their names.
func commands() []command {
	return []command{
		{name: "", usage: usage, flags: func() *flag.FlagSet { return rootFlags(&options{}) }},
		{name: "apply", usage: applyUsage, flags: func() *flag.FlagSet { return applyFlags(&applyOptions{}, new([]string)) }, run: runApply},
		{name: "bundle", usage: bundleUsage, flags: func() *flag.FlagSet { return bundleFlags(&bundleOptions{}) }, run: runBundle},
		{name: "check", usage: checkUsage, flags: func() *flag.FlagSet { return checkFlags(&checkOptions{}) }, run: runCheck},
		{name: "demo", usage: demoUsage, flags: func() *flag.FlagSet { return demoFlags(&options{}, new(float64)) }, run: runDemo},
		{name: "help", usage: helpUsage, flags: func() *flag.FlagSet { return noFlags("help") }, run: runHelp},
		{name: "show", usage: showUsage, flags: func() *flag.FlagSet { return showFlags(&showOptions{}) }, run: runShow},
		{name: "version", usage: versionUsage, flags: func() *flag.FlagSet { return noFlags("version") }, run: runVersion},
	}
}

// lookupCommand returns the command named name, or nil.
func lookupCommand(name string) *command {
	if name == "" {
		return nil
	}
	cs := commands()
	if i := slices.IndexFunc(cs, func(c command) bool { return c.name == name }); i >= 0 {
		return &cs[i]
	}
	return nil
}

// commandNames returns the names of dcbtop's commands.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	return names
}

// strayArgument is the error for a positional argument dcbtop takes none
// of. first says it came before any flag, where a command goes: a word
// that looks like a typo of one is said to be an unknown command.
func strayArgument(arg string, first bool) error {
	msg := fmt.Sprintf("unexpected argument %q", arg)
	if lookupCommand(arg) != nil {
		return &hintError{msg: msg, hint: "the command comes first: dcbtop " + arg + " ..."}
	}
	if s := suggest(arg, commandNames()); s != "" && first {
		return &hintError{msg: fmt.Sprintf("unknown command %q", arg), hint: "did you mean " + s + "?"}
	}
	return fmt.Errorf("%s", msg)
}

// noFlags is the FlagSet of a command without flags (but -h, --help).
func noFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("dcbtop "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// helpUsage is dcbtop help --help.
const helpUsage = `usage: dcbtop help [COMMAND]

Prints dcbtop's help (the same as dcbtop --help), or COMMAND's (the same
as dcbtop COMMAND --help), and exits. dcbtop --help lists the commands.

  -h, --help   this help

Example:
  dcbtop help check
`

// runHelp is dcbtop help [COMMAND].
func runHelp(_ context.Context, args []string, env Env) int {
	fs := noFlags("help")
	err := parseFlags(fs, args)
	if err == nil && fs.NArg() > 1 {
		err = fmt.Errorf("unexpected argument %q (one COMMAND at most)", fs.Arg(1))
	}
	if err != nil {
		return usageError(env, err, "help", helpUsage)
	}
	if fs.NArg() == 0 {
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	name := fs.Arg(0)
	c := lookupCommand(name)
	if c == nil {
		hint := "the commands: " + strings.Join(commandNames(), ", ")
		if s := suggest(name, commandNames()); s != "" {
			hint = "did you mean " + s + "?"
		}
		return usageError(env, &hintError{msg: fmt.Sprintf("unknown command %q", name), hint: hint}, "help", helpUsage)
	}
	fmt.Fprint(env.Stdout, c.usage)
	return ExitOK
}

// versionUsage is dcbtop version --help.
const versionUsage = `usage: dcbtop version

Prints dcbtop's version and the git revision it was built from (the same
as dcbtop --version), and exits.

  -h, --help   this help
`

// runVersion is dcbtop version.
func runVersion(_ context.Context, args []string, env Env) int {
	fs := noFlags("version")
	err := parseFlags(fs, args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		return usageError(env, err, "version", versionUsage)
	}
	fmt.Fprint(env.Stdout, versionLine())
	return ExitOK
}

// versionLine is what dcbtop --version and dcbtop version print.
func versionLine() string {
	return fmt.Sprintf("dcbtop %s (git %s)\n", version, revision)
}

// versionInfo returns the version and the revision dcbtop reports: the
// ones given (set by the Makefile with -ldflags -X) unless they are the
// placeholders "dev" and "unknown", in which case what Go embeds in a
// plain go build (bi, nil when there is none): the main module's version
// (unless "(devel)") and the VCS revision, shortened to 12 hex digits
// and marked "-dirty" when the work tree had changes (vcs.revision,
// vcs.modified).
func versionInfo(version, revision string, bi *debug.BuildInfo) (string, string) {
	if bi == nil {
		return version, revision
	}
	if v := bi.Main.Version; version == "dev" && v != "" && v != "(devel)" {
		version = v
	}
	if revision != "unknown" {
		return version, revision
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return version, revision
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return version, rev
}
