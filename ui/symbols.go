// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Symbols are the characters the screen draws its marks, rules, gauges
// and sparklines with: UnicodeSymbols on a UTF-8 terminal, ASCIISymbols
// where the locale's character set is not UTF-8 (ASCIILocale, WithASCII),
// as htop does. A Styles carries its Symbols (Styles.Sym); Styles.ASCII
// switches a theme to ASCII, borders included.
type Symbols struct {
	Diff    string // a value that differs from local: ≠
	On      string // PFC enabled: ●
	Off     string // PFC disabled, a priority not mapped: ·
	Absent  string // not advertised, not known: —
	Cursor  string // the log's and the overview's cursor: ▸
	Focus   string // the focused pane's title: ▶
	Remote  string // the peer the remote parameters come from: ★
	Multi   string // multi-peer: !!
	Error   string // ✗
	Warning string // ⚠
	Info    string // ℹ
	OK      string // ✓
	Unknown string // a check nothing read enough to judge: ?
	Derived string // an NDK counter approximated from another source: ≈
	Sep     string // between the parts of a line: ·
	// Ellipsis ends text the screen itself shortens ("waiting…"); cut
	// text ends with it too.
	Ellipsis   string
	RuleH      string          // a pane's title rule: ─
	RuleV      string          // between panes side by side: │
	Up, Down   string          // lines above and below a pane's window: ↑ ↓
	GaugeFull  string          // the TTL gauge's time left: █
	GaugeEmpty string          // its time gone: ░
	Spark      [8]string       // sparkline levels, lowest first: ▁ … █
	Live       string          // a live capture: ●
	Play       string          // a replay that plays: ▶
	Stop       string          // an ended capture, replay or demo: ■
	Demo       string          // the demo: ◆
	Times      string          // a speed factor: ×
	Border     lipgloss.Border // the overlay boxes' border
	// ASCII says that every frame is ASCII: what is not drawn with these
	// symbols (text from the wire, the engine's words, separators in the
	// screen's own sentences) is folded to ASCII too (asciiFrame).
	ASCII bool
}

// UnicodeSymbols returns the symbols of a UTF-8 terminal.
func UnicodeSymbols() Symbols {
	return Symbols{
		Diff: "≠", On: "●", Off: "·", Absent: "—", Cursor: "▸", Focus: "▶", Remote: "★", Multi: "!!",
		Error: "✗", Warning: "⚠", Info: "ℹ", OK: "✓", Unknown: "?", Derived: "≈", Sep: "·", Ellipsis: "…",
		RuleH: "─", RuleV: "│", Up: "↑", Down: "↓", GaugeFull: "█", GaugeEmpty: "░",
		Spark: [8]string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
		Live:  "●", Play: "▶", Stop: "■", Demo: "◆", Times: "×",
		Border: lipgloss.RoundedBorder(),
	}
}

// ASCIISymbols returns the symbols of a terminal whose character set is
// not UTF-8 (LANG=C): every one of them ASCII.
func ASCIISymbols() Symbols {
	return Symbols{
		Diff: "!=", On: "*", Off: ".", Absent: "-", Cursor: ">", Focus: "#", Remote: "*", Multi: "!!",
		Error: "x", Warning: "!", Info: "i", OK: "+", Unknown: "?", Derived: "~", Sep: ".", Ellipsis: "...",
		RuleH: "-", RuleV: "|", Up: "^", Down: "v", GaugeFull: "#", GaugeEmpty: ".",
		Spark: [8]string{"_", ".", ":", "-", "=", "+", "*", "#"},
		Live:  "*", Play: ">", Stop: "#", Demo: "*", Times: "x",
		Border: lipgloss.Border{
			Top: "-", Bottom: "-", Left: "|", Right: "|",
			TopLeft: "+", TopRight: "+", BottomLeft: "+", BottomRight: "+",
			MiddleLeft: "+", MiddleRight: "+", Middle: "+", MiddleTop: "+", MiddleBottom: "+",
		},
		ASCII: true,
	}
}

