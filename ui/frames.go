// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine/frames"
)

// The frames view (KeyMap.Frames): every LLDPDU of the run within its
// bounded ring, sent and received, with what changed against the same
// sender's previous one, and any of them in hex and decoded: what
// tshark shows of a capture, live. dcbtop -r FILE --frames prints the
// same records (engine/frames).

// A FrameSource is a run's every LLDPDU within a bounded ring
// (capture/session's FrameLog). Since returns the records it holds whose
// Number is greater than after, oldest first, how many LLDPDUs the run
// has had (a total lower than before says the run started over: a
// replay's seek) and the Number of the oldest it still holds (0: none),
// before which the screen's copy drops its records as the ring did. Update calls it: it must return at once and be safe
// for concurrent use. The records are shared and not modified.
type FrameSource interface {
	Since(after uint64) (recs []frames.Record, total, oldest uint64)
}

// WithFrames gives the run's frame log: KeyMap.Frames lists it. Without
// one the key says the run keeps no frames.
func WithFrames(src FrameSource) Option { return func(m *Model) { m.frameSrc = src } }

// A frameLog is the screen's copy of the run's records while the frames
// view is open: those the ring still held at the last fetch, oldest
// first.
type frameLog struct {
	recs  []frames.Record
	total uint64 // the run's LLDPDUs at the last fetch
}

// frameCursor is where the frames view is: the record under the cursor
// (by Number, stable while records come and go), following the newest,
// the record open in full, and which records are listed.
type frameCursor struct {
	iface   string // "" lists every interface's (the overview)
	changes bool   // only the LLDPDUs that differ from their sender's previous
	cur     uint64 // the Number under the cursor (0: none yet)
	follow  bool   // the cursor stays on the newest record
	open    bool   // the record under the cursor is shown in full
}

// noFramesNote is what the frames key says without a frame log.
const noFramesNote = "this screen has no frame log: the run keeps no LLDPDUs (a snapshot file has none)"

// openFrames opens the frames view on the selected interface, or on
// every interface from the overview.
func (m *Model) openFrames() {
	if m.frameSrc == nil {
		m.vs.status = statusLine{text: noFramesNote}
		return
	}
	iface := m.vs.iface
	if m.vs.overview {
		iface = ""
	}
	m.vs.frames = frameLog{}
	m.refreshFrames()
	m.vs.detail = &detailView{kind: detailFrames, frames: frameCursor{iface: iface, follow: true}}
}

// refreshFrames copies the records the log has gained since the last
// fetch, from its start again when the run started over, and drops those
// the log no longer holds.
func (m *Model) refreshFrames() {
	fl := m.vs.frames
	recs, total, oldest := m.frameSrc.Since(fl.total)
	if total < fl.total {
		fl = frameLog{}
		recs, total, oldest = m.frameSrc.Since(0)
	}
	fl.total = total
	// What the ring dropped for its bounds goes here too.
	drop, _ := slices.BinarySearchFunc(fl.recs, oldest, func(r frames.Record, n uint64) int { return cmp.Compare(r.Number, n) })
	if drop > 0 || len(recs) > 0 {
		fl.recs = append(slices.Clone(fl.recs[drop:]), recs...)
	}
	m.vs.frames = fl
}

// framesListed returns the indexes in fl.recs of the records the view
// lists, oldest first.
func framesListed(fl *frameLog, c *frameCursor) []int {
	idx := make([]int, 0, len(fl.recs))
	for i := range fl.recs {
		r := &fl.recs[i]
		if c.iface != "" && r.Interface != c.iface {
			continue
		}
		if c.changes && r.Identical() {
			continue
		}
		idx = append(idx, i)
	}
	return idx
}

// cursorAt returns the position in idx of the record under the cursor:
// the newest when following, else the first at or after its Number (the
// records before it may have gone for the bounds); -1 when idx is empty.
func (c *frameCursor) cursorAt(fl *frameLog, idx []int) int {
	if len(idx) == 0 {
		return -1
	}
	if c.follow || c.cur == 0 {
		return len(idx) - 1
	}
	p, _ := slices.BinarySearchFunc(idx, c.cur, func(i int, n uint64) int {
		return cmp.Compare(fl.recs[i].Number, n)
	})
	return min(p, len(idx)-1)
}

