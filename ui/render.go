// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strings"
	"time"

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
	headerH int
	statusH int
	// rows[:nrows] are the layout's rows of panes, top down: body draws
	// them and regions finds them (an array: a plan is made every frame
	// and allocates nothing).
	rows  [maxRows]stackRow
	nrows int
}

// maxRows is the most rows a layout has (the medium one: ETS | PFC,
// APP | Peers, the log, the Lossless pane, the diagnostics).
const maxRows = 5

// stack returns the plan's rows.
func (p *plan) stack() []stackRow { return p.rows[:p.nrows] }

// add appends a row of h lines holding panes; a row of no lines is left
// out.
func (p *plan) add(h int, panes []pane) {
	if h > 0 {
		p.rows[p.nrows] = stackRow{h, panes}
		p.nrows++
	}
}

// Rows' panes, shared by every plan (a plan only reads them): one pane
// each (onePane), and the rows of several.
var (
	onePane = func() (s [numPanes][]pane) {
		for p := range s {
			s[p] = []pane{pane(p)}
		}
		return s
	}()
	rowETSPFC    = []pane{paneETS, panePFC}
	rowETSPFCApp = []pane{paneETS, panePFC, paneApp}
	rowAppPeers  = []pane{paneApp, panePeers}
	rowDiagPeers = []pane{paneDiag, panePeers}
)

// addSlot adds the rows of the log's place of the medium and wide
// layouts: its pane, and the Lossless pane under the log when they share
// it (splitSlot).
func (p *plan) addSlot() {
	p.add(p.boxes[p.slot].h, onePane[p.slot])
	if p.under {
		p.add(p.boxes[paneLossless].h, onePane[paneLossless])
	}
}

// A stackRow is a row of a layout: its height and its panes, left to
// right, each as wide as its box.
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

// wrapTagged word-wraps text to w cells and ends it with tag (a
// diagnostic's [code]), which is never broken: ansi.Wordwrap breaks at
// hyphens too, and "[cnp-" / "priority-lossy]" cannot be searched for.
// The tag goes on the last line when it fits there, else on its own.
func wrapTagged(text, tag string, w int) []string {
	var lines []string
	if text != "" {
		lines = strings.Split(ansi.Wordwrap(text, w, " "), "\n")
	}
	if n := len(lines); n > 0 && width(lines[n-1])+1+width(tag) <= w {
		lines[n-1] += " " + tag
		return lines
	}
	return append(lines, strings.Split(ansi.Hardwrap(tag, w, true), "\n")...)
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
		r.stackRow(&p, etsH, onePane[paneETS])
		r.stackRow(&p, pfcH, onePane[panePFC])
		r.stackRow(&p, p.bodyH-etsH-pfcH, onePane[p.slot])
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
		p.slot = r.logSlot()
		p.boxes[paneETS] = box{etsW, h1}
		p.boxes[panePFC] = box{pfcWideWidth, h1}
		p.boxes[paneApp] = box{appW, h2}
		p.boxes[panePeers] = box{peersW, h2}
		p.boxes[p.slot] = box{w, logH}
		p.boxes[paneDiag] = box{w, h4}
		r.splitSlot(&p, w)
		p.add(h1, rowETSPFC)
		p.add(h2, rowAppPeers)
		p.addSlot()
		p.add(h4, onePane[paneDiag])
	case modeWide:
		etsW := w - pfcWideWidth - appWideWidth - 2*sepWidth
		h1 := max(r.content(paneETS, etsW).need(), r.content(panePFC, pfcWideWidth).need(), r.content(paneApp, appWideWidth).need())
		h1 = clamp(h1, 6, p.bodyH/3+2)
		diagW := w / 2
		peersW := w - diagW - sepWidth
		// The Diag and Peers row takes up to half of what the top row
		// leaves (the Diag pane scrolls), and leaves the focused Lossless
		// pane what it needs.
		capH := max(4, (p.bodyH-h1)/2)
		if r.in != nil && r.in.Counters != nil && len(r.in.Counters.RDMA) > 0 {
			// Room for the log's place to share with the Lossless pane
			// (splitSlot).
			capH = max(4, min(capH, p.bodyH-h1-splitLogMin-splitLosslessMin))
		}
		if r.vs.focus == paneLossless {
			// What the focused Lossless pane needs comes first.
			capH = min(capH, max(5, p.bodyH-h1-r.content(paneLossless, w).need()))
		}
		h3 := clamp(max(r.content(paneDiag, diagW).need(), r.content(panePeers, peersW).need()), 4, capH)
		p.slot = r.logSlot()
		p.boxes[paneETS] = box{etsW, h1}
		p.boxes[panePFC] = box{pfcWideWidth, h1}
		p.boxes[paneApp] = box{appWideWidth, h1}
		p.boxes[p.slot] = box{w, p.bodyH - h1 - h3}
		p.boxes[paneDiag] = box{diagW, h3}
		p.boxes[panePeers] = box{peersW, h3}
		r.splitSlot(&p, w)
		p.add(h1, rowETSPFCApp)
		p.addSlot()
		p.add(h3, rowDiagPeers)
	}
	return p
}

// shortSlotMin is the fewest lines the short layout's slot keeps: ETS and
// PFC go above it only when they leave it as many.
const shortSlotMin = 6

// Widths of the compact ETS (four sides) and PFC tables: from both and a
// separator on, the short layout puts them side by side.
const etsCompactW, pfcCompactW = 74, 61

// stackRow adds a row of h lines to the plan: the panes side by side
// (two: ETS | PFC, with a separator), or one of the whole width. A row of
// no lines is left out.
func (r *renderer) stackRow(p *plan, h int, panes []pane) {
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
	p.add(h, panes)
}

// planShort lays out a screen under shortHeight lines: the focused pane
// in one slot; above it, when the focus is elsewhere, the compact PFC and
// ETS tables (side by side on a wide screen) while the slot keeps
// shortSlotMin lines.
func (r *renderer) planShort(p *plan) {
	w, body := r.w, p.bodyH
	p.slot = r.vs.focus
	if p.slot == paneETS || p.slot == panePFC {
		r.stackRow(p, body, onePane[p.slot])
		return
	}
	if w >= etsCompactW+sepWidth+pfcCompactW {
		h := max(r.content(paneETS, w-pfcCompactW-sepWidth).need(), r.content(panePFC, pfcCompactW).need())
		if body-h >= shortSlotMin {
			r.stackRow(p, h, rowETSPFC)
			r.stackRow(p, body-h, onePane[p.slot])
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
	r.stackRow(p, etsH, onePane[paneETS])
	r.stackRow(p, pfcH, onePane[panePFC])
	r.stackRow(p, body-etsH-pfcH, onePane[p.slot])
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
