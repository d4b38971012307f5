// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
)

// The overview is every captured interface at a glance, one row each: the
// default view when there are several (a host has two to eight RDMA
// ports), toggled with o; Enter opens the port under the cursor.

// An overviewSort orders the overview's rows.
type overviewSort uint8

// Sort orders, in the order the sort key cycles through them.
const (
	sortName     overviewSort = iota // interface name
	sortProblems                     // errors, then warnings, most first
	sortPauses                       // pause rate, highest first
	numSorts
)

var sortNames = [numSorts]string{"name", "problems", "pauses/s"}

// ifNameMax is the longest Linux interface name (IFNAMSIZ - 1): names are
// shown whole, never cut (enp129s0f0np0 and enp129s0f1np1 must be told
// apart).
const ifNameMax = 15

// overviewOrder returns the indexes of snap's interfaces in the order
// sort gives, ties by name in natural order (naturalCompare: h2 before
// h10).
func overviewOrder(snap engine.Snapshot, sort overviewSort) []int {
	idx := make([]int, len(snap.Interfaces))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) (int, float64) {
		in := &snap.Interfaces[i]
		switch sort {
		case sortProblems:
			e, w, _, _ := interfaceCounts(in)
			return -(e*1000 + w), 0 // what was not read is not a problem
		case sortPauses:
			r, ok := pauseSum(in)
			if !ok {
				return 1, 0
			}
			return 0, -r
		}
		return 0, 0
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, fa := key(a)
		kb, fb := key(b)
		if c := cmp.Compare(ka, kb); c != 0 {
			return c
		}
		if c := cmp.Compare(fa, fb); c != 0 {
			return c
		}
		return naturalCompare(snap.Interfaces[a].Name, snap.Interfaces[b].Name)
	})
	return idx
}

// pauseSum is an interface's summed rx+tx pause rate, when known.
func pauseSum(in *engine.Interface) (float64, bool) {
	lc := in.Counters
	if lc == nil {
		return 0, false
	}
	sum, known := 0.0, false
	for _, pp := range lc.PFC.Priorities {
		for _, v := range []*float64{pp.RxPauseRate, pp.TxPauseRate} {
			if v != nil {
				sum, known = sum+*v, true
			}
		}
	}
	return sum, known
}

// overviewColumns are the overview's column titles.
// (Local is the source of the local parameters, Will the local Willing
// state, PFC the operational PFC priorities, Peer PFC the remote's.)
var overviewColumns = []string{"Interface", "Link", "Peer", "DCBX", "TTL", "Local", "Will", "PFC", "Peer PFC", "Remote", "Diag", "Pauses/s", "RoCE"}

// Columns the overview's layout names.
const (
	linkCol, peerCol, dialectCol, ttlCol, localCol, willCol = 1, 2, 3, 4, 5, 6
	// pausesCol is the pause-rate column, shown only when some
	// interface has counters; roceCol the RoCE path's priority and
	// worst hop, shown only when some interface has a RoCE port.
	pausesCol, roceCol = 11, 12
)

// overviewDrops are the columns a narrow screen leaves out, whole, first
// to last, once the peer names are cut as short as they go: never the
// interface, the PFC columns, the remote state or the diagnostics.
var overviewDrops = []int{dialectCol, willCol, linkCol, localCol, ttlCol, pausesCol, roceCol, peerCol}

// peerColMin is how short a narrow screen cuts the peer names.
const peerColMin = 6

// An ovRow is what one overview row shows, before styling: comparable,
// so that a row whose contents did not change is drawn from the cache
// (rowCache) instead of again. The TTL's seconds and its colour are in
// it: a countdown row changes every second.
type ovRow struct {
	name     string
	oper     string // "up", "down" or anything else (unknown)
	peer     bool   // a peer is shown: peerName, dialect and the TTL
	peerName string
	dialect  string
	ttlFill  int    // the gauge's full cells, of 5
	ttlLeft  string // fmtSeconds of the time left
	ttlLevel int    // peerLevel: the countdown's colour
	local    string // "" unknown
	will     int8   // -1 unknown, 0 off, 1 on
	pfc      string // "" unknown
	peerPFC  string // "" unknown
	peerDim  bool   // peerPFC is what the peer sent, not in force
	remote   engine.RemoteState
	reason   string
	errs     int
	warns    int
	// unknown counts the checks nothing read enough to judge.
	unknown int
	pauses  string // "" unknown
	roce    string // roceCell, drawn (it has no clock in it)
}

