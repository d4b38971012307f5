// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// An appField is one APP entry being edited. proto holds decimal digits,
// or hexadecimal digits when the selector is an EtherType.
type appField struct {
	sel   lldp.AppSelector
	proto string
	prio  string
}

// formPreview is the operational parameters the form's parameters would
// give, and their resolution (engine.PreviewOperational).
type formPreview struct {
	op  *dcb.Params
	res dcb.Resolution
}

// An editForm edits an interface's local ETS table, PFC priorities and APP
// entries, validating as the operator types.
type editForm struct {
	iface   string
	willing bool
	base    *dcb.Params // the local parameters when the form opened; nil: unknown
	curOp   *dcb.Params // operational then
	curRes  dcb.Resolution

	tsa    [8]lldp.TSA
	bw     [8]string
	prioTC [8]string
	pfc    [8]bool
	app    []appField

	row, col int
	// fresh is set when a number field was just focused: the next digit
	// replaces its value instead of appending, as in a spreadsheet.
	fresh   bool
	preview *formPreview
	msg     string
	// rebased says the state in force changed while the form was open:
	// base, curOp and curRes were taken again (see Model.rebase).
	rebased bool
}

// Form rows before the APP entries.
const (
	rowTSA = iota
	rowBW
	rowTC
	rowPFC
	rowApp0
)

// newEditForm opens the form on in's local parameters, or on the ETS table
// dcbtop's agent starts with (agent.DefaultLocal: everything on TC0 with
// 100 % ETS bandwidth) when they are unknown: one default, the engine's.
func newEditForm(in *engine.Interface) *editForm {
	f := &editForm{iface: in.Name, base: in.Local.Clone(), curOp: in.Operational.Clone(), curRes: in.Resolution, fresh: true}
	if in.Willing != nil {
		f.willing = *in.Willing
	}
	ets := agent.DefaultLocal().ETS
	if f.base != nil && f.base.ETS != nil {
		ets = f.base.ETS
	}
	for i := range 8 {
		f.tsa[i] = ets.TSA[i]
		f.bw[i] = strconv.Itoa(int(ets.TCBandwidth[i]))
		f.prioTC[i] = strconv.Itoa(int(ets.PrioTC[i]))
	}
	if f.base != nil && f.base.PFC != nil {
		for p := range uint8(8) {
			f.pfc[p] = f.base.PFC.Enabled.Has(p)
		}
	}
	if f.base != nil {
		for _, a := range f.base.App {
			f.app = append(f.app, appField{sel: a.Selector, proto: protoText(a.Selector, a.Protocol), prio: strconv.Itoa(int(a.Priority))})
		}
	}
	return f
}

func protoText(sel lldp.AppSelector, v uint16) string {
	if sel == lldp.AppSelEthertype {
		return strconv.FormatUint(uint64(v), 16)
	}
	return strconv.Itoa(int(v))
}

func (f *editForm) rows() int { return rowApp0 + len(f.app) + 1 }

func (f *editForm) cols(row int) int {
	switch {
	case row < rowApp0:
		return 8
	case row < rowApp0+len(f.app):
		return 3
	}
	return 1
}

// numeric reports whether the focused field takes digits, and whether
// hexadecimal ones.
func (f *editForm) numeric() (ok, hex bool) {
	switch {
	case f.row == rowBW || f.row == rowTC:
		return true, false
	case f.row >= rowApp0 && f.row < rowApp0+len(f.app):
		switch f.col {
		case 1:
			return true, f.app[f.row-rowApp0].sel == lldp.AppSelEthertype
		case 2:
			return true, false
		}
	}
	return false, false
}

// field returns a pointer to the focused text field, nil when it is not
// one.
func (f *editForm) field() *string {
	switch {
	case f.row == rowBW:
		return &f.bw[f.col]
	case f.row == rowTC:
		return &f.prioTC[f.col]
	case f.row >= rowApp0 && f.row < rowApp0+len(f.app):
		a := &f.app[f.row-rowApp0]
		switch f.col {
		case 1:
			return &a.proto
		case 2:
			return &a.prio
		}
	}
	return nil
}

