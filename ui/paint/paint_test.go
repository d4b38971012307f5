// SPDX-License-Identifier: Apache-2.0

package paint

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestDrawLines: what drawLines writes for the terminal's rows and a
// new content, and the rows it says are shown after.
func TestDrawLines(t *testing.T) {
	const el, rs = ansi.EraseLineRight, ansi.ResetStyle
	for _, tt := range []struct {
		name          string
		shown         []string
		content       string
		width, height int
		want          string
		wantShown     []string
	}{
		{name: "blank terminal", content: "ab\n\ncd", width: 4, height: 5,
			want: "\x1b[1;1Hab" + rs + el + "\x1b[3;1Hcd" + rs + el, wantShown: []string{"ab", "", "cd"}},
		{name: "same", shown: []string{"ab", "", "cd"}, content: "ab\n\ncd", width: 4, height: 5,
			wantShown: []string{"ab", "", "cd"}},
		{name: "one row changed", shown: []string{"ab", "x", "cd"}, content: "ab\ny\ncd", width: 4, height: 5,
			want: "\x1b[2;1Hy" + rs + el, wantShown: []string{"ab", "y", "cd"}},
		{name: "a row emptied", shown: []string{"ab", "x", "cd"}, content: "ab\n\ncd", width: 4, height: 5,
			want: "\x1b[2;1H" + rs + el, wantShown: []string{"ab", "", "cd"}},
		{name: "shorter content", shown: []string{"ab", "x", "", "cd"}, content: "ab", width: 4, height: 5,
			want: "\x1b[2;1H" + ansi.EraseEntireLine + "\x1b[4;1H" + ansi.EraseEntireLine, wantShown: []string{"ab"}},
		{name: "full width: no erase", content: "abcd", width: 4, height: 1,
			want: "\x1b[1;1Habcd" + rs, wantShown: []string{"abcd"}},
		{name: "too wide: cut", content: "ab\x1b[1mcdef\x1b[m\n", width: 4, height: 1,
			want: "\x1b[1;1Hab\x1b[1mcd" + rs + rs, wantShown: []string{"ab\x1b[1mcdef\x1b[m"}},
		{name: "wide characters", content: "日本語", width: 4, height: 1,
			want: "\x1b[1;1H日本" + rs, wantShown: []string{"日本語"}},
		{name: "taller than the terminal", content: "a\nb\nc", width: 2, height: 2,
			want: "\x1b[1;1Ha" + rs + el + "\x1b[2;1Hb" + rs + el, wantShown: []string{"a", "b"}},
		{name: "carriage returns", content: "a\r\nb\r\n", width: 2, height: 3,
			want: "\x1b[1;1Ha" + rs + el + "\x1b[2;1Hb" + rs + el, wantShown: []string{"a", "b", ""}},
		{name: "no size", shown: []string{"a"}, content: "b", wantShown: []string{"a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			got := drawLines(&buf, tt.shown, tt.content, tt.width, tt.height)
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("written (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantShown, got); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
		})
	}
}

// view is an alternate-screen view of content.
func view(content string) tea.View {
	v := tea.NewView(content)
	v.AltScreen = true
	return v
}

// TestFramesOnATerminal: a terminal emulator (charmbracelet/x/vt) fed
// the painter's frames for a random run of views and sizes shows, after
// each frame, exactly what it shows when the same view is drawn from
// scratch on a fresh terminal, and its text is each line of the view,
// escape sequences stripped, cut to the width.
func TestFramesOnATerminal(t *testing.T) {
	words := []string{"dcbtop", "\x1b[1mbold\x1b[m", "\x1b[38;2;255;0;0mred\x1b[m", "█████", "─┼─", "—", "日本", "✓", "TTL 5s", "\x1b[7mrev\x1b[m", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	line := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(strings.Repeat(" ", rng.IntN(3)))
		}
		return b.String()
	}
	width, height := 30, 8
	term := vt.NewEmulator(width, height)
	p := &Painter{}
	lines := []string{}
	for step := range 400 {
		full := false
		switch r := rng.IntN(20); {
		case r == 0:
			width, height = 10+rng.IntN(40), 2+rng.IntN(12)
			term.Resize(width, height)
			full = true
		case r < 4 || len(lines) == 0:
			lines = make([]string, rng.IntN(height+3))
			for i := range lines {
				lines[i] = line()
			}
		default: // a few lines change, as a countdown does
			for range 1 + rng.IntN(2) {
				lines[rng.IntN(len(lines))] = line()
			}
		}
		content := strings.Join(lines, "\n")
		p.buf.Reset()
		p.frame(view(content), width, height, full)
		term.Write(p.buf.Bytes())

		fresh := vt.NewEmulator(width, height)
		q := &Painter{}
		q.frame(view(content), width, height, false)
		fresh.Write(q.buf.Bytes())
		if got, want := term.Render(), fresh.Render(); got != want {
			t.Fatalf("step %d (%dx%d): the terminal differs from a fresh one\ngot:\n%s\nwant:\n%s", step, width, height, got, want)
		}
		var want []string
		for i, l := range lines {
			if i == height {
				break
			}
			want = append(want, strings.TrimRight(ansi.Strip(ansi.Truncate(l, width, "")), " "))
		}
		for len(want) > 0 && want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		var got []string
		if s := term.String(); s != "" {
			got = strings.Split(s, "\n")
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
		}
		for len(got) > 0 && got[len(got)-1] == "" {
			got = got[:len(got)-1]
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d (%dx%d): the terminal's text (-want +got):\n%s", step, width, height, diff)
		}
	}
}

