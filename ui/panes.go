package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
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
func (r *renderer) resolutionSub(c dcb.Choice) string {
	if c == r.in.Resolution.ETS && r.mode != modeCompact {
		return "operational: as for ETS"
	}
	return "operational = " + r.choice(c)
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
	c := paneContent{cursor: -1, sub: "operational = " + r.choice(r.in.Resolution.ETS)}
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
	c := paneContent{cursor: -1, sub: r.resolutionSub(r.in.Resolution.PFC)}
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
	c := paneContent{cursor: -1, sub: r.resolutionSub(r.in.Resolution.App)}
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

// ---- Log ----

// filtered returns the indices of the log entries the filter keeps.
func filtered(log []engine.Indication, filter string) []int {
	terms := strings.Fields(strings.ToLower(filter))
	out := make([]int, 0, len(log))
	for i := range log {
		if matches(&log[i], terms) {
			out = append(out, i)
		}
	}
	return out
}

// scenarioTime renders a time in the demo's scenario clock: "+1:05.250"
// (milliseconds when ms), never negative.
func scenarioTime(d time.Duration, ms bool) string {
	d = max(d, 0)
	m, sec := int(d/time.Minute), d%time.Minute
	if ms {
		return fmt.Sprintf("+%d:%06.3f", m, sec.Seconds())
	}
	return fmt.Sprintf("+%d:%02d", m, int(sec/time.Second))
}

// textTerms returns the filter's free-text terms (not flag:X and the
// like), lower-cased: what the Peers and Diagnostics panes filter by and
// what is highlighted.
func textTerms(filter string) []string {
	var out []string
	for _, t := range strings.Fields(strings.ToLower(filter)) {
		if f, v, ok := strings.Cut(t, ":"); ok && f != "" && v != "" {
			continue
		}
		out = append(out, t)
	}
	return out
}

// matchesText reports whether every term occurs in one of hays.
func matchesText(terms []string, hays ...string) bool {
	hay := strings.ToLower(strings.Join(hays, " "))
	for _, t := range terms {
		if !strings.Contains(hay, t) {
			return false
		}
	}
	return true
}

// highlight marks the filter's free-text terms in s (plain text, before
// any styling).
func (r *renderer) highlight(s string) string {
	terms := textTerms(r.vs.filter)
	if len(terms) == 0 || s == "" {
		return s
	}
	lower := strings.ToLower(s)
	if len(lower) != len(s) {
		return s // lower-casing changed the byte offsets
	}
	mark := make([]bool, len(s))
	for _, t := range terms {
		for i := 0; ; {
			j := strings.Index(lower[i:], t)
			if j < 0 {
				break
			}
			for k := i + j; k < i+j+len(t); k++ {
				mark[k] = true
			}
			i += j + len(t)
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && mark[j] == mark[i] {
			j++
		}
		if mark[i] {
			b.WriteString(r.st.Match.Render(s[i:j]))
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// matches reports whether every term matches the indication. A term is
// free text (matched against interface, status, reason, flags and peer),
// or one of flag:X, reason:X, status:X, if:X, peer:X.
func matches(in *engine.Indication, terms []string) bool {
	for _, t := range terms {
		field, val, ok := strings.Cut(t, ":")
		if !ok || val == "" {
			field, val = "", t
		}
		var hay string
		switch field {
		case "flag", "flags":
			hay = flagsFull(in.Flags) + " " + flagsCompact(in.Flags)
		case "reason":
			hay = string(in.Reason)
		case "status":
			hay = in.Status.String() + " " + statusShort(in.Status)
		case "if", "iface", "interface":
			hay = in.Interface
		case "peer":
			hay = in.Peer
		default:
			hay = strings.Join([]string{in.Interface, in.Status.String(), statusShort(in.Status), string(in.Reason),
				flagsFull(in.Flags), flagsCompact(in.Flags), in.Peer}, " ")
			val = t
		}
		if !strings.Contains(strings.ToLower(hay), val) {
			return false
		}
	}
	return true
}

// logCursor returns the cursor's index in the filtered list.
func logCursor(vs *viewState, n int) int {
	if n == 0 {
		return -1
	}
	if vs.logFollow {
		return n - 1
	}
	return clamp(vs.logCur, 0, n-1)
}

// fullFlagsWidth is the log pane width from which indications show the
// NDIS flag names (ETS_CONFIGURED|ETS_CHANGED...) rather than the compact
// form (ETS* ...).
const fullFlagsWidth = 120

func (r *renderer) logContent(w int) paneContent {
	c := paneContent{cursor: -1}
	log := r.snap.Indications
	idx := filtered(log, r.vs.filter)
	switch {
	case r.vs.filter != "":
		c.sub = fmt.Sprintf("filter %q · %d of %d", Sanitize(r.vs.filter), len(idx), len(log))
	default:
		c.sub = plural(len(log), "entry") + ", newest last"
		if r.vs.newestFirst {
			c.sub = plural(len(log), "entry") + ", newest first"
		}
	}
	switch {
	case r.vs.paused:
		c.right = r.st.Warn.Render("PAUSED")
	case r.vs.logFollow:
		c.right = r.st.Dim.Render("following")
	}
	if len(idx) == 0 {
		msg := "no indications yet: the first DCBX LLDPDU from a peer starts the log"
		if r.vs.filter != "" {
			msg = "no entry matches the filter (esc clears it)"
		}
		c.body = []string{r.st.Dim.Render(msg)}
		return c
	}
	timeW, layout := 8, "15:04:05"
	if w >= 100 {
		timeW, layout = 12, "15:04:05.000"
	}
	// The columns fit every entry the filter keeps, not only those on
	// screen, so that they stay put while the log scrolls; the log has few
	// distinct interfaces, each measured once.
	ifaces := map[string]bool{}
	for _, i := range idx {
		ifaces[log[i].Interface] = true
	}
	ifW := 4
	for s := range ifaces {
		ifW = max(ifW, width(Sanitize(s)))
	}
	ifW = min(ifW, ifNameMax)
	const statusW, reasonW = 6, 13
	flagsW := w - 2 - timeW - 1 - ifW - 1 - statusW - 1 - reasonW - 1
	// One form for the whole log, by width alone, so that it never
	// switches as entries arrive: the NDIS flag names at 120 columns and
	// more, the compact form below.
	full := w >= fullFlagsWidth
	for _, i := range idx { // and only where every entry's long form fits whole
		if !full {
			break
		}
		full = log[i].Flags.StringLen() <= flagsW
	}
	cur := logCursor(r.vs, len(idx))
	marks := r.restartMarks(log, idx)
	// Only the lines that can be on screen are formatted (the log holds up
	// to a thousand entries): the window always contains the cursor, so
	// it lies within a screen's height of it.
	lo, hi := cur-r.h, cur+r.h
	c.body = make([]string, 0, len(idx)+len(marks))
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	if r.vs.newestFirst {
		// Newest on top; the demo's restart marks are left out (they
		// sit between entries in time order).
		slices.Reverse(order)
		marks = nil
	}
	for _, n := range order {
		i := idx[n]
		for len(marks) > 0 && marks[0].before == n {
			c.body = append(c.body, marks[0].line)
			marks = marks[1:]
		}
		if n == cur {
			c.cursor = len(c.body)
		}
		if n < lo || n > hi {
			c.body = append(c.body, "")
			continue
		}
		in := &log[i]
		flags := flagsCompact(in.Flags)
		if full {
			flags = flagsFull(in.Flags)
		}
		if in.Status == engine.StatusNeighbor {
			// A neighbour event has no flags: it names the peer.
			flags = Sanitize(in.PeerName)
			if flags == "" {
				flags = Sanitize(in.Peer)
			}
		}
		tm := pad(in.Time.In(r.vs.loc).Format(layout), timeW)
		if d := r.vs.capture.Demo; d != nil && !d.Start.IsZero() {
			tm = pad(scenarioTime(in.Time.Sub(d.Start), timeW > 8), timeW)
		}
		ifn := pad(clean(in.Interface, ifW), ifW)
		st := pad(statusShort(in.Status), statusW)
		rs := pad(string(in.Reason), reasonW)
		if n == cur {
			c.body = append(c.body, r.st.Selected.Render(pad(r.sym.Cursor+" "+tm+" "+ifn+" "+st+" "+rs+" "+trunc(flags, flagsW), w)))
			continue
		}
		c.body = append(c.body, "  "+r.st.Dim.Render(tm)+" "+r.highlight(ifn)+" "+r.statusStyle(in.Status, st)+" "+r.reasonStyle(in.Reason, rs)+" "+r.highlight(trunc(flags, flagsW)))
	}
	for _, m := range marks {
		c.body = append(c.body, m.line)
	}
	return c
}

// A restartMark is the log's separator for a restart of the demo's
// scenario, shown before the entry at position before (of those the
// filter keeps), or after them all when before is their number.
type restartMark struct {
	before int
	line   string
}

// restartMarks places a separator for each restart of the demo's
// scenario before the first entry at or after it, in order.
func (r *renderer) restartMarks(log []engine.Indication, idx []int) []restartMark {
	d := r.vs.capture.Demo
	if d == nil || len(d.Restarts) == 0 {
		return nil
	}
	marks := make([]restartMark, 0, len(d.Restarts))
	n := 0
	for k, at := range d.Restarts {
		for n < len(idx) && log[idx[n]].Time.Before(at) {
			n++
		}
		pass := d.Pass - len(d.Restarts) + k + 1
		rule := r.sym.RuleH + r.sym.RuleH
		text := fmt.Sprintf("%s demo scenario restarts: pass %d %s", rule, pass, rule)
		marks = append(marks, restartMark{before: n, line: "  " + r.st.Dim.Render(text)})
	}
	return marks
}

func (r *renderer) statusStyle(s engine.Status, text string) string {
	switch s {
	case engine.StatusRemote:
		return r.st.Info.Render(text)
	case engine.StatusOperational:
		return r.st.Value.Render(text)
	case engine.StatusNeighbor:
		return r.st.Dim.Render(text)
	}
	return text
}

func (r *renderer) reasonStyle(rs engine.Reason, text string) string {
	switch rs {
	case engine.ReasonTTLExpired, engine.ReasonShutdown, engine.ReasonMultiPeer, engine.ReasonLinkDown:
		return r.st.Crit.Render(text)
	case engine.ReasonFirstReceipt:
		return r.st.OK.Render(text)
	}
	return text
}

// ---- Diagnostics ----

func diagCounts(ds []diag.Diagnostic) (errs, warns, infos int) {
	for _, d := range ds {
		switch d.Severity {
		case diag.SeverityError:
			errs++
		case diag.SeverityWarning:
			warns++
		default:
			infos++
		}
	}
	return
}

// sevMark renders a severity as symbol and word, padded to 10 cells.
func (r *renderer) sevMark(s diag.Severity) string {
	switch s {
	case diag.SeverityError:
		return r.st.Crit.Render(pad(r.sym.Error+" error", 10))
	case diag.SeverityWarning:
		return r.st.Warn.Render(pad(r.sym.Warning+" warning", 10))
	}
	return r.st.Info.Render(pad(r.sym.Info+" info", 10))
}

func (r *renderer) diagContent(w int) paneContent {
	c := paneContent{cursor: -1}
	ds := r.diagnostics()
	slices.SortStableFunc(ds, func(a, b diag.Diagnostic) int { return cmp.Compare(b.Severity, a.Severity) })
	e, wn, i := diagCounts(ds)
	c.sub = fmt.Sprintf("%s %s · %s %s · %s %d info", r.sym.Error, plural(e, "error"), r.sym.Warning, plural(wn, "warning"), r.sym.Info, i)
	if terms := textTerms(r.vs.filter); len(terms) > 0 {
		// The log's filter filters the diagnostics too.
		all := len(ds)
		ds = slices.DeleteFunc(ds, func(d diag.Diagnostic) bool {
			return !matchesText(terms, string(d.Code), d.Message, d.Feature, d.Action)
		})
		c.sub += fmt.Sprintf(" · filter: %d of %d", len(ds), all)
		if len(ds) == 0 {
			c.body = []string{r.st.Dim.Render("no diagnostic matches the filter (esc clears it)")}
			return c
		}
	}
	if len(ds) == 0 {
		c.sub = ""
		c.body = []string{r.st.OK.Render(r.sym.OK + " no problems found")}
		return c
	}
	const indent = 10
	tw := max(10, w-indent)
	for _, d := range ds {
		msg := strings.Split(ansi.Wordwrap(Sanitize(d.Message), tw, " "), "\n")
		for k, l := range msg {
			lead := strings.Repeat(" ", indent)
			if k == 0 {
				lead = r.sevMark(d.Severity)
			}
			c.body = append(c.body, lead+l)
		}
		act := "→ " + Sanitize(d.Action)
		if d.Action == "" {
			act = ""
		}
		act = strings.TrimSpace(act + " [" + Sanitize(string(d.Code)) + "]")
		for _, l := range strings.Split(ansi.Wordwrap(act, tw, " "), "\n") {
			c.body = append(c.body, strings.Repeat(" ", indent)+r.st.Dim.Render(l))
		}
	}
	return c
}

// ---- Peers ----

func (r *renderer) peersContent(w int) paneContent {
	c := paneContent{cursor: -1}
	in := r.in
	n := len(in.Peers)
	c.sub = plural(n, "MSAP")
	if mp := in.MultiPeer; mp != nil {
		c.sub += " · " + r.st.Crit.Render("MULTI-PEER")
		held := make([]string, len(mp.Peers))
		for i, p := range mp.Peers {
			held[i] = Sanitize(p)
		}
		left := ceilSeconds(msDur(mp.HoldDownMs) - r.vs.age)
		c.head = append(c.head, r.st.Crit.Render(fmt.Sprintf("%s MULTI-PEER since %s: remote parameters invalid; hold-down %s left; held by %d: ",
			r.sym.Multi, mp.Since.In(r.vs.loc).Format("15:04:05"), fmtSeconds(left), len(mp.Peers)))+strings.Join(held, ", "))
	}
	nameW := max(12, w-3-6-11-10-7)
	c.head = append(c.head, r.st.ColHeader.Render("   "+pad("System name", nameW)+pad("DCBX", 6)+pad("TTL left", 11)+pad("Last seen", 10)+padLeft("Frames", 7)))
	if n == 0 {
		// "yet" only when there never was one.
		msg := "no LLDP peer seen on this interface yet"
		if why := in.RemoteInvalidReason; why != nil {
			switch *why {
			case engine.ReasonTTLExpired:
				msg = "no live LLDP peer: the last one's information expired (TTL)"
			case engine.ReasonShutdown:
				msg = "no live LLDP peer: the last one withdrew (shutdown LLDPDU)"
			case engine.ReasonLinkDown:
				msg = "no live LLDP peer: the link went down and its peers were discarded"
			default:
				msg = "no live LLDP peer (" + Sanitize(string(*why)) + ")"
			}
		}
		c.body = append(c.body, r.st.Dim.Render(msg))
	}
	remote := ""
	if in.RemotePeer != nil {
		remote = *in.RemotePeer
	}
	terms := textTerms(r.vs.filter)
	shown := 0
	for i := range in.Peers {
		p := &in.Peers[i]
		if len(terms) > 0 && !matchesText(terms, deref(p.SystemName), p.ChassisID, p.PortID,
			deref(p.SystemDescription), deref(p.PortDescription), string(p.Scope)) {
			continue // the log's filter filters the peers too
		}
		shown++
		mark := "   "
		switch {
		case in.MultiPeer != nil && slices.Contains(in.MultiPeer.Peers, p.MSAP()):
			mark = r.st.Crit.Render(r.sym.Multi) + " "
		case p.MSAP() == remote:
			mark = r.st.OK.Render(r.sym.Remote) + "  "
		}
		name := deref(p.SystemName)
		if name == "" {
			name = r.sym.Absent
		}
		ttl := r.ttlLeft(p)
		ttlText := fmtSeconds(ttl) + "/" + fmtSeconds(secDur(p.TTL))
		if ttl <= 0 {
			ttlText = "expiring"
		}
		ttlCell := r.peerStyle(p).Render(pad(ttlText, 10)) + " "
		ago := fmtSeconds(r.now.Sub(p.LastSeen)) + " ago"
		c.body = append(c.body, mark+pad(clean(name, nameW-1), nameW)+pad(p.DCBX.String(), 6)+ttlCell+pad(ago, 10)+padLeft(fmt.Sprint(p.Frames), 7))
		ids := []string{"chassis " + Sanitize(p.ChassisID), "port " + Sanitize(p.PortID)}
		if d := deref(p.PortDescription); d != "" {
			ids = append(ids, "\""+Sanitize(d)+"\"")
		}
		if p.Scope != engine.ScopeNearestBridge || p.ScopeAssumed {
			sc := "to " + string(p.Scope)
			if p.ScopeAssumed {
				sc += " (assumed: cooked capture)"
			}
			ids = append(ids, sc)
		}
		if v := p.VLAN; v != nil {
			ids = append(ids, fmt.Sprintf("vlan %d pcp %d", v.ID, v.PCP))
		}
		c.body = append(c.body, "   "+r.st.Dim.Render(trunc(strings.Join(ids, " · "), w-3)))
		if d := deref(p.SystemDescription); d != "" {
			// Line breaks (Cisco NX-OS sends them) show as ⏎, not as a
			// replaced control character; enter shows them as lines.
			c.body = append(c.body, "   "+r.st.Dim.Render(trunc(Sanitize(lineBreaks(d)), w-3)))
		}
		for _, d := range p.DiscardedTLVs {
			c.body = append(c.body, "   "+r.st.Warn.Render(trunc(fmt.Sprintf("%s discarded %s TLV at offset %d: %s", r.sym.Warning, Sanitize(d.TLV), d.Offset, Sanitize(d.Error)), w-3)))
		}
	}
	if len(terms) > 0 {
		c.sub += fmt.Sprintf(" · filter: %d of %d", shown, n)
	}
	if len(in.LocalAgents) > 0 {
		c.body = append(c.body, r.st.ColHeader.Render("Local LLDP agents on this host"))
		for _, a := range in.LocalAgents {
			c.body = append(c.body, "  "+Sanitize(a.ChassisID)+" / "+Sanitize(a.PortID)+
				r.st.Dim.Render(fmt.Sprintf("  %d frames, last %s ago", a.Frames, fmtSeconds(r.now.Sub(a.LastSeen)))))
		}
	}
	return c
}

// ---- Lossless ----

// Marks of the Lossless pane.
const (
	notAvail = "n/a" // a counter nothing provides
)

// prioPause returns the selected interface's pause counters of priority
// p, nil when none were sampled.
func (r *renderer) prioPause(p uint8) *lossless.PrioPause {
	lc := r.in.Counters
	if lc == nil {
		return nil
	}
	for i := range lc.PFC.Priorities {
		if pp := &lc.PFC.Priorities[i]; pp.Priority == int(p) {
			return pp
		}
	}
	return nil
}

// pauseRate is the interface's pause frames per second over the last
// interval, both directions and every priority summed; "—" before any
// rate is known.
func (r *renderer) pauseRate() string {
	lc := r.in.Counters
	if lc == nil {
		return r.sym.Absent
	}
	sum, known := 0.0, false
	for _, pp := range lc.PFC.Priorities {
		for _, v := range []*float64{pp.RxPauseRate, pp.TxPauseRate} {
			if v != nil {
				sum, known = sum+*v, true
			}
		}
	}
	if !known {
		return r.sym.Absent
	}
	return fmtRate(sum) + "/s"
}

// losslessContent shows the lossless-Ethernet counters: per-priority
// pauses with their last minute, the pause storm guard, and per RDMA
// device port the NDK set and the congestion (CNP/ECN) counters.
func (r *renderer) losslessContent(w int) paneContent {
	c := paneContent{cursor: -1}
	lc := r.in.Counters
	if lc == nil {
		c.body = []string{r.st.Dim.Render("no counters sampled (replay, or sampling off)")}
		return c
	}
	c.sub = "no pause counters · every " + fmtInterval(lc.IntervalMs)
	if lc.PFC.Source != nil {
		c.sub = "pauses from " + Sanitize(string(*lc.PFC.Source)) + " · every " + fmtInterval(lc.IntervalMs)
	}
	if lc.Error != nil {
		for _, l := range wrap(r.sym.Warning+" "+Sanitize(*lc.Error), w, "  ") {
			c.body = append(c.body, r.st.Warn.Render(l))
		}
	}
	// With a RoCE port, its path first: it answers "is my RoCE traffic
	// lossless?", the counters below say how it behaves.
	if len(lc.RoCEPaths) > 0 {
		c.body = append(c.body, r.roceLines(lc, w)...)
		c.body = append(c.body, r.trafficLines(lc, w)...)
		c.body = append(c.body, r.pauseLines(lc, w)...)
		c.body = append(c.body, r.rdmaLines(lc, w)...)
		return c
	}
	c.body = append(c.body, r.pauseLines(lc, w)...)
	c.body = append(c.body, r.trafficLines(lc, w)...)
	c.body = append(c.body, r.rdmaLines(lc, w)...)
	c.body = append(c.body, r.roceLines(lc, w)...)
	return c
}

// Widths of the traffic table's columns: the share of the interval
// paused, and the narrowest a sparkline gets.
const (
	pausedW   = 7
	minSparkW = 8
)

// trafficLines is the per-priority traffic (bytes per second, rx and tx)
// and the share of each interval the peer paused the priority, each with
// its last minute as a sparkline; only the priorities the driver counts
// (mlx5 rx_prio{p}_bytes, bnxt_en rx_bytes_pri{p}), nothing without any.
func (r *renderer) trafficLines(lc *lossless.Counters, w int) []string {
	var rows []uint8
	counted, quiet := false, 0
	for p := range uint8(8) {
		pp := r.prioPause(p)
		if pp == nil || (pp.RxBytes == nil && pp.TxBytes == nil && pp.PausedFraction == nil) {
			continue
		}
		counted = true
		busy := slices.ContainsFunc(lc.TrafficHistory[p], func(v float64) bool { return v > 0 }) ||
			slices.ContainsFunc(lc.PausedHistory[p], func(v float64) bool { return v > 0 })
		if busy || r.pfcOn(p) {
			rows = append(rows, p)
		} else {
			quiet++
		}
	}
	if !counted {
		return nil
	}
	fixed := pausePrioW + 2*pauseCountW + pausedW + 3*pauseGapW
	sw := clamp((w-fixed)*2/3, minSparkW, 60)
	pw := clamp(w-fixed-sw, minSparkW, 60)
	var traffic, paused [8][]float64
	topT := 0.0
	for _, p := range rows {
		traffic[p], paused[p] = buckets(lc.TrafficHistory[p], sw), buckets(lc.PausedHistory[p], pw)
		for _, v := range traffic[p] {
			topT = max(topT, v)
		}
	}
	na := r.st.Dim.Render(notAvail)
	rate := func(v *float64) string {
		if v == nil {
			return na
		}
		return fmtRate(*v)
	}
	gap := strings.Repeat(" ", pauseGapW)
	head := "bytes/s " + fmtSeconds(lossless.HistoryWindow)
	if topT > 0 {
		head += ", peak " + fmtRate(topT)
	}
	lines := []string{r.st.ColHeader.Render(pad("Prio PFC", pausePrioW) + padLeft("rx B/s", pauseCountW) + padLeft("tx B/s", pauseCountW) +
		gap + pad(head, sw) + gap + padLeft("paused", pausedW) + gap + "paused " + fmtSeconds(lossless.HistoryWindow))}
	for _, p := range rows {
		pp := r.prioPause(p)
		spark := func(v []float64, w int, top float64) string {
			s := sparkline(v, w, top, r.sym.Spark)
			if len(v) == 0 || slices.Max(v) <= 0 {
				return r.st.Dim.Render(s)
			}
			return s
		}
		share := na
		if pp.PausedFraction != nil {
			share = fmt.Sprintf("%.1f%%", 100*(*pp.PausedFraction))
			if *pp.PausedFraction >= 0.5 {
				share = r.st.Warn.Render(share)
			}
		}
		lines = append(lines, trunc(pad(padLeft(fmt.Sprint(p), 4)+" "+r.pfcMark(p), pausePrioW)+
			padLeft(rate(pp.RxBytesRate), pauseCountW)+padLeft(rate(pp.TxBytesRate), pauseCountW)+gap+
			spark(traffic[p], sw, topT)+gap+padLeft(share, pausedW)+gap+spark(paused[p], pw, 1), w))
	}
	if quiet > 0 {
		lines = append(lines, r.st.Dim.Render("     "+plural(quiet, "quiet priority")+" without PFC not shown"))
	}
	return lines
}

// pfcOn reports whether PFC is on for priority p in force.
func (r *renderer) pfcOn(p uint8) bool {
	op := r.in.Operational
	return op != nil && op.PFC != nil && op.PFC.Enabled.Has(p)
}

// pfcMark marks whether PFC is on for priority p in force: on, off, or
// unknown without operational PFC.
func (r *renderer) pfcMark(p uint8) string {
	var op *dcb.PFC
	if r.in.Operational != nil {
		op = r.in.Operational.PFC
	}
	switch {
	case op == nil:
		return r.st.Dim.Render(r.sym.Absent)
	case op.Enabled.Has(p):
		return r.st.Enabled.Render(r.sym.On)
	}
	return r.st.Dim.Render(r.sym.Off)
}

// roceLines is the RoCE path this host sets up, when sampled: the
// link-wide PAUSE beside PFC, and per RoCE port the GID its RoCE v2
// traffic can be routed from and the ToS rdma_cm stamps by default.
func (r *renderer) roceLines(lc *lossless.Counters, w int) []string {
	var lines []string
	if q := lc.QoS; q != nil {
		text := "classified by "
		if q.Trust == nil {
			text += "?"
		} else {
			text += Sanitize(strings.Join(q.Trust, ", "))
			if q.TrustDerived {
				text += r.st.Dim.Render(" (derived from the APP table)")
			}
		}
		if q.PFCDelay != nil {
			text += fmt.Sprintf(" · PFC delay %d", *q.PFCDelay)
		}
		if b := q.Buffer; b != nil {
			var sizes []string
			for _, s := range b.SizeBytes {
				sizes = append(sizes, fmtCount(uint64(s)))
			}
			text += fmt.Sprintf(" · buffers prio→buf %s, sizes %s", joinDigits(b.PrioBuffer), strings.Join(sizes, "/"))
		}
		lines = append(lines, wrap(text, w, "  ")...)
	}
	if lp := lc.LinkPause; lp != nil {
		var text string
		frames := ""
		if lp.RxFrames != nil || lp.TxFrames != nil {
			frames = " · frames rx " + countOr(lp.RxFrames) + " tx " + countOr(lp.TxFrames)
			if lp.RxPauseUs != nil {
				frames += " · paused " + fmtCount(*lp.RxPauseUs/1000) + " ms"
			}
			if lp.FramesSource != "" {
				frames += " (" + Sanitize(lp.FramesSource) + ")"
			}
		}
		switch {
		case lp.RX == nil && lp.TX == nil:
			why := "not reported"
			if lp.Unknown != nil {
				why = Sanitize(*lp.Unknown)
			}
			text = r.st.Dim.Render("link-wide PAUSE (802.3x) settings unknown: "+why) + frames
		default:
			text = "link-wide PAUSE (802.3x) rx " + onOffWord(lp.RX) + " · tx " + onOffWord(lp.TX) + frames
			if lp.On() {
				text = r.st.Warn.Render(r.sym.Warning+" ") + text
			}
		}
		lines = append(lines, wrap(text, w, "  ")...)
	}
	for i := range lc.RoCE {
		p := &lc.RoCE[i]
		if !p.IsRoCE() {
			continue
		}
		text := "RoCE " + clean(p.Device, 24) + "/" + fmt.Sprint(p.Port) + ": "
		switch {
		case p.RoutableV2 != nil:
			text += "RoCE v2 GID " + fmt.Sprint(*p.RoutableV2)
			for _, g := range p.GIDs {
				if g.Index == *p.RoutableV2 && g.GID != nil {
					addr := *g.GID
					if g.IPv4 != nil {
						addr = *g.IPv4
					}
					text += " " + Sanitize(addr)
				}
			}
		case p.RoutableV2Why != nil:
			text = r.st.Warn.Render(r.sym.Warning+" ") + text + "no routable RoCE v2 GID (" + Sanitize(*p.RoutableV2Why) + ")"
		default:
			text += "GID table unknown"
		}
		if t := p.DefaultToS; t != nil {
			text += fmt.Sprintf(" · default ToS %d (DSCP %d, ECN %d)", t.ToS, t.DSCP, t.ECN)
		} else {
			text += " · default ToS not set (rdma_cm)"
		}
		lines = append(lines, wrap(text, w, "  ")...)
		if o := p.Optional; o != nil {
			lines = append(lines, r.optionalLines(o, w)...)
		}
		for _, path := range lc.RoCEPaths {
			if path.Device == p.Device && path.Port == p.Port {
				lines = append(lines, r.pathLines(path, w)...)
			}
		}
	}
	return lines
}

// optionalLines says which of an RDMA port's optional counters (RDMA
// netlink) count, which are off, and the command that would turn them on
// (dcbtop never does).
func (r *renderer) optionalLines(o *lossless.OptionalCounters, w int) []string {
	if !o.StatusKnown {
		why := "unknown"
		if o.Why != nil {
			why = Sanitize(*o.Why)
		}
		return wrap(r.st.Dim.Render("  optional counters ("+Sanitize(o.Source)+"): "+why), w, "    ")
	}
	var parts []string
	for _, c := range o.Enabled {
		parts = append(parts, Sanitize(c.Name)+" "+countOr(c.Value))
	}
	if len(o.Disabled) > 0 {
		var off []string
		for _, n := range o.Disabled {
			off = append(off, Sanitize(n))
		}
		parts = append(parts, "off: "+strings.Join(off, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	lines := wrap("  optional counters ("+Sanitize(o.Source)+"): "+strings.Join(parts, " · "), w, "    ")
	if o.EnableCommand != nil {
		lines = append(lines, wrap(r.st.Dim.Render("    enable (not persistent): "+Sanitize(*o.EnableCommand)), w, "      ")...)
	}
	return lines
}

// pathLines is a RoCE port's path, one line per hop in the order a packet
// takes them: the hop, its verdict's mark, its value, and why when it is
// not ok.
func (r *renderer) pathLines(p lossless.RoCEPath, w int) []string {
	var lines []string
	for _, h := range p.Hops {
		mark := r.st.Enabled.Render(r.sym.OK)
		switch h.Verdict {
		case lossless.PathError:
			mark = r.st.Crit.Render(r.sym.Error)
		case lossless.PathWarning:
			mark = r.st.Warn.Render(r.sym.Warning)
		case lossless.PathUnknown:
			mark = r.st.Dim.Render(r.sym.Absent)
		}
		value := ""
		if h.Value != nil {
			value = Sanitize(*h.Value)
		}
		line := "  " + pad(string(h.Hop), 9) + mark + " " + value
		if h.Verdict != lossless.PathOK {
			if value != "" {
				line += " · "
			}
			line += r.st.Dim.Render(Sanitize(h.Reason))
		}
		lines = append(lines, trunc(line, w))
	}
	return lines
}

// joinDigits writes a priority map as "00010000".
func joinDigits(v [8]uint8) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(fmt.Sprint(x))
	}
	return b.String()
}

// onOffWord says "on", "off" or "?" for a setting nothing reported.
func onOffWord(b *bool) string {
	if b == nil {
		return "?"
	}
	return dcb.OnOff(*b)
}

// countOr is a count, or the mark of a missing one.
func countOr(v *uint64) string {
	if v == nil {
		return notAvail
	}
	return fmtCount(*v)
}

// Widths of the pause table's columns: priority and PFC, each count and
// rate, the gap around the sparkline and the pause durations.
const (
	pausePrioW  = 9
	pauseCountW = 7
	pauseGapW   = 2
	pauseDurW   = 15
)

// pauseLines is the per-priority pause table and the storm guard's
// counts.
func (r *renderer) pauseLines(lc *lossless.Counters, w int) []string {
	if lc.PFC.Source == nil {
		return []string{r.st.Dim.Render("no per-priority pause counters (driver exposes none)")}
	}
	sw := clamp(w-pausePrioW-4*pauseCountW-2*pauseGapW-pauseDurW, 8, 60)
	var hist [8][]float64
	top := 0.0
	for p := range hist {
		hist[p] = buckets(lc.PauseHistory[p], sw)
		for _, v := range hist[p] {
			top = max(top, v)
		}
	}
	na := r.st.Dim.Render(notAvail)
	count := func(v *uint64) string {
		if v == nil {
			return na
		}
		return fmtCount(*v)
	}
	rate := func(v *float64) string {
		if v == nil {
			return na
		}
		return fmtRate(*v)
	}
	micros := func(v *uint64) string {
		if v == nil {
			return na
		}
		return fmtMicros(*v)
	}
	gap := strings.Repeat(" ", pauseGapW)
	sparkHead := "rx+tx/s " + fmtSeconds(lossless.HistoryWindow)
	if top > 0 {
		sparkHead += ", peak " + fmtRate(top)
	}
	lines := []string{r.st.ColHeader.Render(pad("Prio PFC", pausePrioW) + padLeft("rx", pauseCountW) + padLeft("tx", pauseCountW) +
		padLeft("rx/s", pauseCountW) + padLeft("tx/s", pauseCountW) + gap + pad(sparkHead, sw) + gap + "paused rx/tx")}
	for p := range uint8(8) {
		line := pad(padLeft(fmt.Sprint(p), 4)+" "+r.pfcMark(p), pausePrioW)
		pp := r.prioPause(p)
		if pp == nil {
			lines = append(lines, line+padLeft(na, pauseCountW))
			continue
		}
		spark := sparkline(hist[p], sw, top, r.sym.Spark)
		if len(hist[p]) == 0 || slices.Max(hist[p]) <= 0 { // a quiet minute
			spark = r.st.Dim.Render(spark)
		}
		dur := na
		if pp.RxPauseDurationUs != nil || pp.TxPauseDurationUs != nil {
			dur = micros(pp.RxPauseDurationUs) + "/" + micros(pp.TxPauseDurationUs)
		}
		lines = append(lines, line+padLeft(count(pp.RxPause), pauseCountW)+padLeft(count(pp.TxPause), pauseCountW)+
			padLeft(rate(pp.RxPauseRate), pauseCountW)+padLeft(rate(pp.TxPauseRate), pauseCountW)+gap+spark+gap+dur)
	}
	warn, errs := lc.PFC.StormWarningEvents, lc.PFC.StormErrorEvents
	if warn != nil || errs != nil {
		text := "pause storm guard events: warning " + count(warn) + " · error " + count(errs)
		if deref(warn) > 0 || deref(errs) > 0 {
			text = r.st.Warn.Render(r.sym.Warning+" ") + text
		}
		lines = append(lines, text)
	}
	return lines
}

// rdmaLines is the NDK and congestion counters of each RDMA device port,
// the host's ECN settings and the legend of the marks.
func (r *renderer) rdmaLines(lc *lossless.Counters, w int) []string {
	var lines []string
	if len(lc.RDMA) == 0 {
		lines = append(lines, r.st.Dim.Render("no RDMA device on this interface"))
		if lc.ECN != nil {
			lines = append(lines, r.ecnLine(lc.ECN))
		}
		return lines
	}
	for i := range lc.RDMA {
		pc := &lc.RDMA[i]
		name := fmt.Sprintf("%s/%d", clean(pc.Device, 24), pc.Port)
		lines = append(lines, r.st.ColHeader.Render("NDK "+name)+r.st.Dim.Render(fmt.Sprintf(" · missing 0x%X · derived 0x%X", pc.MissingCounterMask, pc.DerivedCounterMask)))
		ndk := make([]counterCell, 0, len(lossless.NDKCounters))
		for _, c := range lossless.NDKCounters {
			ndk = append(ndk, counterCell{name: c.Key(), value: pc.NDK.Get(c), derived: pc.DerivedCounterMask&(1<<c) != 0,
				gauge: c.Gauge(), rates: pc.Rates})
		}
		lines = append(lines, r.counterGrid(ndk, w)...)
		lines = append(lines, r.st.ColHeader.Render("CNP/ECN "+name))
		cong := make([]counterCell, 0, lossless.NumCongestion)
		for c := range lossless.NumCongestion {
			cong = append(cong, counterCell{name: c.Key(), value: pc.Congestion.Get(c), rates: pc.Rates})
		}
		lines = append(lines, r.counterGrid(cong, w)...)
	}
	lines = append(lines, r.ecnLine(lc.ECN))
	for _, l := range wrap(r.sym.Derived+" derived: approximates the NDK counter · "+notAvail+" no source · mask bit N = NDK counter N", w, "  ") {
		lines = append(lines, r.st.Dim.Render(l))
	}
	return lines
}

// ecnLine says on which priorities the host acts as ECN notification
// point (sends CNPs) and reaction point (slows down on CNPs).
func (r *renderer) ecnLine(e *lossless.ECNSample) string {
	if e == nil {
		return r.st.Dim.Render("ECN settings unknown")
	}
	if e.Source == "" {
		text := "ECN settings unknown"
		if e.Why != "" {
			text += ": " + Sanitize(e.Why)
		}
		if e.Hint != "" {
			text += " · " + Sanitize(e.Hint)
		}
		return r.st.Dim.Render(text)
	}
	var parts []string
	if e.EnablesUnknown {
		parts = append(parts, "ECN enables not exposed")
	} else {
		parts = append(parts, "ECN notification point on "+e.NotificationPoint.PrioWords(), "reaction point on "+e.ReactionPoint.PrioWords())
	}
	parts = append(parts, e.CNPWords()...)
	line := strings.Join(parts, " · ") + r.st.Dim.Render(" ("+Sanitize(e.Source)+")")
	if e.EnablesUnknown && e.Hint != "" {
		line += r.st.Dim.Render(" · " + Sanitize(e.Hint))
	}
	return line
}

// A counterCell is one counter of an RDMA port: its name, value (nil:
// missing), whether it is derived or a gauge (no rate), and the port's
// rates by counter name.
type counterCell struct {
	name           string
	value          *uint64
	derived, gauge bool
	rates          map[string]float64
}

// Widths of a counter cell's value and rate.
const counterValueW, counterRateW = 7, 9

// counterGrid lays counter cells out in up to two columns, filled down
// first: name, value with the derived mark, and rate.
func (r *renderer) counterGrid(cells []counterCell, w int) []string {
	nameW := 0
	for _, c := range cells {
		nameW = max(nameW, width(c.name))
	}
	const indent, colGap = 2, 3
	cellW := nameW + 1 + counterValueW + 2 + counterRateW
	cols := 1
	if indent+2*cellW+colGap <= w {
		cols = 2
	}
	rows := (len(cells) + cols - 1) / cols
	lines := make([]string, rows)
	for i, c := range cells {
		row, col := i%rows, i/rows
		if col > 0 {
			lines[row] += strings.Repeat(" ", colGap)
		} else {
			lines[row] = strings.Repeat(" ", indent)
		}
		lines[row] += pad(c.name, nameW) + " " + r.counterValue(c)
	}
	return lines
}

// counterValue renders a counter cell's value, mark and rate: "n/a" (dim)
// when missing, no rate for a gauge, "n/a" before a rate is known.
func (r *renderer) counterValue(c counterCell) string {
	if c.value == nil {
		return pad(padLeft(r.st.Dim.Render(notAvail), counterValueW), counterValueW+2+counterRateW)
	}
	mark := " "
	if c.derived {
		mark = r.sym.Derived
	}
	rate := ""
	switch v, ok := c.rates[c.name]; {
	case c.gauge:
	case ok:
		rate = fmtRate(v) + "/s"
	default:
		rate = r.st.Dim.Render(notAvail)
	}
	return padLeft(fmtCount(*c.value), counterValueW) + mark + " " + padLeft(rate, counterRateW)
}

// deref is *v, the zero value when v is nil (a missing counter, a TLV the
// peer did not send).
func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
