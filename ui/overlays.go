// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// boxWidth is the inner width of an overlay box on this screen.
func (r *renderer) boxWidth(want int) int {
	return max(20, min(want, r.w-4-4)) // border 2 + padding 2, and a margin
}

// box frames lines (already at most w cells) with a title.
func (r *renderer) box(title string, lines []string, w int) string {
	body := []string{r.st.DialogTitle.Render(trunc(title, w)), ""}
	for _, l := range lines {
		body = append(body, pad(l, w))
	}
	return r.st.Dialog.Render(strings.Join(body, "\n"))
}

// wrap word-wraps a plain string to w cells, continuation lines indented.
func wrap(s string, w int, indent string) []string {
	var out []string
	// The indent of the lines after the first counts against w, or a
	// full line would be cut mid-word.
	for i, l := range strings.Split(ansi.Wordwrap(s, max(1, w-width(indent)), " "), "\n") {
		if i > 0 {
			l = indent + l
		}
		out = append(out, strings.Split(ansi.Hardwrap(l, w, true), "\n")...)
	}
	return out
}

// changeLines renders diff lines, coloured and wrapped to w.
func (r *renderer) changeLines(cs []change, w int) []string {
	var out []string
	for _, c := range cs {
		style := r.st.Value
		switch {
		case c.added:
			style = r.st.Added
		case c.removed:
			style = r.st.Removed
		}
		for _, l := range wrap(Sanitize(c.text), w-2, "  ") {
			out = append(out, "  "+style.Render(l))
		}
	}
	return out
}

// helpBox is the full help overlay: every key and the symbols' meaning.
func (r *renderer) helpBox() string {
	titles := []string{"General", "Scroll & log", "Actions"}
	var cols []string
	for i, col := range r.keys.FullHelp() {
		kw := 0
		for _, b := range col {
			kw = max(kw, width(b.Help().Key))
		}
		lines := []string{r.st.ColHeader.Render(titles[i%len(titles)])}
		for _, b := range col {
			h := b.Help()
			lines = append(lines, r.st.Key.Render(pad(h.Key, kw))+"  "+h.Desc)
		}
		cols = append(cols, strings.Join(lines, "\n"))
	}
	w := r.boxWidth(96)
	join := func(gap string) []string {
		var parts []string
		for i, c := range cols {
			if i > 0 {
				parts = append(parts, gap)
			}
			parts = append(parts, c)
		}
		return strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, parts...), "\n")
	}
	lines := join("    ")
	if width(lines[0]) > w { // 80 columns: the columns closer together
		lines = join("  ")
	}
	keyRows := len(lines)
	lines = append(lines, "")
	for _, l := range []string{
		r.sym.Diff + " differs from local  " + r.sym.On + " PFC on  " + r.sym.Off + " off  " + r.sym.Absent + " none  " + r.sym.OK + " in operational",
		r.sym.Remote + " remote's peer  " + r.sym.Multi + " multi-peer  " + r.sym.Error + " error  " + r.sym.Warning + " warning  " + r.sym.Info + " info",
		"ETS cell: TSA, BW %, priorities on the TC (···3···· = priority 3)",
		"log flags: X configured, X* also changed, X- withdrawn, W willing",
		"filter: words or flag:pfc_changed reason:ttl status:remote if:eth0",
		"Lossless: " + r.sym.Derived + " derived NDK counter  " + notAvail + " no source  " + strings.Join(r.sym.Spark[:], "") + " pauses/s, 60 s",
	} {
		lines = append(lines, wrap(l, w, "  ")...)
	}
	// The box (its borders and title included) fits the screen: the
	// legend's last lines go first, never the keys.
	title := lr("dcbtop help", r.st.Dim.Render("? esc q: close"), w)
	b := r.box(title, lines, w)
	for strings.Count(b, "\n")+1 > r.h && len(lines) > keyRows {
		lines = lines[:len(lines)-1]
		b = r.box(title, lines, w)
	}
	return b
}

