// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

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

// allFlags is every flag an indication can carry: the longest flag names.
const allFlags = engine.FlagETSConfigured | engine.FlagETSChanged | engine.FlagPFCConfigured | engine.FlagPFCChanged |
	engine.FlagClassificationConfigured | engine.FlagClassificationChanged | engine.FlagWilling

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
	// switches as entries arrive and no past entry is written again: the
	// NDIS flag names where every flag's name fits whole (at 7737732 the
	// form was chosen by the entries in the log, so that a later entry
	// with WILLING set rewrote every line above it), the compact form
	// below.
	full := w >= fullFlagsWidth && allFlags.StringLen() <= flagsW
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
