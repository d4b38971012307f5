// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// invisible reports whether r is a character that JSON may carry
// literally but a terminal acts on, or that hides or reorders text when
// shown: the C1 controls U+0080-U+009F (ECMA-48: CSI U+009B, OSC U+009D
// work like ESC [ and ESC ] on terminals that interpret C1), the Unicode
// bidirectional formatting characters (UAX #9: U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069), zero-width characters (U+200B-U+200D,
// U+2060, U+FEFF), the soft hyphen U+00AD, and the line and paragraph
// separators U+2028, U+2029.
func invisible(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0xad, r == 0x061c,
		r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// EscapeJSONText rewrites the characters invisible reports in the JSON
// text b as \uXXXX escapes, so that `cat snapshot.json` cannot act on a
// terminal and a reader sees every such character. The JSON means the
// same: they occur only inside strings (encoding/json writes only ASCII
// outside them), where \uXXXX is the same character. b is returned
// unchanged, without allocating, when it has none.
func EscapeJSONText(b []byte) []byte {
	i := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	const hex = "0123456789abcdef"
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// MarshalOutput encodes v as dcbtop writes every JSON and NDJSON output
// (--json, --events, exported snapshots, dcbtop check --json): indented
// when indent is true, else on one line; the characters invisible reports
// escaped (EscapeJSONText); and a final newline.
func MarshalOutput(v any, indent bool) ([]byte, error) {
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	return append(EscapeJSONText(b), '\n'), nil
}

// An OutputEncoder writes a stream of values as MarshalOutput writes each
// on one line (--events' NDJSON): the same bytes, through one buffer it
// reuses. The zero value is ready to use.
type OutputEncoder struct {
	buf  bytes.Buffer
	enc  *json.Encoder
	line []byte // Indication's
}

// Indication returns in as one line of NDJSON: Line(in)'s bytes, written
// without reflection where it can be (appendJSON). The slice is valid
// until the next call.
func (o *OutputEncoder) Indication(in *Indication) ([]byte, error) {
	b, ok := in.appendJSON(o.line[:0])
	if !ok {
		return o.Line(*in)
	}
	o.line = append(b, '\n')
	return EscapeJSONText(o.line), nil
}

// Line returns v as one line of NDJSON, escaped as MarshalOutput(v,
// false) escapes it. The slice is valid until the next call.
func (o *OutputEncoder) Line(v any) ([]byte, error) {
	if o.enc == nil {
		o.enc = json.NewEncoder(&o.buf)
	}
	o.buf.Reset()
	if err := o.enc.Encode(v); err != nil {
		return nil, err
	}
	return EscapeJSONText(o.buf.Bytes()), nil
}
