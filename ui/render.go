package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
)

// The smallest screen dcbtop draws on: the header, one pane's title and
// a line or two of it, and the footer. Below it tooSmall says so.
const minWidth, minHeight = 40, 8

// Below narrowWidth columns the panes narrow their columns (fewer ETS
// sides, tighter PFC cells) and the header drops its least useful parts
// whole; below shortHeight lines the body is one pane slot (modeShort).
const narrowWidth, shortHeight = 80, 24

// layoutMode is the arrangement of panes for a screen size.
type layoutMode uint8

const (
	// modeCompact stacks ETS and PFC (compact) over one slot that shows
	// the log or whichever other pane is focused.
	modeCompact layoutMode = iota
	// modeMedium: ETS | PFC, APP | Peers, the log, diagnostics. The log's
	// place shows the Lossless pane while that is focused (logSlot).
	modeMedium
	// modeWide: ETS | PFC | APP, the log (or the focused Lossless pane),
	// diagnostics | peers.
	modeWide
	// modeShort, under shortHeight lines: one slot that shows the focused
	// pane, with the compact PFC (and ETS, side by side when wide enough)
	// above it while they leave the slot shortSlotMin lines.
	modeShort
)

func layoutFor(w, h int) layoutMode {
	switch {
	case h < shortHeight:
		return modeShort
	case w >= 150 && h >= 40:
		return modeWide
	case w >= 110 && h >= 34:
		return modeMedium
	}
	return modeCompact
}

// Fixed widths of side-by-side panes and the separator between them.
const (
	sepWidth     = 3 // " │ "
	pfcWideWidth = 37
	appWideWidth = 43
)

// A box is a pane's size; h 0 means not shown.
type box struct{ w, h int }

// A plan is where each pane goes for the screen size.
type plan struct {
	mode  layoutMode
	bodyH int
	boxes [numPanes]box
	slot  pane // the pane in the bottom slot (compact) or the log's place
	// under reports that the log's place is shared: the log above, the
	// Lossless pane under it (splitSlot).
	under   bool
	rowH    [3]int
	headerH int
	statusH int
	// stack is the rows of the compact and short layouts, top down: each
	// one pane, or ETS | PFC side by side.
	stack []stackRow
}

// A stackRow is a row of the compact and short layouts: its height and
// its panes, left to right.
type stackRow struct {
	h     int
	panes []pane
}

// stacked reports whether the layout stacks full-width panes (compact,
// short): the ETS and PFC panes then use their compact tables.
func (r *renderer) stacked() bool { return r.mode == modeCompact || r.mode == modeShort }

// narrow reports whether the screen is narrower than narrowWidth.
func (r *renderer) narrow() bool { return r.w < narrowWidth }

// renderer holds what one frame is drawn from.
type renderer struct {
	snap engine.Snapshot
	vs   *viewState
	st   *Styles
	sym  Symbols // st.Sym
	keys *KeyMap
	w, h int
	idx  int               // selected interface index, -1 without interfaces
	in   *engine.Interface // the selected interface, nil without interfaces
	now  time.Time         // in the snapshot's clock: TakenAt + age
	mode layoutMode
	// built keeps each pane's content: plan sizes the panes from it and
	// pane then draws the same lines.
	built [numPanes]builtContent
}

// builtContent is a pane's content for width w, once built.
type builtContent struct {
	ok bool
	w  int
	c  paneContent
}

// diagnostics returns the selected interface's diagnostics followed by
// the host-wide ones (Snapshot.Diagnostics), which concern every
// interface.
func (r *renderer) diagnostics() []diag.Diagnostic {
	return append(slices.Clone(r.in.Diagnostics), r.snap.Diagnostics...)
}

func newRenderer(snap engine.Snapshot, vs *viewState, st *Styles, keys *KeyMap, w, h int) *renderer {
	r := &renderer{snap: snap, vs: vs, st: st, sym: st.Sym, keys: keys, w: w, h: h, mode: layoutFor(w, h)}
	r.idx = selectedIndex(snap, vs.iface)
	if r.idx >= 0 {
		r.in = &snap.Interfaces[r.idx]
	}
	r.now = snap.TakenAt.Add(vs.age)
	return r
}

