package ui

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
)

// An actionKind names an operator action in messages and status lines.
type actionKind uint8

const (
	actWilling actionKind = iota
	actEdit
	actUndo
	actAgent
	actApply
)

// String names the action as status lines do: "toggle Willing", "undo"...
func (a actionKind) String() string {
	return [...]string{"toggle Willing", "edit local parameters", "undo", "host agent", "apply"}[a]
}

// Messages carrying Backend results back to Update.
type (
	capsMsg struct {
		iface string
		caps  Caps
	}
	// readOnlyMsg: the backend refused an action, with its reason.
	readOnlyMsg struct {
		act   actionKind
		iface string
		caps  Caps
	}
	// confirmMsg opens a confirmation dialog, with a preview for Willing.
	confirmMsg struct {
		act     actionKind
		iface   string
		willing bool // Willing: the new state; agent: start
		caps    Caps
		op      *dcb.Params
		res     dcb.Resolution
		err     error
		preview bool
		// undo is what an undo restores (undo only).
		undo *engine.LocalState
	}
	editReadyMsg struct {
		iface string
		caps  Caps
	}
	formPreviewMsg struct {
		seq   int
		iface string
		op    *dcb.Params
		res   dcb.Resolution
		err   error
	}
	resultMsg struct {
		act   actionKind
		iface string
		text  string
		err   error
	}
	exportMsg struct {
		path string
		err  error
	}
)

// Update handles a message: a snapshot, a tick, a key, a backend result.
// It never performs I/O: backend calls are returned as tea.Cmds.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.vs.status
	mm, cmd := m.update(msg)
	nm := mm.(Model)
	if s := nm.vs.status; s.text != "" && (s.text != before.text || s.level != before.level) {
		// A new status message: stamped, and kept in the history.
		s.at = nm.clock()
		nm.vs.status = s
		nm.vs.messages = append(nm.vs.messages, s)
		if len(nm.vs.messages) > maxMessages {
			nm.vs.messages = slices.Delete(slices.Clone(nm.vs.messages), 0, len(nm.vs.messages)-maxMessages)
		}
	}
	if !nm.ticking && nm.needsTick() {
		nm.ticking = true
		cmd = tea.Batch(cmd, tick())
	}
	if s := nm.vs.status; s.text != "" && !s.at.IsZero() {
		life := statusLife
		if s.level == levelErr {
			life = statusErrLife
		}
		if nm.clock().Sub(s.at) >= life {
			nm.vs.status = statusLine{} // still in the history
		}
	}
	return nm, cmd
}

