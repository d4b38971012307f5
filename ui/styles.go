// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Styles are the UI's lip gloss styles. Colour never carries meaning alone:
// every state also shows as a word or a symbol, so NoColorStyles loses
// nothing but colour. WithColor and the terminal's background pick
// DefaultStyles or NoColorStyles.
type Styles struct {
	Brand        Look // the "dcbtop" badge
	Label        Look // header labels ("peer", "TTL")
	Value        Look // header values
	Title        Look // pane titles
	TitleFocused Look // the focused pane's title
	Rule         Look // title rules and column separators
	ColHeader    Look // table column headers
	Dim          Look // secondary text
	Mismatch     Look // a value that differs between local and remote
	OK           Look // good state: valid, enabled, live
	Warn         Look // warnings, TTL running low
	Crit         Look // errors, expired, multi-peer
	Info         Look // informational diagnostics
	Enabled      Look // a PFC-enabled priority
	Selected     Look // the log cursor row
	Match        Look // text the filter matched
	Key          Look // a key in hints
	KeyDesc      Look // its description
	KeyDisabled  Look // a key whose action is unavailable
	Dialog       Look // overlay boxes (help, details, confirm, edit)
	DialogTitle  Look
	Added        Look // diff: added or enabled
	Removed      Look // diff: removed or disabled
	InputFocused Look // the field being edited
	GaugeFull    Look // the TTL gauge's elapsed part
	GaugeEmpty   Look // its remaining part
	// Sym are the characters marks, rules, gauges and sparklines are
	// drawn with: UnicodeSymbols, or ASCIISymbols (Styles.ASCII).
	Sym Symbols
}

// DefaultStyles returns the default theme for a dark (or light) terminal
// background. It uses the 16 ANSI colours, so the terminal's own palette
// keeps it readable, with brighter variants on dark backgrounds.
func DefaultStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	red := ld(lipgloss.Color("1"), lipgloss.Color("9"))
	green := ld(lipgloss.Color("2"), lipgloss.Color("10"))
	yellow := ld(lipgloss.Color("3"), lipgloss.Color("11"))
	blue := ld(lipgloss.Color("4"), lipgloss.Color("12"))
	cyan := ld(lipgloss.Color("4"), lipgloss.Color("14"))
	s := lipgloss.NewStyle
	return Styles{
		Brand:        look(s().Bold(true).Reverse(true)),
		Label:        look(s().Faint(true)),
		Value:        look(s().Bold(true)),
		Title:        look(s().Bold(true).Foreground(cyan)),
		TitleFocused: look(s().Bold(true).Reverse(true).Foreground(cyan)),
		Rule:         look(s().Faint(true)),
		ColHeader:    look(s().Bold(true)),
		Dim:          look(s().Faint(true)),
		Mismatch:     look(s().Bold(true).Foreground(red)),
		OK:           look(s().Foreground(green)),
		Warn:         look(s().Bold(true).Foreground(yellow)),
		Crit:         look(s().Bold(true).Foreground(red)),
		Info:         look(s().Foreground(blue)),
		Enabled:      look(s().Bold(true).Foreground(green)),
		Selected:     look(s().Reverse(true)),
		Match:        look(s().Underline(true).Bold(true)),
		Key:          look(s().Bold(true).Foreground(cyan)),
		KeyDesc:      look(s()),
		KeyDisabled:  look(s().Faint(true).Strikethrough(true)),
		Dialog:       look(s().Border(lipgloss.RoundedBorder()).BorderForeground(blue).Padding(0, 1)),
		DialogTitle:  look(s().Bold(true).Foreground(cyan)),
		Added:        look(s().Foreground(green)),
		Removed:      look(s().Foreground(red)),
		InputFocused: look(s().Reverse(true)),
		GaugeFull:    look(s().Foreground(green)),
		GaugeEmpty:   look(s().Faint(true)),
		Sym:          UnicodeSymbols(),
	}
}

// NoColorStyles returns a theme without any colour or other attribute
// (for NO_COLOR, --color=never and dumb terminals): the screen is plain
// text, and state shows through words and symbols only.
func NoColorStyles() Styles {
	p := look(lipgloss.NewStyle())
	return Styles{
		Brand: p, Label: p, Value: p, Title: p, TitleFocused: p, Rule: p, ColHeader: p, Dim: p,
		Mismatch: p, OK: p, Warn: p, Crit: p, Info: p, Enabled: p, Selected: p, Match: p,
		Key: p, KeyDesc: p, KeyDisabled: p,
		Dialog:      look(lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)),
		DialogTitle: p, Added: p, Removed: p, InputFocused: p,
		GaugeFull: p, GaugeEmpty: p,
		Sym: UnicodeSymbols(),
	}
}

// A Look is a lip gloss style that renders a line of text fast. A frame
// renders a few thousand styled snippets; lip gloss works each one out
// from the style's properties (borders, margins, padding, wrapping) every
// time, though for a style that only sets attributes and colours the
// result is always the same opening sequence, the text, and the same
// closing one. A Look finds those two once, when it is made, and renders
// a line with them; text on several lines, with tabs, or a style that
// lays text out (a border, padding, spaces styled apart) goes through lip
// gloss as before. Either way Render returns what the Style's would.
type Look struct {
	lipgloss.Style
	pre, suf string // the sequences around a line of text, if fast
	empty    string // what the style renders for ""
	fast     bool
}

// look makes the Look of s.
func look(s lipgloss.Style) Look {
	l := Look{Style: s, empty: s.Render("")}
	out := s.Render("X")
	i := strings.IndexByte(out, 'X')
	if i < 0 {
		return l
	}
	l.pre, l.suf = out[:i], out[i+1:]
	// Spaces and a wide character: a style that treats either apart
	// (underlined or struck-through spaces, a width) is not fast.
	for _, probe := range []string{"a b", " x ", "日本"} {
		if s.Render(probe) != l.pre+probe+l.suf {
			return l
		}
	}
	l.fast = true
	return l
}

// Render renders strs joined by spaces, as lipgloss.Style.Render does.
func (l Look) Render(strs ...string) string {
	if !l.fast {
		return l.Style.Render(strs...)
	}
	var s string
	if len(strs) == 1 {
		s = strs[0]
	} else {
		s = strings.Join(strs, " ")
	}
	switch {
	case s == "":
		return l.empty
	case strings.ContainsAny(s, "\n\r\t"):
		return l.Style.Render(s)
	}
	return l.pre + s + l.suf
}