// render draws the whole screen, w×h cells, from a snapshot and the view
// state. It is pure: the same arguments give the same string.
func render(snap engine.Snapshot, vs viewState, st *Styles, keys *KeyMap, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var out string
	if refused(w, h) {
		out = tooSmall(st, w, h)
	} else {
		out = newRenderer(snap, &vs, st, keys, w, h).screen()
	}
	if st.Sym.ASCII {
		out = asciiFrame(out)
	}
	return out
}

// refused reports whether a w×h screen is too small to draw on.
func refused(w, h int) bool { return w < minWidth || h < minHeight }

// tooSmall is the screen below minWidth×minHeight: the longest of its
// messages that fits, wrapped at spaces and never cut inside a word,
// centred; only a screen narrower than the shortest message's words has
// it cut.
func tooSmall(st *Styles, w, h int) string {
	size := fmt.Sprintf("%dx%d", w, h)
	msgs := [][2]string{
		{fmt.Sprintf("terminal too small: dcbtop needs %dx%d, this is %s", minWidth, minHeight, size), "enlarge the window, or press q to quit"},
		{fmt.Sprintf("terminal too small: need %dx%d, have %s", minWidth, minHeight, size), "q quits"},
		{"dcbtop: " + size + " too small", ""},
		{size, ""},
	}
	var lines []string
	for _, m := range msgs {
		crit, ok := wrapWords(m[0], w)
		dim, ok2 := wrapWords(m[1], w)
		lines = nil
		for _, l := range crit {
			lines = append(lines, st.Crit.Render(l))
		}
		for _, l := range dim {
			lines = append(lines, st.Dim.Render(l))
		}
		if ok && ok2 && len(lines) <= h {
			break
		}
	}
	for i, l := range lines {
		if n := width(l); n < w {
			lines[i] = spaces((w-n)/2) + l
		}
	}
	if len(lines) < h {
		lines = append(make([]string, (h-len(lines))/2), lines...)
	}
	return fitBlock(strings.Join(lines, "\n"), w, h)
}

// wrapWords wraps plain text at spaces to lines of at most w cells; ok is
// false when a word is longer than w (it is then cut).
func wrapWords(s string, w int) (lines []string, ok bool) {
	if s == "" {
		return nil, true
	}
	ok = true
	for _, word := range strings.Fields(s) {
		if width(word) > w {
			ok = false
		}
	}
	for _, l := range strings.Split(ansi.Wordwrap(s, w, " "), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return lines, ok
}

// fitBlock makes s exactly w×h: lines cut or padded, rows cut or added.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = pad(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return strings.Join(out, "\n")
}

