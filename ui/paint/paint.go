// SPDX-License-Identifier: Apache-2.0

// Package paint draws a Bubble Tea program's views on a terminal, in
// place of Bubble Tea's own renderer (the program runs with
// tea.WithoutRenderer).
//
// Bubble Tea's renderer wakes up at a fixed frame rate whether or not
// anything changed, and on each change parses the whole view, escape
// sequences and all, into a cell buffer to diff it cell by cell. For a
// screen that changes once a second (a peer's TTL counting down) the
// wake-ups and the parse were most of what dcbtop's screen cost
// (bench/results.md). A Painter instead sleeps until a view differs from
// the last one, then rewrites only the lines whose text changed, at most
// once per frame interval: an idle screen costs nothing, and a countdown
// costs a string comparison per line and the bytes of the lines that
// changed.
//
// A Painter owns the terminal's output modes: the alternate screen, the
// hidden cursor, mouse reporting, bracketed paste and the window title,
// set from the view as Bubble Tea's renderer would and reset by Close.
// Raw mode on the input stays the caller's (see MakeRaw).
package paint

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Options configure a Painter.
type Options struct {
	// Out is the terminal.
	Out io.Writer
	// Profile is the terminal's colour profile: colours in a view are
	// brought down to it (colorprofile.Detect on Out and the environment
	// says which). The zero value (Unknown) passes them as they are, as
	// TrueColor does; NoTTY is taken as ASCII (no colours, the other
	// attributes kept).
	Profile colorprofile.Profile
	// Width and Height are the terminal's size until Resize says
	// otherwise.
	Width, Height int
	// Interval is the least time between two frames: views that come
	// faster are drawn together, the newest one. Zero draws each view.
	Interval time.Duration
}

// A Painter draws views on a terminal (see the package comment). Show
// and Resize may be called from any goroutine; the terminal is written
// from the Painter's own goroutine only, started by New and ended by
// Close. Views are drawn from the top left of the screen: they are meant
// for the alternate screen (tea.View.AltScreen).
type Painter struct {
	out      io.Writer
	interval time.Duration

	mu      sync.Mutex
	next    tea.View // the newest view
	given   bool     // a view was given
	pending bool     // next has not been drawn
	width   int
	height  int
	full    bool // redraw every line (a new size)
	closed  bool
	err     error // the first write error

	wake chan struct{}
	quit chan struct{}
	done chan struct{}

	// The painter goroutine's own.
	shown   []string // the lines on the terminal, from the top
	started bool     // the terminal's modes were set
	mode    modes    // what the terminal's modes are
	buf     bytes.Buffer
}

// modes are the terminal's output modes a view sets.
type modes struct {
	alt   bool
	mouse tea.MouseMode
	title string
}

func modesOf(v tea.View) modes {
	return modes{alt: v.AltScreen, mouse: v.MouseMode, title: v.WindowTitle}
}

// New returns a Painter drawing on o.Out and starts its goroutine. The
// terminal is not touched until the first view.
func New(o Options) *Painter {
	out, profile := o.Out, o.Profile
	switch profile {
	case colorprofile.Unknown:
		profile = colorprofile.TrueColor
	case colorprofile.NoTTY:
		// colorprofile's writer drops every escape sequence for an
		// output that is not a terminal; the cursor's moves must stay.
		profile = colorprofile.ASCII
	}
	if profile != colorprofile.TrueColor {
		out = newDownsampler(o.Out, profile)
	}
	p := &Painter{out: out, interval: o.Interval, width: o.Width, height: o.Height,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

// Show asks for v to be drawn. It does not wait: the Painter's goroutine
// draws the newest view it was given once the frame interval allows. A
// view the same as the one before costs a string comparison.
func (p *Painter) Show(v tea.View) {
	p.mu.Lock()
	if p.closed || (p.given && v.Content == p.next.Content && modesOf(v) == modesOf(p.next)) {
		p.mu.Unlock()
		return
	}
	p.next, p.given, p.pending = v, true, true
	p.mu.Unlock()
	p.signal()
}

// Resize tells the Painter the terminal's new size: the next frame
// redraws every line.
func (p *Painter) Resize(width, height int) {
	p.mu.Lock()
	if width == p.width && height == p.height {
		p.mu.Unlock()
		return
	}
	p.width, p.height, p.full = width, height, true
	p.pending = p.given
	p.mu.Unlock()
	p.signal()
}

func (p *Painter) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Close ends the Painter's goroutine, draws the last view if it was not
// drawn yet, and resets the modes the views set: mouse reporting and
// bracketed paste off, the cursor shown, the alternate screen left. It returns the first error writing to the
// terminal, if any. A Painter is not used after Close.
func (p *Painter) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return p.err
	}
	p.closed = true
	p.mu.Unlock()
	close(p.quit)
	<-p.done
	p.mu.Lock()
	v, width, height, full, draw := p.next, p.width, p.height, p.full, p.pending
	p.pending = false
	p.mu.Unlock()
	p.buf.Reset()
	if draw {
		// The last view is drawn, as Bubble Tea's renderer does on its
		// way out (a program that quits at once shows its one frame).
		p.frame(v, width, height, full)
	}
	if p.started {
		p.restore()
	}
	if p.buf.Len() > 0 {
		p.write()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// run draws views as Show and Resize ask, no sooner than the interval
// after the last frame.
func (p *Painter) run() {
	defer close(p.done)
	var last time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-p.wake:
		}
		if wait := p.interval - time.Since(last); !last.IsZero() && wait > 0 {
			timer.Reset(wait)
			select {
			case <-p.quit:
				timer.Stop()
				return
			case <-timer.C:
			}
		}
		p.mu.Lock()
		v, width, height, full, draw := p.next, p.width, p.height, p.full, p.pending
		p.pending, p.full = false, false
		p.mu.Unlock()
		if !draw {
			continue
		}
		p.buf.Reset()
		p.frame(v, width, height, full)
		p.write()
		last = time.Now()
	}
}