// framesKey handles a key in the frames view: the list moves its
// cursor, Enter opens the record in full (hex and decode), where ← and →
// go to the previous and next record; c lists only the changes; Esc goes
// back to the list, then closes.
func (m Model) framesKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	d := *m.vs.detail
	c := &d.frames
	fl := &m.vs.frames
	idx := framesListed(fl, c)
	at := c.cursorAt(fl, idx)
	r := m.renderer()
	_, rows := r.detailSize()
	rows = max(1, rows-framesHead)
	move := func(to int) {
		if len(idx) == 0 {
			return
		}
		to = clamp(to, 0, len(idx)-1)
		c.cur, c.follow = fl.recs[idx[to]].Number, to == len(idx)-1 && !c.open
		d.scroll = 0
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit) && c.open:
		c.open, d.scroll = false, 0
		if at == len(idx)-1 {
			c.follow = true
		}
	case key.Matches(msg, k.Back, k.Quit, k.Frames):
		m.vs.detail, m.vs.frames = nil, frameLog{}
		return m, nil
	case key.Matches(msg, k.Select) && at >= 0:
		c.open, c.cur, c.follow, d.scroll = !c.open, fl.recs[idx[at]].Number, false, 0
	case key.Matches(msg, k.FramesChanged):
		c.changes = !c.changes
		if !c.follow && at >= 0 {
			c.cur = fl.recs[idx[at]].Number
		}
		if c.open {
			c.open = false
		}
	case c.open && key.Matches(msg, k.FormLeft):
		move(at - 1)
	case c.open && key.Matches(msg, k.FormRight):
		move(at + 1)
	case c.open:
		// The record in full scrolls as every detail does.
		w, drows := r.detailSize()
		d.scroll = k.scrollBy(msg, d.scroll, len(r.frameDetailLines(&fl.recs[idx[at]], w)), drows)
	case key.Matches(msg, k.Up):
		move(at - 1)
	case key.Matches(msg, k.Down):
		move(at + 1)
	case key.Matches(msg, k.PageUp):
		move(at - (rows - 1))
	case key.Matches(msg, k.PageDown):
		move(at + rows - 1)
	case key.Matches(msg, k.Home):
		move(0)
	case key.Matches(msg, k.End):
		move(len(idx) - 1)
		c.follow = true
	}
	m.vs.detail = &d
	return m, nil
}

// framesHead is how many lines of the frames box come before the list:
// the summary and the column heading.
const framesHead = 2

// framesBox is the frames view: the list, or the record under the
// cursor in full.
func (r *renderer) framesBox() string {
	d := r.vs.detail
	c := &d.frames
	fl := &r.vs.frames
	w, rows := r.detailSize()
	idx := framesListed(fl, c)
	at := c.cursorAt(fl, idx)
	where := "every interface"
	if c.iface != "" {
		where = clean(c.iface, ifNameMax)
	}
	if c.open && at >= 0 {
		rec := &fl.recs[idx[at]]
		lines := r.frameDetailLines(rec, w)
		top := clamp(d.scroll, 0, len(lines)-rows)
		end := min(len(lines), top+rows)
		shown := slices.Clone(lines[top:end])
		more := ""
		if top > 0 || end < len(lines) {
			more = fmt.Sprintf(" · lines %d-%d of %d", top+1, end, len(lines))
		}
		shown = append(shown, r.st.Dim.Render(fmt.Sprintf("← → previous/next LLDPDU (%d of %d) · ↑↓ scroll · esc list", at+1, len(idx))+more))
		return r.box(fmt.Sprintf("LLDPDU %d on %s", rec.Number, clean(rec.Interface, ifNameMax)), shown, w)
	}
	var lines []string
	lines = append(lines, r.st.Dim.Render(trunc(r.framesSummary(fl, c, len(idx)), w)))
	lines = append(lines, r.st.ColHeader.Render(trunc(framesHeading(c.iface == ""), w)))
	list := max(1, rows-framesHead)
	if len(idx) == 0 {
		why := "no LLDPDU on " + where + " yet"
		if c.changes {
			why = "no LLDPDU on " + where + " differs from its sender's previous one"
		}
		lines = append(lines, r.st.Dim.Render(trunc(why, w)))
	}
	top := clamp(at-list+1, 0, max(0, len(idx)-list))
	for p := top; p < min(len(idx), top+list); p++ {
		rec := &fl.recs[idx[p]]
		line := frameLine(rec, r, c.iface == "")
		style := r.st.Value
		switch {
		case rec.Err != "":
			style = r.st.Crit
		case rec.Identical():
			style = r.st.Dim
		}
		if p == at {
			lines = append(lines, r.st.Selected.Render(pad(r.sym.Cursor+" "+line, w)))
			continue
		}
		lines = append(lines, style.Render(trunc("  "+line, w)))
	}
	changes := "c only changes"
	if c.changes {
		changes = "c every LLDPDU"
	}
	lines = append(lines, r.st.Dim.Render(trunc("↑↓ select · enter hex & decode · "+changes+" · esc close", w)))
	title := "LLDPDUs on " + where
	if c.changes {
		title += " (changes only)"
	}
	return r.box(title, lines, w)
}