// update is Update before the status line's bookkeeping.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		if !m.darkFixed && !m.stylesFixed {
			m.dark = msg.IsDark()
			m.styles = ptr(m.themeFor(m.dark))
			m.vs.ovCache = newRowCache() // drawn in the old theme
		}
	case snapshotMsg:
		cmd := m.receive(msg.snap)
		return m, tea.Batch(waitSnapshot(m.snaps), cmd)
	case snapshotsDoneMsg:
		m.ageBase, m.recvAt = m.age(), m.clock()
		m.vs.closed = true
	case tickMsg:
		// The 1 Hz tick re-arms only while something on screen counts
		// down; Update starts it again when something does (ticking).
		if !m.needsTick() {
			m.ticking = false
			return m, nil
		}
		return m, tick()
	case CaptureStatus:
		m.ageBase, m.recvAt = m.age(), m.clock()
		if m.vs.paused && msg.Demo != nil && m.vs.capture.Demo != nil {
			// Paused: the demo's step line stays as it was (the clock it
			// counts down with is frozen too); the newest shows on resume.
			m.demoLatest, m.demoHeld = msg.Demo, true
			msg.Demo = m.vs.capture.Demo
		}
		m.vs.capture = msg
	case ErrorMsg:
		if msg.Err != nil {
			m.vs.status = statusLine{text: msg.Err.Error(), level: levelErr}
		}
	case capsMsg:
		m.setCaps(msg.iface, msg.caps)
	case readOnlyMsg:
		m.vs.busy = ""
		m.setCaps(msg.iface, msg.caps)
		_, why := allows(msg.caps, msg.act)
		m.readOnly(msg.act, msg.iface, why)
	case confirmMsg:
		m.vs.busy = ""
		m.setCaps(msg.iface, msg.caps)
		m.openConfirm(msg)
	case editReadyMsg:
		m.vs.busy = ""
		m.setCaps(msg.iface, msg.caps)
		if in := m.iface(msg.iface); in != nil {
			m.vs.form = newEditForm(in)
			m.vs.detail = nil
		}
	case formPreviewMsg:
		if f := m.vs.form; f != nil && f.iface == msg.iface && f.seq == msg.seq {
			nf := *f
			nf.preview = &formPreview{seq: msg.seq, op: msg.op, res: msg.res, err: msg.err}
			m.vs.form = &nf
		}
		if d := m.vs.dialog; d != nil && d.iface == msg.iface && d.seq == msg.seq && msg.seq != 0 {
			nd := *d
			nd.op, nd.res, nd.previewErr, nd.hasPreview = msg.op, msg.res, msg.err, msg.err == nil
			m.vs.dialog = &nd
		}
	case resultMsg:
		m.vs.busy = ""
		if msg.err == nil {
			// One level of undo: after an undo there is nothing left
			// until the next apply.
			m.undone = maps.Clone(m.undone)
			if m.undone == nil {
				m.undone = map[string]bool{}
			}
			switch msg.act {
			case actUndo:
				m.undone[msg.iface] = true
			case actWilling, actApply:
				delete(m.undone, msg.iface)
			}
		}
		if msg.err != nil {
			m.vs.status = statusLine{text: fmt.Sprintf("%s: %s failed: %v", msg.iface, msg.act, msg.err), level: levelErr}
		} else {
			m.vs.status = statusLine{text: msg.iface + ": " + msg.text, level: levelOK}
		}
		return m, m.capsCmd(msg.iface)
	case exportMsg:
		m.vs.busy = ""
		if msg.err != nil {
			m.vs.status = statusLine{text: "export failed: " + msg.err.Error(), level: levelErr}
		} else {
			m.vs.status = statusLine{text: "snapshot saved to " + msg.path, level: levelOK}
		}
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return m.mouse(msg.(tea.MouseMsg))
	}
	return m, nil
}

// receive takes a snapshot from the channel: shown at once, or counted
// while the screen is paused.
func (m *Model) receive(s engine.Snapshot) tea.Cmd {
	m.latest, m.haveLatest = s, true
	rebase := m.rebase(s)
	if m.vs.paused {
		m.vs.newCount = countNew(m.snap.Indications, s.Indications)
		return rebase
	}
	if rebase != nil {
		return tea.Batch(rebase, m.show(s))
	}
	return m.show(s)
}

// rebasedNote is what a form or dialog says once its baseline was taken
// again.
const rebasedNote = "what is in force changed while this was open (a remote update): the changes and the preview are against the parameters in force now"

// rebase keeps an open form's and dialog's baseline the state in force
// (even while the screen is paused): when the interface's operational
// parameters, their resolution or its local parameters differ from those
// the form or dialog was opened with (the switch changed its TLVs, a
// second peer appeared, another apply), the baseline becomes the new
// state, the preview is asked for again and the form or dialog says so.
// So a preview never credits the operator's edit with a change the
// remote side made.
func (m *Model) rebase(s engine.Snapshot) tea.Cmd {
	var name string
	switch {
	case m.vs.form != nil:
		name = m.vs.form.iface
	case m.vs.dialog != nil:
		name = m.vs.dialog.iface
	default:
		return nil
	}
	var in *engine.Interface
	for i := range s.Interfaces {
		if s.Interfaces[i].Name == name {
			in = &s.Interfaces[i]
		}
	}
	if in == nil {
		return nil
	}
	var cmds []tea.Cmd
	preview := func(willing bool, local *dcb.Params) tea.Cmd {
		if m.backend == nil {
			return nil
		}
		m.seq++
		b, seq := m.backend, m.seq
		return func() tea.Msg {
			op, res, err := b.Preview(name, willing, local)
			return formPreviewMsg{seq: seq, iface: name, op: op, res: res, err: err}
		}
	}
	if f := m.vs.form; f != nil && (in.Operational.Diff(f.curOp) != 0 || in.Resolution != f.curRes || in.Local.Diff(f.base) != 0) {
		nf := *f
		nf.base, nf.curOp, nf.curRes, nf.rebased = in.Local.Clone(), in.Operational.Clone(), in.Resolution, true
		nf.preview = nil
		if p, errs, _ := nf.problems(); len(errs) == 0 {
			cmds = append(cmds, preview(nf.willing, p))
		}
		nf.seq = m.seq
		m.vs.form = &nf
	}
	if d := m.vs.dialog; d != nil && (in.Operational.Diff(d.curOp) != 0 || in.Resolution != d.curRes) {
		nd := *d
		nd.curOp, nd.curRes, nd.rebased = in.Operational.Clone(), in.Resolution, true
		switch nd.kind {
		case dialogWilling:
			cmds = append(cmds, preview(nd.willing, nil))
			nd.seq, nd.hasPreview, nd.previewErr = m.seq, false, nil
		case dialogUndo:
			if nd.local != nil {
				nd.localDiff, nd.curWilling = paramsDiff(in.Local, nd.local), in.Willing
				cmds = append(cmds, preview(nd.willing, nd.local))
				nd.seq, nd.hasPreview, nd.previewErr = m.seq, false, nil
			}
		case dialogApply:
			if f := m.vs.form; f != nil {
				nd.localDiff = paramsDiff(f.base, nd.local)
			}
			willing := nd.local.Willing()
			if f := m.vs.form; f != nil {
				willing = f.willing
			}
			cmds = append(cmds, preview(willing, nd.local))
			nd.seq, nd.hasPreview, nd.previewErr = m.seq, false, nil
		}
		m.vs.dialog = &nd
	}
	return tea.Batch(cmds...)
}