// ttlGauge is the TTL gauge's width in cells.
const ttlGauge = 5

// overviewRow is what interface in's row shows.
func (r *renderer) overviewRow(in *engine.Interface) ovRow {
	row := ovRow{name: in.Name, oper: in.OperState, will: -1, remote: in.RemoteState()}
	if p := in.ShownPeer(); p != nil {
		name := deref(p.SystemName)
		if name == "" {
			name = p.ChassisID
		}
		d := p.DCBX
		if in.RemoteValid {
			d = in.Dialect
		}
		left, total := r.ttlLeft(p), secDur(p.TTL)
		if total > 0 {
			row.ttlFill = clamp(int((left*ttlGauge+total-1)/total), 0, ttlGauge)
		}
		row.peer, row.peerName, row.dialect = true, name, d.String()
		row.ttlLeft, row.ttlLevel = fmtSeconds(max(0, left)), r.peerLevel(p)
	}
	row.local = string(in.LocalSource)
	if in.Willing != nil {
		row.will = 0
		if *in.Willing {
			row.will = 1
		}
	}
	if op := in.Operational; op != nil && op.PFC != nil {
		row.pfc = op.PFC.Enabled.PrioWords()
	}
	// The remote's PFC: the remote parameters in force, else what the
	// peer shown last sent (dimmed: not in force, e.g. multi-peer).
	if rp := in.Remote; in.RemoteValid && rp != nil && rp.PFC != nil {
		row.peerPFC = rp.PFC.Enabled.PrioWords()
	} else if p := in.ShownPeer(); p != nil && p.Params != nil && p.Params.PFC != nil {
		row.peerPFC, row.peerDim = p.Params.PFC.Enabled.PrioWords(), true
	}
	if in.RemoteInvalidReason != nil {
		row.reason = string(*in.RemoteInvalidReason)
	}
	row.errs, row.warns, _, row.unknown = interfaceCounts(in)
	if s, ok := pauseSum(in); ok {
		row.pauses = fmtRate(s)
	}
	row.roce = r.roceCell(in)
	return row
}

// rowCells renders a row's cells (styled) in column order.
func (r *renderer) rowCells(row ovRow) []string {
	st := r.st
	absent := st.Dim.Render(r.sym.Absent)
	link := absent
	switch row.oper {
	case "up":
		link = st.OK.Render("up")
	case "down":
		link = st.Crit.Render("DOWN")
	case "removed":
		link = st.Crit.Render("GONE")
	}
	peer, dialect, ttl := absent, absent, absent
	if row.peer {
		peer, dialect = Sanitize(row.peerName), row.dialect
		look := st.OK
		switch row.ttlLevel {
		case 2:
			look = st.Crit
		case 1:
			look = st.Warn
		}
		ttl = st.GaugeFull.Render(strings.Repeat(r.sym.GaugeFull, row.ttlFill)) + st.GaugeEmpty.Render(strings.Repeat(r.sym.GaugeEmpty, ttlGauge-row.ttlFill)) + " " +
			look.Render(row.ttlLeft)
	}
	local := cmp.Or(row.local, absent)
	will := absent
	if row.will >= 0 {
		will = dcb.OnOff(row.will == 1)
	}
	pfc := cmp.Or(row.pfc, absent)
	peerPFC := cmp.Or(row.peerPFC, absent)
	if row.peerDim && row.peerPFC != "" {
		peerPFC = st.Dim.Render(row.peerPFC)
	}
	remote := st.OK.Render("valid")
	switch row.remote {
	case engine.RemoteMultiPeer:
		remote = st.Crit.Render(r.sym.Multi + " multi-peer")
	case engine.RemoteExpired, engine.RemoteShutdown, engine.RemoteInvalid, engine.RemoteLinkDown:
		remote = st.Crit.Render(r.sym.Error + " " + row.reason)
	case engine.RemoteNoPeer:
		remote = st.Dim.Render("no peer")
	case engine.RemoteNoDCBX:
		remote = st.Dim.Render("no DCBX")
	}
	var diag []string
	if row.errs > 0 {
		diag = append(diag, st.Crit.Render(fmt.Sprintf("%s%d", r.sym.Error, row.errs)))
	}
	if row.warns > 0 {
		diag = append(diag, st.Warn.Render(fmt.Sprintf("%s%d", r.sym.Warning, row.warns)))
	}
	if row.unknown > 0 {
		diag = append(diag, st.Dim.Render(fmt.Sprintf("%s%d", r.sym.Unknown, row.unknown)))
	}
	if len(diag) == 0 {
		diag = append(diag, st.OK.Render(r.sym.OK))
	}
	pauses := cmp.Or(row.pauses, absent)
	return []string{st.Value.Render(clean(row.name, ifNameMax)), link, peer, dialect, ttl, local, will, pfc, peerPFC, remote, strings.Join(diag, " "), pauses, row.roce}
}