// plan lays out the panes for the screen size.
func (r *renderer) plan() plan {
	p := plan{mode: r.mode, headerH: r.headerHeight()}
	if r.statusText() != "" {
		p.statusH = 1
	}
	p.bodyH = r.h - p.headerH - p.statusH - 1
	w := r.w
	switch r.mode {
	case modeCompact:
		pfcH := r.content(panePFC, w).need()
		etsH := clamp(r.content(paneETS, w).need(), 3, p.bodyH-pfcH-5)
		p.slot = paneLog
		if f := r.vs.focus; f != paneETS && f != panePFC {
			p.slot = f
		}
		if p.bodyH-etsH-pfcH < 3 { // narrow titles wrapped: ETS gives way
			etsH = 0
		}
		r.stackRow(&p, etsH, paneETS)
		r.stackRow(&p, pfcH, panePFC)
		r.stackRow(&p, p.bodyH-etsH-pfcH, p.slot)
	case modeShort:
		r.planShort(&p)
	case modeMedium:
		etsW := w - pfcWideWidth - sepWidth
		h1 := max(r.content(paneETS, etsW).need(), r.content(panePFC, pfcWideWidth).need())
		h1 = clamp(h1, 6, p.bodyH/2)
		appW := w * 2 / 5
		peersW := w - appW - sepWidth
		h2 := clamp(max(r.content(paneApp, appW).need(), r.content(panePeers, peersW).need()), 4, 9)
		h4 := clamp(r.content(paneDiag, w).need(), 3, 8)
		logH := p.bodyH - h1 - h2 - h4
		if logH < 5 {
			h4 = max(2, h4-(5-logH))
			logH = p.bodyH - h1 - h2 - h4
		}
		p.rowH = [3]int{h1, h2, h4}
		p.slot = r.logSlot()
		p.boxes[paneETS] = box{etsW, h1}
		p.boxes[panePFC] = box{pfcWideWidth, h1}
		p.boxes[paneApp] = box{appW, h2}
		p.boxes[panePeers] = box{peersW, h2}
		p.boxes[p.slot] = box{w, logH}
		p.boxes[paneDiag] = box{w, h4}
		r.splitSlot(&p, w)
	case modeWide:
		etsW := w - pfcWideWidth - appWideWidth - 2*sepWidth
		h1 := max(r.content(paneETS, etsW).need(), r.content(panePFC, pfcWideWidth).need(), r.content(paneApp, appWideWidth).need())
		h1 = clamp(h1, 6, p.bodyH/3+2)
		diagW := w / 2
		peersW := w - diagW - sepWidth
		h3 := clamp(max(r.content(paneDiag, diagW).need(), r.content(panePeers, peersW).need()), 4, (p.bodyH-h1)/2)
		p.rowH = [3]int{h1, h3}
		p.slot = r.logSlot()
		p.boxes[paneETS] = box{etsW, h1}
		p.boxes[panePFC] = box{pfcWideWidth, h1}
		p.boxes[paneApp] = box{appWideWidth, h1}
		p.boxes[p.slot] = box{w, p.bodyH - h1 - h3}
		p.boxes[paneDiag] = box{diagW, h3}
		p.boxes[panePeers] = box{peersW, h3}
		r.splitSlot(&p, w)
	}
	return p
}

// shortSlotMin is the fewest lines the short layout's slot keeps: ETS and
// PFC go above it only when they leave it as many.
const shortSlotMin = 6

// Widths of the compact ETS (four sides) and PFC tables: from both and a
// separator on, the short layout puts them side by side.
const etsCompactW, pfcCompactW = 74, 61

// stackRow adds a row of h lines to the plan's stack: the panes side by
// side (two: ETS | PFC, with a separator), or one of the whole width.
// A row of no lines is left out.
func (r *renderer) stackRow(p *plan, h int, panes ...pane) {
	if h <= 0 {
		return
	}
	if len(panes) == 1 {
		p.boxes[panes[0]] = box{r.w, h}
	} else {
		pfcW := pfcCompactW
		p.boxes[paneETS] = box{r.w - pfcW - sepWidth, h}
		p.boxes[panePFC] = box{pfcW, h}
	}
	p.stack = append(p.stack, stackRow{h, panes})
}

// planShort lays out a screen under shortHeight lines: the focused pane
// in one slot; above it, when the focus is elsewhere, the compact PFC and
// ETS tables (side by side on a wide screen) while the slot keeps
// shortSlotMin lines.
func (r *renderer) planShort(p *plan) {
	w, body := r.w, p.bodyH
	p.slot = r.vs.focus
	if p.slot == paneETS || p.slot == panePFC {
		r.stackRow(p, body, p.slot)
		return
	}
	if w >= etsCompactW+sepWidth+pfcCompactW {
		h := max(r.content(paneETS, w-pfcCompactW-sepWidth).need(), r.content(panePFC, pfcCompactW).need())
		if body-h >= shortSlotMin {
			r.stackRow(p, h, paneETS, panePFC)
			r.stackRow(p, body-h, p.slot)
			return
		}
	}
	etsH, pfcH := r.content(paneETS, w).need(), r.content(panePFC, w).need()
	if body-pfcH < shortSlotMin {
		pfcH = 0
	}
	if pfcH == 0 || body-pfcH-etsH < shortSlotMin {
		etsH = 0
	}
	r.stackRow(p, etsH, paneETS)
	r.stackRow(p, pfcH, panePFC)
	r.stackRow(p, body-etsH-pfcH, p.slot)
}

