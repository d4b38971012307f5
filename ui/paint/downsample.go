// SPDX-License-Identifier: Apache-2.0

package paint

import (
	"bytes"
	"io"

	"github.com/charmbracelet/colorprofile"
)

// A downsampler brings the colours of what it writes down to a profile,
// as colorprofile.Writer does, at a fraction of its cost: the text
// between escape sequences is copied as it is, and each distinct SGR
// sequence (ECMA-48 8.3.117) is converted once, by colorprofile, and
// remembered. A screen uses a handful of styles, so after the first
// frame the conversion is a map lookup; colorprofile.Writer runs its
// ANSI parser over every byte of every frame, which was half of what
// drawing a frame cost in a 256-colour terminal.
type downsampler struct {
	out   io.Writer
	conv  colorprofile.Writer // Forward is &got
	got   bytes.Buffer
	cache map[string]string
	buf   []byte
}

// maxSGRs bounds the SGR sequences a downsampler remembers.
const maxSGRs = 1024

func newDownsampler(out io.Writer, p colorprofile.Profile) *downsampler {
	d := &downsampler{out: out, cache: map[string]string{}}
	d.conv = colorprofile.Writer{Forward: &d.got, Profile: p}
	return d
}

// Write converts p and writes it to the terminal in one call.
func (d *downsampler) Write(p []byte) (int, error) {
	n := len(p)
	d.buf = d.buf[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0x1b)
		if i < 0 {
			d.buf = append(d.buf, p...)
			break
		}
		d.buf = append(d.buf, p[:i]...)
		p = p[i:]
		n, sgr := escape(p)
		if sgr {
			d.buf = append(d.buf, d.sgr(p[:n])...)
		} else {
			d.buf = append(d.buf, p[:n]...)
		}
		p = p[n:]
	}
	if _, err := d.out.Write(d.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// sgr returns the SGR sequence seq converted to the profile.
func (d *downsampler) sgr(seq []byte) string {
	if s, ok := d.cache[string(seq)]; ok {
		return s
	}
	d.got.Reset()
	d.conv.Write(seq) // into d.got, which does not fail
	s := d.got.String()
	if len(d.cache) >= maxSGRs {
		clear(d.cache)
	}
	d.cache[string(seq)] = s
	return s
}

// escape returns the length of the escape sequence p starts with (p[0]
// is ESC), and whether it is an SGR sequence: a control sequence (CSI:
// parameter and intermediate bytes, then a final byte, ECMA-48 5.4) whose
// final byte is 'm'; an OSC string up to its BEL or ST (ECMA-48 8.3.89);
// otherwise ESC and the byte after it. What is cut short runs to the end
// of p.
func escape(p []byte) (n int, sgr bool) {
	if len(p) < 2 {
		return len(p), false
	}
	switch p[1] {
	case '[':
		k := 2
		for k < len(p) && p[k] >= 0x20 && p[k] <= 0x3f {
			k++
		}
		if k < len(p) && p[k] >= 0x40 && p[k] <= 0x7e {
			return k + 1, p[k] == 'm'
		}
		return k, false
	case ']':
		for k := 2; k < len(p); k++ {
			switch {
			case p[k] == 0x07:
				return k + 1, false
			case p[k] == 0x1b && k+1 < len(p) && p[k+1] == '\\':
				return k + 2, false
			}
		}
		return len(p), false
	}
	return 2, false
}
