// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
)

// key handles a key press: overlays and text fields first, then the
// screen's bindings.
func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if key.Matches(msg, k.Interrupt) {
		return m, tea.Quit
	}
	switch {
	case m.vs.help:
		if key.Matches(msg, k.Help, k.Back, k.Quit) {
			m.vs.help = false
		}
		return m, nil
	case m.vs.dialog != nil:
		return m.dialogKey(msg)
	case m.vs.form != nil:
		return m.formKey(msg)
	case m.vs.tune != nil:
		return m.tuneKey(msg)
	case m.vs.detail != nil:
		return m.detailKey(msg)
	case m.vs.filtering:
		return m.filterKey(msg), nil
	case m.vs.ovFiltering:
		return m.ovFilterKey(msg), nil
	case m.vs.overview && len(m.snap.Interfaces) > 0:
		if mm, cmd, ok := m.overviewKey(msg); ok {
			return mm, cmd
		}
	}
	if pl := m.player; pl != nil && m.vs.capture.Mode == CaptureReplay {
		// A replay is a player.
		switch {
		case key.Matches(msg, k.PlayPause):
			return m, func() tea.Msg { pl.TogglePause(); return nil }
		case key.Matches(msg, k.SeekBack):
			return m, func() tea.Msg { pl.Seek(-seekStep); return nil }
		case key.Matches(msg, k.SeekFwd):
			return m, func() tea.Msg { pl.Seek(seekStep); return nil }
		case key.Matches(msg, k.Faster):
			return m, func() tea.Msg { pl.Faster(); return nil }
		case key.Matches(msg, k.Slower):
			return m, func() tea.Msg { pl.Slower(); return nil }
		case key.Matches(msg, k.Restart):
			return m, func() tea.Msg { pl.Restart(); return nil }
		}
	}
	switch {
	case key.Matches(msg, k.Overview):
		m.openOverview()
	case m.vs.filter != "" && key.Matches(msg, k.NextHit, k.PrevHit):
		// As in less: n and N go to the next and previous entry that
		// matches (with a filter, the log shows only those).
		m.vs.focus = paneLog
		d := 1
		if key.Matches(msg, k.PrevHit) {
			d = -1
		}
		m.scroll(d) // in the order shown (O turns it)
	case key.Matches(msg, k.Order):
		m.vs.newestFirst = !m.vs.newestFirst
		m.vs.focus = paneLog
	case key.Matches(msg, k.Messages):
		m.vs.detail = &detailView{kind: detailMessages, scroll: 1 << 20}
	case key.Matches(msg, k.Frames):
		m.openFrames()
	case key.Matches(msg, k.Quit):
		if ports := m.agentPorts(); len(ports) > 0 {
			// Quitting stops the agent, whose shutdown LLDPDU makes a
			// willing switch drop this host's parameters: ask first.
			m.vs.dialog = &dialog{kind: dialogQuit, agentPorts: ports}
			return m, nil
		}
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.vs.help = true
	case key.Matches(msg, k.Pause):
		return m, m.togglePause()
	case key.Matches(msg, k.NextPane):
		m.vs.focus = (m.vs.focus + 1) % numPanes
	case key.Matches(msg, k.PrevPane):
		m.vs.focus = (m.vs.focus + numPanes - 1) % numPanes
	case m.focusKey(msg): // a pane's own key, and back to the log
	case key.Matches(msg, k.NextIface):
		return m, m.switchIface(1, -1)
	case key.Matches(msg, k.PrevIface):
		return m, m.switchIface(-1, -1)
	case key.Matches(msg, k.JumpIface):
		n, err := strconv.Atoi(msg.String())
		if err == nil {
			return m, m.switchIface(0, n-1)
		}
	case key.Matches(msg, k.Up):
		m.scroll(-1)
	case key.Matches(msg, k.Down):
		m.scroll(1)
	case key.Matches(msg, k.PageUp):
		m.scroll(-max(1, m.paneRows(m.vs.focus)-1))
	case key.Matches(msg, k.PageDown):
		m.scroll(max(1, m.paneRows(m.vs.focus)-1))
	case key.Matches(msg, k.Home):
		m.scroll(-1 << 30)
	case key.Matches(msg, k.End):
		m.scroll(1 << 30)
	case key.Matches(msg, k.Select):
		m.openDetail()
	case key.Matches(msg, k.Filter):
		m.vs.filtering, m.vs.focus = true, paneLog
	case key.Matches(msg, k.Back):
		if m.vs.filter != "" {
			m.vs.filter, m.vs.logFollow = "", true
		} else {
			m.vs.status = statusLine{}
		}
	case key.Matches(msg, k.Willing):
		return m.startWilling()
	case key.Matches(msg, k.Edit):
		return m.startEdit()
	case key.Matches(msg, k.Undo):
		return m.startUndo()
	case key.Matches(msg, k.Agent):
		return m.startAgent()
	case key.Matches(msg, k.Fix):
		return m.startFix()
	case key.Matches(msg, k.Tune):
		return m.startTune()
	case key.Matches(msg, k.Export):
		return m.export()
	case key.Matches(msg, k.Hex):
		// x works in the peers' details: say where, rather than nothing.
		m.vs.status = statusLine{text: shortKey(k.Hex) + " shows the peers' LLDPDUs in hex in their details: focus Peers (" + shortKey(k.NextPane) + ") and press " + shortKey(k.Select)}
	}
	return m, nil
}

