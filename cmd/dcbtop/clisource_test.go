// SPDX-License-Identifier: Apache-2.0

package main

// The command line is written down in five places besides the code: each
// command's --help, the man page, the bash and zsh completions and the
// manual (README.md and its chapters in docs/, the Usage block in
// docs/usage.md). These tests hold every one of them to the FlagSet each command
// parses its arguments with (commands()), so that none can lack a flag,
// name one that does not exist or state another default.
//
// A default is stated as "(default X)" or "(...; default X; ...)" and
// must be the flag's DefValue: its value, or for a default that depends
// on the mode or the host, the text documentDefault gives it. A flag
// whose DefValue is "" or "false" has no default to state.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	manPath    = "../../assets/dcbtop.8"
	bashPath   = "../../assets/completion/dcbtop.bash"
	zshPath    = "../../assets/completion/_dcbtop"
	readmePath = "../../README.md"
	// usagePath is the chapter with the Usage block; perfPath the one
	// with the Performance table (bench/readme writes it).
	usagePath = "../../docs/usage.md"
	perfPath  = "../../docs/development.md"
)

// manual returns README.md and every chapter in docs/, one after the
// other.
func manual(t *testing.T) string {
	t.Helper()
	chapters, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(chapters) == 0 {
		t.Fatal("no chapters in docs/")
	}
	var b strings.Builder
	for _, p := range append([]string{readmePath}, chapters...) {
		b.WriteString(readDoc(t, p))
		b.WriteString("\n")
	}
	return b.String()
}

// A cliFlag is a flag as the FlagSet of its command defines it.
type cliFlag struct {
	name   string // without dashes
	def    string // flag.Flag.DefValue
	usage  string // flag.Flag.Usage
	isBool bool   // takes no value
}

// helpFlag is the flag package's own -h, --help, which every command
// takes.
var helpFlag = cliFlag{name: "help", usage: "this help", isBool: true}

// spelled is the flag as the documentation writes it: -i, --json.
func (f cliFlag) spelled() string { return flagName(f.name) }

// needsDefault says whether the flag has a default its help must state.
func (f cliFlag) needsDefault() bool { return f.def != "" && f.def != "false" }

// commandFlags returns c's flags, -h/--help included.
func commandFlags(c command) []cliFlag {
	var fl []cliFlag
	c.flags().VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		fl = append(fl, cliFlag{name: f.Name, def: f.DefValue, usage: f.Usage, isBool: ok && b.IsBoolFlag()})
	})
	return append(fl, helpFlag)
}

// title is how a command is written: dcbtop, dcbtop check.
func title(c command) string {
	if c.name == "" {
		return "dcbtop"
	}
	return "dcbtop " + c.name
}

// flagNames returns the names of the flags of every command, "h" (-h)
// included: what the documentation may name.
func flagNames() map[string]bool {
	names := map[string]bool{"h": true}
	for _, c := range commands() {
		for _, f := range commandFlags(c) {
			names[f.name] = true
		}
	}
	return names
}

// rootFlag returns dcbtop's own flag named name, if there is one.
func rootFlag(name string) (cliFlag, bool) {
	for _, f := range commandFlags(commands()[0]) {
		if f.name == name {
			return f, true
		}
	}
	return cliFlag{}, false
}