// dialogBox is the y/n confirmation of an action, with its preview.
func (r *renderer) dialogBox() string {
	d := r.vs.dialog
	w := r.boxWidth(76)
	ifn := clean(d.iface, 20)
	var title string
	var lines []string
	preview := func(heading string) {
		switch {
		case d.hasPreview:
			// The verdicts first: what the change fixes and what it
			// leaves, before the parameters' detail a small box cuts.
			if len(d.verdicts) > 0 {
				lines = append(lines, "What the verdicts become (dcbtop check):")
				for _, v := range d.verdicts {
					lines = append(lines, wrap("  "+Sanitize(v), w, "    ")...)
				}
			}
			lines = append(lines, heading)
			cs := append(resolutionDiff(d.curRes, d.res), paramsDiff(d.curOp, d.op)...)
			if len(cs) == 0 {
				lines = append(lines, "  "+r.st.Dim.Render("no change: the operational parameters stay as they are"))
			}
			lines = append(lines, r.changeLines(cs, w)...)
		}
	}
	switch d.kind {
	case dialogWilling:
		title = "Toggle Willing on " + ifn
		from, to := "OFF", "ON"
		if !d.willing {
			from, to = "ON", "OFF"
		}
		lines = append(lines, "Local Willing: "+r.st.Value.Render(from)+" → "+r.st.Value.Render(to))
		preview("What operational becomes (preview):")
	case dialogAgent:
		title = "Stop dcbtop's DCBX agent on " + ifn
		if d.willing {
			title = "Start dcbtop's DCBX agent on " + ifn
		}
		lines = append(lines, wrap(d.agentDetail, w, "")...)
	case dialogUndo:
		title = "Undo the last apply on " + ifn
		lines = append(lines, wrap("restores the local parameters and Willing state that were in force before it (one level)", w, "")...)
		if d.local != nil || d.localDiff != nil || d.hasPreview {
			from := r.sym.Absent
			if d.curWilling != nil {
				from = map[bool]string{true: "ON", false: "OFF"}[*d.curWilling]
			}
			to := map[bool]string{true: "ON", false: "OFF"}[d.willing]
			if from == to {
				lines = append(lines, "", "Local Willing: "+r.st.Value.Render(to)+r.st.Dim.Render(" (unchanged)"))
			} else {
				lines = append(lines, "", "Local Willing: "+r.st.Value.Render(from)+" → "+r.st.Value.Render(to))
			}
			lines = append(lines, "Local parameters change:")
			if len(d.localDiff) == 0 {
				lines = append(lines, "  "+r.st.Dim.Render("nothing changes"))
			}
			lines = append(lines, r.changeLines(d.localDiff, w)...)
			preview("Operational after undo (preview):")
		}
	case dialogQuit:
		n := len(d.agentPorts)
		title = "Quit dcbtop"
		names := make([]string, n)
		for i, p := range d.agentPorts {
			names[i] = clean(p, ifNameMax)
		}
		lines = append(lines, r.st.Warn.Render(fmt.Sprintf("agent running on %d port(s): quit and withdraw? y/n", n)))
		lines = append(lines, "")
		lines = append(lines, wrap(fmt.Sprintf("Quitting stops dcbtop's DCBX agent on %s: it sends a shutdown LLDPDU (TTL 0), and a willing switch drops this host's DCBX parameters at once.",
			strings.Join(names, ", ")), w, "")...)
	case dialogFix:
		f := d.fixes[d.fix]
		title = fmt.Sprintf("Fix %s on %s", f.Fix.Code, ifn)
		if f.Fix.Code == "" {
			title = "Tune host QoS on " + ifn // typed in the tune form
		}
		if len(d.fixes) > 1 {
			title += fmt.Sprintf(" (%d of %d)", d.fix+1, len(d.fixes))
		}
		if d.qosUndo {
			title = "Undo the last fix on " + ifn
		}
		if f.Fix.Why != "" {
			lines = append(lines, wrap(Sanitize(f.Fix.Why), w, "  ")...)
		}
		lines = append(lines, "", "Writes to the NIC (read back after):")
		for _, l := range f.Lines {
			lines = append(lines, wrap("  "+Sanitize(l), w, "    ")...)
		}
		lines = append(lines, "", "After it (preview):")
		if len(f.Changes) == 0 {
			lines = append(lines, "  "+r.st.Dim.Render("no verdict changes"))
		}
		for _, l := range f.Changes {
			lines = append(lines, wrap("  "+Sanitize(l), w, "    ")...)
		}
		if len(d.fixes) > 1 {
			lines = append(lines, "", r.st.Dim.Render(r.st.Key.Render("f")+" the next fix"))
		}
	case dialogApply:
		title = "Apply local parameters on " + ifn
		lines = append(lines, "Local parameters change:")
		if len(d.localDiff) == 0 {
			lines = append(lines, "  "+r.st.Dim.Render("nothing changes"))
		}
		lines = append(lines, r.changeLines(d.localDiff, w)...)
		preview("Operational after apply (preview):")
	}
	if d.nic != "" {
		lines = append(lines, "")
		lines = append(lines, wrap(d.nic, w, "")...)
	}
	if d.rebased {
		note := rebasedNote
		if d.kind == dialogFix {
			note = fixRebasedNote
		}
		lines = append(lines, wrap(r.st.Warn.Render(r.sym.Warning+" "+note), w, "  ")...)
	}
	maxLines := r.h - 8
	if len(lines) > maxLines {
		lines = append(lines[:maxLines-1], r.st.Dim.Render(r.sym.Ellipsis+" "+plural(len(lines)-maxLines+1, "more line")))
	}
	// The confirmation names its action.
	verb := map[dialogKind]string{dialogWilling: "set Willing " + map[bool]string{true: "on", false: "off"}[d.willing],
		dialogAgent: "stop agent", dialogUndo: "undo", dialogApply: "apply", dialogQuit: "quit and withdraw", dialogFix: "write it"}[d.kind]
	if d.kind == dialogAgent && d.willing {
		verb = "start agent"
	}
	lines = append(lines, "", r.st.Key.Render("y")+" "+verb+"   "+r.st.Key.Render("n")+"/"+r.st.Key.Render("esc")+" cancel")
	return r.box(title, lines, w)
}