// writes records each Write to the terminal.
type writes struct {
	mu  sync.Mutex
	all []string
	err error
}

func (w *writes) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, string(b))
	return len(b), w.err
}

func (w *writes) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

// waitWrites waits until w holds n writes, and a moment more to see
// that no other comes.
func waitWrites(t *testing.T, w *writes, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(w.list()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes, want %d: %q", len(w.list()), n, w.list())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	got := w.list()
	if len(got) != n {
		t.Fatalf("%d writes, want %d: %q", len(got), n, got)
	}
	return got
}

// TestPainter: the first view sets the modes and draws every line; a
// view the same as the last one writes nothing; views given faster
// than the interval are drawn together, the newest; a new size redraws
// every line; Close resets the modes.
func TestPainter(t *testing.T) {
	var w writes
	p := New(Options{Out: &w, Width: 20, Height: 3, Interval: 150 * time.Millisecond})
	v := view("one\ntwo")
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "dcbtop: eth0"
	p.Show(v)
	first := waitWrites(t, &w, 1)[0]
	for _, want := range []string{ansi.SetModeAltScreenSaveCursor, ansi.HideCursor, ansi.SetModeBracketedPaste,
		ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr, ansi.SetWindowTitle("dcbtop: eth0"), ansi.EraseEntireScreen,
		"\x1b[1;1Hone", "\x1b[2;1Htwo"} {
		if !strings.Contains(first, want) {
			t.Errorf("first frame %q lacks %q", first, want)
		}
	}
	if !strings.HasPrefix(first, ansi.SetModeSynchronizedOutput) || !strings.HasSuffix(first, ansi.ResetModeSynchronizedOutput) {
		t.Errorf("first frame %q is not one synchronized update", first)
	}

	p.Show(v)
	waitWrites(t, &w, 1)

	for i := range 10 {
		v.Content = fmt.Sprintf("one\ntwo %d", i)
		p.Show(v)
	}
	got := waitWrites(t, &w, 2)[1]
	if want := ansi.SetModeSynchronizedOutput + "\x1b[2;1Htwo 9" + ansi.ResetStyle + ansi.EraseLineRight + ansi.ResetModeSynchronizedOutput; got != want {
		t.Errorf("ten quick views drawn as %q, want the newest's changed line %q", got, want)
	}

	p.Resize(30, 4)
	got = waitWrites(t, &w, 3)[2]
	if !strings.Contains(got, ansi.EraseEntireScreen) || !strings.Contains(got, "\x1b[1;1Hone") {
		t.Errorf("after a resize %q, want every line drawn again", got)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	last := waitWrites(t, &w, 4)[3]
	if want := ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr +
		ansi.ResetModeBracketedPaste + ansi.ResetStyle + ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor; last != want {
		t.Errorf("Close wrote %q, want %q", last, want)
	}
	p.Show(view("after"))
	waitWrites(t, &w, 4)
}

// TestPainterUntouched: a Painter given no view writes nothing, Close
// included.
func TestPainterUntouched(t *testing.T) {
	var w writes
	p := New(Options{Out: &w, Width: 20, Height: 3})
	p.Resize(10, 2)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitWrites(t, &w, 0)
}

// TestPainterWriteError: Close returns the first error writing to the
// terminal.
func TestPainterWriteError(t *testing.T) {
	w := writes{err: errors.New("write /dev/pts/3: input/output error")}
	p := New(Options{Out: &w, Width: 20, Height: 3})
	p.Show(view("x"))
	waitWrites(t, &w, 1)
	if err := p.Close(); err == nil || err.Error() != "write /dev/pts/3: input/output error" {
		t.Errorf("Close: %v", err)
	}
}

// TestPainterProfile: colours are brought down to the terminal's
// profile, and an output that is not a terminal (NoTTY) keeps the
// cursor's moves and loses only the colours.
func TestPainterProfile(t *testing.T) {
	const red = "\x1b[38;2;255;0;0mred\x1b[m"
	for _, tt := range []struct {
		profile colorprofile.Profile
		want    string
	}{
		{colorprofile.Unknown, "\x1b[1;1H" + red},
		{colorprofile.TrueColor, "\x1b[1;1H" + red},
		{colorprofile.ANSI, "\x1b[1;1H\x1b[91mred\x1b[m"},
		{colorprofile.NoTTY, "\x1b[1;1H\x1b[mred\x1b[m"},
	} {
		var w writes
		p := New(Options{Out: &w, Profile: tt.profile, Width: 20, Height: 1})
		p.Show(view(red))
		got := waitWrites(t, &w, 1)[0]
		if !strings.Contains(got, tt.want) {
			t.Errorf("%v: %q, want %q in it", tt.profile, got, tt.want)
		}
		p.Close()
	}
}

// model is a tea.Model counting its updates.
type counter struct{ n, w, h int }

func (c counter) Init() tea.Cmd { return nil }
func (c counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(tea.WindowSizeMsg); ok {
		c.w, c.h = s.Width, s.Height
	}
	c.n++
	return c, nil
}
func (c counter) View() tea.View { return view(fmt.Sprintf("%d updates at %dx%d", c.n, c.w, c.h)) }

// TestWrap: the wrapped model's views are shown, and its window size
// messages resize the painter as well as reach the model.
func TestWrap(t *testing.T) {
	var w writes
	p := New(Options{Out: &w})
	m := p.Wrap(counter{})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 40, Height: 2})
	if v := m.View(); v.Content != "1 updates at 40x2" {
		t.Errorf("view %q", v.Content)
	}
	got := waitWrites(t, &w, 1)[0]
	if !strings.Contains(got, "\x1b[1;1H1 updates at 40x2") {
		t.Errorf("drawn %q", got)
	}
	p.Close()
}

// TestPainterCloseDrawsLast: a view still waiting for its frame when the
// Painter closes (the interval not over, or a program that quits at
// once) is drawn before the modes are reset.
func TestPainterCloseDrawsLast(t *testing.T) {
	var w writes
	p := New(Options{Out: &w, Width: 20, Height: 2, Interval: time.Hour})
	p.Show(view("first"))
	waitWrites(t, &w, 1)
	p.Show(view("last"))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	got := waitWrites(t, &w, 2)[1]
	draw, reset := strings.Index(got, "\x1b[1;1Hlast"), strings.Index(got, ansi.ResetModeAltScreenSaveCursor)
	if draw < 0 || reset < draw {
		t.Errorf("Close wrote %q: want the last view, then the modes reset", got)
	}
}