// shared says whether c's flag f is dcbtop's own flag of that name (one
// definition, as outputFlags makes them): documented once, in OPTIONS.
func shared(c command, f cliFlag) bool {
	r, ok := rootFlag(f.name)
	return c.name != "" && ok && r == f
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oneLine collapses runs of white space into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var (
	// defaultRE is a stated default: "(default X)", "(...; default: X; ...)".
	defaultRE = regexp.MustCompile(`(?i)(?:^|[(;])\s*default:?\s+([^;)]+?)\s*[;)]`)
	// defaultWordRE and byDefaultRE count the other mentions of a
	// default: "by default" describes behaviour, any other is a default
	// stated in a form the test cannot read.
	defaultWordRE = regexp.MustCompile(`(?i)\bdefaults?\b`)
	byDefaultRE   = regexp.MustCompile(`(?i)\bby default\b`)
)

// statedDefault returns the default an entry of the documentation
// states, and whether it states one; an error when it speaks of a default
// in another form.
func statedDefault(entry string) (string, bool, error) {
	ms := defaultRE.FindAllStringSubmatch(entry, -1)
	others := len(defaultWordRE.FindAllString(entry, -1)) - len(byDefaultRE.FindAllString(entry, -1)) - len(ms)
	switch {
	case others > 0:
		return "", false, fmt.Errorf("speaks of a default other than as (default X): %q", entry)
	case len(ms) > 1:
		return "", false, fmt.Errorf("states %d defaults: %q", len(ms), entry)
	case len(ms) == 0:
		return "", false, nil
	}
	return oneLine(ms[0][1]), true, nil
}

// checkDefault holds the entry of f in the documentation where to f's
// DefValue; required says the entry must state it.
func checkDefault(t *testing.T, where string, f cliFlag, entry string, required bool) {
	t.Helper()
	def, stated, err := statedDefault(entry)
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	switch {
	case err != nil:
		t.Errorf("%s: %s %v", where, f.spelled(), err)
	case stated && squash(def) != squash(f.def):
		t.Errorf("%s: %s: default %q; the code's is %q", where, f.spelled(), def, f.def)
	case !stated && required && f.needsDefault():
		t.Errorf("%s: %s does not state its default (default %s)", where, f.spelled(), f.def)
	}
}

// helpEntryRE is the first line of an option in a help text: two spaces,
// the flag (or "-h, --help"), its argument and maybe its description.
var helpEntryRE = regexp.MustCompile(`^  (-{1,2}[A-Za-z][\w-]*(?:\.[\w-]+)*(?:, -{1,2}[A-Za-z][\w-]*(?:\.[\w-]+)*)*)(?:\s(.*))?$`)

// helpEntries returns the options of a help text: for each flag named
// (without dashes), its entry on one line; an entry goes on on the lines
// indented further.
func helpEntries(text string) map[string]string {
	entries := map[string]string{}
	var names []string
	var b strings.Builder
	flush := func() {
		for _, n := range names {
			entries[n] = oneLine(b.String())
		}
		names = nil
		b.Reset()
	}
	for line := range strings.SplitSeq(text, "\n") {
		if m := helpEntryRE.FindStringSubmatch(line); m != nil {
			flush()
			for n := range strings.SplitSeq(m[1], ", ") {
				names = append(names, strings.TrimLeft(n, "-"))
			}
			b.WriteString(m[2])
			continue
		}
		if names != nil && strings.HasPrefix(line, "   ") {
			b.WriteString(" " + line)
			continue
		}
		flush()
	}
	flush()
	return entries
}

// TestCLISourceHelp: every command's --help has an entry for each of its
// flags, stating the default the FlagSet has, and none for a flag it does
// not have; dcbtop --help names every command.
func TestCLISourceHelp(t *testing.T) {
	for _, c := range commands() {
		where := title(c) + " --help"
		entries := helpEntries(c.usage)
		flags := commandFlags(c)
		for _, f := range flags {
			e, ok := entries[f.name]
			if !ok {
				t.Errorf("%s lacks %s", where, f.spelled())
				continue
			}
			checkDefault(t, where, f, e, true)
		}
		for n := range entries {
			if n != "h" && !slices.ContainsFunc(flags, func(f cliFlag) bool { return f.name == n }) {
				t.Errorf("%s documents %s, which %s does not take", where, flagName(n), title(c))
			}
		}
	}
	for _, name := range commandNames() {
		if !regexp.MustCompile(`(?m)^  dcbtop ` + name + `\b`).MatchString(usage) {
			t.Errorf("dcbtop --help does not list the command %s", name)
		}
	}
}

var (
	manFontRE  = regexp.MustCompile(`\\f[BIRP]`)
	manFlagRE  = regexp.MustCompile(`(?:^|[\s\[(|"/,])(-{1,2}[A-Za-z][\w-]*(?:\.[\w-]+)*)`)
	manMacroRE = regexp.MustCompile(`^\.[A-Za-z]+\s*`)
	// manBareRE is a flag written with plain hyphens, which roff may
	// print as other dashes (copied, the flag would not work).
	manBareRE = regexp.MustCompile(`(?:^|[\s\[(|"])(--?[A-Za-z][\w\\-]*)`)
)

// manText is roff as the reader sees it, near enough: without font
// changes, \- as -.
func manText(s string) string {
	return strings.ReplaceAll(manFontRE.ReplaceAllString(s, ""), `\-`, "-")
}

// manPage is the man page cut into its sections (.SH) and subsections
// (.SS), by title; a subsection "dcbtop help [COMMAND]" is "dcbtop help".
type manPage struct {
	sections, subsections map[string]string
}

func parseManPage(page string) manPage {
	m := manPage{sections: map[string]string{}, subsections: map[string]string{}}
	var sh, ss string
	for line := range strings.SplitSeq(page, "\n") {
		switch {
		case strings.HasPrefix(line, ".SH "):
			sh, ss = strings.Trim(manText(line[4:]), `" `), ""
			continue
		case strings.HasPrefix(line, ".SS "):
			words := strings.Fields(strings.Trim(manText(line[4:]), `" `))
			ss = strings.Join(words[:min(2, len(words))], " ")
			continue
		}
		m.sections[sh] += line + "\n"
		if ss != "" {
			m.subsections[ss] += line + "\n"
		}
	}
	return m
}

// manEntries returns the tagged paragraphs (.TP) of a section that name
// flags in their tag: for each flag (without dashes), the paragraph on
// one line.
func manEntries(section string) map[string]string {
	entries := map[string]string{}
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != ".TP" || i+1 == len(lines) {
			continue
		}
		i++
		var names []string
		for _, m := range manFlagRE.FindAllStringSubmatch(manText(lines[i]), -1) {
			names = append(names, strings.TrimLeft(m[1], "-"))
		}
		var b strings.Builder
		for i+1 < len(lines) && !slices.ContainsFunc([]string{".TP", ".PP", ".P", ".LP", ".IP", ".SS", ".SH"}, func(p string) bool {
			return lines[i+1] == p || strings.HasPrefix(lines[i+1], p+" ")
		}) {
			i++
			b.WriteString(" " + manMacroRE.ReplaceAllString(lines[i], ""))
		}
		for _, n := range names {
			entries[n] = oneLine(strings.ReplaceAll(manText(b.String()), `"`, ""))
		}
	}
	return entries
}