// roceCell is the RoCE priority and the worst hop of the interface's RoCE
// paths: "3 ✓", "3 ✗ pfc", "? — tos".
func (r *renderer) roceCell(in *engine.Interface) string {
	st := r.st
	if in.Counters == nil || len(in.Counters.RoCEPaths) == 0 {
		return st.Dim.Render(r.sym.Absent)
	}
	prio, worst, hop := "?", lossless.PathOK, lossless.RoCEHop("")
	for _, p := range in.Counters.RoCEPaths {
		if p.Priority != nil {
			prio = strconv.Itoa(*p.Priority)
		}
		if p.Worst.Worse(worst) {
			worst, hop = p.Worst, p.Cause // the hop its facts blame (RoCEPath.Cause)
		}
	}
	switch worst {
	case lossless.PathError:
		return prio + " " + st.Crit.Render(r.sym.Error+" "+string(hop))
	case lossless.PathWarning:
		return prio + " " + st.Warn.Render(r.sym.Warning+" "+string(hop))
	case lossless.PathUnknown:
		return prio + " " + st.Dim.Render(r.sym.Absent+" "+string(hop))
	}
	return prio + " " + st.OK.Render(r.sym.OK)
}

// overviewRows returns the indexes of snap's interfaces the overview
// lists, in its order: those the filter (vs.ovFilter) matches.
func overviewRows(snap engine.Snapshot, vs *viewState) []int {
	order := overviewOrder(snap, vs.ovSort)
	if vs.ovFilter == "" {
		return order
	}
	return slices.DeleteFunc(order, func(i int) bool { return !ovMatches(&snap.Interfaces[i], vs.ovFilter) })
}

// ovMatches reports whether the overview's filter f matches interface
// in: a substring, in any case, of its name or of the system name (else
// the chassis ID) of a peer it hears or of the peer it lost (expired,
// shut down).
func ovMatches(in *engine.Interface, f string) bool {
	f = strings.ToLower(f)
	has := func(s string) bool { return strings.Contains(strings.ToLower(Sanitize(s)), f) }
	if has(in.Name) {
		return true
	}
	for i := range in.Peers {
		if has(cmp.Or(deref(in.Peers[i].SystemName), in.Peers[i].ChassisID)) {
			return true
		}
	}
	lp := in.LastPeer
	return lp != nil && has(cmp.Or(deref(lp.SystemName), lp.ChassisID))
}

// An ovLayout is where the overview is scrolled to for a screen size.
type ovLayout struct {
	rows []int // the interfaces listed (overviewRows)
	fit  int   // how many rows the body has lines for
	cur  int   // the cursor's row (-1: none listed)
	top  int   // the first row on screen
}