// show puts a snapshot on screen, keeping the log cursor on the entry it
// was on and the selected interface selected.
func (m *Model) show(s engine.Snapshot) tea.Cmd {
	if !m.vs.logFollow {
		old := filtered(m.snap.Indications, m.vs.filter)
		if cur := logCursor(&m.vs, len(old)); cur >= 0 {
			want := m.snap.Indications[old[cur]]
			idx := filtered(s.Indications, m.vs.filter)
			m.vs.logCur = 0
			for j := len(idx) - 1; j >= 0; j-- {
				if sameIndication(&s.Indications[idx[j]], &want) {
					m.vs.logCur = j
					break
				}
			}
		}
	}
	before := m.vs.iface
	ovName, ovLine := overviewSelected(m.snap, &m.vs), m.ovLine()
	m.snap = s
	if ovName != "" && m.vs.overview {
		m.ovFollow(ovName, ovLine) // the overview's cursor stays on its port
	}
	m.recvAt, m.ageBase = m.clock(), 0
	m.vs.diagSince = trackDiagnostics(m.vs.diagSince, s, s.TakenAt)
	if !m.vs.ovDecided && len(s.Interfaces) > 0 {
		// Several ports: start with all of them at a glance.
		m.vs.ovDecided, m.vs.overview = true, len(s.Interfaces) > 1
	}
	in := selected(s, m.vs.iface)
	if in == nil {
		return nil
	}
	m.vs.iface = in.Name
	m.adoptCaps(s)
	m.syncCaps()
	if in.Name != before || !m.vs.capsKnown {
		return m.capsCmd(in.Name)
	}
	return nil
}

// adoptCaps takes the capabilities the engine decided for each interface
// of a live snapshot (engine.Interface.Caps), so that what the keys allow
// follows the host without asking the backend: an LLDP agent that exited
// stops blocking a at the next snapshot. What only the backend knows (why
// there is nothing to undo) is kept until it answers again. A snapshot
// without decided capabilities (a replay's, a test's) leaves them as the
// backend said.
func (m *Model) adoptCaps(s engine.Snapshot) {
	if m.vs.capture.Mode == CaptureReplay {
		return
	}
	for i := range s.Interfaces {
		in := &s.Interfaces[i]
		c := in.Caps
		if c == (engine.Capabilities{}) {
			continue
		}
		old, known := m.caps[in.Name]
		if known {
			c.UndoNo = old.UndoNo
			if c == old {
				continue
			}
		}
		m.setCaps(in.Name, c)
	}
}

func sameIndication(a, b *engine.Indication) bool {
	return a.Time.Equal(b.Time) && a.Interface == b.Interface && a.Status == b.Status &&
		a.Reason == b.Reason && a.Flags == b.Flags && a.Peer == b.Peer
}

// countNew counts the indications of next that came after the last one of
// shown (all of them when it is no longer in the bounded log).
func countNew(shown, next []engine.Indication) int {
	if len(shown) == 0 {
		return len(next)
	}
	last := &shown[len(shown)-1]
	for j := len(next) - 1; j >= 0; j-- {
		if sameIndication(&next[j], last) {
			return len(next) - 1 - j
		}
	}
	return len(next)
}