// mentions says whether text names the flag spelled (-i, --json) as a
// word of its own.
func mentions(text, spelled string) bool {
	return regexp.MustCompile(`(?:^|[^\w-])` + regexp.QuoteMeta(spelled) + `(?:$|[^\w-])`).MatchString(text)
}

// TestCLISourceManPage: dcbtop(8) has an entry in OPTIONS for each of
// dcbtop's flags and a subsection of COMMANDS for each command, with an
// entry for each of its flags (or, for one it shares with dcbtop, a
// mention); the defaults agree with the FlagSets; -h, --help is in
// OPTIONS; no flag is named that does not exist, nor written with plain
// hyphens.
func TestCLISourceManPage(t *testing.T) {
	raw := readDoc(t, manPath)
	page := parseManPage(raw)
	options, ok := page.sections["OPTIONS"]
	if !ok {
		t.Fatal("dcbtop(8) has no OPTIONS section")
	}
	for _, c := range commands() {
		where, section := "dcbtop(8) OPTIONS", options
		if c.name != "" {
			where = fmt.Sprintf("dcbtop(8) COMMANDS %q", title(c))
			if section, ok = page.subsections[title(c)]; !ok {
				t.Errorf("dcbtop(8) has no subsection %q in COMMANDS", title(c))
				continue
			}
		}
		entries := manEntries(section)
		flags := commandFlags(c)
		for _, f := range flags {
			if f == helpFlag && c.name != "" {
				continue // OPTIONS says every command takes it
			}
			if e, ok := entries[f.name]; ok {
				checkDefault(t, where, f, e, true)
				continue
			}
			if shared(c, f) && mentions(manText(section), f.spelled()) {
				continue // its entry is dcbtop's, in OPTIONS
			}
			t.Errorf("%s lacks %s", where, f.spelled())
		}
		for n := range entries {
			if n != "h" && !slices.ContainsFunc(flags, func(f cliFlag) bool { return f.name == n }) {
				t.Errorf("%s documents %s, which %s does not take", where, flagName(n), title(c))
			}
		}
	}
	for ss := range page.subsections {
		if name, _ := strings.CutPrefix(ss, "dcbtop "); lookupCommand(name) == nil {
			t.Errorf("dcbtop(8) has a subsection %q, but dcbtop has no such command", ss)
		}
	}
	names := flagNames()
	for _, m := range manFlagRE.FindAllStringSubmatch(manText(raw), -1) {
		if !names[strings.TrimLeft(m[1], "-")] {
			t.Errorf("dcbtop(8) names %s, which no command takes", m[1])
		}
	}
	for line := range strings.SplitSeq(manFontRE.ReplaceAllString(raw, ""), "\n") {
		if strings.HasPrefix(line, `.\"`) {
			continue
		}
		for _, m := range manBareRE.FindAllStringSubmatch(line, -1) {
			t.Errorf("dcbtop(8) writes %s with a plain hyphen: write %s", m[1], strings.ReplaceAll(strings.ReplaceAll(m[1], `\-`, "-"), "-", `\-`))
		}
	}
}

