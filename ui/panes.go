// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// params returns the selected interface's local, remote and operational
// parameters; unknown ones are zero (every feature nil).
func (r *renderer) params() (local, remote, oper dcb.Params) {
	return orZero(r.in.Local), orZero(r.in.Remote), orZero(r.in.Operational)
}

// orZero returns *p, or the zero Params when p is nil.
func orZero(p *dcb.Params) dcb.Params {
	if p == nil {
		return dcb.Params{}
	}
	return *p
}

// choice renders where an operational feature came from.
func (r *renderer) choice(c dcb.Choice) string {
	if c.Why != "" {
		return Sanitize(c.Why)
	}
	if c.Source != "" {
		return Sanitize(string(c.Source))
	}
	return "unknown"
}

// resolutionSub is the PFC or APP pane's subtitle: why the operational
// parameters are what they are, or, when the ETS pane on the same screen
// says the same (local parameters unknown: one reason for all three),
// only that it is the same, so that the reason is said once.
func (r *renderer) resolutionSub(c dcb.Choice, f engine.Feature) string {
	if c == r.in.Resolution.ETS && r.mode != modeCompact {
		return "operational: as for ETS" + r.nicSub(f)
	}
	return "operational = " + r.choice(c) + r.nicSub(f)
}

// nicSub is what a pane's subtitle adds about the NIC under dcbtop's
// agent (engine.NICProgram): whether the NIC holds the operational
// feature f ("in the NIC"), differs from it, is being written, or cannot
// be programmed (the header says why, once); "" without dcbtop's agent
// or when f is not operational.
func (r *renderer) nicSub(f engine.Feature) string {
	n := r.in.NIC
	switch s := n.Of(f); s {
	case "":
		return ""
	case engine.NICInForce:
		return " · " + r.st.OK.Render(s.Words())
	case engine.NICDiffers:
		return " · " + r.st.Mismatch.Render(s.Words())
	default:
		return " · " + s.Words()
	}
}

// ---- ETS ----

type etsSide struct {
	name   string
	t      *etsTab
	remote bool
}

func (r *renderer) etsSides() []etsSide {
	lp, rp, op := r.params()
	return []etsSide{
		{name: "Local", t: etsTables(lp.ETS)},
		{name: "Remote config", t: etsTables(rp.ETS), remote: true},
		{name: "Remote reco", t: recoTables(rp.ETSReco), remote: true},
		{name: "Operational", t: etsTables(op.ETS)},
	}
}

// usedTCs lists the traffic classes any side gives a priority or
// bandwidth, ascending (CEE PGID 15 included).
func usedTCs(sides []etsSide) []uint8 {
	var used [16]bool
	for _, s := range sides {
		if s.t == nil {
			continue
		}
		for tc, bw := range s.t.bw {
			if bw != 0 {
				used[tc] = true
			}
		}
		for _, tc := range s.t.prioTC {
			used[tc&15] = true
		}
	}
	var out []uint8
	for tc, u := range used {
		if u {
			out = append(out, uint8(tc))
		}
	}
	return out
}

