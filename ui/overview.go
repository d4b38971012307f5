package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

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
			e, w, _ := diagCounts(in.Diagnostics)
			return -(e*1000 + w), 0
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

// overviewCells renders one interface's cells (styled) in column order.
func (r *renderer) overviewCells(in *engine.Interface) []string {
	st := r.st
	link := st.Dim.Render(r.sym.Absent)
	switch in.OperState {
	case "up":
		link = st.OK.Render("up")
	case "down":
		link = st.Crit.Render("DOWN")
	}
	peer, dialect, ttl := st.Dim.Render(r.sym.Absent), st.Dim.Render(r.sym.Absent), st.Dim.Render(r.sym.Absent)
	if p := in.ShownPeer(); p != nil {
		name := deref(p.SystemName)
		if name == "" {
			name = p.ChassisID
		}
		peer = Sanitize(name)
		d := p.DCBX
		if in.RemoteValid {
			d = in.Dialect
		}
		dialect = d.String()
		left, total := r.ttlLeft(p), secDur(p.TTL)
		const gw = 5
		fill := 0
		if total > 0 {
			fill = clamp(int((left*gw+total-1)/total), 0, gw)
		}
		ttl = st.GaugeFull.Render(strings.Repeat(r.sym.GaugeFull, fill)) + st.GaugeEmpty.Render(strings.Repeat(r.sym.GaugeEmpty, gw-fill)) + " " +
			r.peerStyle(p).Render(fmtSeconds(max(0, left)))
	}
	local := st.Dim.Render(r.sym.Absent)
	if in.LocalSource != "" {
		local = string(in.LocalSource)
	}
	will := st.Dim.Render(r.sym.Absent)
	if in.Willing != nil {
		will = engine.OnOff(*in.Willing)
	}
	pfc := st.Dim.Render(r.sym.Absent)
	if op := in.Operational; op != nil && op.PFC != nil {
		pfc = op.PFC.Enabled.PrioWords()
	}
	// The remote's PFC: the remote parameters in force, else what the
	// peer shown last sent (dimmed: not in force, e.g. multi-peer).
	peerPFC := st.Dim.Render(r.sym.Absent)
	if rp := in.Remote; in.RemoteValid && rp != nil && rp.PFC != nil {
		peerPFC = rp.PFC.Enabled.PrioWords()
	} else if p := in.ShownPeer(); p != nil && p.Params != nil && p.Params.PFC != nil {
		peerPFC = st.Dim.Render(p.Params.PFC.Enabled.PrioWords())
	}
	remote := st.OK.Render("valid")
	switch rs := in.RemoteState(); rs {
	case engine.RemoteMultiPeer:
		remote = st.Crit.Render(r.sym.Multi + " multi-peer")
	case engine.RemoteExpired, engine.RemoteShutdown, engine.RemoteInvalid, engine.RemoteLinkDown:
		remote = st.Crit.Render(r.sym.Error + " " + string(*in.RemoteInvalidReason))
	case engine.RemoteNoPeer:
		remote = st.Dim.Render("no peer")
	case engine.RemoteNoDCBX:
		remote = st.Dim.Render("no DCBX")
	}
	e, w, _ := diagCounts(in.Diagnostics)
	var diag []string
	if e > 0 {
		diag = append(diag, st.Crit.Render(fmt.Sprintf("%s%d", r.sym.Error, e)))
	}
	if w > 0 {
		diag = append(diag, st.Warn.Render(fmt.Sprintf("%s%d", r.sym.Warning, w)))
	}
	if len(diag) == 0 {
		diag = append(diag, st.OK.Render(r.sym.OK))
	}
	pauses := st.Dim.Render(r.sym.Absent)
	if s, ok := pauseSum(in); ok {
		pauses = fmtRate(s)
	}
	return []string{st.Value.Render(clean(in.Name, ifNameMax)), link, peer, dialect, ttl, local, will, pfc, peerPFC, remote, strings.Join(diag, " "), pauses, r.roceCell(in)}
}