// agentPorts returns the interfaces dcbtop's own host agent runs on
// (local source agent in the newest live snapshot, paused or not), which
// quitting withdraws; none in a replay, in the demo (its switches are
// simulated) or once the capture ended.
func (m Model) agentPorts() []string {
	c := m.vs.capture
	if c.Mode != CaptureLive || c.Demo != nil || c.Done || m.vs.closed {
		return nil
	}
	s := m.snap
	if m.haveLatest {
		s = m.latest
	}
	var out []string
	for i := range s.Interfaces {
		if s.Interfaces[i].LocalSource == engine.SourceAgent {
			out = append(out, s.Interfaces[i].Name)
		}
	}
	return out
}

// togglePause freezes the screen (snapshots keep arriving and are
// counted) or shows the newest snapshot again.
func (m *Model) togglePause() tea.Cmd {
	if !m.vs.paused {
		m.pausedAt = m.clock()
		m.vs.paused, m.vs.newCount = true, 0
		return nil
	}
	m.vs.paused, m.vs.newCount = false, 0
	if m.demoHeld {
		if m.vs.capture.Demo != nil {
			m.vs.capture.Demo = m.demoLatest
		}
		m.demoLatest, m.demoHeld = nil, false
	}
	if m.haveLatest {
		return m.show(m.latest)
	}
	return nil
}

// switchIface selects the interface d steps away, or number n (0-based)
// when n >= 0.
func (m *Model) switchIface(d, n int) tea.Cmd {
	ifs := m.snap.Interfaces
	if len(ifs) == 0 {
		return nil
	}
	// Steps and numbers follow the ports in natural order (h2 before
	// h10), as the overview lists them.
	order := portOrder(m.snap)
	pos := portPosition(m.snap, selectedIndex(m.snap, m.vs.iface))
	switch {
	case n >= 0:
		if n >= len(ifs) {
			m.vs.status = statusLine{text: fmt.Sprintf("no interface %d: %s", n+1, map[bool]string{true: "there is only 1", false: fmt.Sprintf("there are %d", len(ifs))}[len(ifs) == 1])}
			return nil
		}
		pos = n
	default:
		pos = (pos + d + len(ifs)) % len(ifs)
	}
	i := order[pos]
	if ifs[i].Name == m.vs.iface {
		return nil
	}
	m.vs.iface = ifs[i].Name
	for p := range m.vs.scroll {
		if pane(p) != paneLog {
			m.vs.scroll[p] = 0
		}
	}
	m.syncCaps()
	return nil
}

// renderer returns the renderer of the current frame, for the geometry
// scrolling needs.
func (m Model) renderer() *renderer {
	vs := m.vs
	vs.age = m.age()
	w, h := m.width, m.height
	if refused(w, h) {
		// Before the first size (or on a refused screen, where nothing
		// scrolls or takes a click): the geometry of 80x24.
		w, h = narrowWidth, shortHeight
	}
	return newRenderer(m.snap, &vs, m.styles, m.keys, w, h)
}

// paneRows returns how many body lines pane p shows.
func (m Model) paneRows(p pane) int {
	rows, _ := m.paneGeometry(p)
	return rows
}

// paneGeometry returns how many body lines pane p shows and its content.
func (m Model) paneGeometry(p pane) (rows int, c paneContent) {
	r := m.renderer()
	b := r.plan().boxes[p]
	if b.h == 0 {
		return 0, paneContent{cursor: -1}
	}
	c = r.content(p, b.w)
	return max(1, b.h-1-len(c.head)), c
}

// scroll moves the focused pane by d lines; in the log it moves the
// cursor by d entries, and reaching the newest entry follows new ones
// again. The log's window, which counts lines (the demo's restart marks
// are lines between entries), moves only as far as keeps the cursor on
// screen.
func (m *Model) scroll(d int) {
	p := m.vs.focus
	rows, c := m.paneGeometry(p)
	if p != paneLog {
		m.vs.scroll[p] = clamp(m.vs.scroll[p]+d, 0, len(c.body)-rows)
		return
	}
	n := len(filtered(m.snap.Indications, m.vs.filter))
	if n == 0 {
		return
	}
	if m.vs.newestFirst {
		d = -d // up is newer when the newest is on top
	}
	top := scrollTop(m.vs.scroll[paneLog], c.cursor, rows, len(c.body))
	cur := clamp(logCursor(&m.vs, n)+d, 0, n-1)
	m.vs.logCur, m.vs.logFollow = cur, cur == n-1
	_, c = m.paneGeometry(paneLog)
	m.vs.scroll[paneLog] = scrollTop(top, c.cursor, rows, len(c.body))
}

