// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// The tune form (KeyMap.Tune): the host knobs dcb and mlnx_qos set
// beside ETS, PFC and APP, as dcbtop apply takes them (--maxrate,
// --pfc-storm-timeout, --dcbx-mode, --rewr-dscp, --rewr-dscp-delete).
// What is typed is parsed by engine/qos's parsers, checked against the
// driver by the backend's preview (qos.Change.Errors: what the driver
// reports, mlx5's ranges, the kernel's rewrite table), previewed with
// the verdicts it changes in the fix dialog, written and read back by
// Backend.ApplyQoS and undone by u (Backend.QoSUndo), as a fix is.

// A tuneField is one knob of the tune form.
type tuneField uint8

// The tune form's fields, in order.
const (
	tuneMaxRate tuneField = iota
	tuneStorm
	tuneDCBXMode
	tuneRewrite
	tuneRewriteDelete
	numTuneFields
)

// tuneLabels name the fields; tuneHints say what each takes (the flag
// of dcbtop apply it is).
var (
	tuneLabels = [numTuneFields]string{"rate limits", "PFC storm timeout", "DCBX mode", "DSCP rewrite", "delete rewrite"}
	tuneHints  = [numTuneFields]string{
		"TC:RATE,... e.g. 3:25gbit (0: no limit; kbit, mbit, gbit) · --maxrate",
		"MS, off or auto · --pfc-storm-timeout",
		"host or lld-managed, with ,ieee or ,cee · --dcbx-mode",
		"PRIO:DSCP,... e.g. 3:26 · --rewr-dscp",
		"PRIO,... e.g. 3 · --rewr-dscp-delete",
	}
)

// A tuneForm is the tune form being filled in.
type tuneForm struct {
	iface string
	text  [numTuneFields]string
	field tuneField
	// err is why the last review did not go on: a value that does not
	// parse, or what the backend's preview refused.
	err string
}

// tuneMsg brings the backend's preview of the form's change.
type tuneMsg struct {
	iface string
	fix   FixPreview
	err   error
}

// startTune opens the tune form on the selected interface.
func (m Model) startTune() (tea.Model, tea.Cmd) {
	in := m.target(actTune)
	if in == nil {
		return m, nil
	}
	m.vs.tune = &tuneForm{iface: in.Name}
	return m, nil
}

// change parses what the form holds into one host QoS change; an
// empty form is an error.
func (f *tuneForm) change() (qos.Change, error) {
	var c qos.Change
	var errs []error
	for i, raw := range f.text {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		var err error
		switch tuneField(i) {
		case tuneMaxRate:
			c.MaxRate, err = qos.ParseMaxRate(s)
		case tuneStorm:
			var ms uint16
			if ms, err = qos.ParseStormTimeout(s); err == nil {
				c.PFCStormTimeout = &ms
			}
		case tuneDCBXMode:
			var mode qos.DCBXMode
			if mode, err = qos.ParseDCBXMode(s); err == nil {
				c.DCBXMode = &mode
			}
		case tuneRewrite:
			c.RewriteDSCP, err = qos.ParsePrioDSCP(s)
		case tuneRewriteDelete:
			c.RewriteDSCPDelete, err = qos.ParsePriorities(s)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", tuneLabels[i], err))
		}
	}
	if len(errs) > 0 {
		return qos.Change{}, errors.Join(errs...)
	}
	if c.Empty() {
		return c, errors.New("nothing to change: type a value in a field")
	}
	return c, nil
}

// tuneKey edits the tune form: tab and ↑↓ move between the fields,
// typing edits the one focused, enter asks the backend to preview the
// change (the fix dialog then confirms it), esc cancels.
func (m Model) tuneKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	f := *m.vs.tune
	switch {
	case key.Matches(msg, k.Back):
		m.vs.tune = nil
		m.vs.status = statusLine{text: "tune cancelled: nothing was changed"}
		return m, nil
	case key.Matches(msg, k.FormApply):
		c, err := f.change()
		if err != nil {
			f.err = err.Error()
			break
		}
		f.err = ""
		b, name := m.backend, f.iface
		m.vs.busy = fmt.Sprintf("checking the change on %s…", name)
		m.vs.tune = &f
		return m, func() tea.Msg {
			fix, err := b.PreviewQoS(name, c)
			return tuneMsg{iface: name, fix: fix, err: err}
		}
	case key.Matches(msg, k.FormNext, k.Down):
		f.field = (f.field + 1) % numTuneFields
	case key.Matches(msg, k.FormPrev, k.Up):
		f.field = (f.field + numTuneFields - 1) % numTuneFields
	default:
		s, ok := editText(f.text[f.field], msg)
		if !ok {
			return m, nil
		}
		f.text[f.field], f.err = s, ""
	}
	m.vs.tune = &f
	return m, nil
}