// paramsLines renders one parameter set in full.
func paramsLines(st *Styles, p *dcb.Params, w int) []string {
	if p == nil {
		return []string{st.Dim.Render("none: zeroed (the parameters were invalidated)")}
	}
	var out []string
	ets := func(name string, t *etsTab, extra string) {
		if t == nil {
			out = append(out, name+" "+st.Dim.Render(st.Sym.Absent))
			return
		}
		out = append(out, name+extra)
		for tc := range uint8(8) {
			var prios dcb.PrioSet
			for pr, x := range t.prioTC {
				if x == tc {
					prios |= 1 << pr
				}
			}
			if t.bw[tc] == 0 && prios == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("  TC%d %-6s %3d%%  priorities %s", tc, t.tsa[tc], t.bw[tc], prios.PrioWords()))
		}
		for pr, x := range t.prioTC {
			if x >= 8 {
				out = append(out, fmt.Sprintf("  priority %d → TC/PGID %d", pr, x))
			}
		}
	}
	if p.ETS != nil {
		ets("ETS configuration", etsTables(p.ETS), st.Dim.Render(fmt.Sprintf(" · willing %s · CBS %s · max TCs %d", dcb.OnOff(p.ETS.Willing), dcb.OnOff(p.ETS.CBS), p.ETS.MaxTCs)))
	} else {
		ets("ETS configuration", nil, "")
	}
	ets("ETS recommendation", recoTables(p.ETSReco), "")
	if f := p.PFC; f != nil {
		out = append(out, fmt.Sprintf("PFC enabled on %s · willing %s · MBC %s · cap %d", f.Enabled.PrioWords(), dcb.OnOff(f.Willing), dcb.OnOff(f.MBC), f.Cap))
	} else {
		out = append(out, "PFC "+st.Dim.Render(st.Sym.Absent))
	}
	switch {
	case p.App == nil:
		out = append(out, "APP "+st.Dim.Render(st.Sym.Absent))
	case len(p.App) == 0:
		out = append(out, "APP (no entries)")
	default:
		out = append(out, "APP")
		for _, a := range p.App {
			out = append(out, "  "+appWords(a))
		}
	}
	if c := p.CEE; c != nil {
		out = append(out, st.Dim.Render(fmt.Sprintf("CEE v%d/%d seq %d ack %d", c.OperVersion, c.MaxVersion, c.Seq, c.Ack)))
	}
	for i := range out {
		out[i] = trunc(out[i], w)
	}
	return out
}

// detailLines is the detail overlay's content.
func (r *renderer) detailLines(d *detailView, w int) []string {
	switch d.kind {
	case detailPeers:
		if d.hex {
			return r.peerHexLines(w)
		}
		return r.peerDetailLines(w)
	case detailDiagnostics:
		return r.diagDetailLines(w)
	case detailMessages:
		return r.messageLines(w)
	}
	return r.indicationLines(d, w)
}