// openDetail drills down into the focused pane: the log entry under the
// cursor, the peers in full, the diagnostics in full. Other panes have
// nothing more to show: the status line says where Enter does something
// (the focus does not jump).
func (m *Model) openDetail() {
	if d := paneTable[m.vs.focus].detail; d != nil {
		d(m)
		return
	}
	m.vs.status = statusLine{text: detailHint}
}

// focusKey moves the focus to the pane whose key msg is (paneTable's
// focusKey), or back to the log from it; false when msg is no pane's key.
func (m *Model) focusKey(msg tea.KeyPressMsg) bool {
	for p, pk := range paneTable {
		if pk.focusKey == nil || !key.Matches(msg, pk.focusKey(m.keys)) {
			continue
		}
		if m.vs.focus == pane(p) {
			m.vs.focus = paneLog
		} else {
			m.vs.focus = pane(p)
		}
		return true
	}
	return false
}

// openPeersDetail shows the peers in full.
func (m *Model) openPeersDetail() {
	if in := selected(m.snap, m.vs.iface); in != nil && (len(in.Peers) > 0 || in.LastPeer != nil) {
		m.vs.detail = &detailView{kind: detailPeers}
	}
}

// openDiagDetail shows the diagnostics in full.
func (m *Model) openDiagDetail() {
	if in := selected(m.snap, m.vs.iface); in != nil && len(findingsOf(in, nil)) > 0 {
		m.vs.detail = &detailView{kind: detailDiagnostics}
	}
}

// openLogDetail shows the log entry under the cursor, with the previous
// one of its status on the same interface.
func (m *Model) openLogDetail() {
	log := m.snap.Indications
	idx := filtered(log, m.vs.filter)
	cur := logCursor(&m.vs, len(idx))
	if cur < 0 {
		return
	}
	i := idx[cur]
	d := &detailView{ind: log[i]}
	for j := i - 1; j >= 0; j-- {
		if log[j].Status == log[i].Status && log[j].Interface == log[i].Interface {
			prev := log[j]
			d.prev = &prev
			break
		}
	}
	m.vs.detail = d
}

func (m Model) detailKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.vs.detail.kind == detailFrames {
		return m.framesKey(msg)
	}
	k := m.keys
	d := *m.vs.detail
	r := m.renderer()
	w, rows := r.detailSize()
	n := len(r.detailLines(&d, w))
	switch {
	case key.Matches(msg, k.Back, k.Select, k.Quit):
		m.vs.detail = nil
		return m, nil
	case d.kind == detailPeers && key.Matches(msg, k.Hex):
		d.hex, d.scroll = !d.hex, 0
		n = len(r.detailLines(&d, w))
	}
	d.scroll = k.scrollBy(msg, d.scroll, n, rows)
	m.vs.detail = &d
	return m, nil
}

// scrollBy is an overlay's first line shown after the scrolling key msg
// (none: where it was), of n lines rows at a time.
func (k *KeyMap) scrollBy(msg tea.KeyPressMsg, top, n, rows int) int {
	switch {
	case key.Matches(msg, k.Up):
		top--
	case key.Matches(msg, k.Down):
		top++
	case key.Matches(msg, k.PageUp):
		top -= rows - 1
	case key.Matches(msg, k.PageDown):
		top += rows - 1
	case key.Matches(msg, k.Home):
		top = 0
	case key.Matches(msg, k.End):
		top = n
	}
	return clamp(top, 0, n-rows)
}

// filterKey edits the log filter as it is typed.
func (m Model) filterKey(msg tea.KeyPressMsg) tea.Model {
	if m.keys.editFilter(msg, &m.vs.filter, &m.vs.filtering) {
		m.vs.logFollow = true
	}
	return m
}

// editFilter applies a key press to a filter being typed (the log's, the
// overview's): Esc clears it, Enter keeps it and ends the typing, any other
// key edits it (editText). It reports false for a key that does nothing.
func (k KeyMap) editFilter(msg tea.KeyPressMsg, text *string, typing *bool) bool {
	switch {
	case key.Matches(msg, k.Back):
		*text, *typing = "", false
	case key.Matches(msg, k.Select):
		*typing = false
	default:
		f, ok := editText(*text, msg)
		if !ok {
			return false
		}
		*text = f
	}
	return true
}

// editText applies a key press to a filter being typed: backspace, ctrl+u
// (all of it) or printable text (what could drive the terminal left
// out); ok is false for any other key.
func editText(s string, msg tea.KeyPressMsg) (string, bool) {
	switch {
	case msg.Code == tea.KeyBackspace:
		if r := []rune(s); len(r) > 0 {
			return string(r[:len(r)-1]), true
		}
		return s, true
	case msg.String() == "ctrl+u":
		return "", true
	case msg.Text != "":
		return s + strings.Map(func(r rune) rune {
			if engine.UnsafeRune(r) || !unicode.IsPrint(r) {
				return -1
			}
			return r
		}, msg.Text), true
	}
	return s, false
}
