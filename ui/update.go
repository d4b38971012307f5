// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"time"

	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"

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
	actFix
	actTune
)

// String names the action as status lines do: "toggle Willing", "undo"...
func (a actionKind) String() string {
	return [...]string{"toggle Willing", "edit local parameters", "undo", "host agent", "apply", "fix", "tune host QoS"}[a]
}

// Messages carrying Backend results back to Update.
type (
	// noUndoMsg: the backend has nothing to undo on iface.
	noUndoMsg struct{ iface string }
	// confirmMsg opens a confirmation dialog, with a preview for Willing.
	confirmMsg struct {
		act     actionKind
		iface   string
		willing bool // Willing: the new state; agent: start
		op      *dcb.Params
		res     dcb.Resolution
		preview bool
		// undo is what an undo restores (undo only).
		undo *engine.LocalState
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
	// fixesMsg brings the host QoS fixes of iface (or, undo, the undo of
	// the last one), previewed.
	fixesMsg struct {
		iface string
		fixes []FixPreview
		undo  bool
		err   error
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
	_, isTick := msg.(tickMsg)
	nm.redrawn = isTick && nm.vs.status == before && nm.snapshotsFlow()
	return nm, cmd
}

// snapshotsFlow reports whether a live run's snapshot arrived less than a
// second ago: the run publishes one a second while anything on screen
// ages (its aging snapshots), each redrawing every countdown, so the 1 Hz
// tick in between would draw the same screen again, a second render a
// second (the demo's screen cost 1.2 times 54a24de's with it).
func (m Model) snapshotsFlow() bool {
	return m.vs.capture.Mode == CaptureLive && !m.vs.paused && m.clock().Sub(m.recvAt) < time.Second
}

// update is Update before the status line's bookkeeping.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.styles = ptr(m.themeFor(m.dark))
		m.vs.ovCache = newRowCache() // drawn in the old theme
	case snapshotMsg:
		cmd := m.receive(msg.snap)
		if d := m.vs.detail; d != nil && d.kind == detailFrames && !m.vs.paused {
			m.refreshFrames() // what the run received meanwhile
		}
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
	case noUndoMsg:
		m.vs.busy = ""
		m.setNoUndo(msg.iface, engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: msg.iface, Undone: m.undone[msg.iface]})
		_, why := allows(m.vs.caps, actUndo)
		m.readOnly(actUndo, msg.iface, why)
	case confirmMsg:
		m.vs.busy = ""
		m.openConfirm(msg)
	case tuneMsg:
		m.tuned(msg)
	case fixesMsg:
		m.vs.busy = ""
		switch {
		case msg.err != nil:
			m.vs.status = statusLine{text: fmt.Sprintf("%s: no fix can be written: %v", msg.iface, msg.err), level: levelErr}
		case len(msg.fixes) == 0:
			m.vs.status = statusLine{text: msg.iface + ": no diagnostic here has a fix dcbtop can write (f fixes the host's trust, DSCP map, PFC delay and rdma_cm ToS)"}
		default:
			m.vs.dialog = m.fixDialog(msg.iface, msg.fixes, msg.undo)
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
			m.applied = maps.Clone(m.applied)
			if m.applied == nil {
				m.applied = map[string]bool{}
			}
			switch msg.act {
			case actUndo:
				m.undone[msg.iface] = true
				delete(m.applied, msg.iface)
				m.setNoUndo(msg.iface, engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: msg.iface, Undone: true})
			case actWilling, actApply, actFix, actTune:
				delete(m.undone, msg.iface)
				m.applied[msg.iface] = true
				m.setNoUndo(msg.iface, engine.Refusal{})
			}
		}
		if msg.err != nil {
			m.vs.status = statusLine{text: fmt.Sprintf("%s: %s failed: %v", msg.iface, msg.act, msg.err), level: levelErr}
		} else {
			m.vs.status = statusLine{text: msg.iface + ": " + msg.text, level: levelOK}
		}
		return m, nil
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
	m.rebase(s)
	if m.vs.paused {
		m.vs.newCount = countNew(m.snap.Indications, s.Indications)
		return nil
	}
	return m.show(s)
}

// rebasedNote is what a form or dialog says once its baseline was taken
// again.
const rebasedNote = "what is in force changed while this was open (a remote update): the changes and the preview are against the parameters in force now"

// fixRebasedNote is what a host QoS fix's dialog says once what is in
// force changed under it: its preview is the backend's, made when it
// opened, and is not made again here.
const fixRebasedNote = "what is in force changed while this was open (a remote update): the preview was made before it; n, then preview again"

