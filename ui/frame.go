// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

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
	case r.vs.tune != nil:
		out = overlay(out, r.tuneBox(), r.w, r.h)
	case r.vs.detail != nil:
		out = overlay(out, r.detailBox(), r.w, r.h)
	}
	return out
}

// body draws the panes as planned, row by row.
func (r *renderer) body(p plan) string {
	pn := func(x pane) string { b := p.boxes[x]; return r.pane(x, b.w, b.h) }
	var out []string
	for _, row := range p.stack() {
		s := ""
		if len(row.panes) == 1 {
			s = pn(row.panes[0])
		} else {
			blocks := make([]string, len(row.panes))
			for i, x := range row.panes {
				blocks[i] = pn(x)
			}
			s = r.hjoin(row.h, blocks...)
		}
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
	if r.in == nil && !paneTable[p].noIface {
		c.body = []string{r.st.Dim.Render(r.noInterface())}
		return c
	}
	c = paneTable[p].build(r, w)
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
	var tabs []string
	for _, p := range slotPanes(r.stacked()) {
		if p == cur {
			continue
		}
		tab := tabName(p) + " " + r.paneCount(p)
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
	if r.in == nil && !paneTable[p].noIface {
		return "0"
	}
	if c := paneTable[p].count; c != nil {
		return c(r)
	}
	return ""
}

// diagCount is the Diagnostics pane's count: the findings by severity,
// or OK.
func (r *renderer) diagCount() string {
	e, w, i, u := findingCounts(findingsOf(r.in, r.snap.Diagnostics))
	var parts []string
	for _, c := range []struct {
		sym string
		n   int
	}{{r.sym.Error, e}, {r.sym.Warning, w}, {r.sym.Info, i}, {r.sym.Unknown, u}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s%d", c.sym, c.n))
		}
	}
	if len(parts) == 0 {
		return r.sym.OK
	}
	return strings.Join(parts, " ")
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