// shown is how many rows are on screen.
func (l ovLayout) shown() int { return min(l.fit, len(l.rows)-l.top) }

// overviewBodyHeight is the overview's body lines: the screen less the
// header, the status line (if any) and the footer.
func (r *renderer) overviewBodyHeight() int {
	h := r.h - r.headerHeight() - 1
	if r.statusText() != "" {
		h--
	}
	return h
}

// overviewLayout lays the overview's rows out: the body's lines less the
// column header and the line under the table; the first row shown is
// vs.ovTop, moved as little as keeps the cursor on screen.
func (r *renderer) overviewLayout() ovLayout {
	l := ovLayout{rows: overviewRows(r.snap, r.vs), fit: max(1, r.overviewBodyHeight()-2), cur: -1}
	if n := len(l.rows); n > 0 {
		l.cur = clamp(r.vs.ovCur, 0, n-1)
		l.top = scrollTop(r.vs.ovTop, l.cur, l.fit, n)
	}
	return l
}

// overviewBody draws the overview table in h lines: a column header, then
// the rows on screen in the chosen order, the cursor's row marked, and a
// line that says which rows these are, the order and the keys. Only the
// rows on screen are drawn, from the cache when their contents did not
// change; the columns fit them, but for the interface and peer names,
// which fit every listed row's.
func (r *renderer) overviewBody(h int, l ovLayout) string {
	st := r.st
	cols := len(overviewColumns)
	counters, roce := false, false
	for i := range r.snap.Interfaces {
		c := r.snap.Interfaces[i].Counters
		counters = counters || c != nil
		roce = roce || (c != nil && len(c.RoCEPaths) > 0)
	}
	switch {
	case !counters:
		cols = pausesCol // no interface has counters: no column for them
	case !roce:
		cols = roceCol // no RoCE port anywhere
	}
	cache := r.vs.ovCache
	cache.frame()
	widths := make([]int, cols)
	for i, c := range overviewColumns[:cols] {
		widths[i] = width(c)
	}
	// The interface and peer columns are as wide as the longest name of
	// any listed row, not only of those on screen: the columns stay put
	// while the table scrolls. Both come from the snapshot's strings
	// alone (no row is drawn for them).
	for _, i := range l.rows {
		in := &r.snap.Interfaces[i]
		widths[0] = max(widths[0], width(clean(in.Name, ifNameMax)))
		if p := in.ShownPeer(); p != nil {
			widths[peerCol] = max(widths[peerCol], width(Sanitize(cmp.Or(deref(p.SystemName), p.ChassisID))))
		}
	}
	vis := l.rows[l.top : l.top+l.shown()]
	rows := make([]ovRow, len(vis))
	cells := make([]rowCells, len(vis))
	for n, i := range vis {
		rows[n] = r.overviewRow(&r.snap.Interfaces[i])
		cells[n] = cache.cells(rows[n], r.rowCells)
		for c := range cols {
			widths[c] = max(widths[c], cells[n].widths[c])
		}
	}
	// Columns widen and stay wide while the table scrolls (the widest
	// cell seen since the screen's width, the columns, the order or the
	// filter last changed): the table does not jump back and forth.
	cache.steady(widths, fmt.Sprint(r.w, cols, r.vs.ovSort, r.vs.ovFilter))
	// On a narrow screen the peer names are cut, then the least useful
	// columns give way whole (overviewDrops); the interface names and the
	// remote state never do.
	keep := make([]bool, cols)
	for c := range keep {
		keep[c] = true
	}
	total := func() int {
		t := 2
		for c, wd := range widths {
			if keep[c] {
				t += wd + 2
			}
		}
		return t - 2
	}
	if over := total() - r.w; over > 0 {
		widths[peerCol] -= min(over, max(0, widths[peerCol]-peerColMin))
	}
	for _, c := range overviewDrops {
		if total() <= r.w {
			break
		}
		if c < cols {
			keep[c] = false
		}
	}
	// The layout's key: the columns shown, their widths, the screen's.
	var lk strings.Builder
	fmt.Fprint(&lk, r.w)
	for c := range cols {
		if keep[c] {
			fmt.Fprintf(&lk, " %d:%d", c, widths[c])
		}
	}
	layoutKey := lk.String()
	line := func(cells []string, cur bool) string {
		var b strings.Builder
		n := 2 // the line's width so far: each cell is padded to its column's
		if cur {
			b.WriteString(r.sym.Cursor + " ")
			n = width(r.sym.Cursor) + 1
		} else {
			b.WriteString("  ")
		}
		first := true
		for c, cell := range cells[:cols] {
			if !keep[c] {
				continue
			}
			if !first {
				b.WriteString("  ")
				n += 2
			}
			first = false
			b.WriteString(pad(cell, widths[c]))
			n += widths[c]
		}
		if n <= r.w {
			return b.String() + spaces(r.w-n)
		}
		return pad(b.String(), r.w)
	}
	head := make([]string, cols)
	for i, c := range overviewColumns[:cols] {
		head[i] = st.ColHeader.Render(c)
	}
	out := make([]string, 0, h)
	if len(l.rows) == 0 && r.vs.ovFilter != "" {
		out = append(out, pad(trunc(st.Warn.Render(fmt.Sprintf("  no interface matches %q", Sanitize(r.vs.ovFilter)))+
			st.Dim.Render(fmt.Sprintf(" (interface or peer name) %s %s clears", r.sym.Sep, r.keys.Back.Help().Key)), r.w), r.w))
	} else {
		out = append(out, line(head, false))
	}
	for n := range vis {
		cur := l.top+n == l.cur
		out = append(out, cache.line(lineKey{row: rows[n], cur: cur, layout: layoutKey}, func() string { return line(cells[n].cells, cur) }))
	}
	for len(out) < h-1 {
		out = append(out, strings.Repeat(" ", r.w))
	}
	what := plural(len(l.rows), "interface")
	filtered := len(l.rows) < len(r.snap.Interfaces)
	switch {
	case l.shown() < len(l.rows) && filtered:
		what = fmt.Sprintf("rows %d-%d of %d matching", l.top+1, l.top+l.shown(), len(l.rows))
	case l.shown() < len(l.rows):
		what = fmt.Sprintf("rows %d-%d of %d", l.top+1, l.top+l.shown(), len(l.rows))
	case filtered:
		what = fmt.Sprintf("%d of %d interfaces", len(l.rows), len(r.snap.Interfaces))
	}
	out = append(out, pad(trunc(st.Dim.Render(fmt.Sprintf("  %s %s sorted by %s (%s) %s enter opens the port %s %s overview",
		what, r.sym.Sep, sortNames[r.vs.ovSort], r.keys.Sort.Help().Key, r.sym.Sep, r.sym.Sep, r.keys.Overview.Help().Key)), r.w), r.w))
	return strings.Join(out[:h], "\n")
}

