// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// ovFit is how many rows the overview has lines for on this screen.
func (m Model) ovFit() int { return m.renderer().overviewLayout().fit }

// ovFollow puts the overview's cursor on the interface named name when it
// is listed (else on the first row), the row that was at
// line line of the table (0 the first) at that line again as far as the
// cursor stays on screen: after a new snapshot, a sort or a filter the
// cursor stays on its port and the table does not jump.
func (m *Model) ovFollow(name string, line int) {
	rows := overviewRows(m.snap, &m.vs)
	if len(rows) == 0 {
		m.vs.ovCur, m.vs.ovTop = 0, 0
		return
	}
	m.vs.ovCur = 0
	for n, i := range rows {
		if m.snap.Interfaces[i].Name == name {
			m.vs.ovCur = n
		}
	}
	m.vs.ovTop = scrollTop(m.vs.ovCur-line, m.vs.ovCur, m.ovFit(), len(rows))
}

// ovLine is the table line (0 the first row) the overview's cursor is on.
func (m Model) ovLine() int {
	l := m.renderer().overviewLayout()
	return l.cur - l.top
}

// ovMove moves the overview's cursor to row to (clamped) and scrolls as
// little as keeps it on screen.
func (m *Model) ovMove(to int) {
	n := len(overviewRows(m.snap, &m.vs))
	if n == 0 {
		return
	}
	m.vs.ovCur = clamp(to, 0, n-1)
	m.vs.ovTop = scrollTop(m.vs.ovTop, m.vs.ovCur, m.ovFit(), n)
}

// openOverview shows the overview with the cursor on the port on screen.
func (m *Model) openOverview() {
	m.vs.overview = true
	m.vs.ovDecided = true
	m.ovFollow(m.vs.iface, m.ovLine())
}

// openPort leaves the overview for the port under its cursor.
func (m *Model) openPort() tea.Cmd {
	name := overviewSelected(m.snap, &m.vs)
	m.vs.overview = false
	if name == "" || name == m.vs.iface {
		return nil
	}
	for i := range m.snap.Interfaces {
		if m.snap.Interfaces[i].Name == name {
			return m.switchIface(0, portPosition(m.snap, i))
		}
	}
	return nil
}

// overviewKey handles the keys the overview gives a meaning of its own;
// ok false lets the port view's handling run (quit, help, pause...).
func (m Model) overviewKey(msg tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	k := m.keys
	n := len(overviewRows(m.snap, &m.vs))
	move := func(to int) (Model, tea.Cmd, bool) {
		m.ovMove(to)
		return m, nil, true
	}
	cur := clamp(m.vs.ovCur, 0, max(0, n-1))
	page := max(1, m.ovFit()-1)
	switch {
	case key.Matches(msg, k.Back) && m.vs.ovFilter != "":
		name, line := overviewSelected(m.snap, &m.vs), m.ovLine()
		m.vs.ovFilter = ""
		m.ovFollow(name, line)
		return m, nil, true
	case key.Matches(msg, k.Overview, k.Back):
		m.vs.overview = false
		return m, nil, true
	case key.Matches(msg, k.Filter):
		m.vs.ovFiltering = true
		return m, nil, true
	case key.Matches(msg, k.Select):
		if n == 0 {
			return m, nil, true // a filter that matches nothing
		}
		cmd := m.openPort()
		return m, cmd, true
	case key.Matches(msg, k.Sort):
		name, line := overviewSelected(m.snap, &m.vs), m.ovLine()
		m.vs.ovSort = (m.vs.ovSort + 1) % numSorts
		m.ovFollow(name, line) // the cursor stays on its port
		return m, nil, true
	case key.Matches(msg, k.Up):
		return move(cur - 1)
	case key.Matches(msg, k.Down):
		return move(cur + 1)
	case key.Matches(msg, k.PageUp):
		return move(cur - page)
	case key.Matches(msg, k.PageDown):
		return move(cur + page)
	case key.Matches(msg, k.Home):
		return move(0)
	case key.Matches(msg, k.End):
		return move(n - 1)
	case key.Matches(msg, k.JumpIface):
		// 1-9 is the n-th interface in natural order, as in the port view.
		if d, err := strconv.Atoi(msg.String()); err == nil && d >= 1 && d <= len(m.snap.Interfaces) {
			m.vs.overview = false
			cmd := m.switchIface(0, d-1)
			return m, cmd, true
		}
	case key.Matches(msg, k.NextPane, k.PrevPane, k.Lossless, k.NextIface, k.PrevIface):
		m.vs.overview = false // into the port view, then as there
		return m, nil, false
	}
	return m, nil, false
}

// ovFilterKey edits the overview's filter as it is typed; the cursor stays
// on its port while that is listed.
func (m Model) ovFilterKey(msg tea.KeyPressMsg) tea.Model {
	name, line := overviewSelected(m.snap, &m.vs), m.ovLine()
	if !m.keys.editFilter(msg, &m.vs.ovFilter, &m.vs.ovFiltering) {
		return m
	}
	m.ovFollow(name, line)
	return m
}