// bashCompletion is what dcbtop.bash completes: the commands, the flags
// of each command ("" for dcbtop itself), the flags whose value it
// completes (or declines to).
type bashCompletion struct {
	commands []string
	opts     map[string][]string
	values   []string
}

var (
	bashValueRE    = regexp.MustCompile(`^\s*([-\w.|]+)\)`)
	bashCommandsRE = regexp.MustCompile(`^\s*(?:local )?commands="([^"]*)"`)
	bashOptsRE     = regexp.MustCompile(`^\s*(\w+|\*)\) opts="([^"]*)"`)
	bashWordsRE    = regexp.MustCompile(`compgen -W "([^"$]*)"`)
	bashIfRE       = regexp.MustCompile(`\$\{words\[1\]\} == (\w+)`)
)

// parseBash reads dcbtop.bash: the flags each command offers, from a
// case on ${words[1]} setting opts="..." (or from compgen -W "..." under
// an if [[ ${words[1]} == NAME ]], dcbtop's own outside any), the
// commands from commands="..." (or the compgen -W of words without
// dashes), the flags whose value is completed from case $prev.
func parseBash(script string) bashCompletion {
	bc := bashCompletion{opts: map[string][]string{}}
	inPrev, ifCmd := false, ""
	for line := range strings.SplitSeq(script, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "case $prev in":
			inPrev = true
			continue
		case inPrev && trimmed == "esac":
			inPrev = false
			continue
		case inPrev:
			if m := bashValueRE.FindStringSubmatch(line); m != nil {
				bc.values = append(bc.values, strings.Split(m[1], "|")...)
			}
			continue
		case trimmed == "fi":
			ifCmd = ""
		}
		if m := bashIfRE.FindStringSubmatch(line); m != nil {
			ifCmd = m[1]
		}
		if m := bashCommandsRE.FindStringSubmatch(line); m != nil {
			bc.commands = strings.Fields(m[1])
		}
		if m := bashOptsRE.FindStringSubmatch(line); m != nil {
			name := m[1]
			if name == "*" {
				name = ""
			}
			bc.opts[name] = strings.Fields(m[2])
			continue
		}
		for _, m := range bashWordsRE.FindAllStringSubmatch(line, -1) {
			words := strings.Fields(m[1])
			switch {
			case len(words) > 0 && strings.HasPrefix(words[0], "-"):
				bc.opts[ifCmd] = words
			case bc.commands == nil:
				bc.commands = words
			}
		}
	}
	slices.Sort(bc.commands)
	return bc
}

// zshSpecRE is an option of _arguments: an exclusion list, a star
// (repeatable), the flag, a description and, for a flag that takes a
// value, ":message:action".
var zshSpecRE = regexp.MustCompile(`^(?:\(([^)]*)\))?\*?(-{1,2}[A-Za-z][\w-]*(?:\.[\w-]+)*)(?:\[[^\]]*\])?(:.*)?$`)

var (
	zshQuotedRE = regexp.MustCompile(`'([^']*)'`)
	zshArrayRE  = regexp.MustCompile(`^\s*(\w+)=\($`)
	zshCaseRE   = regexp.MustCompile(`^\s*(\w+)\)\s*_arguments`)
)

// A zshSpec is one flag of an _arguments spec.
type zshSpec struct {
	name     string   // without dashes
	excludes []string // with dashes
	value    bool     // takes a value
}