// overviewHeader is the overview's two header lines: how many interfaces
// and how many of them are on screen (a short screen, a filter), then the
// summary of the rows listed by state.
func (r *renderer) overviewHeader(l ovLayout) string {
	st := r.st
	n := len(r.snap.Interfaces)
	ifs := plural(n, "interface")
	if l.shown() < n {
		ifs += fmt.Sprintf(" %s %d shown", r.sym.Sep, max(0, l.shown()))
	}
	l1 := st.Brand.Render(" dcbtop ") + "  " + st.Value.Render("all ports") + "  " + st.Dim.Render(ifs)
	if f := r.vs.ovFilter; f != "" || r.vs.ovFiltering {
		l1 += "  " + st.Label.Render("filter") + " " + st.Match.Render(Sanitize(f))
	}
	return lr(l1, r.captureState(), r.w) + "\n" + r.overviewSummary(l.rows) + r.demoLine()
}

// overviewSummary is the line that counts the rows listed by state: "64
// ports: 52 valid · 6 no peer · 3 expired · 1 multi-peer · 2 with
// errors". Expired counts the peers whose information ran out, shut down
// or went with the link; invalid the remote parameters invalid for
// another reason. What is zero is left out (valid only without rows); on a narrow
// screen the warnings give way, then the errors are said shorter.
func (r *renderer) overviewSummary(rows []int) string {
	st := r.st
	var valid, noPeer, expired, multi, invalid, noDCBX, errs, warns int
	for _, i := range rows {
		in := &r.snap.Interfaces[i]
		switch in.RemoteState() {
		case engine.RemoteValid:
			valid++
		case engine.RemoteNoPeer:
			noPeer++
		case engine.RemoteNoDCBX:
			noDCBX++
		case engine.RemoteMultiPeer:
			multi++
		case engine.RemoteExpired, engine.RemoteShutdown, engine.RemoteLinkDown:
			expired++
		default:
			invalid++
		}
		e, w, _, _ := interfaceCounts(in)
		if e > 0 {
			errs++
		}
		if w > 0 {
			warns++
		}
	}
	what := "ports"
	if r.vs.ovFilter != "" {
		what = "matching ports"
	}
	if len(rows) == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	parts := []string{fmt.Sprintf("%s: %s", st.Label.Render(fmt.Sprintf("%d %s", len(rows), what)), st.OK.Render(fmt.Sprint(valid))+" valid")}
	if len(rows) == 0 {
		parts = []string{st.Label.Render("0 " + what)}
	}
	add := func(n int, look Look, words string) {
		if n > 0 {
			parts = append(parts, look.Render(fmt.Sprint(n))+" "+words)
		}
	}
	add(noPeer, st.Dim, "no peer")
	add(expired, st.Crit, "expired")
	add(multi, st.Crit, "multi-peer")
	add(invalid, st.Crit, "invalid")
	add(noDCBX, st.Dim, "no DCBX")
	sep := st.Dim.Render(" " + r.sym.Sep + " ")
	var full []string
	for _, try := range [][2]string{{"with errors", "with warnings"}, {"with errors", ""}, {"err", ""}} {
		p := slices.Clone(parts)
		if errs > 0 {
			p = append(p, st.Crit.Render(fmt.Sprint(errs))+" "+try[0])
		}
		if warns > 0 && try[1] != "" {
			p = append(p, st.Warn.Render(fmt.Sprint(warns))+" "+try[1])
		}
		full = p
		if width(strings.Join(p, sep)) <= r.w {
			break
		}
	}
	return pad(trunc(strings.Join(full, sep), r.w), r.w)
}