// move focuses another field.
func (f *editForm) move(drow, dcol int) {
	f.row = clamp(f.row+drow, 0, f.rows()-1)
	f.col = clamp(f.col+dcol, 0, f.cols(f.row)-1)
	f.fresh = true
}

// step moves to the next (+1) or previous (-1) field in reading order.
func (f *editForm) step(d int) {
	f.col += d
	if f.col >= f.cols(f.row) {
		f.row, f.col = (f.row+1)%f.rows(), 0
	} else if f.col < 0 {
		f.row = (f.row - 1 + f.rows()) % f.rows()
		f.col = f.cols(f.row) - 1
	}
	f.fresh = true
}

var tsaCycle = []lldp.TSA{lldp.TSAETS, lldp.TSAStrict, lldp.TSACBS, lldp.TSAVendor}
var selCycle = []lldp.AppSelector{lldp.AppSelEthertype, lldp.AppSelTCP, lldp.AppSelUDP, lldp.AppSelPort, lldp.AppSelDSCP}

func cycle[T comparable](list []T, v T, d int) T {
	i := 0
	for j, x := range list {
		if x == v {
			i = j
		}
	}
	return list[(i+d+len(list))%len(list)]
}

// change steps the focused field's value: TSA and selector cycle, PFC
// toggles, numbers go up or down by one. It reports whether something
// changed.
func (f *editForm) change(d int) bool {
	switch {
	case f.row == rowTSA:
		f.tsa[f.col] = cycle(tsaCycle, f.tsa[f.col], d)
	case f.row == rowPFC:
		f.pfc[f.col] = !f.pfc[f.col]
	case f.row >= rowApp0+len(f.app):
		f.addApp()
	case f.row >= rowApp0 && f.col == 0:
		a := &f.app[f.row-rowApp0]
		v, _ := parseProto(a.sel, a.proto)
		a.sel = cycle(selCycle, a.sel, d)
		a.proto = protoText(a.sel, v)
	default:
		p := f.field()
		if p == nil {
			return false
		}
		_, hex := f.numeric()
		base := 10
		if hex {
			base = 16
		}
		n, err := strconv.ParseInt(*p, base, 32)
		if err != nil {
			n = 0
		}
		n = max(0, n+int64(d))
		*p = strconv.FormatInt(n, base)
	}
	f.fresh = false
	return true
}

// typeRune enters a digit into the focused number field.
func (f *editForm) typeRune(s string) bool {
	ok, hex := f.numeric()
	if !ok || len(s) != 1 {
		return false
	}
	c := s[0]
	digit := c >= '0' && c <= '9'
	if hex {
		c |= 0x20
		digit = digit || (c >= 'a' && c <= 'f')
	}
	if !digit {
		return false
	}
	p := f.field()
	if f.fresh {
		*p = ""
		f.fresh = false
	}
	if len(*p) < 5 {
		*p += string(c)
	}
	return true
}

// backspace deletes the focused field's last character.
func (f *editForm) backspace() bool {
	p := f.field()
	if p == nil || *p == "" {
		return false
	}
	*p = (*p)[:len(*p)-1]
	f.fresh = false
	return true
}

// addApp appends an APP entry (RoCEv2 on the first PFC priority, else 3)
// and focuses it.
func (f *editForm) addApp() {
	prio := 3
	for p, on := range f.pfc {
		if on {
			prio = p
			break
		}
	}
	f.app = append(f.app, appField{sel: lldp.AppSelUDP, proto: "4791", prio: strconv.Itoa(prio)})
	f.row, f.col, f.fresh = rowApp0+len(f.app)-1, 1, true
}

// deleteApp removes the focused APP entry.
func (f *editForm) deleteApp() bool {
	i := f.row - rowApp0
	if i < 0 || i >= len(f.app) {
		return false
	}
	f.app = append(f.app[:i], f.app[i+1:]...)
	f.move(0, 0)
	return true
}