// indicationLines is the full account of one indication.
func (r *renderer) indicationLines(d *detailView, w int) []string {
	in := d.ind
	lines := []string{
		r.st.Value.Render(in.Time.In(r.vs.loc).Format("2006-01-02 15:04:05.000")) + "  " + clean(in.Interface, 20) + "  " + in.Status.String(),
		r.st.Label.Render("reason") + " " + r.reasonStyle(in.Reason, string(in.Reason)),
	}
	if in.Peer != "" {
		lines = append(lines, r.st.Label.Render("peer")+" "+clean(in.Peer, w-5))
	}
	lines = append(lines, wrapTokens("flags ", in.Flags.Names(), "|", w)...)
	if in.Status == engine.StatusNeighbor {
		// A neighbour came or went: no parameter set belongs to it.
		lines = append(lines, "", r.st.Dim.Render("an LLDP neighbour event: it carries no DCB parameters (the peer's are in its REMOTE indications)"))
		return lines
	}
	lines = append(lines, "", r.st.ColHeader.Render("Parameters"))
	lines = append(lines, paramsLines(r.st, in.Params, w)...)
	lines = append(lines, "")
	if d.prev == nil {
		lines = append(lines, r.st.ColHeader.Render("Changes"), r.st.Dim.Render("first "+statusShort(in.Status)+" indication of "+clean(in.Interface, 20)+" in the log: all of it is new"))
	} else {
		lines = append(lines, r.st.ColHeader.Render(fmt.Sprintf("Changes since %s (previous %s on %s)",
			d.prev.Time.In(r.vs.loc).Format("15:04:05.000"), statusShort(in.Status), clean(in.Interface, 20))))
		cs := paramsDiff(d.prev.Params, in.Params)
		if len(cs) == 0 {
			lines = append(lines, r.st.Dim.Render("  no parameter changed"))
		}
		lines = append(lines, r.changeLines(cs, w)...)
	}
	return lines
}

// detailSize is the detail overlay's inner width and how many of its lines
// show at once.
func (r *renderer) detailSize() (w, rows int) { return r.boxWidth(100), max(3, r.h-7) }

// detailBox shows the selected indication, scrolled.
func (r *renderer) detailBox() string {
	if r.vs.detail.kind == detailFrames {
		return r.framesBox()
	}
	w, rows := r.detailSize()
	lines := r.detailLines(r.vs.detail, w)
	top := clamp(r.vs.detail.scroll, 0, len(lines)-rows)
	end := min(len(lines), top+rows)
	shown := slices.Clone(lines[top:end])
	more := ""
	if top > 0 || end < len(lines) {
		more = fmt.Sprintf(" · lines %d-%d of %d", top+1, end, len(lines))
	}
	hint := "↑↓ pgup pgdn scroll · esc close"
	if r.vs.detail.kind == detailPeers {
		hint += " · " + shortKey(r.keys.Hex) + " " + map[bool]string{false: "hex", true: "decoded"}[r.vs.detail.hex]
	}
	shown = append(shown, r.st.Dim.Render(hint+more))
	title := "Indication"
	switch r.vs.detail.kind {
	case detailPeers:
		title = "Peers of " + clean(r.in.Name, ifNameMax)
		if r.vs.detail.hex {
			title += " (hex)"
		}
	case detailDiagnostics:
		title = "Diagnostics of " + clean(r.in.Name, ifNameMax)
	case detailMessages:
		title = "Messages"
	}
	return r.box(title, shown, w)
}

// wrapTokens joins tokens with sep after prefix, breaking lines between
// tokens so that none is wider than w; continuation lines are indented to
// the prefix.
func wrapTokens(prefix string, tokens []string, sep string, w int) []string {
	if len(tokens) == 0 {
		return []string{prefix + "—"}
	}
	indent := strings.Repeat(" ", width(prefix))
	var out []string
	line := prefix
	for i, t := range tokens {
		if i < len(tokens)-1 {
			t += sep
		}
		if width(line)+width(t) > w && line != prefix && line != indent {
			out = append(out, line)
			line = indent
		}
		line += t
	}
	return append(out, trunc(line, w))
}