// overviewSelected returns the name of the interface under the overview's
// cursor ("" when it lists none).
func overviewSelected(snap engine.Snapshot, vs *viewState) string {
	rows := overviewRows(snap, vs)
	if len(rows) == 0 {
		return ""
	}
	return snap.Interfaces[rows[clamp(vs.ovCur, 0, len(rows)-1)]].Name
}

// overviewScreen is the whole screen in the overview: header, table,
// status line and footer, with the help overlay or a dialog over it.
func (r *renderer) overviewScreen() string {
	status := r.statusText()
	l := r.overviewLayout()
	parts := []string{r.overviewHeader(l), r.overviewBody(r.overviewBodyHeight(), l)}
	if status != "" {
		parts = append(parts, pad(status, r.w))
	}
	parts = append(parts, r.footer())
	out := strings.Join(parts, "\n")
	if r.vs.help {
		return overlay(out, r.helpBox(), r.w, r.h)
	}
	// Every overlay that takes the keys is drawn here as on a port's
	// screen: a dialog (quit's confirmation), and a detail (m's
	// messages), which at 7737732 took the keys undrawn.
	switch {
	case r.vs.dialog != nil:
		return overlay(out, r.dialogBox(), r.w, r.h)
	case r.vs.tune != nil:
		return overlay(out, r.tuneBox(), r.w, r.h)
	case r.vs.detail != nil && (r.vs.detail.kind == detailMessages || r.vs.detail.kind == detailFrames || r.in != nil):
		return overlay(out, r.detailBox(), r.w, r.h)
	}
	return out
}
