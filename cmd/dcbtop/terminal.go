// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/dcbtop/dcbtop/ui/paint"
)

// A terminal is what the screen runs on: its input (in raw mode when it
// is a terminal), its size, and the painter that draws the screen's
// views on its output. Bubble Tea runs without its renderer (see
// ui/paint for why); what it did for the terminal besides drawing, raw
// mode and the size, is done here.
type terminal struct {
	in      io.Reader
	painter *paint.Painter
	size    [2]int // columns and rows when the output is a terminal
	undo    []func()
}

// openTerminal sets up the screen's terminal on env's input and output;
// environ says the colour profile (colorprofile.Detect, as Bubble Tea
// does). The input is env.Stdin, else standard input, else (standard
// input is not a terminal) the controlling terminal. close undoes it.
func openTerminal(env Env, environ []string) (*terminal, error) {
	t := &terminal{in: env.Stdin}
	if t.in == nil {
		t.in = os.Stdin
		if !term.IsTerminal(os.Stdin.Fd()) {
			tty, _, err := tea.OpenTTY()
			if err != nil {
				return nil, err
			}
			t.in = tty
			t.undo = append(t.undo, func() { tty.Close() })
		}
	}
	if f, ok := t.in.(term.File); ok && term.IsTerminal(f.Fd()) {
		state, err := term.MakeRaw(f.Fd())
		if err != nil {
			t.close()
			return nil, fmt.Errorf("terminal: raw mode: %w", err)
		}
		t.undo = append(t.undo, func() { term.Restore(f.Fd(), state) })
	}
	if f, ok := env.Stdout.(term.File); ok && term.IsTerminal(f.Fd()) {
		if w, h, err := term.GetSize(f.Fd()); err == nil {
			t.size = [2]int{w, h}
		}
	}
	t.painter = paint.New(paint.Options{Out: env.Stdout, Profile: colorprofile.Detect(env.Stdout, environ),
		Interval: time.Second / screenFPS})
	return t, nil
}

// programOptions are the tea.Program options for running on t.
func (t *terminal) programOptions() []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithInput(t.in), tea.WithoutRenderer(), tea.WithFPS(programFPS)}
	if t.size[0] > 0 && t.size[1] > 0 {
		opts = append(opts, tea.WithWindowSize(t.size[0], t.size[1]))
	}
	return opts
}

// watchSize sends p the terminal's new size whenever it changes
// (SIGWINCH) until the returned function is called.
func (t *terminal) watchSize(out io.Writer, p *tea.Program) (stop func()) {
	f, ok := out.(term.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return func() {}
	}
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, syscall.SIGWINCH)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sig:
				if w, h, err := term.GetSize(f.Fd()); err == nil {
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// close restores the terminal: the painter's modes reset (the
// alternate screen left, the cursor shown), raw mode off. It returns
// the painter's first write error.
func (t *terminal) close() error {
	var err error
	if t.painter != nil {
		err = t.painter.Close()
	}
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
	t.undo = nil
	return err
}

// programFPS is Bubble Tea's frame rate without its renderer: how often
// it writes the terminal queries it holds (the background colour's).
// The painter draws frames as they change, at most screenFPS a second.
const programFPS = 1