// framesSummary says how many records are listed, of how many the run
// had and the screen keeps.
func (r *renderer) framesSummary(fl *frameLog, c *frameCursor, listed int) string {
	s := fmt.Sprintf("%s listed · %d in the run", plural(listed, "LLDPDU"), fl.total)
	if c.iface != "" {
		s += " (every interface)"
	}
	if len(fl.recs) > 0 && fl.recs[0].Number > 1 {
		s += fmt.Sprintf(", the oldest %d gone for the bounds (the last %d, %d MiB kept)", fl.recs[0].Number-1, frames.DefaultRecords, frames.DefaultBytes>>20)
	}
	if r.vs.paused {
		s += " · paused"
	}
	return s
}

// framesHeading is the list's column heading (with the interface's
// column when every interface is listed).
func framesHeading(every bool) string {
	h := "       #  time          dir  "
	if every {
		h += pad("interface", 11)
	}
	return h + pad("sender", 18) + "bytes  what changed"
}

// frameLine is a record on one line of the list, as Record.Line but
// for a column of one screen: its number, time in the screen's zone,
// direction, interface (every), sender, length and what changed. It is
// sanitized.
func frameLine(rec *frames.Record, r *renderer, every bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%6d  %s  %-3s  ", rec.Number, rec.At.In(r.vs.loc).Format("15:04:05.000"), rec.Direction())
	if every {
		sb.WriteString(pad(Sanitize(rec.Interface), 10) + " ")
	}
	fmt.Fprintf(&sb, "%-17s %5d  %s", rec.Sender(), len(rec.LLDPDU), rec.ChangesText())
	return sb.String()
}

// frameDetailLines is a record in full (frames.DetailLines: heading,
// changes, hex, decode), each line wrapped to w, a decoded TLV's next
// lines under its values.
func (r *renderer) frameDetailLines(rec *frames.Record, w int) []string {
	n := 16
	if w < 72 {
		n = 8
	}
	var out []string
	for _, l := range frames.DetailLines(*rec, n) {
		if width(l) <= w {
			out = append(out, l) // a hex line always fits: n is chosen for w
			continue
		}
		out = append(out, hangWrap(l, w, spaces(tlvNameWidth+1))...)
	}
	return out
}

// hangWrap word-wraps a plain line to w cells, the first line full
// width, the next ones after indent.
func hangWrap(l string, w int, indent string) []string {
	parts := strings.SplitN(ansi.Wordwrap(l, w, " "), "\n", 2)
	out := []string{trunc(parts[0], w)}
	if len(parts) == 2 {
		rest := strings.Join(strings.Fields(parts[1]), " ")
		for _, r := range strings.Split(ansi.Wordwrap(rest, max(10, w-width(indent)), " "), "\n") {
			out = append(out, trunc(indent+r, w))
		}
	}
	return out
}