// roceCell is the RoCE priority and the worst hop of the interface's RoCE
// paths: "3 ✓", "3 ✗ pfc", "? — tos".
func (r *renderer) roceCell(in *engine.Interface) string {
	st := r.st
	if in.Counters == nil || len(in.Counters.RoCEPaths) == 0 {
		return st.Dim.Render(r.sym.Absent)
	}
	prio, worst, hop := "?", engine.PathOK, engine.RoCEHop("")
	for _, p := range in.Counters.RoCEPaths {
		if p.Priority != nil {
			prio = strconv.Itoa(*p.Priority)
		}
		for _, h := range p.Hops {
			if h.Verdict.Worse(worst) {
				worst, hop = h.Verdict, h.Hop
			}
		}
	}
	switch worst {
	case engine.PathError:
		return prio + " " + st.Crit.Render(r.sym.Error+" "+string(hop))
	case engine.PathWarning:
		return prio + " " + st.Warn.Render(r.sym.Warning+" "+string(hop))
	case engine.PathUnknown:
		return prio + " " + st.Dim.Render(r.sym.Absent+" "+string(hop))
	}
	return prio + " " + st.OK.Render(r.sym.OK)
}

// overviewBody draws the overview table in h lines: a column header, then
// one row per interface in the chosen order, the cursor's row marked.
func (r *renderer) overviewBody(h int) string {
	st := r.st
	order := overviewOrder(r.snap, r.vs.ovSort)
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
	widths := make([]int, cols)
	for i, c := range overviewColumns[:cols] {
		widths[i] = width(c)
	}
	all := make([][]string, len(order))
	for n, i := range order {
		all[n] = r.overviewCells(&r.snap.Interfaces[i])[:cols]
		for c, cell := range all[n] {
			widths[c] = max(widths[c], width(cell))
		}
	}
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
	var shown []int
	for c := range cols {
		if keep[c] {
			shown = append(shown, c)
		}
	}
	pick := func(cells []string) []string {
		out := make([]string, len(shown))
		for i, c := range shown {
			out[i] = cells[c]
		}
		return out
	}
	rows := make([][]string, len(all))
	for n := range all {
		rows[n] = pick(all[n])
	}
	widths = func() []int {
		out := make([]int, len(shown))
		for i, c := range shown {
			out[i] = widths[c]
		}
		return out
	}()
	line := func(cells []string, cur bool) string {
		var b strings.Builder
		if cur {
			b.WriteString(r.sym.Cursor + " ")
		} else {
			b.WriteString("  ")
		}
		for c, cell := range cells {
			b.WriteString(pad(trunc(cell, widths[c]), widths[c]))
			if c < len(cells)-1 {
				b.WriteString("  ")
			}
		}
		return pad(trunc(b.String(), r.w), r.w)
	}
	head := make([]string, cols)
	for i, c := range overviewColumns[:cols] {
		head[i] = st.ColHeader.Render(c)
	}
	head = pick(head)
	out := []string{line(head, false)}
	cur := clamp(r.vs.ovCur, 0, max(0, len(order)-1))
	top := 0
	if rowsFit := h - 2; rowsFit > 0 && cur >= top+rowsFit {
		top = cur - rowsFit + 1
	}
	for n := top; n < len(rows) && len(out) < h-1; n++ {
		out = append(out, line(rows[n], n == cur))
	}
	for len(out) < h-1 {
		out = append(out, strings.Repeat(" ", r.w))
	}
	out = append(out, pad(st.Dim.Render(fmt.Sprintf("  %s · sorted by %s (%s) · enter opens the port · %s overview",
		plural(len(order), "interface"), sortNames[r.vs.ovSort], r.keys.Sort.Help().Key, r.keys.Overview.Help().Key)), r.w))
	return strings.Join(out[:h], "\n")
}

// overviewHeader is the overview's two header lines.
func (r *renderer) overviewHeader() string {
	st := r.st
	// The ports by remote state: valid, invalid (expired, shut down,
	// multi-peer, link down...), no peer, and peers without DCBX, each
	// counted apart (a port nobody talks to is not "invalid").
	var peers, valid, invalid, noPeer, noDCBX, errs, warns int
	for i := range r.snap.Interfaces {
		in := &r.snap.Interfaces[i]
		peers += len(in.Peers)
		switch in.RemoteState() {
		case engine.RemoteValid:
			valid++
		case engine.RemoteNoPeer:
			noPeer++
		case engine.RemoteNoDCBX:
			noDCBX++
		default:
			invalid++
		}
		e, w, _ := diagCounts(in.Diagnostics)
		errs, warns = errs+e, warns+w
	}
	l1 := st.Brand.Render(" dcbtop ") + "  " + st.Value.Render("all ports") + "  " +
		st.Dim.Render(plural(len(r.snap.Interfaces), "interface"))
	l2 := fmt.Sprintf("%s %d  %s %d  %s %d  %s %d", st.Label.Render("peers"), peers, st.Label.Render("remote valid"), valid,
		st.Label.Render("invalid"), invalid, st.Label.Render("no peer"), noPeer)
	if noDCBX > 0 {
		l2 += fmt.Sprintf("  %s %d", st.Label.Render("no DCBX"), noDCBX)
	}
	l2 += fmt.Sprintf("  %s %s  %s %s", st.Label.Render("errors"), st.Crit.Render(fmt.Sprint(errs)), st.Label.Render("warnings"), st.Warn.Render(fmt.Sprint(warns)))
	return lr(l1, r.captureState(), r.w) + "\n" + pad(l2, r.w) + r.demoLine()
}