// write writes the buffer to the terminal in one call.
func (p *Painter) write() {
	if _, err := p.out.Write(p.buf.Bytes()); err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = err
		}
		p.mu.Unlock()
	}
}

// frame appends to the buffer what turns the terminal into v at width x
// height: the modes that changed, then each line that differs, in a
// synchronized update (DEC private mode 2026; terminals without it
// ignore the request). full redraws every line.
func (p *Painter) frame(v tea.View, width, height int, full bool) {
	m := modesOf(v)
	if !p.started || m.alt != p.mode.alt {
		full = true // a new screen, or the other one
	}
	p.buf.WriteString(ansi.SetModeSynchronizedOutput)
	p.setModes(m)
	if full {
		p.buf.WriteString(ansi.ResetStyle + ansi.EraseEntireScreen)
		p.shown = p.shown[:0]
	}
	p.shown = drawLines(&p.buf, p.shown, v.Content, width, height)
	p.buf.WriteString(ansi.ResetModeSynchronizedOutput)
}

// setModes appends what sets the terminal's modes to m: the alternate
// screen, mouse reporting (button events, or any motion, with SGR
// coordinates, as Bubble Tea's renderer), the window title; and on the
// first frame the hidden cursor and bracketed paste.
func (p *Painter) setModes(m modes) {
	was := p.mode
	if !p.started {
		was = modes{}
		if m.alt {
			p.buf.WriteString(ansi.SetModeAltScreenSaveCursor)
		}
		p.buf.WriteString(ansi.HideCursor + ansi.SetModeBracketedPaste)
		p.started = true
	} else if m.alt != was.alt {
		if m.alt {
			p.buf.WriteString(ansi.SetModeAltScreenSaveCursor)
		} else {
			p.buf.WriteString(ansi.ResetModeAltScreenSaveCursor)
		}
	}
	if m.mouse != was.mouse {
		switch m.mouse {
		case tea.MouseModeCellMotion:
			p.buf.WriteString(ansi.ResetModeMouseAnyEvent + ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr)
		case tea.MouseModeAllMotion:
			p.buf.WriteString(ansi.ResetModeMouseButtonEvent + ansi.SetModeMouseAnyEvent + ansi.SetModeMouseExtSgr)
		default:
			p.buf.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
		}
	}
	if m.title != was.title {
		p.buf.WriteString(ansi.SetWindowTitle(m.title))
	}
	p.mode = m
}

// restore appends what undoes setModes: the terminal as the program
// found it (the window title is the caller's: a title stack, XTWINOPS).
func (p *Painter) restore() {
	if p.mode.mouse != tea.MouseModeNone {
		p.buf.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
	}
	p.buf.WriteString(ansi.ResetModeBracketedPaste + ansi.ResetStyle + ansi.ShowCursor)
	if p.mode.alt {
		p.buf.WriteString(ansi.ResetModeAltScreenSaveCursor)
	}
	p.mode = modes{}
}

// drawLines appends to buf what turns the terminal's rows (shown, from
// the top) into content's first height lines, each cut to width
// columns, and returns the rows now shown. A row whose text is the same
// is not written; a row the content no longer reaches is erased. Rows
// past the end of shown are blank.
func drawLines(buf *bytes.Buffer, shown []string, content string, width, height int) []string {
	if width <= 0 || height <= 0 {
		return shown
	}
	row := 0
	for rest, more := content, true; more && row < height; row++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if row < len(shown) {
			if shown[row] == line {
				continue
			}
			shown[row] = line
		} else {
			shown = append(shown, line)
			if line == "" {
				continue
			}
		}
		moveTo(buf, row)
		w := ansi.StringWidth(line)
		if w > width {
			buf.WriteString(ansi.Truncate(line, width, ""))
		} else {
			buf.WriteString(line)
		}
		buf.WriteString(ansi.ResetStyle)
		if w < width {
			// Not at the last column: erasing from the cursor would
			// take the line's last character in the wrap-pending state.
			buf.WriteString(ansi.EraseLineRight)
		}
	}
	for r := row; r < len(shown); r++ {
		if shown[r] != "" {
			moveTo(buf, r)
			buf.WriteString(ansi.EraseEntireLine)
		}
	}
	return shown[:row]
}

// moveTo appends the cursor's move to the start of row (0 the top):
// CUP (ECMA-48 8.3.21).
func moveTo(buf *bytes.Buffer, row int) {
	var b [24]byte
	out := append(b[:0], "\x1b["...)
	out = strconv.AppendInt(out, int64(row+1), 10)
	out = append(out, ";1H"...)
	buf.Write(out)
}

// Wrap returns m whose views are also shown on p, and whose window size
// messages resize p. Run the returned model in a tea.Program with
// tea.WithoutRenderer.
func (p *Painter) Wrap(m tea.Model) tea.Model { return model{m: m, p: p} }

// model is a tea.Model that shows its views on a Painter.
type model struct {
	m tea.Model
	p *Painter
}

func (w model) Init() tea.Cmd { return w.m.Init() }

func (w model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(tea.WindowSizeMsg); ok {
		w.p.Resize(s.Width, s.Height)
	}
	m, cmd := w.m.Update(msg)
	return model{m: m, p: w.p}, cmd
}

func (w model) View() tea.View {
	v := w.m.View()
	w.p.Show(v)
	return v
}