func (m *Model) setCaps(iface string, c Caps) {
	m.caps = maps.Clone(m.caps)
	if m.caps == nil {
		m.caps = map[string]Caps{}
	}
	m.caps[iface] = c
	m.syncCaps()
}

func (m *Model) syncCaps() {
	m.vs.caps, m.vs.capsKnown = m.caps[m.vs.iface]
}

func (m Model) capsCmd(iface string) tea.Cmd {
	b := m.backend
	if b == nil || iface == "" {
		return nil
	}
	return func() tea.Msg { return capsMsg{iface: iface, caps: b.Capabilities(iface)} }
}

// iface returns the named interface of the snapshot on screen.
func (m Model) iface(name string) *engine.Interface {
	if in := selected(m.snap, name); in != nil && in.Name == name {
		return in
	}
	return nil
}

// readOnly explains, in the status line, why an action is unavailable.
// After an undo from this screen, "nothing to undo" says that the one
// level of undo was used, not that nothing was ever applied.
func (m *Model) readOnly(act actionKind, iface, why string) {
	if act == actUndo && m.undone[iface] && m.caps[iface].UndoNo.Code == engine.RefuseNothingToUndo {
		// The engine's words for it (a backend that knows says the same).
		why = engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: iface, Undone: true}.String()
	}
	m.vs.status = statusLine{text: fmt.Sprintf("%s unavailable on %s: %s", act, iface, cmp.Or(why, noReason)), level: levelInfo}
}

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
	case key.Matches(msg, k.Lossless): // the counters, and back to the log
		if m.vs.focus == paneLossless {
			m.vs.focus = paneLog
		} else {
			m.vs.focus = paneLossless
		}
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
		return m.startGuarded(actEdit)
	case key.Matches(msg, k.Undo):
		return m.startGuarded(actUndo)
	case key.Matches(msg, k.Agent):
		return m.startAgent()
	case key.Matches(msg, k.Export):
		return m.export()
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
			m.vs.status = statusLine{text: fmt.Sprintf("no interface %d (there are %d)", n+1, len(ifs))}
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
	return m.capsCmd(m.vs.iface)
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
	switch m.vs.focus {
	case panePeers:
		if in := selected(m.snap, m.vs.iface); in != nil && (len(in.Peers) > 0 || in.LastPeer != nil) {
			m.vs.detail = &detailView{kind: detailPeers}
		}
		return
	case paneDiag:
		if in := selected(m.snap, m.vs.iface); in != nil && len(in.Diagnostics) > 0 {
			m.vs.detail = &detailView{kind: detailDiagnostics}
		}
		return
	case paneLog:
	default:
		m.vs.status = statusLine{text: "enter shows details in the Log, Peers and Diagnostics panes (tab to focus one)"}
		return
	}
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
	case key.Matches(msg, k.Up):
		d.scroll--
	case key.Matches(msg, k.Down):
		d.scroll++
	case key.Matches(msg, k.PageUp):
		d.scroll -= rows - 1
	case key.Matches(msg, k.PageDown):
		d.scroll += rows - 1
	case key.Matches(msg, k.Home):
		d.scroll = 0
	case key.Matches(msg, k.End):
		d.scroll = n
	}
	d.scroll = clamp(d.scroll, 0, n-rows)
	m.vs.detail = &d
	return m, nil
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

// target returns the selected interface when act may be tried on it. When
// it may not, it says why in the status line and returns nil.
func (m *Model) target(act actionKind) *engine.Interface {
	in := selected(m.snap, m.vs.iface)
	if in == nil {
		return nil
	}
	if why := m.vs.blocked(act); why != "" {
		m.readOnly(act, in.Name, why)
		return nil
	}
	return in
}

// checked returns a Cmd that asks the backend again whether act is allowed
// on iface (what it said last may be stale) and answers readOnlyMsg when it
// is not, or then's message.
func (m Model) checked(act actionKind, iface string, then func(b Backend, caps Caps) tea.Msg) tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		caps := b.Capabilities(iface)
		if ok, _ := allows(caps, act); !ok {
			return readOnlyMsg{act: act, iface: iface, caps: caps}
		}
		return then(b, caps)
	}
}