// overviewSelected returns the name of the interface under the overview's
// cursor ("" without interfaces).
func overviewSelected(snap engine.Snapshot, vs *viewState) string {
	order := overviewOrder(snap, vs.ovSort)
	if len(order) == 0 {
		return ""
	}
	return snap.Interfaces[order[clamp(vs.ovCur, 0, len(order)-1)]].Name
}

// overviewScreen is the whole screen in the overview: header, table,
// status line and footer, with the help overlay or a dialog over it.
func (r *renderer) overviewScreen() string {
	status := r.statusText()
	bodyH := r.h - r.headerHeight() - 1
	if status != "" {
		bodyH--
	}
	parts := []string{r.overviewHeader(), r.overviewBody(bodyH)}
	if status != "" {
		parts = append(parts, pad(status, r.w))
	}
	parts = append(parts, r.footer())
	out := strings.Join(parts, "\n")
	if r.vs.help {
		return overlay(out, r.helpBox(), r.w, r.h)
	}
	if r.vs.dialog != nil { // quit's confirmation
		return overlay(out, r.dialogBox(), r.w, r.h)
	}
	return out
}

// openOverview shows the overview with the cursor on the port on screen.
func (m *Model) openOverview() {
	m.vs.overview = true
	m.vs.ovDecided = true
	for n, i := range overviewOrder(m.snap, m.vs.ovSort) {
		if m.snap.Interfaces[i].Name == m.vs.iface {
			m.vs.ovCur = n
		}
	}
}

// openPort leaves the overview for the port under its cursor.
func (m *Model) openPort() tea.Cmd {
	name := overviewSelected(m.snap, &m.vs)
	m.vs.overview = false
	if name == "" || name == m.vs.iface {
		return nil
	}
	for i := range m.snap.Interfaces {
		if m.snap.Interfaces[i].Name == name {
			return m.switchIface(0, i)
		}
	}
	return nil
}

// overviewKey handles the keys the overview gives a meaning of its own;
// ok false lets the port view's handling run (quit, help, pause...).
func (m Model) overviewKey(msg tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	k := m.keys
	n := len(m.snap.Interfaces)
	move := func(to int) (Model, tea.Cmd, bool) {
		m.vs.ovCur = clamp(to, 0, n-1)
		return m, nil, true
	}
	cur := clamp(m.vs.ovCur, 0, n-1)
	switch {
	case key.Matches(msg, k.Overview, k.Back):
		m.vs.overview = false
		return m, nil, true
	case key.Matches(msg, k.Select):
		cmd := m.openPort()
		return m, cmd, true
	case key.Matches(msg, k.Sort):
		name := overviewSelected(m.snap, &m.vs)
		m.vs.ovSort = (m.vs.ovSort + 1) % numSorts
		for r, i := range overviewOrder(m.snap, m.vs.ovSort) {
			if m.snap.Interfaces[i].Name == name {
				m.vs.ovCur = r // the cursor stays on its port
			}
		}
		return m, nil, true
	case key.Matches(msg, k.Up):
		return move(cur - 1)
	case key.Matches(msg, k.Down):
		return move(cur + 1)
	case key.Matches(msg, k.PageUp, k.Home):
		return move(0)
	case key.Matches(msg, k.PageDown, k.End):
		return move(n - 1)
	case key.Matches(msg, k.JumpIface):
		// 1-9 is the n-th interface by name, as in the port view.
		if d, err := strconv.Atoi(msg.String()); err == nil && d >= 1 && d <= n {
			m.vs.overview = false
			cmd := m.switchIface(0, d-1)
			return m, cmd, true
		}
	case key.Matches(msg, k.NextPane, k.PrevPane, k.Lossless, k.NextIface, k.PrevIface, k.Filter):
		m.vs.overview = false // into the port view, then as there
		return m, nil, false
	}
	return m, nil, false
}
