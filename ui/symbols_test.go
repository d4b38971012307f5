// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// TestASCIILocale decides as the C library does: LC_ALL, then LC_CTYPE,
// then LANG, the first set and not empty; C, POSIX, none and any codeset
// but UTF-8 are ASCII.
func TestASCIILocale(t *testing.T) {
	tests := []struct {
		name                 string
		lcAll, lcCtype, lang string
		want                 bool
	}{
		{name: "unset", want: true},
		{name: "LANG=C", lang: "C", want: true},
		{name: "LANG=POSIX", lang: "POSIX", want: true},
		{name: "LANG empty", lang: "", want: true},
		{name: "LANG UTF-8", lang: "en_US.UTF-8", want: false},
		{name: "LANG utf8", lang: "en_US.utf8", want: false},
		{name: "C.UTF-8", lang: "C.UTF-8", want: false},
		{name: "modifier", lang: "de_DE.UTF-8@euro", want: false},
		{name: "ISO-8859-1", lang: "de_DE.ISO-8859-1", want: true},
		{name: "no codeset", lang: "de_DE", want: true},
		{name: "LC_ALL=C over a UTF-8 LANG", lcAll: "C", lang: "en_US.UTF-8", want: true},
		{name: "LC_ALL UTF-8 over LANG=C", lcAll: "en_US.UTF-8", lang: "C", want: false},
		{name: "LC_ALL=POSIX over LC_CTYPE", lcAll: "POSIX", lcCtype: "en_US.UTF-8", want: true},
		{name: "LC_CTYPE over LANG", lcCtype: "en_US.UTF-8", lang: "C", want: false},
		{name: "LC_CTYPE=C over LANG", lcCtype: "C", lang: "en_US.utf8", want: true},
		{name: "LC_ALL empty: LC_CTYPE", lcAll: "", lcCtype: "de_DE.ISO-8859-1", lang: "en_US.UTF-8", want: true},
		{name: "LC_ALL empty, LC_CTYPE empty: LANG", lang: "en_US.UTF-8", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"LC_ALL": tt.lcAll, "LC_CTYPE": tt.lcCtype, "LANG": tt.lang}
			if got := ASCIILocale(func(k string) string { return env[k] }); got != tt.want {
				t.Errorf("ASCIILocale(LC_ALL=%q LC_CTYPE=%q LANG=%q) = %v, want %v", tt.lcAll, tt.lcCtype, tt.lang, got, tt.want)
			}
		})
	}
}

// TestASCIIFrame folds text to ASCII keeping every column: the screen's
// symbols one for one, anything else as wide as it is, and a cut's "…"
// as "..." over the cells before it; escape sequences stay.
func TestASCIIFrame(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a · b — c", "a . b - c"},
		{"\x1b[1m●\x1b[m on", "\x1b[1m*\x1b[m on"},
		{"┃│─━", "||--"},
		{"▁▂▃▄▅▆▇█", "_.:-=+*#"},
		{"cut her…", "cut h..."},
		{"ab\x1b[2m…\x1b[m", "..\x1b[2m.\x1b[m"},
		{"a…", "a."},
		{"x\n…", "x\n."},
		{"日本 ok", "???? ok"},
		{"e\u0301t\u00e9", "et?"}, // the combining accent has no cell
		{"\ufffd]0;x", "?]0;x"},
		{"✓✗⚠ℹ★≠≈", "+x!i*#~"},
	}
	for _, tt := range tests {
		got := asciiFrame(tt.in)
		if got != tt.want {
			t.Errorf("asciiFrame(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for i, l := range strings.Split(tt.in, "\n") {
			if w, gw := ansi.StringWidth(l), ansi.StringWidth(strings.Split(got, "\n")[i]); w != gw {
				t.Errorf("asciiFrame(%q) line %d: %d cells, was %d", tt.in, i, gw, w)
			}
		}
	}
}

// TestSymbolSets: every ASCII symbol is ASCII and as wide as its Unicode
// counterpart, but the mismatch mark and the ellipsis.
func TestSymbolSets(t *testing.T) {
	u, a := UnicodeSymbols(), ASCIISymbols()
	pairs := map[string][2]string{
		"Diff": {u.Diff, a.Diff}, "On": {u.On, a.On}, "Off": {u.Off, a.Off}, "Absent": {u.Absent, a.Absent},
		"Cursor": {u.Cursor, a.Cursor}, "Focus": {u.Focus, a.Focus}, "Remote": {u.Remote, a.Remote},
		"Multi": {u.Multi, a.Multi}, "Error": {u.Error, a.Error}, "Warning": {u.Warning, a.Warning},
		"Info": {u.Info, a.Info}, "OK": {u.OK, a.OK}, "Derived": {u.Derived, a.Derived}, "Sep": {u.Sep, a.Sep},
		"Ellipsis": {u.Ellipsis, a.Ellipsis}, "RuleH": {u.RuleH, a.RuleH}, "RuleV": {u.RuleV, a.RuleV},
		"Up": {u.Up, a.Up}, "Down": {u.Down, a.Down}, "GaugeFull": {u.GaugeFull, a.GaugeFull},
		"GaugeEmpty": {u.GaugeEmpty, a.GaugeEmpty}, "Live": {u.Live, a.Live}, "Play": {u.Play, a.Play},
		"Stop": {u.Stop, a.Stop}, "Demo": {u.Demo, a.Demo}, "Times": {u.Times, a.Times},
	}
	for i := range u.Spark {
		pairs["Spark"+string(rune('0'+i))] = [2]string{u.Spark[i], a.Spark[i]}
	}
	var wider []string
	for name, p := range pairs {
		if strings.IndexFunc(p[1], func(r rune) bool { return r >= 0x80 }) >= 0 || p[1] == "" {
			t.Errorf("ASCIISymbols().%s = %q", name, p[1])
		}
		if width(p[0]) != width(p[1]) {
			wider = append(wider, name)
		}
	}
	if diff := cmp.Diff([]string{"Diff", "Ellipsis"}, slices.Sorted(slices.Values(wider))); diff != "" {
		t.Errorf("symbols of another width (-want +got):\n%s", diff)
	}
	if u.ASCII || !a.ASCII {
		t.Errorf("ASCII: Unicode %v, ASCII %v", u.ASCII, a.ASCII)
	}
	// Markers that can stand on one screen must tell themselves apart
	// in ASCII too (the focused pane's title, the cursor's row).
	if a.Focus == a.Cursor {
		t.Errorf("ASCII Focus and Cursor are both %q", a.Focus)
	}
}

// TestWithASCII: the model's screen is ASCII with WithASCII(true), in
// colour or not, the help's box included; and Unicode without it.
func TestWithASCII(t *testing.T) {
	s := realistic(t)
	for _, color := range []ColorMode{ColorAlways, ColorNever} {
		h := newHarness(t, s, nil, WithASCII(true), WithColor(color))
		h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
		port := h.m.View().Content
		h.press("?")
		for _, screen := range []string{port, h.m.View().Content} {
			if i := strings.IndexFunc(screen, func(r rune) bool { return r >= 0x80 }); i >= 0 {
				t.Fatalf("color %v: non-ASCII at %d: %q", color, i, screen[max(0, i-30):min(len(screen), i+30)])
			}
		}
	}
	h := newHarness(t, s, nil)
	if !strings.Contains(h.screen(), "─") {
		t.Errorf("without WithASCII the screen has no ─ rule")
	}
}
