// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Mouse: a click focuses the pane under it (and in the overview selects
// the row, a second click on it opens the port), the wheel scrolls the
// pane under the pointer, a click on a key hint of the footer presses
// that key. WithMouse(false) (dcbtop --no-mouse) leaves the mouse to the
// terminal (selecting text).

// A rect is a region of the screen, in cells.
type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// regions returns where each shown pane is on the screen for the plan p,
// as body lays them out.
func (r *renderer) regions(p plan) map[pane]rect {
	out := map[pane]rect{}
	y := p.headerH
	row := func(h int, panes ...pane) {
		if h <= 0 {
			return
		}
		x := 0
		for _, pn := range panes {
			b := p.boxes[pn]
			out[pn] = rect{x, y, b.w, h}
			x += b.w + sepWidth
		}
		y += h
	}
	for _, sr := range p.stack() {
		row(sr.h, sr.panes...)
	}
	return out
}

// footerHint is a key hint of the footer and where it is.
type footerHint struct {
	b    key.Binding
	x, w int
}

// footerHints lists the footer's key hints with their columns, as footer
// draws them (the same order and spacing).
func (r *renderer) footerHints() []footerHint {
	var out []footerHint
	x := 0
	rw := width(r.footerRight()) + 1
	for _, it := range r.footerItems() {
		w := width(it.key + " " + it.desc)
		if x+w+rw > r.w {
			break
		}
		out = append(out, footerHint{b: it.b, x: x, w: w})
		x += w + 2
	}
	return out
}

// mouse handles a mouse message.
func (m Model) mouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if !m.mouseOn || m.vs.help || m.vs.dialog != nil || m.vs.form != nil || m.vs.tune != nil || refused(m.width, m.height) {
		return m, nil
	}
	mo := msg.Mouse()
	r := m.renderer()
	if m.vs.detail != nil {
		if _, ok := msg.(tea.MouseWheelMsg); ok {
			return m.detailKey(wheelKey(mo.Button))
		}
		return m, nil
	}
	if mo.Y == r.h-1 { // the footer
		if _, ok := msg.(tea.MouseClickMsg); ok {
			for _, fh := range r.footerHints() {
				if mo.X >= fh.x && mo.X < fh.x+fh.w && len(fh.b.Keys()) > 0 {
					return m.key(pressOf(fh.b.Keys()[0]))
				}
			}
		}
		return m, nil
	}
	if m.vs.overview && len(m.snap.Interfaces) > 0 {
		return m.overviewMouse(msg, r)
	}
	regions := r.regions(r.plan())
	for pn, rc := range regions {
		if !rc.has(mo.X, mo.Y) {
			continue
		}
		switch msg.(type) {
		case tea.MouseClickMsg:
			m.vs.focus = pn
		case tea.MouseWheelMsg:
			m.vs.focus = pn
			switch mo.Button {
			case tea.MouseWheelUp:
				m.scroll(-3)
			case tea.MouseWheelDown:
				m.scroll(3)
			}
		}
		break
	}
	return m, nil
}

// overviewMouse: a click selects the row under it (a second click on the
// selected row opens the port), the wheel moves the cursor (the table
// scrolls with it).
func (m Model) overviewMouse(msg tea.MouseMsg, r *renderer) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	l := r.overviewLayout()
	switch msg.(type) {
	case tea.MouseWheelMsg:
		switch mo.Button {
		case tea.MouseWheelUp:
			m.ovMove(l.cur - 1)
		case tea.MouseWheelDown:
			m.ovMove(l.cur + 1)
		}
	case tea.MouseClickMsg:
		line := mo.Y - r.headerHeight() - 1 // the column header is the body's first line
		if line < 0 || line >= l.shown() {
			return m, nil
		}
		if row := l.top + line; row == l.cur {
			cmd := m.openPort()
			return m, cmd
		} else {
			m.ovMove(row)
		}
	}
	return m, nil
}

// wheelKey is the key press the wheel stands for in a scrolled overlay.
func wheelKey(b tea.MouseButton) tea.KeyPressMsg {
	if b == tea.MouseWheelUp {
		return tea.KeyPressMsg{Code: tea.KeyUp}
	}
	return tea.KeyPressMsg{Code: tea.KeyDown}
}

// pressOf is the key press of a binding's key name ("q", "tab", "/").
func pressOf(name string) tea.KeyPressMsg {
	switch name {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	case "f10":
		return tea.KeyPressMsg{Code: tea.KeyF10}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}