// Sizes of a shared log place (splitSlot): the log keeps at least
// splitLogMin lines and at most a third; the Lossless pane needs
// splitLosslessMin to show a RoCE path (its title, a port line and ten
// hops) and is only placed when it gets them.
const (
	splitLogMin      = 5
	splitLosslessMin = 14
)

// splitSlot shares the log's place between the log and the Lossless pane
// when the interface has an RDMA device and there is room: the RoCE path
// and its counters show without a key press. A focused Lossless pane has
// the whole place (logSlot), as without an RDMA device.
func (r *renderer) splitSlot(p *plan, w int) {
	if p.slot != paneLog || r.in == nil || r.in.Counters == nil || len(r.in.Counters.RDMA) == 0 {
		return
	}
	h := p.boxes[paneLog].h
	logH := clamp(r.content(paneLog, w).need(), splitLogMin, h/3)
	if h-logH < splitLosslessMin {
		return
	}
	p.under = true
	p.boxes[paneLog] = box{w, logH}
	p.boxes[paneLossless] = box{w, h - logH}
}

// logSlot is the pane in the log's place of the medium and wide layouts:
// the Lossless pane while it is focused, else the log.
func (r *renderer) logSlot() pane {
	if r.vs.focus == paneLossless {
		return paneLossless
	}
	return paneLog
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		hi = lo
	}
	return min(max(v, lo), hi)
}

// screen draws the header, the panes, the status line and the footer,
// then any overlay.
func (r *renderer) screen() string {
	if r.vs.overview && len(r.snap.Interfaces) > 0 {
		return r.overviewScreen()
	}
	p := r.plan()
	parts := []string{r.header()}
	parts = append(parts, r.body(p))
	if p.statusH > 0 {
		parts = append(parts, pad(r.statusText(), r.w))
	}
	parts = append(parts, r.footer())
	out := strings.Join(parts, "\n")
	if r.vs.help {
		return overlay(out, r.helpBox(), r.w, r.h)
	}
	switch {
	case r.vs.dialog != nil: // over the form it confirms, which it replaces
		out = overlay(out, r.dialogBox(), r.w, r.h)
	case r.vs.form != nil:
		out = overlay(out, r.formBox(), r.w, r.h)
	case r.vs.detail != nil:
		out = overlay(out, r.detailBox(), r.w, r.h)
	}
	return out
}