// tuned takes the backend's preview: the fix dialog over the form, or
// what the backend refused in the form.
func (m *Model) tuned(msg tuneMsg) {
	m.vs.busy = ""
	f := m.vs.tune
	if f == nil || f.iface != msg.iface {
		return // cancelled meanwhile
	}
	if msg.err != nil {
		g := *f
		g.err = msg.err.Error()
		m.vs.tune = &g
		return
	}
	m.vs.tune = nil
	m.vs.dialog = m.fixDialog(msg.iface, []FixPreview{msg.fix}, false)
}

// tuneBox draws the tune form: each knob with what the NIC holds now
// (from the snapshot), the field and what it takes; the error of the
// last review; the keys.
func (r *renderer) tuneBox() string {
	f := r.vs.tune
	w := r.boxWidth(90)
	st := r.st
	var in *engine.Interface
	for i := range r.snap.Interfaces {
		if r.snap.Interfaces[i].Name == f.iface {
			in = &r.snap.Interfaces[i]
		}
	}
	const labelW = 19
	var lines []string
	lines = append(lines, wrap("As dcbtop apply writes them: checked against the driver and previewed first; empty fields change nothing.", w, "")...)
	roomy := r.h >= 34 // a blank line between the knobs
	for i := range numTuneFields {
		if roomy || i == 0 {
			lines = append(lines, "")
		}
		head := st.Label.Render(pad(tuneLabels[i], labelW))
		if i != tuneRewriteDelete { // the rewrite table is on the line above
			head += st.Dim.Render("now ") + trunc(Sanitize(tuneNow(in, i)), w-labelW-4)
		}
		lines = append(lines, head)
		field := f.text[i] + " "
		if i == f.field {
			field = st.InputFocused.Render(f.text[i] + "_")
		}
		field = pad("", 2) + "[" + field + "]  "
		lines = append(lines, trunc(field+st.Dim.Render(tuneHints[i]), w))
	}
	if f.err != "" {
		lines = append(lines, "")
		for _, l := range strings.Split(f.err, "\n") {
			lines = append(lines, wrap(st.Crit.Render(r.sym.Error+" ")+Sanitize(l), w, "  ")...)
		}
	}
	if r.vs.busy != "" {
		lines = append(lines, "", st.Dim.Render(Sanitize(r.vs.busy)))
	}
	lines = append(lines, "", st.Dim.Render(trunc("tab ↑↓ field · type a value · enter preview · esc cancel", w)))
	return r.box("Tune host QoS on "+clean(f.iface, ifNameMax), lines, w)
}

// tuneNow says what the NIC holds of field i, from the snapshot: the
// rate limits and the rewrite table as DCB netlink reads them, the
// storm timeout as the ethtool tunable, the DCBX mode as GDCBX; "not
// read" where the run has not read it.
func tuneNow(in *engine.Interface, i tuneField) string {
	const notRead = "not read"
	if in == nil {
		return notRead
	}
	var q *lossless.PortQoSSample
	if c := in.Counters; c != nil {
		q = c.QoS
	}
	switch i {
	case tuneMaxRate:
		if q == nil || q.MaxRateKbps == nil {
			return notRead + " (the driver reports no rate limits)"
		}
		limits := rateLimitWords(q.MaxRateKbps)
		if len(limits) == 0 {
			return "no limit on any TC"
		}
		return strings.Join(limits, ", ")
	case tuneStorm:
		if in.Counters == nil || in.Counters.PFC.StormPreventionTimeoutMs == nil {
			return notRead + " (the driver has no pfc-prevention-tout tunable)"
		}
		return qos.StormTimeoutWords(uint16(*in.Counters.PFC.StormPreventionTimeoutMs))
	case tuneDCBXMode:
		if in.DCBXMode == nil {
			return notRead
		}
		return *in.DCBXMode
	case tuneRewrite, tuneRewriteDelete:
		if q == nil || q.Rewrite == nil {
			return notRead + " (the kernel has no APP rewrite table before Linux 6.3)"
		}
		if len(q.Rewrite) == 0 {
			return "empty"
		}
		return strings.Join(rewriteWords(q.Rewrite), ", ")
	}
	return notRead
}
