// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// lineOf returns the screen row whose text contains s, -1 if none.
func lineOf(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// A click focuses the pane under it; the wheel scrolls the pane under the
// pointer; a click on a footer hint presses its key; WithMouse(false)
// ignores the mouse and asks the terminal for no mouse reports.
func TestMouse(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode %v, want cell motion", h.m.View().MouseMode)
	}
	s := h.screen()
	y := lineOf(s, "Peers ·")
	if y < 0 {
		t.Fatalf("no Peers pane:\n%s", s)
	}
	x := strings.Index(strings.Split(s, "\n")[y], "Peers")
	h.send(tea.MouseClickMsg{X: len([]rune(strings.Split(s, "\n")[y][:x])) + 2, Y: y + 1, Button: tea.MouseLeft})
	if h.m.vs.focus != panePeers {
		t.Errorf("click in the Peers pane: focus %v", paneNames[h.m.vs.focus])
	}
	ly := lineOf(h.screen(), "Log ·")
	h.send(tea.MouseWheelMsg{X: 5, Y: ly + 2, Button: tea.MouseWheelUp})
	if h.m.vs.focus != paneLog || h.m.vs.logFollow {
		t.Errorf("wheel up over the log: focus %v, following %v; want the log, scrolled back", paneNames[h.m.vs.focus], h.m.vs.logFollow)
	}
	// The footer's "? help" hint.
	foot := strings.Split(h.screen(), "\n")[47]
	hx := strings.Index(foot, "? help")
	h.send(tea.MouseClickMsg{X: len([]rune(foot[:hx])), Y: 47, Button: tea.MouseLeft})
	if !h.m.vs.help {
		t.Errorf("a click on %q did not open the help", "? help")
	}

	off := newHarness(t, realistic(t), nil, WithMouse(false))
	if off.m.View().MouseMode != tea.MouseModeNone {
		t.Errorf("WithMouse(false): mouse mode %v", off.m.View().MouseMode)
	}
	off.send(tea.MouseClickMsg{X: 1, Y: 20, Button: tea.MouseLeft})
	if off.m.vs.focus != paneLog {
		t.Errorf("WithMouse(false): a click moved the focus to %v", paneNames[off.m.vs.focus])
	}
}

// In the overview a click selects a row and a second click opens it.
func TestMouseOverview(t *testing.T) {
	h := newHarness(t, twoPorts(t), nil, WithOverview(true))
	y := lineOf(h.screen(), "enp129s0f1np1")
	h.send(tea.MouseClickMsg{X: 4, Y: y, Button: tea.MouseLeft})
	if !h.m.vs.overview || overviewSelected(h.m.snap, &h.m.vs) != "enp129s0f1np1" {
		t.Fatalf("first click: overview %v, selected %q", h.m.vs.overview, overviewSelected(h.m.snap, &h.m.vs))
	}
	h.send(tea.MouseClickMsg{X: 4, Y: y, Button: tea.MouseLeft})
	if h.m.vs.overview || h.m.vs.iface != "enp129s0f1np1" {
		t.Errorf("second click: overview %v, interface %q; want the port opened", h.m.vs.overview, h.m.vs.iface)
	}
}

// With an RDMA device and room, the log's place is shared: a click in the
// log focuses the log, a click in the Lossless pane under it focuses that
// pane, which then has the whole place.
func TestMouseSharedSlot(t *testing.T) {
	h := newHarness(t, losslessRoCE(t), nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 56})
	s := h.screen()
	ly, ry := lineOf(s, "Log · 4 entries"), lineOf(s, "RoCE mlx5_0/1: RoCE v2 GID 3")
	if ly < 0 || ry < 0 || ry < ly {
		t.Fatalf("log at %d, RoCE path at %d:\n%s", ly, ry, s)
	}
	h.send(tea.MouseClickMsg{X: 10, Y: ry, Button: tea.MouseLeft})
	if h.m.vs.focus != paneLossless {
		t.Fatalf("click on the RoCE path: focus %v", paneNames[h.m.vs.focus])
	}
	h.wantNotScreen("Log · 4 entries")
	h.wantScreen("▶ Lossless")
	h.press("l")
	h.wantScreen("▶ Log · 4 entries", "RoCE mlx5_0/1: RoCE v2 GID 3")
	s = h.screen()
	h.send(tea.MouseClickMsg{X: 10, Y: lineOf(s, "10:00:01.000 eth0 REMOTE"), Button: tea.MouseLeft})
	if h.m.vs.focus != paneLog {
		t.Errorf("click in the log: focus %v", paneNames[h.m.vs.focus])
	}
}

// On the small layouts the mouse finds the panes where they are drawn: a
// click on the short layout's PFC table focuses it, the wheel scrolls the
// slot's log, the footer's hints still press their keys; a refused screen
// takes no click.
func TestMouseSmall(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 20})
	s := h.screen()
	y := lineOf(s, "PFC ─")
	if y < 0 {
		t.Fatalf("no PFC pane at 160x20:\n%s", s)
	}
	x := len([]rune(strings.Split(s, "\n")[y][:strings.Index(strings.Split(s, "\n")[y], "PFC ─")]))
	h.send(tea.MouseClickMsg{X: x + 1, Y: y + 2, Button: tea.MouseLeft})
	if h.m.vs.focus != panePFC {
		t.Errorf("click on the PFC table at 160x20: focus %v", paneNames[h.m.vs.focus])
	}
	h.wantNotScreen("Log ·") // the slot shows the focused PFC pane alone

	h = newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	ly := lineOf(h.screen(), "Log ")
	h.send(tea.MouseWheelMsg{X: 5, Y: ly + 3, Button: tea.MouseWheelUp})
	if h.m.vs.focus != paneLog || h.m.vs.logFollow {
		t.Errorf("wheel up over the log at 60x20: focus %v, following %v", paneNames[h.m.vs.focus], h.m.vs.logFollow)
	}

	h = newHarness(t, realistic(t), nil) // no backend: read-only, said on the right at 80 columns and more
	h.send(tea.WindowSizeMsg{Width: 40, Height: 10})
	foot := strings.Split(h.screen(), "\n")[9]
	hx := strings.Index(foot, "? help")
	if hx < 0 {
		t.Fatalf("no ? help in the footer at 40x10: %q", foot)
	}
	h.send(tea.MouseClickMsg{X: len([]rune(foot[:hx])), Y: 9, Button: tea.MouseLeft})
	if !h.m.vs.help {
		t.Errorf("a click on %q at 40x10 did not open the help", "? help")
	}

	h = newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 39, Height: 20})
	h.send(tea.MouseClickMsg{X: 2, Y: 5, Button: tea.MouseLeft})
	h.send(tea.MouseClickMsg{X: 2, Y: 19, Button: tea.MouseLeft})
	if h.m.vs.focus != paneLog || h.m.vs.help {
		t.Errorf("a refused screen took a click: focus %v, help %v", paneNames[h.m.vs.focus], h.m.vs.help)
	}
}