// startWilling asks the backend (in a Cmd) whether Willing may change and
// what operational would become; a confirmation dialog follows.
func (m Model) startWilling() (tea.Model, tea.Cmd) {
	in := m.target(actWilling)
	if in == nil {
		return m, nil
	}
	target := in.Willing == nil || !*in.Willing
	name := in.Name
	m.vs.busy = fmt.Sprintf("previewing Willing %s on %s…", dcb.OnOff(target), name)
	return m, m.checked(actWilling, name, func(b Backend, caps Caps) tea.Msg {
		op, res, err := b.Preview(name, target, nil)
		return confirmMsg{act: actWilling, iface: name, willing: target, caps: caps, op: op, res: res, err: err, preview: true}
	})
}

// startGuarded starts edit or undo after the backend's write check.
func (m Model) startGuarded(act actionKind) (tea.Model, tea.Cmd) {
	in := m.target(act)
	if in == nil {
		return m, nil
	}
	name := in.Name
	m.vs.busy = fmt.Sprintf("checking %s on %s…", act, name)
	return m, m.checked(act, name, func(b Backend, caps Caps) tea.Msg {
		if act == actEdit {
			return editReadyMsg{iface: name, caps: caps}
		}
		// Undo: what it restores, and what operational would become.
		st, ok := b.UndoState(name)
		if !ok {
			caps.UndoNo = engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: name}
			return readOnlyMsg{act: act, iface: name, caps: caps}
		}
		msg := confirmMsg{act: act, iface: name, caps: caps, undo: &st, willing: st.Willing}
		if st.Params != nil {
			msg.op, msg.res, msg.err = b.Preview(name, st.Willing, st.Params)
			msg.preview = true
		}
		return msg
	})
}

// startAgent asks to start or stop dcbtop's host agent on the interface.
func (m Model) startAgent() (tea.Model, tea.Cmd) {
	in := m.target(actAgent)
	if in == nil {
		return m, nil
	}
	on := in.LocalSource != engine.SourceAgent
	name := in.Name
	m.vs.busy = fmt.Sprintf("checking the host agent on %s…", name)
	return m, m.checked(actAgent, name, func(_ Backend, caps Caps) tea.Msg {
		return confirmMsg{act: actAgent, iface: name, willing: on, caps: caps}
	})
}

// openConfirm opens the dialog a confirmMsg asks for.
func (m *Model) openConfirm(msg confirmMsg) {
	in := m.iface(msg.iface)
	if in == nil {
		return
	}
	d := &dialog{iface: msg.iface, willing: msg.willing, curOp: in.Operational.Clone(), curRes: in.Resolution,
		op: msg.op, res: msg.res, previewErr: msg.err, hasPreview: msg.preview && msg.err == nil}
	switch msg.act {
	case actWilling:
		d.kind = dialogWilling
	case actUndo:
		d.kind = dialogUndo
		if u := msg.undo; u != nil {
			d.local, d.localDiff = u.Params, paramsDiff(in.Local, u.Params)
			d.curWilling = in.Willing
		}
	case actAgent:
		d.kind = dialogAgent
		d.agentDetail = fmt.Sprintf("dcbtop stops transmitting on %s and sends a shutdown LLDPDU (TTL 0): the switch withdraws this host's DCBX parameters at once.", msg.iface)
		if msg.willing {
			d.agentDetail = fmt.Sprintf("dcbtop transmits LLDPDUs on %s with the local ETS, PFC and APP TLVs and the Willing bit, and a shutdown LLDPDU when it stops. "+
				"Another LLDP agent on this port would look like a second peer to the switch.", msg.iface)
		}
	default:
		return
	}
	m.vs.dialog = d
}