func (r *renderer) etsContent(w int) paneContent {
	c := paneContent{cursor: -1, sub: "operational = " + r.choice(r.in.Resolution.ETS) + r.nicSub(engine.FeatureETS)}
	sides := r.etsSides()
	full := w >= 3+4*22
	// Narrower than the four sides' compact cells (etsCompactW): the
	// remote's recommendation gives way, then the remote's configuration
	// (local and operational stay; Diagnostics says mismatches). A cell
	// is 17 cells and its mark's extra, and a space.
	if fit := (w - 2) / (18 + width(r.sym.Diff) - 1); !full && fit < 4 {
		all := sides
		sides = []etsSide{all[0], all[1], all[3]}
		if fit < 3 {
			sides = []etsSide{all[0], all[3]}
		}
	}
	cellW := 17
	if full {
		cellW = 21
	}
	cellW += width(r.sym.Diff) - 1 // the mark's cell: "!=" in ASCII
	hdr := "TC "
	sub := "   "
	// The legend row stays in every width: the narrow cells carry the %
	// in it ("BW%") rather than after each bandwidth.
	legend := "TSA       BW 01234567"
	if !full {
		legend = "TSA BW% 01234567"
	}
	for _, s := range sides {
		hdr += pad(s.name, cellW+1)
		sub += pad(legend, cellW+1)
	}
	c.head = []string{r.st.ColHeader.Render(strings.TrimRight(hdr, " ")), r.st.Dim.Render(strings.TrimRight(sub, " "))}
	tcs := usedTCs(sides)
	if len(tcs) == 0 {
		c.body = []string{r.st.Dim.Render("no ETS from either side")}
		return c
	}
	local := sides[0].t
	cee := r.in.Remote != nil && r.in.Remote.CEE != nil
	for _, tc := range tcs {
		label := fmt.Sprintf("%2d ", tc)
		cells := make([]string, len(sides))
		for i, s := range sides {
			cells[i] = r.etsCell(s.t, tc, local, s.remote, full, cee)
		}
		c.body = append(c.body, label+strings.Join(cells, " "))
	}
	if !r.stacked() {
		c.body = append(c.body, r.etsFlags())
		if cee {
			// Wrapped, never cut: the PFC feature's error flag is at the
			// end of the line.
			c.body = append(c.body, strings.Split(ansi.Wordwrap(r.ceeLine(), w, " "), "\n")...)
		}
	}
	return c
}

// etsCell renders one side's TSA, bandwidth and priorities for tc,
// marking what differs from the local side.
func (r *renderer) etsCell(t *etsTab, tc uint8, local *etsTab, remote, full, cee bool) string {
	cellW, tsaW, bwW := 16, 3, 3
	if full {
		cellW, tsaW, bwW = 20, 6, 4
	}
	if t == nil {
		return pad(r.st.Dim.Render(r.sym.Absent), cellW+width(r.sym.Diff))
	}
	prio := prioMap(t.prioTC, tc)
	mapped := slices.Contains(t.prioTC[:], tc)
	var tsa, bw string
	switch {
	case tc < 8:
		tsa = tsaName(t.tsa[tc], !full)
		bw = fmt.Sprint(t.bw[tc])
		if full {
			bw += "%"
		}
	case mapped:
		tsa, bw = "?", r.sym.Absent
		if cee && tc == 15 {
			tsa = tsaName(lldp.TSAStrict, !full)
		}
	}
	unused := !mapped && (tc >= 8 || t.bw[tc] == 0)
	var dTSA, dBW, dPrio bool
	if remote && local != nil {
		if tc < 8 {
			dTSA, dBW = t.tsa[tc] != local.tsa[tc], t.bw[tc] != local.bw[tc]
		}
		dPrio = prio != prioMap(local.prioTC, tc)
	}
	style := func(s string, d bool) string {
		switch {
		case d:
			return r.st.Mismatch.Render(s)
		case unused:
			return r.st.Dim.Render(s)
		}
		return s
	}
	mark := spaces(width(r.sym.Diff))
	if dTSA || dBW || dPrio {
		mark = r.st.Mismatch.Render(r.sym.Diff)
	}
	return style(pad(tsa, tsaW), dTSA) + " " + style(padLeft(bw, bwW), dBW) + " " + style(prio, dPrio) + mark
}

// etsFlags is the line under the ETS table: Willing, CBS and Max TCs of
// the ETS Configuration of each side.
func (r *renderer) etsFlags() string {
	lp, rp, _ := r.params()
	le, re := lp.ETS, rp.ETS
	f := func(e *dcb.ETS, get func(*dcb.ETS) string) string {
		if e == nil {
			return r.sym.Absent
		}
		return get(e)
	}
	will := func(e *dcb.ETS) string { return dcb.OnOff(e.Willing) }
	cbs := func(e *dcb.ETS) string { return dcb.OnOff(e.CBS) }
	tcs := func(e *dcb.ETS) string { return fmt.Sprint(e.MaxTCs) }
	return r.st.Dim.Render(fmt.Sprintf("willing local %s remote %s · CBS %s/%s · max TCs %s/%s",
		f(le, will), f(re, will), f(le, cbs), f(re, cbs), f(le, tcs), f(re, tcs)))
}

