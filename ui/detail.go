package ui

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Drill-down overlays of the Peers and Diagnostics panes.

// sysCapNames are the System Capabilities bits (IEEE 802.1AB-2016 Table
// 8-4), bit 0 first.
var sysCapNames = []string{"other", "repeater", "bridge", "WLAN AP", "router", "telephone", "DOCSIS", "station", "C-VLAN", "S-VLAN", "TPMR"}

func capWords(bits uint16) string {
	var out []string
	for i, n := range sysCapNames {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// mgmtAddress describes a Management Address TLV.
func mgmtAddress(m *lldp.ManagementAddress) string {
	a := fmt.Sprintf("family %d %x", m.Family, m.Address)
	switch {
	case m.Family == 1 && len(m.Address) == 4, m.Family == 2 && len(m.Address) == 16:
		if ip, ok := netip.AddrFromSlice(m.Address); ok {
			a = ip.String()
		}
	case m.Family == 6 && len(m.Address) == 6:
		a = lldp.MAC(m.Address).String()
	}
	return fmt.Sprintf("%s (interface %d, numbering %d)", a, m.IfNumber, m.IfSubtype)
}

// wireText shows a string from the wire faithfully: each line break as a
// line of its own (Cisco NX-OS puts them in sysDescr), control
// characters replaced (Sanitize), wrapped to w after the prefix.
func wireText(prefix, s string, w int) []string {
	var out []string
	indent := strings.Repeat(" ", width(prefix))
	for i, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		p := prefix
		if i > 0 {
			p = indent
		}
		for j, wl := range strings.Split(ansi.Wordwrap(Sanitize(l), max(10, w-width(prefix)), " "), "\n") {
			if j > 0 {
				p = indent
			}
			out = append(out, p+wl)
		}
	}
	return out
}

// peerDetailLines describes every peer of the interface: identity, scope,
// tag, times, then each TLV of its last LLDPDU decoded, the discarded ones
// and the DCBX parameters as dcbtop reads them.
func (r *renderer) peerDetailLines(w int) []string {
	st := r.st
	var out []string
	for i := range r.in.Peers {
		p := &r.in.Peers[i]
		if i > 0 {
			out = append(out, "", r.st.Rule.Render(strings.Repeat("─", w)))
		}
		name := deref(p.SystemName)
		if p.SystemName == nil {
			name = "(no System Name TLV)"
		}
		out = append(out, st.Value.Render(clean(name, w)))
		out = append(out, st.Label.Render("MSAP ")+clean(p.MSAP(), w-5))
		scope := string(p.Scope)
		if p.ScopeAssumed {
			scope += " (assumed: the capture did not record the destination)"
		}
		out = append(out, st.Label.Render("source ")+p.SourceMAC.String()+st.Label.Render(" · to ")+scope)
		if p.VLAN != nil {
			out = append(out, st.Label.Render("802.1Q tag ")+fmt.Sprintf("VLAN %d, PCP %d", p.VLAN.ID, p.VLAN.PCP))
		} else {
			out = append(out, st.Label.Render("802.1Q tag ")+"none (untagged)")
		}
		out = append(out, st.Label.Render("seen ")+fmt.Sprintf("first %s · last %s · %d frames · TTL %ds, %s left",
			p.FirstSeen.In(r.vs.loc).Format("15:04:05"), p.LastSeen.In(r.vs.loc).Format("15:04:05"), p.Frames, p.TTL,
			fmtSeconds(max(0, r.ttlLeft(p)))))
		out = append(out, "", st.ColHeader.Render("TLVs of the last LLDPDU"))
		out = append(out, r.tlvLines(p, w)...)
		for _, d := range p.DiscardedTLVs {
			out = append(out, wireText(st.Warn.Render(symWarning+" discarded")+" ", fmt.Sprintf("%s at offset %d: %s", d.TLV, d.Offset, d.Error), w)...)
		}
		out = append(out, "", st.ColHeader.Render("DCBX parameters"))
		if p.Params == nil {
			why := "none in this LLDPDU"
			if p.Scope != engine.ScopeNearestBridge {
				why = "none: DCBX is read from the nearest-bridge agent only"
			}
			out = append(out, st.Dim.Render(why))
		} else {
			out = append(out, paramsLines(st, p.Params, w)...)
		}
	}
	return out
}

// tlvLines decodes the peer's last LLDPDU, one TLV after another.
func (r *renderer) tlvLines(p *engine.Peer, w int) []string {
	st := r.st
	du, err := lldp.Parse(p.LLDPDU)
	if len(p.LLDPDU) == 0 || err != nil {
		return []string{st.Dim.Render("not available (a snapshot read back from JSON has no raw LLDPDU)")}
	}
	label := func(s string) string { return st.Label.Render(pad(s, 21)) }
	nums := func(v [8]uint8) string {
		s := make([]string, len(v))
		for i, n := range v {
			s[i] = fmt.Sprint(n)
		}
		return strings.Join(s, " ")
	}
	out := []string{
		label("Chassis ID") + clean(du.ChassisID.String(), w-20),
		label("Port ID") + clean(du.PortID.String(), w-20),
		label("Time To Live") + fmt.Sprintf("%d s", du.TTL),
	}
	for _, t := range du.TLVs {
		switch x := t.(type) {
		case *lldp.Text:
			out = append(out, wireText(label(x.Kind.String()), x.Value, w)...)
		case *lldp.SystemCapabilities:
			out = append(out, label("System Capabilities")+capWords(x.Capabilities)+st.Dim.Render(" · enabled: ")+capWords(x.Enabled))
		case *lldp.ManagementAddress:
			out = append(out, label("Management Address")+mgmtAddress(x))
		case *lldp.ETS:
			name, flags := "ETS Recommendation", ""
			if !x.Recommendation {
				name = "ETS Configuration"
				flags = fmt.Sprintf("willing %s · CBS %s · max TCs %d · ", engine.OnOff(x.Willing), engine.OnOff(x.CBS), x.MaxTCs)
			}
			tsa := make([]string, len(x.TSA))
			for i, t := range x.TSA {
				tsa[i] = t.String()
			}
			out = append(out, wireText(label(name), flags+"priority→TC "+nums(x.PrioTC)+" · TC bandwidth "+nums(x.Bandwidth)+
				" % · TSA "+strings.Join(tsa, " "), w)...)
		case *lldp.PFC:
			out = append(out, label("PFC Configuration")+fmt.Sprintf("willing %s, MBC %s, cap %d, enabled on %s",
				engine.OnOff(x.Willing), engine.OnOff(x.MBC), x.Cap, engine.PrioSet(x.Enabled).PrioWords()))
		case *lldp.AppPriority:
			var es []string
			for _, e := range x.Entries {
				proto := fmt.Sprint(e.Protocol)
				if e.Selector == lldp.AppSelEthertype {
					proto = fmt.Sprintf("%#04x", e.Protocol)
				}
				es = append(es, fmt.Sprintf("%s %s→%d", e.Selector, proto, e.Priority))
			}
			out = append(out, wrapTokens(label("Application Priority"), es, ", ", w)...)
		case *lldp.CEE:
			out = append(out, label("CEE DCBX")+"Control, PG, PFC and APP sub-TLVs (see the parameters below)")
		case *lldp.RawTLV:
			if oui, sub, ok := x.OrgID(); ok {
				out = append(out, label(fmt.Sprintf("Org %s/%d", oui, sub))+fmt.Sprintf("%d bytes, not decoded", len(x.Value)-4))
			} else {
				out = append(out, label(x.T.String())+fmt.Sprintf("%d bytes, not decoded", len(x.Value)))
			}
		}
	}
	return out
}

// diagKey identifies a diagnostic of an interface across snapshots.
func diagKey(iface string, d engine.Diagnostic) string {
	return iface + "\x00" + string(d.Code) + "\x00" + d.Feature
}

// trackDiagnostics records when the screen first saw each diagnostic that
// is raised in s, and forgets those that cleared.
func trackDiagnostics(since map[string]time.Time, s engine.Snapshot, now time.Time) map[string]time.Time {
	next := make(map[string]time.Time, len(since))
	for i := range s.Interfaces {
		in := &s.Interfaces[i]
		for _, d := range in.Diagnostics {
			k := diagKey(in.Name, d)
			if t, ok := since[k]; ok {
				next[k] = t
			} else {
				next[k] = now
			}
		}
	}
	return next
}

// diagDetailLines shows every diagnostic of the interface in full: its
// message, the action, the rule it comes from and since when it is raised.
func (r *renderer) diagDetailLines(w int) []string {
	st := r.st
	ds := slices.Clone(r.in.Diagnostics)
	slices.SortStableFunc(ds, func(a, b engine.Diagnostic) int { return int(b.Severity) - int(a.Severity) })
	var out []string
	for i, d := range ds {
		if i > 0 {
			out = append(out, "")
		}
		head := r.sevMark(d.Severity) + st.Value.Render(Sanitize(string(d.Code)))
		if d.Feature != "" {
			head += st.Dim.Render(" · " + d.Feature)
		}
		out = append(out, head)
		out = append(out, wireText("  ", d.Message, w)...)
		if d.Action != "" {
			out = append(out, wireText(st.Label.Render("  action "), d.Action, w)...)
		}
		if rule := engine.DiagnosticRule(d.Code); rule != "" {
			out = append(out, wireText(st.Label.Render("  rule ")+" ", rule, w)...)
		}
		if t, ok := r.vs.diagSince[diagKey(r.in.Name, d)]; ok {
			out = append(out, st.Label.Render("  since ")+t.In(r.vs.loc).Format("2006-01-02 15:04:05")+st.Dim.Render(" (first seen on this screen)"))
		}
	}
	return out
}

// messageLines is the status message history, oldest first, each in full
// with its time.
func (r *renderer) messageLines(w int) []string {
	st := r.st
	if len(r.vs.messages) == 0 {
		return []string{st.Dim.Render("no messages yet")}
	}
	var out []string
	for _, m := range r.vs.messages {
		mark := st.Info.Render(symInfo)
		switch m.level {
		case levelOK:
			mark = st.OK.Render(symOK)
		case levelErr:
			mark = st.Crit.Render(symError)
		}
		out = append(out, wireText(mark+" "+st.Dim.Render(m.at.In(r.vs.loc).Format("15:04:05"))+" ", m.text, w)...)
	}
	return out
}