// dialogKey answers a confirmation dialog.
func (m Model) dialogKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k, d, b := m.keys, m.vs.dialog, m.backend
	switch {
	case key.Matches(msg, k.Yes):
	case key.Matches(msg, k.No):
		m.vs.dialog = nil
		if d.kind == dialogQuit {
			m.vs.status = statusLine{text: "quit cancelled: dcbtop's agent keeps running"}
			return m, nil
		}
		if d.kind != dialogApply {
			m.vs.status = statusLine{text: "cancelled: nothing was changed"}
		}
		return m, nil
	default:
		return m, nil
	}
	m.vs.dialog = nil
	if d.kind == dialogQuit {
		return m, tea.Quit
	}
	if b == nil {
		return m, nil
	}
	name := d.iface
	switch d.kind {
	case dialogWilling:
		w := d.willing
		m.vs.busy = fmt.Sprintf("setting Willing %s on %s…", dcb.OnOff(w), name)
		return m, func() tea.Msg {
			text, err := b.Apply(name, &w, nil)
			return resultMsg{act: actWilling, iface: name, text: text, err: err}
		}
	case dialogApply:
		p := d.local
		m.vs.form = nil
		m.vs.busy = fmt.Sprintf("applying local parameters on %s…", name)
		return m, func() tea.Msg {
			text, err := b.Apply(name, nil, p)
			return resultMsg{act: actApply, iface: name, text: text, err: err}
		}
	case dialogUndo:
		m.vs.busy = fmt.Sprintf("undoing the last apply on %s…", name)
		return m, func() tea.Msg {
			text, err := b.Undo(name)
			return resultMsg{act: actUndo, iface: name, text: text, err: err}
		}
	case dialogAgent:
		on := d.willing
		m.vs.busy = fmt.Sprintf("%s the host agent on %s…", map[bool]string{true: "starting", false: "stopping"}[on], name)
		return m, func() tea.Msg {
			text, err := b.SetAgent(name, on)
			return resultMsg{act: actAgent, iface: name, text: text, err: err}
		}
	}
	return m, nil
}

// formKey edits the form; a change asks the backend for a new preview.
func (m Model) formKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	f := *m.vs.form
	f.app = slices.Clone(f.app)
	changed := false
	switch {
	case key.Matches(msg, k.Back):
		m.vs.form = nil
		m.vs.status = statusLine{text: "edit cancelled: nothing was changed"}
		return m, nil
	case key.Matches(msg, k.FormApply):
		if f.row == rowApp0+len(f.app) {
			f.addApp()
			changed = true
			break
		}
		p, errs, _ := f.problems()
		if len(errs) > 0 {
			f.msg = "cannot apply: fix " + plural(len(errs), "error") + " first"
			break
		}
		d := &dialog{kind: dialogApply, iface: f.iface, curOp: f.curOp, curRes: f.curRes, local: p, localDiff: paramsDiff(f.base, p)}
		if pv := f.preview; pv != nil && pv.seq == f.seq {
			d.op, d.res, d.previewErr, d.hasPreview = pv.op, pv.res, pv.err, pv.err == nil
		}
		m.vs.dialog = d
	case key.Matches(msg, k.FormNext):
		f.step(1)
	case key.Matches(msg, k.FormPrev):
		f.step(-1)
	case key.Matches(msg, k.Up):
		f.move(-1, 0)
	case key.Matches(msg, k.Down):
		f.move(1, 0)
	case key.Matches(msg, k.FormLeft):
		f.move(0, -1)
	case key.Matches(msg, k.FormRight):
		f.move(0, 1)
	case key.Matches(msg, k.FormToggle, k.FormInc):
		changed = f.change(1)
	case key.Matches(msg, k.FormDec):
		changed = f.change(-1)
	case key.Matches(msg, k.FormAdd):
		f.addApp()
		changed = true
	case key.Matches(msg, k.FormDelete):
		changed = f.deleteApp()
	case msg.Code == tea.KeyBackspace:
		changed = f.backspace()
	default:
		changed = f.typeRune(msg.Text)
	}
	var cmd tea.Cmd
	if changed {
		f.msg = ""
		m.seq++
		f.seq = m.seq
		if p, errs, _ := f.problems(); len(errs) == 0 && m.backend != nil {
			b, name, w, seq := m.backend, f.iface, f.willing, f.seq
			cmd = func() tea.Msg {
				op, res, err := b.Preview(name, w, p)
				return formPreviewMsg{seq: seq, iface: name, op: op, res: res, err: err}
			}
		}
	}
	m.vs.form = &f
	return m, cmd
}

// export writes the snapshot on screen through the backend.
func (m Model) export() (tea.Model, tea.Cmd) {
	if m.backend == nil {
		m.vs.status = statusLine{text: "export unavailable: viewer only (no backend)"}
		return m, nil
	}
	b, s := m.backend, m.snap
	m.vs.busy = "exporting the snapshot…"
	return m, func() tea.Msg {
		path, err := b.Export(s)
		return exportMsg{path: path, err: err}
	}
}