// parseZsh reads _dcbtop: each command's specs, from an array opts_NAME
// (opts_dcbtop, or common, for dcbtop itself) or a case NAME) _arguments
// '...' line, and the commands, from the array subcommands ('NAME:...')
// or _values 'command' 'NAME[...]'.
func parseZsh(script string) (specs map[string][]zshSpec, cmds []string) {
	specs = map[string][]zshSpec{}
	array := ""
	for line := range strings.SplitSeq(script, "\n") {
		if m := zshArrayRE.FindStringSubmatch(line); m != nil {
			array = m[1]
			continue
		}
		if strings.TrimSpace(line) == ")" {
			array = ""
			continue
		}
		quoted := zshQuotedRE.FindAllStringSubmatch(line, -1)
		cmd, isCmd := "", false
		switch {
		case array == "subcommands":
			for _, q := range quoted {
				name, _, _ := strings.Cut(q[1], ":")
				cmds = append(cmds, name)
			}
			continue
		case strings.Contains(line, "_values 'command'"):
			for _, q := range quoted[1:] {
				name, _, _ := strings.Cut(q[1], "[")
				cmds = append(cmds, name)
			}
			continue
		case array == "common" || array == "opts_dcbtop":
			isCmd = true
		case strings.HasPrefix(array, "opts_"):
			cmd, isCmd = strings.TrimPrefix(array, "opts_"), true
		}
		if m := zshCaseRE.FindStringSubmatch(line); m != nil && array == "" {
			cmd, isCmd = m[1], true
		}
		if !isCmd {
			continue
		}
		for _, q := range quoted {
			if m := zshSpecRE.FindStringSubmatch(q[1]); m != nil {
				specs[cmd] = append(specs[cmd], zshSpec{name: strings.TrimLeft(m[2], "-"), excludes: strings.Fields(m[1]), value: m[3] != ""})
			}
		}
	}
	slices.Sort(cmds)
	return specs, cmds
}

// TestCLISourceCompletions: the bash and zsh completions offer every flag
// of every command and no other, complete the value of each flag that
// takes one (and of no other), and know every command.
func TestCLISourceCompletions(t *testing.T) {
	bash := parseBash(readDoc(t, bashPath))
	zsh, zshCmds := parseZsh(readDoc(t, zshPath))
	names := commandNames()
	if !slices.Equal(bash.commands, names) {
		t.Errorf("dcbtop.bash completes the commands %q; dcbtop has %q", bash.commands, names)
	}
	if !slices.Equal(zshCmds, names) {
		t.Errorf("_dcbtop completes the commands %q; dcbtop has %q", zshCmds, names)
	}
	values := map[string]bool{}
	for _, v := range bash.values {
		values[strings.TrimLeft(v, "-")] = true
	}
	all := flagNames()
	for v := range values {
		if !all[v] {
			t.Errorf("dcbtop.bash completes the value of %s, which no command takes", flagName(v))
		}
	}
	for _, c := range commands() {
		flags := commandFlags(c)
		has := func(name string) (cliFlag, bool) {
			i := slices.IndexFunc(flags, func(f cliFlag) bool { return f.name == name })
			if i < 0 {
				return cliFlag{}, false
			}
			return flags[i], true
		}
		opts, ok := bash.opts[c.name]
		if !ok {
			t.Errorf("dcbtop.bash has no opts for %s", title(c))
		}
		for _, f := range flags {
			if !slices.Contains(opts, f.spelled()) {
				t.Errorf("dcbtop.bash: %s lacks %s", title(c), f.spelled())
			}
			if !f.isBool && !values[f.name] {
				t.Errorf("dcbtop.bash: %s %s takes a value, but case $prev does not name it", title(c), f.spelled())
			}
			if f.isBool && values[f.name] {
				t.Errorf("dcbtop.bash: %s %s takes no value, but case $prev completes one", title(c), f.spelled())
			}
			i := slices.IndexFunc(zsh[c.name], func(s zshSpec) bool { return s.name == f.name })
			switch {
			case i < 0:
				t.Errorf("_dcbtop: %s lacks %s", title(c), f.spelled())
			case zsh[c.name][i].value == f.isBool:
				t.Errorf("_dcbtop: %s %s: the spec says it takes a value: %v; the FlagSet: %v", title(c), f.spelled(), zsh[c.name][i].value, !f.isBool)
			}
		}
		for _, o := range opts {
			if _, ok := has(strings.TrimLeft(o, "-")); !ok {
				t.Errorf("dcbtop.bash: %s offers %s, which it does not take", title(c), o)
			}
		}
		for _, s := range zsh[c.name] {
			if _, ok := has(s.name); !ok {
				t.Errorf("_dcbtop: %s offers %s, which it does not take", title(c), flagName(s.name))
			}
			for _, x := range s.excludes {
				if _, ok := has(strings.TrimLeft(x, "-")); !ok {
					t.Errorf("_dcbtop: %s %s excludes %s, which %s does not take", title(c), flagName(s.name), x, title(c))
				}
			}
		}
	}
	for cmd := range zsh {
		if cmd != "" && lookupCommand(cmd) == nil {
			t.Errorf("_dcbtop has opts_%s, but dcbtop has no such command", cmd)
		}
	}
}

