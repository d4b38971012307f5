package ui

import (
	"fmt"
	"slices"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
)

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
