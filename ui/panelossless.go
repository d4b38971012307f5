// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"
)

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
	pausedW   = 13
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
		if pp == nil || (pp.RxBytes == nil && pp.TxBytes == nil && pp.PausedFraction == nil && pp.TxPausedFraction == nil) {
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
		gap + pad(head, sw) + gap + padLeft("paused rx/tx", pausedW) + gap + "paused rx " + fmtSeconds(lossless.HistoryWindow))}
	for _, p := range rows {
		pp := r.prioPause(p)
		spark := func(v []float64, w int, top float64) string {
			s := sparkline(v, w, top, r.sym.Spark)
			if len(v) == 0 || slices.Max(v) <= 0 {
				return r.st.Dim.Render(s)
			}
			return s
		}
		// The share of the interval paused each way: by the peer (pauses
		// received), then pausing the peer (sent) where the driver counts
		// it.
		pct := func(f *float64) string {
			if f == nil {
				return notAvail
			}
			return fmt.Sprintf("%.1f%%", 100*(*f))
		}
		share := na
		if pp.PausedFraction != nil || pp.TxPausedFraction != nil {
			share = pct(pp.PausedFraction)
			if pp.TxPausedFraction != nil {
				share += "/" + pct(pp.TxPausedFraction)
			}
			if (pp.PausedFraction != nil && *pp.PausedFraction >= 0.1) || (pp.TxPausedFraction != nil && *pp.TxPausedFraction >= 0.1) {
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

// rateLimitWords are the TCs' rate limits (struct ieee_maxrate, kbit/s)
// in words, those with one: "TC3 25 Gbit/s".
func rateLimitWords(m *[8]uint64) []string {
	if m == nil {
		return nil
	}
	var limits []string
	for tc, kbps := range m {
		if kbps != 0 {
			limits = append(limits, fmt.Sprintf("TC%d %s", tc, qos.RateWords(kbps)))
		}
	}
	return limits
}

// rewriteWords are the APP rewrite table's entries in words, sanitized:
// "prio 3→DSCP 26".
func rewriteWords(rw []lossless.RewriteEntry) []string {
	out := make([]string, 0, len(rw))
	for _, e := range rw {
		out = append(out, fmt.Sprintf("prio %d→%s %d", e.Priority, strings.ToUpper(Sanitize(e.Selector)), e.Protocol))
	}
	return out
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
		if limits := rateLimitWords(q.MaxRateKbps); len(limits) > 0 {
			text += " · rate limits " + strings.Join(limits, ", ")
		}
		if len(q.Rewrite) > 0 {
			text += " · rewrite " + strings.Join(rewriteWords(q.Rewrite), ", ")
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
	for i := 0; i < len(p.Hops); i++ {
		h := p.Hops[i]
		// Hops unknown for one reason in a row (everything after an
		// unknown priority) are one line: the reason is said once.
		if j := i + 1; h.Verdict == lossless.PathUnknown && h.Value == nil {
			names := []string{string(h.Hop)}
			for ; j < len(p.Hops) && p.Hops[j].Verdict == lossless.PathUnknown && p.Hops[j].Value == nil && p.Hops[j].Reason == h.Reason; j++ {
				names = append(names, string(p.Hops[j].Hop))
			}
			if len(names) > 1 {
				lines = append(lines, wrap("  "+r.st.Dim.Render(r.sym.Absent)+" "+strings.Join(names, ", ")+" · "+r.st.Dim.Render(Sanitize(h.Reason)), w, "    ")...)
				i = j - 1
				continue
			}
		}
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
	warn, errs, tout := lc.PFC.StormWarningEvents, lc.PFC.StormErrorEvents, lc.PFC.StormPreventionTimeoutMs
	if warn != nil || errs != nil || tout != nil {
		text := "pause storm guard"
		if warn != nil || errs != nil {
			text += " events: warning " + count(warn) + " · error " + count(errs)
		}
		if tout != nil {
			if warn != nil || errs != nil {
				text += " ·"
			}
			text += " timeout " + qos.StormTimeoutWords(uint16(*tout))
		}
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