var (
	readmeEntryRE   = regexp.MustCompile(`^\s+(-{1,2}[A-Za-z][\w-]*(?:\.[\w-]+)*)(?:\s|$)`)
	readmeByDefault = regexp.MustCompile("`(-{1,2}[A-Za-z][\\w-]*(?:\\.[\\w-]+)*)`, ([^,;()`]+?) by default")
)

// TestCLISourceReadme: the option lines of the Usage block
// (docs/usage.md) name only dcbtop's flags and state their defaults as
// the code has them, and so does the prose's "`--flag`, X by default"
// anywhere in the manual (README.md and docs/*.md).
func TestCLISourceReadme(t *testing.T) {
	usage := readDoc(t, usagePath)
	_, block, ok := strings.Cut(usage, "## Usage\n")
	if ok {
		_, block, ok = strings.Cut(block, "```\n")
	}
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("docs/usage.md has no ## Usage with a code block")
	}
	entries := map[string]string{}
	var cur string
	for line := range strings.SplitSeq(block, "\n") {
		if m := readmeEntryRE.FindStringSubmatch(line); m != nil {
			cur = strings.TrimLeft(m[1], "-")
			entries[cur] = strings.TrimPrefix(strings.TrimSpace(line), m[1])
			continue
		}
		trimmed := strings.TrimSpace(line)
		if cur != "" && strings.HasPrefix(line, " ") && !strings.HasPrefix(trimmed, "dcbtop") && !strings.HasPrefix(trimmed, "sudo") {
			entries[cur] = oneLine(entries[cur] + " " + trimmed)
			continue
		}
		cur = ""
	}
	for name, e := range entries {
		f, ok := rootFlag(name)
		if !ok {
			t.Errorf("docs/usage.md Usage documents %s, which dcbtop does not take", flagName(name))
			continue
		}
		checkDefault(t, "docs/usage.md Usage", f, e, false)
	}
	for _, m := range readmeByDefault.FindAllStringSubmatch(manual(t), -1) {
		name, stated := strings.TrimLeft(m[1], "-"), strings.ReplaceAll(m[2], " ", "")
		var defs []string
		for _, c := range commands() {
			for _, f := range commandFlags(c) {
				if f.name == name {
					defs = append(defs, f.def)
				}
			}
		}
		if !slices.Contains(defs, stated) {
			t.Errorf("the manual: %q: the code's default for %s is %q", m[0], m[1], defs)
		}
	}
}

// TestREADMEPerformance: the Performance table (docs/development.md) is
// bench/results.md's, as bench/readme copies it (never written by hand).
func TestREADMEPerformance(t *testing.T) {
	readme, err := os.ReadFile(perfPath)
	if err != nil {
		t.Fatal(err)
	}
	results, err := os.ReadFile("../../bench/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n<!-- bench:begin -->\n")
	block, _, ok2 := strings.Cut(rest, "<!-- bench:end -->\n")
	if !ok || !ok2 {
		t.Fatal("docs/development.md has no <!-- bench:begin --> ... <!-- bench:end --> block")
	}
	var want []string
	lines := strings.Split(string(results), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Measured by") {
			want = append(want, l, lines[i+1], "")
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "|") {
			want = append(want, l)
		}
	}
	if diff := cmp.Diff(strings.Join(want, "\n")+"\n", block); diff != "" {
		t.Errorf("docs/development.md's Performance table differs from bench/results.md (run bench/readme) (-results +docs):\n%s", diff)
	}
}