func parseProto(sel lldp.AppSelector, s string) (uint16, error) {
	base := 10
	if sel == lldp.AppSelEthertype {
		base = 16
		s = strings.TrimPrefix(strings.ToLower(s), "0x")
	}
	n, err := strconv.ParseUint(s, base, 16)
	return uint16(n), err
}

// params builds the parameters the form describes, with the problems of
// fields that are not numbers at all.
func (f *editForm) params() (*dcb.Params, []string) {
	var errs []string
	// num parses a field; its error says the range it checks, with the
	// unit ("TC0 bandwidth "150" is not 0-100 %").
	num := func(s, what string, limit uint64, unit string) uint8 {
		n, err := strconv.ParseUint(s, 10, 8)
		if err != nil || n > limit {
			errs = append(errs, fmt.Sprintf("%s %q is not 0-%d%s", what, s, limit, unit))
			return 0
		}
		return uint8(n)
	}
	p := &dcb.Params{}
	if f.base != nil {
		p = f.base.Clone()
		p.CEE = nil
	}
	ets := dcb.ETS{MaxTCs: 8}
	if p.ETS != nil {
		ets = *p.ETS
	}
	for i := range 8 {
		ets.TSA[i] = f.tsa[i]
		ets.TCBandwidth[i] = num(f.bw[i], fmt.Sprintf("TC%d bandwidth", i), 100, " %")
		ets.PrioTC[i] = num(f.prioTC[i], fmt.Sprintf("priority %d: TC", i), 7, "")
	}
	p.ETS = &ets
	var en dcb.PrioSet
	for i, on := range f.pfc {
		if on {
			en |= 1 << i
		}
	}
	if p.PFC != nil || en != 0 {
		pfc := dcb.PFC{Willing: f.willing, Cap: 8}
		if p.PFC != nil {
			pfc = *p.PFC
		}
		pfc.Enabled = en
		p.PFC = &pfc
	}
	if p.App != nil || len(f.app) > 0 {
		p.App = []dcb.App{}
		for i, a := range f.app {
			v, err := parseProto(a.sel, a.proto)
			if err != nil {
				errs = append(errs, fmt.Sprintf("APP entry %d protocol %q is not a number", i+1, a.proto))
			}
			p.App = append(p.App, dcb.App{Selector: a.sel, Protocol: v, Priority: num(a.prio, fmt.Sprintf("APP entry %d priority", i+1), 7, "")})
		}
	}
	return p, errs
}

// problems returns the form's errors (which block apply) and warnings.
func (f *editForm) problems() (p *dcb.Params, errs, warns []string) {
	p, errs = f.params()
	for _, d := range p.Validate() {
		s := d.Feature + ": " + d.Message
		if d.Severity == diag.SeverityError {
			errs = append(errs, s)
		} else {
			warns = append(warns, s)
		}
	}
	return p, errs, warns
}