// ASCII returns the theme drawn with ASCIISymbols: its marks, rules and
// sparklines, and the overlay boxes' border.
func (s Styles) ASCII() Styles {
	sym := ASCIISymbols()
	s.Sym = sym
	s.Dialog = look(s.Dialog.Style.Border(sym.Border))
	return s
}

// ASCIILocale reports whether the locale's character set is not UTF-8,
// deciding as the C library does: the first of LC_ALL, LC_CTYPE and LANG
// that is set and not empty names the locale; "C", "POSIX" or none at
// all is ASCII, and so is any locale whose codeset (after the ".", before
// any "@") is not UTF-8 ("en_US.UTF-8", "en_US.utf8" are UTF-8;
// "de_DE.ISO-8859-1" and "de_DE" are not). getenv is os.Getenv or a
// test's map.
func ASCIILocale(getenv func(string) string) bool {
	var loc string
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if loc = getenv(v); loc != "" {
			break
		}
	}
	if loc == "" || loc == "C" || loc == "POSIX" {
		return true
	}
	_, codeset, ok := strings.Cut(loc, ".")
	if !ok {
		// C.UTF-8 has a dot; a bare language ("de_DE") takes its
		// language's legacy charset.
		return true
	}
	codeset, _, _ = strings.Cut(codeset, "@")
	codeset = strings.ToLower(strings.ReplaceAll(codeset, "-", ""))
	return codeset != "utf8"
}

// asciiRunes are the ASCII stand-ins of the non-ASCII characters the
// screen's own text uses, one cell for one cell, so that folding keeps
// every column in place. "…" is apart (asciiFrame).
var asciiRunes = map[rune]byte{
	'·': '.', '—': '-', '–': '-', '─': '-', '━': '-', '│': '|', '┃': '|',
	'●': '*', '○': 'o', '◆': '*', '■': '#', '★': '*', '▸': '>', '▶': '>', '◀': '<',
	'✓': '+', '✗': 'x', '⚠': '!', 'ℹ': 'i', '≠': '#', '≈': '~', '±': '+',
	'→': '>', '←': '<', '↑': '^', '↓': 'v', '×': 'x', '⏎': '/', 'µ': 'u', '°': 'o',
	'█': '#', '░': '.', '▁': '_', '▂': '.', '▃': ':', '▄': '-', '▅': '=', '▆': '+', '▇': '*',
	'“': '"', '”': '"', '‘': '\'', '’': '\'', '\u00a0': ' ', '\ufffd': '?',
}

// asciiFrame folds a frame to ASCII without moving any column: the
// screen's own characters to their stand-ins (asciiRunes), anything else
// (a peer's UTF-8 system name, a wide character) to as many "?" as it is
// wide. An "…" that ends cut text becomes "..." over the two cells before
// it, as if the text had been cut with "..."; escape sequences stay.
func asciiFrame(s string) string {
	b := make([]byte, 0, len(s))
	var last [2]int // output offsets of the line's last two cells, -1 none
	last = [2]int{-1, -1}
	cell := func(c byte) {
		last[0], last[1] = last[1], len(b)
		b = append(b, c)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			b = append(b, c)
			last = [2]int{-1, -1}
			i++
		case c == 0x1b:
			// An escape sequence, as the styles write them: kept whole.
			j := i + 1
			if j < len(s) && s[j] == '[' {
				j++
				for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
					j++
				}
				j = min(j+1, len(s))
			}
			b = append(b, s[i:j]...)
			i = j
		case c < utf8.RuneSelf:
			cell(c)
			i++
		default:
			// A run of non-ASCII runes: those with a stand-in one by
			// one, the rest as wide as ansi measures them.
			j := i
			for j < len(s) && s[j] >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[j:])
				if _, ok := asciiRunes[r]; ok || r == '…' {
					break
				}
				j += n
			}
			if j > i {
				for range ansi.StringWidth(s[i:j]) {
					cell('?')
				}
				i = j
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			if r != '…' {
				cell(asciiRunes[r])
				continue
			}
			if last[0] >= 0 && last[1] >= 0 {
				b[last[0]], b[last[1]] = '.', '.'
			}
			cell('.')
		}
	}
	return string(b)
}