// rebase keeps an open form's and dialog's baseline the state in force
// (even while the screen is paused): when the interface's operational
// parameters, their resolution or its local parameters differ from those
// the form or dialog was opened with (the switch changed its TLVs, a
// second peer appeared, another apply), the baseline becomes the new
// state, the preview is made again and the form or dialog says so.
// So a preview never credits the operator's edit with a change the
// remote side made.
func (m *Model) rebase(s engine.Snapshot) {
	var name string
	switch {
	case m.vs.form != nil:
		name = m.vs.form.iface
	case m.vs.dialog != nil:
		name = m.vs.dialog.iface
	default:
		return
	}
	var in *engine.Interface
	for i := range s.Interfaces {
		if s.Interfaces[i].Name == name {
			in = &s.Interfaces[i]
		}
	}
	if in == nil {
		return
	}
	if f := m.vs.form; f != nil && (in.Operational.Diff(f.curOp) != 0 || in.Resolution != f.curRes || in.Local.Diff(f.base) != 0) {
		nf := *f
		nf.base, nf.curOp, nf.curRes, nf.rebased = in.Local.Clone(), in.Operational.Clone(), in.Resolution, true
		nf.preview = nil
		if p, errs, _ := nf.problems(); len(errs) == 0 {
			op, res := engine.PreviewOperational(*in, nf.willing, p)
			nf.preview = &formPreview{op: op, res: res}
		}
		m.vs.form = &nf
	}
	if d := m.vs.dialog; d != nil && (in.Operational.Diff(d.curOp) != 0 || in.Resolution != d.curRes) {
		nd := *d
		nd.curOp, nd.curRes, nd.rebased = in.Operational.Clone(), in.Resolution, true
		preview := func(willing bool, local *dcb.Params) {
			nd.op, nd.res = engine.PreviewOperational(*in, willing, local)
			nd.hasPreview = true
		}
		switch nd.kind {
		case dialogWilling:
			preview(nd.willing, nil)
		case dialogUndo:
			if nd.local != nil {
				nd.localDiff, nd.curWilling = paramsDiff(in.Local, nd.local), in.Willing
				preview(nd.willing, nd.local)
			}
		case dialogApply:
			willing := nd.local.Willing()
			if f := m.vs.form; f != nil {
				nd.localDiff = paramsDiff(f.base, nd.local)
				willing = f.willing
			}
			preview(willing, nd.local)
		}
		m.vs.dialog = &nd
	}
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
	return nil
}

// adoptCaps takes the capabilities the engine decided for each interface
// of a snapshot (engine.Interface.Caps), so that what the keys allow
// follows the host without asking the backend: an LLDP agent that exited
// stops blocking a at the next snapshot. A replay's screen writes nothing;
// an interface whose snapshot decided nothing (a test's) may be tried, and
// the backend's answer says why not.
func (m *Model) adoptCaps(s engine.Snapshot) {
	caps := make(map[string]Caps, len(s.Interfaces))
	for i := range s.Interfaces {
		in := &s.Interfaces[i]
		c := in.Caps
		if m.vs.capture.Mode == CaptureReplay {
			c = engine.ReadOnly()
		}
		if c == (engine.Capabilities{}) {
			continue
		}
		caps[in.Name] = c
	}
	m.caps = caps
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

// setNoUndo records why there is nothing to undo on iface (the zero
// Refusal: there may be), which only the backend and this screen's own
// actions know.
func (m *Model) setNoUndo(iface string, r engine.Refusal) {
	m.noUndo = maps.Clone(m.noUndo)
	if m.noUndo == nil {
		m.noUndo = map[string]engine.Refusal{}
	}
	if r == (engine.Refusal{}) {
		delete(m.noUndo, iface)
	} else {
		m.noUndo[iface] = r
	}
	m.syncCaps()
}

// syncCaps sets the selected interface's capabilities: the snapshot's,
// with why there is nothing to undo when the screen knows.
func (m *Model) syncCaps() {
	m.vs.caps, m.vs.capsKnown = m.caps[m.vs.iface]
	m.vs.undoable = m.applied[m.vs.iface]
	if m.vs.capsKnown {
		m.vs.caps.UndoNo = m.noUndo[m.vs.iface]
	}
	// A refusal whose cause has gone (another agent stopped, the
	// privilege came) no longer stands.
	if r := m.vs.status.refusal; r != nil && r.iface == m.vs.iface && m.vs.capsKnown {
		if ok, _ := allows(m.vs.caps, r.act); ok {
			m.vs.status = statusLine{}
		}
	}
}

// iface returns the named interface of the snapshot on screen.
func (m Model) iface(name string) *engine.Interface {
	if in := selected(m.snap, name); in != nil && in.Name == name {
		return in
	}
	return nil
}

// readOnly explains, in the status line, why an action is unavailable.
func (m *Model) readOnly(act actionKind, iface, why string) {
	why = cmp.Or(why, noReason)
	where := " on " + iface
	if strings.Contains(why, iface) {
		where = "" // the reason names the interface already
	}
	m.vs.status = statusLine{text: fmt.Sprintf("%s unavailable%s: %s", act, where, why), level: levelInfo, refusal: &refusedAction{act, iface}}
}