// body draws the panes as planned.
func (r *renderer) body(p plan) string {
	pn := func(x pane) string { b := p.boxes[x]; return r.pane(x, b.w, b.h) }
	under := func() string {
		if !p.under {
			return ""
		}
		return pn(paneLossless)
	}
	var rows []string
	switch p.mode {
	case modeCompact, modeShort:
		for _, row := range p.stack {
			if len(row.panes) == 1 {
				rows = append(rows, pn(row.panes[0]))
				continue
			}
			blocks := make([]string, len(row.panes))
			for i, x := range row.panes {
				blocks[i] = pn(x)
			}
			rows = append(rows, r.hjoin(row.h, blocks...))
		}
	case modeMedium:
		rows = []string{
			r.hjoin(p.rowH[0], pn(paneETS), pn(panePFC)),
			r.hjoin(p.rowH[1], pn(paneApp), pn(panePeers)),
			pn(p.slot),
			under(),
			pn(paneDiag),
		}
	case modeWide:
		rows = []string{
			r.hjoin(p.rowH[0], pn(paneETS), pn(panePFC), pn(paneApp)),
			pn(p.slot),
			under(),
			r.hjoin(p.rowH[1], pn(paneDiag), pn(panePeers)),
		}
	}
	var out []string
	for _, s := range rows {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

// hjoin puts blocks of h lines side by side with a rule between them.
func (r *renderer) hjoin(h int, blocks ...string) string {
	if h <= 0 {
		return ""
	}
	split := make([][]string, len(blocks))
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
	}
	sep := " " + r.st.Rule.Render(r.sym.RuleV) + " "
	lines := make([]string, h)
	for y := range lines {
		var sb strings.Builder
		for i, b := range split {
			if i > 0 {
				sb.WriteString(sep)
			}
			if y < len(b) {
				sb.WriteString(b[y])
			}
		}
		lines[y] = sb.String()
	}
	return strings.Join(lines, "\n")
}

// paneContent is what a pane shows: a subtitle and right-hand note for
// its title line, fixed head lines and scrollable body lines.
type paneContent struct {
	sub, right string
	head, body []string
	// cursor is the body line of the log cursor, -1 when none.
	cursor int
}

func (c paneContent) need() int { return 1 + len(c.head) + max(1, len(c.body)) }

// content returns pane p's lines for width w, built once per frame.
func (r *renderer) content(p pane, w int) paneContent {
	if b := &r.built[p]; b.ok && b.w == w {
		return b.c
	}
	c := r.buildContent(p, w)
	r.built[p] = builtContent{ok: true, w: w, c: c}
	return c
}

// buildContent builds pane p's lines for width w.
func (r *renderer) buildContent(p pane, w int) paneContent {
	c := paneContent{cursor: -1}
	if r.in == nil && p != paneLog {
		c.body = []string{r.st.Dim.Render(r.noInterface())}
		return c
	}
	switch p {
	case paneETS:
		c = r.etsContent(w)
	case panePFC:
		c = r.pfcContent(w)
	case paneApp:
		c = r.appContent(w)
	case paneLog:
		c = r.logContent(w)
	case paneDiag:
		c = r.diagContent(w)
	case panePeers:
		c = r.peersContent(w)
	case paneLossless:
		c = r.losslessContent(w)
	}
	if (r.mode == modeCompact && p != paneETS && p != panePFC) || (r.mode == modeShort && p == r.vs.focus) || p == paneLossless {
		c.right = r.slotTabs(p, w)
	}
	// A subtitle too long for the title line goes under it (the line's
	// right part, even empty, takes a cell).
	if c.sub != "" && width(c.sub) > w-width(paneNames[p])-7-min(width(c.right), w/2) {
		var sub []string
		for _, l := range wrap(c.sub, w-2, "  ") {
			sub = append(sub, r.st.Dim.Render(l))
		}
		c.head = append(sub, c.head...)
		c.sub = ""
	}
	return c
}

func (r *renderer) noInterface() string {
	if r.snap.TakenAt.IsZero() {
		return "waiting for the first snapshot" + r.sym.Ellipsis
	}
	return "no interfaces in the snapshot"
}

// pane draws pane p as exactly w×h.
func (r *renderer) pane(p pane, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	c := r.content(p, w)

	rows := max(0, h-1-len(c.head))
	top := scrollTop(r.vs.scroll[p], c.cursor, rows, len(c.body))
	var ind []string
	if top > 0 {
		ind = append(ind, r.sym.Up+strconv.Itoa(top))
	}
	if below := len(c.body) - top - rows; below > 0 {
		ind = append(ind, r.sym.Down+strconv.Itoa(below))
	}
	right := strings.TrimSpace(c.right + " " + r.st.Dim.Render(strings.Join(ind, " ")))
	lines := []string{r.titleLine(paneNames[p], c.sub, right, w, r.vs.focus == p)}
	for _, l := range c.head {
		lines = append(lines, pad(l, w))
	}
	for i := range rows {
		if top+i < len(c.body) {
			lines = append(lines, pad(c.body[top+i], w))
		} else {
			lines = append(lines, strings.Repeat(" ", w))
		}
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// scrollTop is the first line shown of a body of n lines in rows lines,
// asked to start at top: moved as little as keeps the cursor's line (-1:
// none) on screen, and no further down than the last line allows.
func scrollTop(top, cursor, rows, n int) int {
	if cursor >= 0 {
		top = clamp(top, cursor-rows+1, cursor)
	}
	return clamp(top, 0, n-rows)
}

// slotTabs names the other panes the slot can show, with counts: the
// compact slot's, or the log's place's (the log and the Lossless pane).
func (r *renderer) slotTabs(cur pane, w int) string {
	panes := []pane{paneLog, paneLossless}
	if r.stacked() {
		panes = []pane{paneLog, paneApp, paneDiag, panePeers, paneLossless}
	}
	var tabs []string
	for _, p := range panes {
		if p == cur {
			continue
		}
		name := paneNames[p]
		if p == paneDiag {
			name = "Diag"
		}
		tab := name + " " + r.paneCount(p)
		// A narrow title line (the right half less the space before it)
		// keeps whole tabs only.
		if w < narrowWidth && width(strings.Join(append(tabs, tab), "  ")) > w/2-1 {
			break
		}
		tabs = append(tabs, tab)
	}
	return r.st.Dim.Render(strings.Join(tabs, "  "))
}

// paneCount summarises a pane's content in a few cells.
func (r *renderer) paneCount(p pane) string {
	if r.in == nil && p != paneLog {
		return "0"
	}
	switch p {
	case paneLog:
		return fmt.Sprint(len(r.snap.Indications))
	case paneApp:
		return fmt.Sprint(len(r.appRows()))
	case panePeers:
		return fmt.Sprint(len(r.in.Peers))
	case paneLossless:
		return r.pauseRate()
	case paneDiag:
		e, w, i := diagCounts(r.diagnostics())
		var parts []string
		for _, c := range []struct {
			sym string
			n   int
		}{{r.sym.Error, e}, {r.sym.Warning, w}, {r.sym.Info, i}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%s%d", c.sym, c.n))
			}
		}
		if len(parts) == 0 {
			return r.sym.OK
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// titleLine is a pane's first line: a focus mark, the name, a subtitle, a
// rule and a right-hand note.
func (r *renderer) titleLine(name, sub, right string, w int, focused bool) string {
	mark, ts := "  ", r.st.Title
	if focused {
		mark, ts = r.sym.Focus+" ", r.st.TitleFocused
	}
	left := mark + ts.Render(name)
	if sub != "" {
		left += " " + r.st.Dim.Render(r.sym.Sep) + " " + sub
	}
	if right != "" {
		right = " " + right
	}
	rw := width(right)
	if rw > w/2 {
		right = trunc(right, w/2)
		rw = width(right)
	}
	left = trunc(left, w-rw-1)
	fill := w - width(left) - rw - 1
	if fill < 0 {
		fill = 0
	}
	return pad(left+" "+r.st.Rule.Render(strings.Repeat(r.sym.RuleH, fill))+right, w)
}

// lr puts left and right on one line of w cells, cutting left first.
func lr(left, right string, w int) string {
	rw := width(right)
	if rw > w {
		return trunc(right, w)
	}
	left = trunc(left, w-rw-1)
	gap := w - width(left) - rw
	return left + strings.Repeat(" ", max(gap, 0)) + right
}

// overlay draws box centred over bg (both possibly styled), w×h.
func overlay(bg, box string, w, h int) string {
	bl := strings.Split(bg, "\n")
	fl := strings.Split(box, "\n")
	fw := 0
	for _, l := range fl {
		fw = max(fw, width(l))
	}
	if fw > w {
		fw = w
	}
	if len(fl) > h {
		fl = fl[:h]
	}
	x := (w - fw) / 2
	y := (h - len(fl)) / 2
	for i, l := range fl {
		row := y + i
		if row >= len(bl) {
			break
		}
		b := bl[row]
		left := ansi.Truncate(b, x, "")
		if n := width(left); n < x {
			left += strings.Repeat(" ", x-n)
		}
		right := ansi.TruncateLeft(b, x+fw, "")
		if strings.Contains(left, "\x1b") {
			left += "\x1b[m"
		}
		bl[row] = left + pad(l, fw) + right
	}
	return strings.Join(bl, "\n")
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