// ceeLine describes a CEE peer's control and feature flags.
func (r *renderer) ceeLine() string {
	c := r.in.Remote.CEE
	feat := func(name string, f *dcb.CEEFeature) string {
		if f == nil {
			return name + " " + r.sym.Absent
		}
		var fl []string
		fl = append(fl, map[bool]string{true: "enabled", false: "disabled"}[f.Enable])
		if f.Willing {
			fl = append(fl, "willing")
		}
		if f.Error {
			fl = append(fl, "ERROR")
		}
		return name + " " + strings.Join(fl, ",")
	}
	ctl := "no control sub-TLV"
	if c.Control {
		ctl = fmt.Sprintf("v%d/%d seq %d ack %d", c.OperVersion, c.MaxVersion, c.Seq, c.Ack)
	}
	return r.st.Dim.Render("CEE " + ctl + " · " + feat("PG", c.PG) + " · " + feat("PFC", c.PFC) + " · " + feat("APP", c.App) + " · PGID 15 = strict")
}

// ---- PFC ----

func (r *renderer) pfcContent(w int) paneContent {
	c := paneContent{cursor: -1, sub: r.resolutionSub(r.in.Resolution.PFC, engine.FeaturePFC)}
	lp, rp, op := r.params()
	sides := [3]*dcb.PFC{lp.PFC, rp.PFC, op.PFC}
	cell := func(i int, p uint8, cw int) string {
		s := sides[i]
		if s == nil {
			return pad(r.st.Dim.Render(r.sym.Absent), cw)
		}
		sym := r.st.Dim.Render(r.sym.Off)
		if s.Enabled.Has(p) {
			sym = r.st.Enabled.Render(r.sym.On)
		}
		if i == 1 && sides[0] != nil && sides[0].Enabled.Has(p) != s.Enabled.Has(p) {
			sym = r.st.Mismatch.Render(map[bool]string{true: r.sym.On, false: r.sym.Off}[s.Enabled.Has(p)] + r.sym.Diff)
		}
		return pad(sym, cw)
	}
	attr := func(i int, get func(*dcb.PFC) string, diff bool) string {
		s := sides[i]
		if s == nil {
			return r.st.Dim.Render(r.sym.Absent)
		}
		v := get(s)
		if diff && i == 1 && sides[0] != nil && get(sides[0]) != v {
			return r.st.Mismatch.Render(v + r.sym.Diff)
		}
		return v
	}
	will := func(p *dcb.PFC) string { return dcb.OnOff(p.Willing) }
	mbc := func(p *dcb.PFC) string { return dcb.OnOff(p.MBC) }
	capf := func(p *dcb.PFC) string { return fmt.Sprint(p.Cap) }
	// pauseCell is a priority's pause frames received and sent ("rx/tx"),
	// or the sum of those known when total: "—" where a count is unknown.
	pauseCell := func(p uint8, total bool) string {
		pp := r.prioPause(p)
		if pp == nil || pp.RxPause == nil && pp.TxPause == nil {
			return r.st.Dim.Render(r.sym.Absent)
		}
		if total {
			return fmtCount(deref(pp.RxPause) + deref(pp.TxPause))
		}
		count := func(v *uint64) string {
			if v == nil {
				return r.st.Dim.Render(r.sym.Absent)
			}
			return fmtCount(*v)
		}
		return count(pp.RxPause) + "/" + count(pp.TxPause)
	}
	if r.stacked() {
		// Under pfcCompactW the cells narrow to 4, then Willing, MBC and
		// Cap give way.
		cw, attrs := 5, true
		if w < pfcCompactW {
			cw, attrs = 4, w >= 7+8*4+14
		}
		hdr := pad("", 7)
		for p := range 8 {
			hdr += pad(fmt.Sprint(p), cw)
		}
		if attrs {
			hdr += "Will  MBC  Cap"
		}
		c.head = []string{r.st.ColHeader.Render(hdr)}
		names := []string{"Local", "Remote", "Oper"}
		for i, n := range names {
			line := pad(n, 7)
			for p := range uint8(8) {
				line += cell(i, p, cw)
			}
			if attrs {
				line += pad(attr(i, will, false), 6) + pad(attr(i, mbc, true), 5) + attr(i, capf, true)
			}
			c.body = append(c.body, line)
		}
		line := pad("Pauses", 7)
		for p := range uint8(8) {
			line += pad(trunc(pauseCell(p, true), cw-1), cw)
		}
		if attrs {
			line += r.st.Dim.Render("rx+tx")
		}
		c.body = append(c.body, line)
		return c
	}
	c.head = []string{r.st.ColHeader.Render(pad("Prio", 8) + pad("Local", 6) + pad("Remote", 7) + pad("Oper", 5) + "Pause rx/tx")}
	for p := range uint8(8) {
		c.body = append(c.body, pad(fmt.Sprintf("%3d", p), 8)+cell(0, p, 6)+cell(1, p, 7)+cell(2, p, 5)+pauseCell(p, false))
	}
	for _, a := range []struct {
		name string
		get  func(*dcb.PFC) string
		diff bool
	}{{"Willing", will, false}, {"MBC", mbc, true}, {"Cap", capf, true}} {
		c.body = append(c.body, pad(a.name, 8)+pad(attr(0, a.get, a.diff), 6)+pad(attr(1, a.get, a.diff), 7)+attr(2, a.get, a.diff))
	}
	return c
}

