// SPDX-License-Identifier: Apache-2.0

package main

// The flag values dcbtop's commands share, the parsing of a command's
// flags, and typo suggestions ("did you mean --json?").

import (
	"errors"
	"flag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/ui"
)

// durationValue is a duration flag whose error shows the form wanted
// (Go's says "parse error"). Zero is "not given" and prints as "".
type durationValue struct{ p *time.Duration }

func (v durationValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration like 5s or 2m")
	}
	*v.p = d
	return nil
}

// durationFlag defines a duration flag with the default value.
func durationFlag(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(durationValue{p}, name, usage)
}

// speedValue is a speed factor between min and max (max 0: no bound);
// negative is "not given" and prints as "".
type speedValue struct {
	p        *float64
	min, max float64
	want     string // the error: what is wanted
}

func (v speedValue) String() string {
	if v.p == nil || *v.p < 0 {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v speedValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < v.min || (v.max > 0 && f > v.max) || math.IsInf(f, 0) || math.IsNaN(f) {
		return errors.New(v.want)
	}
	*v.p = f
	return nil
}

// onOffValue is an on|off flag; set, when not nil, records that it was
// given.
type onOffValue struct{ p, set *bool }

func (v onOffValue) String() string {
	if v.p == nil || *v.p {
		return "on"
	}
	return "off"
}

func (v onOffValue) Set(s string) error {
	switch s {
	case "on":
		*v.p = true
	case "off":
		*v.p = false
	default:
		return errors.New("want on or off")
	}
	if v.set != nil {
		*v.set = true
	}
	return nil
}

// optOnOffValue is an on|off flag without a default: nil until given.
type optOnOffValue struct{ p **bool }

func (v optOnOffValue) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return onOffValue{p: *v.p}.String()
}

func (v optOnOffValue) Set(s string) error {
	var b bool
	if err := (onOffValue{p: &b}).Set(s); err != nil {
		return err
	}
	*v.p = &b
	return nil
}

// colorValue is --color.
type colorValue struct{ p *ui.ColorMode }

func (v colorValue) String() string {
	if v.p == nil {
		return ui.ColorAuto.String()
	}
	return v.p.String()
}

func (v colorValue) Set(s string) error {
	m, err := ui.ParseColorMode(s)
	if err != nil {
		return errors.New("want auto, always or never")
	}
	*v.p = m
	return nil
}

// documentDefault sets the default name's help states when it is not
// one value (it depends on the mode or on the host). The flag package
// keeps DefValue for usage messages; clisource_test.go holds --help,
// dcbtop(8) and docs/usage.md to it.
func documentDefault(fs *flag.FlagSet, name, text string) {
	fs.Lookup(name).DefValue = text
}

// A hintError is a usage error that carries its own hint ("did you mean
// --json?"), printed instead of the pointer to --help.
type hintError struct{ msg, hint string }

func (e *hintError) Error() string { return e.msg + " (" + e.hint + ")" }

// flagNameRE finds the flag a Go flag error names ("-bogus").
var flagNameRE = regexp.MustCompile(`(?:defined: |argument: |for flag )-([A-Za-z0-9][-A-Za-z0-9]*)`)

// parseFlags parses args with fs; a flag error names the flag as it was
// typed (--bogus, not -bogus), an unknown flag gets a suggestion when it
// looks like a typo of one of fs's, and the help request stays
// flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	m := flagNameRE.FindStringSubmatch(msg)
	if m == nil {
		return errors.New(msg)
	}
	typed := "-" + m[1]
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--"+m[1] || strings.HasPrefix(a, "--"+m[1]+"=") {
			typed = "--" + m[1]
			break
		}
	}
	msg = strings.Replace(msg, "-"+m[1], typed, 1)
	if !strings.HasPrefix(msg, "flag provided but not defined: ") {
		return errors.New(msg)
	}
	msg = "unknown flag " + typed
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	names = append(names, "help") // the flag package's own -h, --help
	if s := suggest(m[1], names); s != "" {
		return &hintError{msg: msg, hint: "did you mean " + flagName(s) + "?"}
	}
	return errors.New(msg)
}

// flagName is how dcbtop's help writes the flag name: -i, --json.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// suggest returns the one of candidates that typed is most likely a typo
// of: the only one nearest to it within a Damerau-Levenshtein distance of
// 2 and shorter than either word ("-x" is not a typo of "-i", nor "--ver"
// of "-r"), else the only one that typed (2 letters or more) begins; ""
// when there is none or no single one. Case is ignored.
func suggest(typed string, candidates []string) string {
	t := strings.ToLower(typed)
	best, bestD, tie := "", 3, false
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := damerauLevenshtein(t, lc)
		if d >= min(len([]rune(t)), len([]rune(lc))) {
			continue
		}
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD && c != best:
			tie = true
		}
	}
	if best != "" && !tie {
		return best
	}
	if len([]rune(t)) < 2 {
		return ""
	}
	prefixed := ""
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), t) {
			if prefixed != "" && prefixed != c {
				return ""
			}
			prefixed = c
		}
	}
	return prefixed
}

// damerauLevenshtein is the edit distance between a and b counting
// insertions, deletions, substitutions and transpositions of adjacent
// runes, any substring being edited more than once (the unrestricted
// distance of Lowrance and Wagner, not the optimal string alignment).
func damerauLevenshtein(a, b string) int {
	s, t := []rune(a), []rune(b)
	inf := len(s) + len(t)
	// d[i+1][j+1] is the distance between s[:i] and t[:j]; row and
	// column 0 hold inf.
	d := make([][]int, len(s)+2)
	for i := range d {
		d[i] = make([]int, len(t)+2)
	}
	d[0][0] = inf
	for i := 0; i <= len(s); i++ {
		d[i+1][0], d[i+1][1] = inf, i
	}
	for j := 0; j <= len(t); j++ {
		d[0][j+1], d[1][j+1] = inf, j
	}
	last := map[rune]int{} // the last row each rune of s was seen in
	for i := 1; i <= len(s); i++ {
		db := 0 // the last column of this row where s[i-1] matched
		for j := 1; j <= len(t); j++ {
			i1, j1 := last[t[j-1]], db
			cost := 1
			if s[i-1] == t[j-1] {
				cost, db = 0, j
			}
			d[i+1][j+1] = min(
				d[i][j]+cost, // substitution (or match)
				d[i+1][j]+1,  // insertion
				d[i][j+1]+1,  // deletion
				d[i1][j1]+(i-i1-1)+1+(j-j1-1), // transposition
			)
		}
		last[s[i-1]] = i
	}
	return d[len(s)+1][len(t)+1]
}

// macValue is a flag holding a MAC address (six hexadecimal octets
// separated by colons or hyphens), nil until set.
type macValue struct{ p **lldp.MAC }

func (v macValue) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return (*v.p).String()
}

func (v macValue) Set(s string) error {
	var m lldp.MAC
	if err := m.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want a MAC address like 02:00:00:00:00:01")
	}
	*v.p = &m
	return nil
}

// frameValue is --frame N: an LLDPDU's number, 1 or more; 0 is "not
// given" and prints as "".
type frameValue struct{ p *uint64 }

func (v frameValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v frameValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return errors.New("want an LLDPDU's number, 1 or more (as --frames numbers them)")
	}
	*v.p = n
	return nil
}
