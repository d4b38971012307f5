// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dcbtop/dcbtop/engine"
)

// labelValue returns s as a label value that shows every character a
// terminal would act on or hide, written as text: a C0 control or DEL as
// \xNN (ESC is \x1b, a line feed \x0a), a byte that is not UTF-8 as \xNN
// too, and the other characters engine.NeedsEscape reports (C1 controls,
// bidirectional overrides and isolates, zero-width characters, line and
// paragraph separators; the same as on the screen and in the JSON) as
// \uNNNN (U+202E is \u202e). s is returned as is, without allocating, when
// it has none: names of interfaces and devices as they usually are.
//
// The Prometheus text exposition format escapes only backslash, double
// quote and line feed in a label value ("label_value can be any sequence
// of UTF-8 characters, but the backslash (\), double-quote ("), and line
// feed (\n) characters have to be escaped as \\, \", and \n,
// respectively", https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details),
// so anything else in a name read from sysfs, netlink or the wire would
// reach a terminal that shows /metrics as is. The backslash of the escapes
// is itself escaped by the exposition (\x1b is written \\x1b there), and a
// backslash already in s is left alone, so that a normal name keeps the
// value other exporters give it; a name spelled with a literal "\x1b" and
// one with an ESC in its place thus give the same value, and the second
// of the two duplicate series fails the scrape of that sample only (see
// Handler).
func labelValue(s string) string {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || engine.NeedsEscape(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1: // not UTF-8
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		case engine.NeedsEscape(r): // all of them below U+10000
			b.WriteString(`\u`)
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// labelValues returns labels with labelValue applied to each, the same
// slice when none changes.
func labelValues(labels []string) []string {
	var out []string // a copy, once a value changes
	for i, v := range labels {
		if e := labelValue(v); e != v {
			if out == nil {
				out = slices.Clone(labels)
			}
			out[i] = e
		}
	}
	if out == nil {
		return labels
	}
	return out
}
