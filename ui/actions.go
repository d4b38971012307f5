// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/verdict"
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

// startWilling opens the confirmation of a Willing change, with what
// operational would become (engine.PreviewOperational on the snapshot:
// nothing is asked of the backend until the operator confirms).
func (m Model) startWilling() (tea.Model, tea.Cmd) {
	in := m.target(actWilling)
	if in == nil {
		return m, nil
	}
	target := in.Willing == nil || !*in.Willing
	op, res := engine.PreviewOperational(*in, target, nil)
	m.openConfirm(confirmMsg{act: actWilling, iface: in.Name, willing: target, op: op, res: res, preview: true})
	return m, nil
}

// startEdit opens the edit form on the selected interface.
func (m Model) startEdit() (tea.Model, tea.Cmd) {
	in := m.target(actEdit)
	if in == nil {
		return m, nil
	}
	m.vs.form = newEditForm(in)
	m.vs.detail = nil
	return m, nil
}

// startUndo asks the backend what an undo would restore (the host's one
// level of undo: the one thing the snapshot does not carry) and opens the
// confirmation with what operational would become.
func (m Model) startUndo() (tea.Model, tea.Cmd) {
	in := m.target(actUndo)
	if in == nil {
		return m, nil
	}
	b, snap := m.backend, *in
	m.vs.busy = fmt.Sprintf("checking undo on %s…", snap.Name)
	return m, func() tea.Msg {
		if fix, ok := b.QoSUndo(snap.Name); ok {
			// The last write here was a host QoS fix: its undo.
			return fixesMsg{iface: snap.Name, fixes: []FixPreview{fix}, undo: true}
		}
		st, ok := b.UndoState(snap.Name)
		if !ok {
			return noUndoMsg{iface: snap.Name}
		}
		msg := confirmMsg{act: actUndo, iface: snap.Name, undo: &st, willing: st.Willing}
		if st.Params != nil {
			msg.op, msg.res = engine.PreviewOperational(snap, st.Willing, st.Params)
			msg.preview = true
		}
		return msg
	}
}

// startFix asks the backend for the host QoS fixes of the selected
// interface's diagnostics, each previewed (the backend's engine judges
// the changed facts), and opens the first.
func (m Model) startFix() (tea.Model, tea.Cmd) {
	in := m.target(actFix)
	if in == nil {
		return m, nil
	}
	b, name := m.backend, in.Name
	m.vs.busy = fmt.Sprintf("looking for fixes on %s…", name)
	return m, func() tea.Msg {
		fixes, err := b.QoSFixes(name)
		return fixesMsg{iface: name, fixes: fixes, err: err}
	}
}

// fixDialog is the dialog of host QoS fixes (or a tuned change, or the
// undo of the last write) previewed by the backend, with what is in
// force now as its baseline (Model.rebase: said if it changes).
func (m *Model) fixDialog(iface string, fixes []FixPreview, undo bool) *dialog {
	d := &dialog{kind: dialogFix, iface: iface, fixes: fixes, qosUndo: undo}
	if in := m.iface(iface); in != nil {
		d.curOp, d.curRes = in.Operational.Clone(), in.Resolution
	}
	return d
}

// startAgent opens the confirmation of starting or stopping dcbtop's host
// agent on the interface.
func (m Model) startAgent() (tea.Model, tea.Cmd) {
	in := m.target(actAgent)
	if in == nil {
		return m, nil
	}
	m.openConfirm(confirmMsg{act: actAgent, iface: in.Name, willing: in.LocalSource != engine.SourceAgent})
	return m, nil
}

// openConfirm opens the dialog a confirmMsg asks for.
func (m *Model) openConfirm(msg confirmMsg) {
	in := m.iface(msg.iface)
	if in == nil {
		return
	}
	d := &dialog{iface: msg.iface, willing: msg.willing, curOp: in.Operational.Clone(), curRes: in.Resolution,
		op: msg.op, res: msg.res, hasPreview: msg.preview}
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
			d.nic = engine.NICAgentStartNote
		}
	default:
		return
	}
	if d.hasPreview {
		d.nic = engine.NICWriteNote(*in, d.op)
		d.verdicts = dialogVerdicts(in, engine.PreviewInterface(*in, d.willing, d.local))
	}
	m.vs.dialog = d
}

// dialogVerdicts says what a change makes of the verdicts of lossless
// readiness (the ones every surface shows, engine/check): each that
// changes ("pfc-agreement: CRITICAL → OK"), with its reason where it is
// not OK after, then each that stays CRITICAL or WARNING, so that a
// preview that fixes one finding never hides the one that stays.
func dialogVerdicts(before *engine.Interface, after engine.Interface) []string {
	was := map[verdict.Name]verdict.Verdict{}
	now := before.Checks
	if now == nil {
		now = check.Judge(before, false)
	}
	for _, r := range now {
		was[r.Check] = r.Verdict
	}
	var changed, stays []string
	for _, r := range check.Judge(&after, false) {
		bad := r.Verdict == verdict.Critical || r.Verdict == verdict.Warning
		switch v, ok := was[r.Check]; {
		case !ok || v != r.Verdict:
			line := fmt.Sprintf("%s: %s → %s", r.Check, v, r.Verdict)
			if bad {
				line += ": " + r.Summary
			}
			changed = append(changed, line)
		case bad:
			stays = append(stays, fmt.Sprintf("stays %s: %s: %s", r.Verdict, r.Check, r.Summary))
		}
	}
	return append(changed, stays...)
}

// dialogKey answers a confirmation dialog.
func (m Model) dialogKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k, d, b := m.keys, m.vs.dialog, m.backend
	switch {
	case d.kind == dialogFix && key.Matches(msg, k.Fix) && len(d.fixes) > 1:
		next := *d
		next.fix = (d.fix + 1) % len(d.fixes)
		m.vs.dialog = &next
		return m, nil
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
	case dialogFix:
		fix, undo := d.fixes[d.fix], d.qosUndo
		act := actFix
		m.vs.busy = fmt.Sprintf("writing %s on %s…", fix.Fix.Code, name)
		switch {
		case undo:
			act = actUndo
			m.vs.busy = fmt.Sprintf("undoing the last host QoS write on %s…", name)
		case fix.Fix.Code == "": // typed in the tune form
			act = actTune
			m.vs.busy = fmt.Sprintf("writing the host QoS change on %s…", name)
		}
		return m, func() tea.Msg {
			text, err := b.ApplyQoS(name, fix.Fix.Change, undo)
			return resultMsg{act: act, iface: name, text: text, err: err}
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

// formKey edits the form; a change previews what operational would
// become (engine.PreviewOperational on the snapshot).
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
		if pv := f.preview; pv != nil {
			d.op, d.res, d.hasPreview = pv.op, pv.res, true
			if in := m.iface(f.iface); in != nil {
				d.nic = engine.NICWriteNote(*in, d.op)
			}
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
	if changed {
		f.msg = ""
		f.preview = nil
		if p, errs, _ := f.problems(); len(errs) == 0 {
			if in := m.iface(f.iface); in != nil {
				op, res := engine.PreviewOperational(*in, f.willing, p)
				f.preview = &formPreview{op: op, res: res}
			}
		}
	}
	m.vs.form = &f
	return m, nil
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