// ---- APP ----

// An appLine is one APP entry of the merged local/remote table.
type appLine struct {
	app                 dcb.App
	local, remote, oper bool
	conflict, operKnown bool
}

// appRows merges the local and remote APP tables: one row per (selector,
// protocol, priority), marking a protocol both sides map to different
// priorities as a conflict.
func (r *renderer) appRows() []appLine {
	lp, rp, op := r.params()
	var rows []appLine
	add := func(a dcb.App, remote bool) {
		for i := range rows {
			if rows[i].app == a {
				if remote {
					rows[i].remote = true
				} else {
					rows[i].local = true
				}
				return
			}
		}
		rows = append(rows, appLine{app: a, local: !remote, remote: remote})
	}
	for _, a := range lp.App {
		add(a, false)
	}
	for _, a := range rp.App {
		add(a, true)
	}
	for i := range rows {
		rows[i].operKnown = r.in.Operational != nil
		rows[i].oper = slices.Contains(op.App, rows[i].app)
		for _, o := range rows {
			if o.app.Selector == rows[i].app.Selector && o.app.Protocol == rows[i].app.Protocol &&
				o.app.Priority != rows[i].app.Priority && (o.local != rows[i].local || o.remote != rows[i].remote) {
				rows[i].conflict = true
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b appLine) int {
		return cmp.Or(cmp.Compare(a.app.Selector, b.app.Selector), cmp.Compare(a.app.Protocol, b.app.Protocol), cmp.Compare(a.app.Priority, b.app.Priority))
	})
	return rows
}

func selShort(s lldp.AppSelector) string {
	switch s {
	case lldp.AppSelEthertype:
		return "ether"
	case lldp.AppSelTCP:
		return "tcp"
	case lldp.AppSelUDP:
		return "udp"
	case lldp.AppSelPort:
		return "port"
	case lldp.AppSelDSCP:
		return "dscp"
	}
	return s.String()
}

func (r *renderer) appContent(w int) paneContent {
	c := paneContent{cursor: -1, sub: r.resolutionSub(r.in.Resolution.App, engine.FeatureApp)}
	protoW := max(12, w-24)
	c.head = []string{r.st.ColHeader.Render(pad("Sel", 6) + pad("Protocol", protoW) + padLeft("Prio", 4) + " " + pad("Source", 9) + "Oper")}
	rows := r.appRows()
	if len(rows) == 0 {
		c.body = []string{r.st.Dim.Render("no APP entries on either side")}
		return c
	}
	for _, a := range rows {
		src := "both"
		switch {
		case a.local && !a.remote:
			src = "local"
		case a.remote && !a.local:
			src = "remote"
		}
		if a.conflict {
			src = r.st.Mismatch.Render(src + r.sym.Diff)
		}
		oper := r.st.Dim.Render(r.sym.Absent)
		if a.operKnown {
			oper = r.st.Dim.Render(r.sym.Off)
			if a.oper {
				oper = r.st.OK.Render(r.sym.OK)
			}
		}
		c.body = append(c.body, pad(selShort(a.app.Selector), 6)+pad(appProtocol(a.app.Selector, a.app.Protocol), protoW)+
			padLeft(fmt.Sprint(a.app.Priority), 4)+" "+pad(src, 9)+" "+oper)
	}
	return c
}
