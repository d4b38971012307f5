// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
)

// ---- Diagnostics ----

// sevMark renders a finding's level as symbol and word, padded to 10
// cells.
func (r *renderer) sevMark(l findingLevel) string {
	switch l {
	case findError:
		return r.st.Crit.Render(pad(r.sym.Error+" error", 10))
	case findWarning:
		return r.st.Warn.Render(pad(r.sym.Warning+" warning", 10))
	case findUnknown:
		return r.st.Dim.Render(pad(r.sym.Unknown+" unknown", 10))
	}
	return r.st.Info.Render(pad(r.sym.Info+" info", 10))
}

// diagContent is the Diag pane: the interface's findings, worst first,
// from the one evaluation every surface reads (the diagnostics and the
// checks' verdicts, findingsOf); "no problems found" only when every
// check is OK and nothing is said, and what was not read is listed as
// unknown, never shown as fine.
func (r *renderer) diagContent(w int) paneContent {
	c := paneContent{cursor: -1}
	fs := findingsOf(r.in, r.snap.Diagnostics)
	slices.SortStableFunc(fs, func(a, b finding) int { return cmp.Compare(b.level, a.level) })
	e, wn, i, u := findingCounts(fs)
	c.sub = fmt.Sprintf("%s %s · %s %s · %s %d info · %s %d unknown", r.sym.Error, plural(e, "error"), r.sym.Warning, plural(wn, "warning"), r.sym.Info, i, r.sym.Unknown, u)
	if terms := textTerms(r.vs.filter); len(terms) > 0 {
		// The log's filter filters the diagnostics too.
		all := len(fs)
		fs = slices.DeleteFunc(fs, func(f finding) bool {
			return !matchesText(terms, f.tag, f.msg, f.action)
		})
		c.sub += fmt.Sprintf(" · filter: %d of %d", len(fs), all)
		if len(fs) == 0 {
			c.body = []string{r.st.Dim.Render("no diagnostic matches the filter (esc clears it)")}
			return c
		}
	}
	if len(fs) == 0 {
		c.sub = ""
		c.body = []string{r.st.OK.Render(r.sym.OK + " no problems found")}
		return c
	}
	const indent = 10
	tw := max(10, w-indent)
	if e+wn+i == 0 {
		c.body = append(c.body, r.st.Dim.Render(pad("", indent)+"no problem in what was read; not judged:"))
	}
	for _, f := range fs {
		if f.level == findUnknown {
			// One line: which checks could not be judged; the details
			// (enter) say what each lacks.
			c.body = append(c.body, r.sevMark(f.level)+r.st.Dim.Render(trunc(Sanitize(f.msg)+" · enter: what each lacks", tw)))
			continue
		}
		msg := strings.Split(ansi.Wordwrap(Sanitize(f.msg), tw, " "), "\n")
		for k, l := range msg {
			lead := strings.Repeat(" ", indent)
			if k == 0 {
				lead = r.sevMark(f.level)
			}
			c.body = append(c.body, lead+l)
		}
		act := "→ " + Sanitize(f.action)
		if f.action == "" {
			act = ""
		}
		for _, l := range wrapTagged(act, "["+Sanitize(f.tag)+"]", tw) {
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
		c.head = append(c.head, r.st.Crit.Render(fmt.Sprintf("%s MULTI-PEER since %s: remote parameters invalid; hold-down %s left; held by %d: ",
			r.sym.Multi, mp.Since.In(r.vs.loc).Format("15:04:05"), r.holdDown(mp), len(mp.Peers)))+strings.Join(held, ", "))
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
