// SPDX-License-Identifier: Apache-2.0

package paint

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/google/go-cmp/cmp"
)

// program turns fuzz bytes into what the painter writes: text (ASCII,
// box drawing, wide characters), SGR sequences with every colour form
// (basic, bright, 256, RGB; foreground, background, underline) and
// attributes, cursor moves, erasures, mode changes and window titles
// ended by BEL or ST.
func program(b []byte) []byte {
	var out bytes.Buffer
	texts := []string{"dcbtop", " ", "─┼─", "█", "日本", "✓ ok", "—", "é"}
	for i := 0; i < len(b); i++ {
		op := b[i]
		arg := func() byte {
			if i+1 < len(b) {
				i++
				return b[i]
			}
			return 0
		}
		switch op % 12 {
		case 0, 1, 2:
			out.WriteString(texts[int(op/12)%len(texts)])
		case 3:
			fmt.Fprintf(&out, "\x1b[38;2;%d;%d;%dm", arg(), arg(), arg())
		case 4:
			fmt.Fprintf(&out, "\x1b[48;2;%d;%d;%dm", arg(), arg(), arg())
		case 5:
			fmt.Fprintf(&out, "\x1b[38;5;%dm", arg())
		case 6:
			fmt.Fprintf(&out, "\x1b[%d;%dm", 30+arg()%8, 90+arg()%8)
		case 7:
			fmt.Fprintf(&out, "\x1b[%dm", []int{0, 1, 2, 3, 4, 7, 9, 22, 39, 49}[arg()%10])
		case 8:
			fmt.Fprintf(&out, "\x1b[1;4;38;2;%d;%d;%d;48;5;%dm", arg(), arg(), arg(), arg())
		case 9:
			fmt.Fprintf(&out, "\x1b[%d;1H\x1b[K\x1b[2K", arg())
		case 10:
			out.WriteString([]string{"\x1b[?2026h", "\x1b[?2026l", "\x1b[?1049h", "\x1b[?25l", "\x1b[m"}[arg()%5])
		case 11:
			if arg()%2 == 0 {
				out.WriteString("\x1b]2;dcbtop: eth0\a")
			} else {
				out.WriteString("\x1b]2;dcbtop: h1\x1b\\")
			}
		}
	}
	return out.Bytes()
}

// FuzzDownsample: for what the painter writes, the downsampler writes
// what colorprofile.Writer writes, in every profile with fewer colours
// than TrueColor.
func FuzzDownsample(f *testing.F) {
	f.Add([]byte{0, 3, 255, 0, 0, 1, 7, 0, 9, 3, 11, 1})
	f.Add([]byte("the quick brown fox"))
	f.Add([]byte{8, 10, 20, 30, 40, 5, 200, 4, 1, 2, 3, 6, 3, 4, 10, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		in := program(b)
		for _, p := range []colorprofile.Profile{colorprofile.ASCII, colorprofile.ANSI, colorprofile.ANSI256} {
			var want, got bytes.Buffer
			w := colorprofile.Writer{Forward: &want, Profile: p}
			w.Write(in)
			d := newDownsampler(&got, p)
			for range 2 { // the second time from the cache
				got.Reset()
				if n, err := d.Write(in); n != len(in) || err != nil {
					t.Fatalf("%v: Write = %d, %v", p, n, err)
				}
				if diff := cmp.Diff(want.String(), got.String()); diff != "" {
					t.Fatalf("%v: %q (-colorprofile +downsampler):\n%s", p, in, diff)
				}
			}
		}
	})
}

// TestEscape: the length of each kind of escape sequence, and which are
// SGR; what is cut short runs to the end.
func TestEscape(t *testing.T) {
	for _, tt := range []struct {
		in  string
		n   int
		sgr bool
	}{
		{"\x1b[38;2;1;2;3mtext", 13, true},
		{"\x1b[mx", 3, true},
		{"\x1b[12;1Hx", 7, false},
		{"\x1b[?2026h", 8, false},
		{"\x1b[ q", 4, false},
		{"\x1b]2;title\atext", 10, false},
		{"\x1b]2;title\x1b\\text", 11, false},
		{"\x1b]2;cut", 7, false},
		{"\x1b[1;2", 5, false},
		{"\x1b[1\x07m", 3, false},
		{"\x1b7x", 2, false},
		{"\x1b", 1, false},
	} {
		n, sgr := escape([]byte(tt.in))
		if n != tt.n || sgr != tt.sgr {
			t.Errorf("escape(%q) = %d, %v; want %d, %v", tt.in, n, sgr, tt.n, tt.sgr)
		}
	}
}

// BenchmarkDownsample: a 160x48 frame of styled lines in a 256-colour
// terminal, through colorprofile.Writer and through the downsampler.
func BenchmarkDownsample(b *testing.B) {
	var frame bytes.Buffer
	for row := range 48 {
		fmt.Fprintf(&frame, "\x1b[%d;1H", row+1)
		for col := range 10 {
			fmt.Fprintf(&frame, "\x1b[38;2;%d;120;200mh%-4d\x1b[m \x1b[1;38;2;20;200;20m█████\x1b[m ", col*20, row)
		}
	}
	in := frame.Bytes()
	b.Run("colorprofile", func(b *testing.B) {
		w := colorprofile.Writer{Forward: io.Discard, Profile: colorprofile.ANSI256}
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			w.Write(in)
		}
	})
	b.Run("downsampler", func(b *testing.B) {
		d := newDownsampler(io.Discard, colorprofile.ANSI256)
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			d.Write(in)
		}
	})
}
