// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"unicode/utf8"
)

// replacement is what Sanitize puts in place of a control character.
const replacement = '\uFFFD'

// UnsafeRune reports whether r must not reach a terminal as is: C0
// controls (ESC and TAB included), DEL, C1 controls, and the Unicode
// characters that reorder or break lines (bidirectional overrides and
// isolates, line and paragraph separators), which can make a string look
// like something it is not.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Sanitize returns s with every unsafe rune (C0 and C1 controls, DEL,
// bidirectional overrides, line and paragraph separators) and every invalid
// UTF-8 byte replaced by U+FFFD. Every string that comes from the wire, a
// capture file, the kernel or the backend goes through it before it reaches
// a terminal.
func Sanitize(s string) string {
	ok := utf8.ValidString(s)
	if ok {
		for _, r := range s {
			if UnsafeRune(r) {
				ok = false
				break
			}
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid bytes come out as utf8.RuneError (U+FFFD)
		if UnsafeRune(r) {
			r = replacement
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NeedsEscape reports whether r must be written as an escape, never as
// itself, where an untrusted string goes out as text that a terminal may
// show (the metrics exposition): every rune UnsafeRune reports (C0
// controls, DEL, C1 controls, bidirectional formatting characters, line
// and paragraph separators) and every rune EscapeJSONText escapes (the
// same, plus the zero-width characters, the soft hyphen and U+FEFF). One
// table for the screen, the JSON and the metrics.
func NeedsEscape(r rune) bool { return UnsafeRune(r) || invisible(r) }