// formBox renders the edit form.
func (r *renderer) formBox() string {
	f := r.vs.form
	const labelW, cellW = 12, 7
	w := r.boxWidth(labelW + 8*cellW + 2)
	st := r.st
	cellAt := func(row, col int, text string, cw int) string {
		if f.row == row && f.col == col {
			return pad(st.InputFocused.Render("["+text+"]"), cw)
		}
		return pad(" "+text, cw)
	}
	grid := func(label string, row int, get func(i int) string) string {
		s := pad(label, labelW)
		for i := range 8 {
			s += cellAt(row, i, get(i), cellW)
		}
		return s
	}
	lines := []string{
		st.ColHeader.Render(pad("", labelW) + " TC0    TC1    TC2    TC3    TC4    TC5    TC6    TC7"),
		grid("ETS TSA", rowTSA, func(i int) string { return tsaName(f.tsa[i], false) }),
		grid("    BW %", rowBW, func(i int) string { return f.bw[i] }),
		st.ColHeader.Render(pad("", labelW) + " P0     P1     P2     P3     P4     P5     P6     P7"),
		grid("Prio → TC", rowTC, func(i int) string { return f.prioTC[i] }),
		grid("PFC", rowPFC, func(i int) string {
			if f.pfc[i] {
				return r.sym.On
			}
			return r.sym.Off
		}),
		st.ColHeader.Render(pad("APP", labelW) + pad(" Selector", 12) + pad(" Protocol", 10) + pad(" Prio", 7)),
	}
	for i, a := range f.app {
		row := rowApp0 + i
		proto := a.proto
		if a.sel == lldp.AppSelEthertype {
			proto = "0x" + proto
		}
		name := ""
		if v, err := parseProto(a.sel, a.proto); err == nil {
			name = appProtocol(a.sel, v)
		}
		lines = append(lines, pad(fmt.Sprintf("  %d", i+1), labelW)+cellAt(row, 0, a.sel.String(), 12)+cellAt(row, 1, proto, 10)+
			cellAt(row, 2, a.prio, 7)+st.Dim.Render(trunc(name, w-labelW-29)))
	}
	addRow := rowApp0 + len(f.app)
	add := "+ add entry"
	if f.row == addRow {
		add = st.InputFocused.Render("[+ add entry]")
	}
	lines = append(lines, pad("", labelW)+add)

	params, errs, warns := f.problems()
	var tail []string
	switch {
	case len(errs) > 0:
		for _, e := range errs {
			tail = append(tail, wrap(st.Crit.Render(r.sym.Error+" "+Sanitize(e)), w, "  ")...)
		}
	default:
		tail = append(tail, st.OK.Render(r.sym.OK+" valid"))
	}
	for _, wn := range warns {
		tail = append(tail, st.Warn.Render(trunc(r.sym.Warning+" "+Sanitize(wn), w)))
	}
	if f.msg != "" {
		tail = append(tail, st.Crit.Render(trunc(Sanitize(f.msg), w)))
	}
	if f.rebased {
		tail = append(tail, wrap(st.Warn.Render(r.sym.Warning+" "+rebasedNote), w, "  ")...)
	}
	changes := paramsDiff(f.base, params)
	var diff []string
	if len(errs) == 0 {
		diff = append(diff, st.ColHeader.Render("Changes to local"))
		if len(changes) == 0 {
			diff = append(diff, "  "+st.Dim.Render("none yet"))
		}
		diff = append(diff, r.changeLines(changes, w)...)
		if pv := f.preview; pv != nil && len(changes) > 0 {
			diff = append(diff, st.ColHeader.Render("Operational after apply (preview)"))
			cs := append(resolutionDiff(f.curRes, pv.res), paramsDiff(f.curOp, pv.op)...)
			if len(cs) == 0 {
				diff = append(diff, "  "+st.Dim.Render("no change to the operational parameters"))
			}
			diff = append(diff, r.changeLines(cs, w)...)
		}
	}
	apply := st.Key.Render("enter") + " apply"
	if len(errs) > 0 {
		apply = st.KeyDisabled.Render("enter apply (disabled: " + plural(len(errs), "error") + ")")
	}
	hint := wrap(st.Key.Render("tab ↑↓←→")+" move · "+st.Key.Render("0-9")+" type · "+st.Key.Render("space")+" toggle · "+
		st.Key.Render("+/-")+" change · "+st.Key.Render("ins/del")+" APP · "+apply+" · "+st.Key.Render("esc")+" cancel", w, "")
	// Fit the screen: the grid, problems and hints first, then as much of
	// the diff as there is room for.
	room := r.h - 4 - 2 - len(lines) - len(tail) - len(hint) - 1
	if len(diff) > room {
		cut := max(0, room-1)
		more := len(diff) - cut
		diff = append(diff[:cut], st.Dim.Render(r.sym.Ellipsis+" "+plural(more, "more change line")))
		if room <= 0 {
			diff = nil
		}
	}
	lines = append(lines, tail...)
	lines = append(lines, diff...)
	lines = append(lines, hint...)
	return r.box("Edit local parameters · "+clean(f.iface, 20)+" · Willing "+dcb.OnOff(f.willing), lines, w)
}
