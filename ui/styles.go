package ui

import (
	"charm.land/lipgloss/v2"
)

// Styles are the UI's lip gloss styles. Colour never carries meaning alone:
// every state also shows as a word or a symbol, so NoColorStyles loses
// nothing but colour. Pass a Styles with WithStyles, or let WithColor and
// the terminal's background pick DefaultStyles or NoColorStyles.
type Styles struct {
	Brand        lipgloss.Style // the "dcbtop" badge
	Label        lipgloss.Style // header labels ("peer", "TTL")
	Value        lipgloss.Style // header values
	Title        lipgloss.Style // pane titles
	TitleFocused lipgloss.Style // the focused pane's title
	Rule         lipgloss.Style // title rules and column separators
	ColHeader    lipgloss.Style // table column headers
	Dim          lipgloss.Style // secondary text
	Mismatch     lipgloss.Style // a value that differs between local and remote
	OK           lipgloss.Style // good state: valid, enabled, live
	Warn         lipgloss.Style // warnings, TTL running low
	Crit         lipgloss.Style // errors, expired, multi-peer
	Info         lipgloss.Style // informational diagnostics
	Enabled      lipgloss.Style // a PFC-enabled priority
	Selected     lipgloss.Style // the log cursor row
	Match        lipgloss.Style // text the filter matched
	Key          lipgloss.Style // a key in hints
	KeyDesc      lipgloss.Style // its description
	KeyDisabled  lipgloss.Style // a key whose action is unavailable
	Dialog       lipgloss.Style // overlay boxes (help, details, confirm, edit)
	DialogTitle  lipgloss.Style
	Added        lipgloss.Style // diff: added or enabled
	Removed      lipgloss.Style // diff: removed or disabled
	InputFocused lipgloss.Style // the field being edited
	GaugeFull    lipgloss.Style // the TTL gauge's elapsed part
	GaugeEmpty   lipgloss.Style // its remaining part
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
		Brand:        s().Bold(true).Reverse(true),
		Label:        s().Faint(true),
		Value:        s().Bold(true),
		Title:        s().Bold(true).Foreground(cyan),
		TitleFocused: s().Bold(true).Reverse(true).Foreground(cyan),
		Rule:         s().Faint(true),
		ColHeader:    s().Bold(true),
		Dim:          s().Faint(true),
		Mismatch:     s().Bold(true).Foreground(red),
		OK:           s().Foreground(green),
		Warn:         s().Bold(true).Foreground(yellow),
		Crit:         s().Bold(true).Foreground(red),
		Info:         s().Foreground(blue),
		Enabled:      s().Bold(true).Foreground(green),
		Selected:     s().Reverse(true),
		Match:        s().Underline(true).Bold(true),
		Key:          s().Bold(true).Foreground(cyan),
		KeyDesc:      s(),
		KeyDisabled:  s().Faint(true).Strikethrough(true),
		Dialog:       s().Border(lipgloss.RoundedBorder()).BorderForeground(blue).Padding(0, 1),
		DialogTitle:  s().Bold(true).Foreground(cyan),
		Added:        s().Foreground(green),
		Removed:      s().Foreground(red),
		InputFocused: s().Reverse(true),
		GaugeFull:    s().Foreground(green),
		GaugeEmpty:   s().Faint(true),
	}
}

// NoColorStyles returns a theme without any colour or other attribute
// (for NO_COLOR, --color=never and dumb terminals): the screen is plain
// text, and state shows through words and symbols only.
func NoColorStyles() Styles {
	p := lipgloss.NewStyle()
	return Styles{
		Brand: p, Label: p, Value: p, Title: p, TitleFocused: p, Rule: p, ColHeader: p, Dim: p,
		Mismatch: p, OK: p, Warn: p, Crit: p, Info: p, Enabled: p, Selected: p, Match: p,
		Key: p, KeyDesc: p, KeyDisabled: p,
		Dialog:      p.Border(lipgloss.RoundedBorder()).Padding(0, 1),
		DialogTitle: p, Added: p, Removed: p, InputFocused: p,
		GaugeFull: p, GaugeEmpty: p,
	}
}
