// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/frames"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/verdict"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Drill-down overlays of the Peers and Diagnostics panes.

// wireText shows a string from the wire faithfully: each line break as a
// line of its own (Cisco NX-OS puts them in sysDescr), control
// characters replaced (Sanitize), wrapped to w after the prefix.
func wireText(prefix, s string, w int) []string {
	var out []string
	for i, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		p := prefix
		if i > 0 {
			p = spaces(width(prefix))
		}
		out = append(out, wrapStyled(p, Sanitize(l), w)...)
	}
	return out
}

// wrapStyled wraps one line that is safe to print (sanitized, perhaps
// styled) to w after the prefix, the next lines indented by its width.
func wrapStyled(prefix, line string, w int) []string {
	var out []string
	p := prefix
	for j, wl := range strings.Split(ansi.Wordwrap(line, max(10, w-width(prefix)), " "), "\n") {
		if j > 0 {
			p = spaces(width(prefix))
		}
		out = append(out, p+wl)
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
			out = append(out, "", r.st.Rule.Render(strings.Repeat(r.sym.RuleH, w)))
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
			out = append(out, wireText(st.Warn.Render(r.sym.Warning+" discarded")+" ", fmt.Sprintf("%s at offset %d: %s", d.TLV, d.Offset, d.Error), w)...)
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
	if lp := r.in.LastPeer; len(r.in.Peers) == 0 && lp != nil {
		// The peer is gone: who it was, when and why it went, and what
		// it last sent.
		name := deref(lp.SystemName)
		if lp.SystemName == nil {
			name = "(no System Name TLV)"
		}
		out = append(out, st.Value.Render(clean(name, w))+st.Dim.Render(" · gone"))
		out = append(out, st.Label.Render("MSAP ")+clean(lp.ChassisID+" / "+lp.PortID, w-5))
		out = append(out, st.Label.Render("went ")+fmt.Sprintf("%s (%s, %s ago) · last seen %s",
			lp.GoneAt.In(r.vs.loc).Format("15:04:05"), lp.Reason, fmtSeconds(r.now.Sub(lp.GoneAt).Truncate(time.Second)),
			lp.LastSeen.In(r.vs.loc).Format("15:04:05")))
		out = append(out, "", st.ColHeader.Render("TLVs of its last LLDPDU"))
		out = append(out, r.tlvLines(&engine.Peer{LLDPDU: lp.LLDPDU}, w)...)
		out = append(out, "", st.ColHeader.Render("DCBX parameters it last sent"))
		if lp.Params == nil {
			out = append(out, st.Dim.Render("none"))
		} else {
			out = append(out, paramsLines(st, lp.Params, w)...)
		}
	}
	return out
}

// tlvLines shows the peer's last LLDPDU, one TLV after another, as the
// codec describes it (lldp.DescribeLLDPDU); a TLV the codec does not
// decode shows its bytes in hex (rawHex).
func (r *renderer) tlvLines(p *engine.Peer, w int) []string {
	views, err := lldp.DescribeLLDPDU(p.LLDPDU)
	if len(p.LLDPDU) == 0 || err != nil {
		return []string{r.st.Dim.Render("not available (a snapshot read back from JSON has no raw LLDPDU)")}
	}
	flags := engine.TLVFlags(r.in, p.LLDPDU)
	var out []string
	for i, v := range views {
		if v.Undecoded != nil {
			v = r.rawHex(v)
		}
		out = append(out, r.tlvViewLines(v, w)...)
		if i < len(flags) && flags[i].Text != "" {
			out = append(out, r.tlvFlagLines(flags[i], w)...)
		}
	}
	return out
}

// tlvFlagLines is a TLV's flag (engine.TLVFlags) under its value: ✓ for
// a fact that agrees with the host, ℹ for another, ⚠ or ✗ for a problem.
func (r *renderer) tlvFlagLines(f engine.TLVFlag, w int) []string {
	mark, style := r.sym.Info, r.st.Info
	switch {
	case f.Severity == diag.SeverityInfo && f.Match:
		mark, style = r.sym.OK, r.st.OK
	case f.Severity == diag.SeverityError:
		mark, style = r.sym.Error, r.st.Crit
	case f.Severity == diag.SeverityWarning:
		mark, style = r.sym.Warning, r.st.Warn
	}
	return wrapStyled(spaces(tlvNameWidth+1), style.Render(mark+" "+Sanitize(f.Text)), w)
}

// rawHexMax is how many bytes of an undecoded TLV the drill-down shows
// inline; the hex view (KeyMap.Hex) has them all.
const rawHexMax = 64

// rawHex replaces the "N bytes, not decoded" value of a TLV the engine
// does not decode with its bytes in hex (after the OUI and subtype of an
// organizationally specific TLV, which the view names).
func (r *renderer) rawHex(v lldp.TLVView) lldp.TLVView {
	b := v.Undecoded
	words := hexBytes(b[:min(len(b), rawHexMax)])
	if len(b) > rawHexMax {
		words += " " + r.sym.Ellipsis + " (" + shortKey(r.keys.Hex) + ": all of it)"
	}
	text := fmt.Sprintf("%s (%s, not decoded)", words, plural(len(b), "byte"))
	if len(b) == 0 {
		text = "no bytes"
	}
	fields := slices.Clone(v.Fields)
	for i, f := range fields {
		if f.Label == "" {
			fields[i].Value = text
			break
		}
	}
	v.Fields = fields
	return v
}

// hexBytes writes b as hex bytes separated by spaces: "03 6c 00".
func hexBytes(b []byte) string { return fmt.Sprintf("% x", b) }

// hexDump lays b out as xxd, tshark and lldpcli do (frames.HexDump, the
// one --frame prints too).
func hexDump(b []byte, n int) []string { return frames.HexDump(b, n) }

// peerHexLines is the peers' drill-down in hex (KeyMap.Hex): each peer's
// last LLDPDU whole, 16 bytes a line (8 on a narrow box).
func (r *renderer) peerHexLines(w int) []string {
	st := r.st
	n := 16
	if w < 72 {
		n = 8
	}
	var out []string
	for i := range r.in.Peers {
		p := &r.in.Peers[i]
		if i > 0 {
			out = append(out, "")
		}
		name := deref(p.SystemName)
		if p.SystemName == nil {
			name = p.ChassisID
		}
		out = append(out, st.Value.Render(clean(name, w/2))+st.Dim.Render(" · last LLDPDU, "+plural(len(p.LLDPDU), "byte")+" (EtherType 88cc payload)"))
		if len(p.LLDPDU) == 0 {
			out = append(out, st.Dim.Render("not available (a snapshot read back from JSON has no raw LLDPDU)"))
			continue
		}
		out = append(out, hexDump(p.LLDPDU, n)...)
	}
	if len(r.in.Peers) == 0 {
		// No live peer: the one the interface lost, when its LLDPDU is
		// kept.
		lp := r.in.LastPeer
		switch {
		case lp == nil:
			out = append(out, st.Dim.Render("no peer has sent an LLDPDU here: nothing to show"))
		case len(lp.LLDPDU) == 0:
			out = append(out, st.Dim.Render("no live peer; the last one's LLDPDU is not kept (a snapshot read back from JSON has none)"))
		default:
			name := deref(lp.SystemName)
			if lp.SystemName == nil {
				name = lp.ChassisID
			}
			out = append(out, st.Value.Render(clean(name, w/2))+st.Dim.Render(fmt.Sprintf(" · gone %s (%s) · its last LLDPDU, %s",
				lp.GoneAt.In(r.vs.loc).Format("15:04:05"), lp.Reason, plural(len(lp.LLDPDU), "byte"))))
			out = append(out, hexDump(lp.LLDPDU, n)...)
		}
	}
	return out
}

// tlvNameWidth is the width of the TLV name column of the drill-down; a
// longer name takes a line of its own.
const tlvNameWidth = 20

// tlvViewLines lays out one TLV: its name, then its fields (sanitized,
// wrapped to w). The fields without a label are the TLV's values: one is
// shown as it came (a text's line breaks kept), several as a list wrapped
// between entries. Named fields after a value are its details, dimmed
// (" · enabled: bridge"); a TLV of named fields only is a record
// ("willing off · CBS off · max TCs 8").
func (r *renderer) tlvViewLines(v lldp.TLVView, w int) []string {
	st := r.st
	var out []string
	prefix := st.Label.Render(pad(v.Name, tlvNameWidth+1))
	if width(v.Name) > tlvNameWidth {
		out = append(out, st.Label.Render(v.Name))
		prefix = spaces(tlvNameWidth + 1)
	}
	var values []string
	var named []lldp.TLVField
	for _, f := range v.Fields {
		if f.Label == "" {
			values = append(values, f.Value)
		} else {
			named = append(named, f)
		}
	}
	if len(values) == 0 && len(named) > 0 {
		parts := make([]string, len(named))
		for i, f := range named {
			parts[i] = f.Label + " " + f.Value
		}
		return append(out, wireText(prefix, strings.Join(parts, " · "), w)...)
	}
	if len(values) == 1 && len(named) == 0 {
		return append(out, wireText(prefix, values[0], w)...)
	}
	var details string
	for _, f := range named {
		details += st.Dim.Render(" · "+Sanitize(f.Label)+": ") + Sanitize(f.Value)
	}
	if len(values) == 1 {
		return append(out, wrapStyled(prefix, Sanitize(values[0])+details, w)...)
	}
	for i, s := range values {
		values[i] = Sanitize(s)
	}
	lines := wrapTokens(prefix, values, ", ", w)
	lines[len(lines)-1] += details
	return append(out, lines...)
}

// diagKey identifies a diagnostic of an interface across snapshots.
func diagKey(iface string, d diag.Diagnostic) string {
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
	slices.SortStableFunc(ds, func(a, b diag.Diagnostic) int { return int(b.Severity) - int(a.Severity) })
	var out []string
	for i, d := range ds {
		if i > 0 {
			out = append(out, "")
		}
		head := r.sevMark(severityLevel(d.Severity)) + st.Value.Render(Sanitize(string(d.Code)))
		if d.Feature != "" {
			head += st.Dim.Render(" · " + d.Feature)
		}
		out = append(out, head)
		out = append(out, wireText("  ", d.Message, w)...)
		if d.Action != "" {
			out = append(out, wireText(st.Label.Render("  action "), d.Action, w)...)
		}
		if rule := diag.Rule(d.Code); rule != "" {
			out = append(out, wireText(st.Label.Render("  rule ")+" ", rule, w)...)
		}
		if t, ok := r.vs.diagSince[diagKey(r.in.Name, d)]; ok {
			out = append(out, st.Label.Render("  since ")+t.In(r.vs.loc).Format("2006-01-02 15:04:05")+st.Dim.Render(" (first seen on this screen)"))
		}
	}
	// Each check that is not OK, as dcbtop check reports it: its
	// verdict, evidence and the facts it could not read.
	for _, c := range r.in.Checks {
		if c.Verdict == verdict.OK {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		lv := map[verdict.Verdict]findingLevel{verdict.Critical: findError, verdict.Warning: findWarning}[c.Verdict]
		out = append(out, r.sevMark(lv)+st.Value.Render(Sanitize(string(c.Check)))+st.Dim.Render(" · check "+c.Verdict.String()))
		out = append(out, wireText("  ", c.Summary, w)...)
		if c.Fix != "" {
			out = append(out, wireText(st.Label.Render("  fix "), c.Fix, w)...)
		}
		for _, e := range c.Evidence {
			out = append(out, wireText(st.Label.Render("  evidence "), e, w)...)
		}
	}
	return out
}

// severityLevel is a diagnostic's severity as a finding's level.
func severityLevel(s diag.Severity) findingLevel {
	switch s {
	case diag.SeverityError:
		return findError
	case diag.SeverityWarning:
		return findWarning
	}
	return findInfo
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
		mark := st.Info.Render(r.sym.Info)
		switch m.level {
		case levelOK:
			mark = st.OK.Render(r.sym.OK)
		case levelErr:
			mark = st.Crit.Render(r.sym.Error)
		}
		out = append(out, wireText(mark+" "+st.Dim.Render(m.at.In(r.vs.loc).Format("15:04:05"))+" ", m.text, w)...)
	}
	return out
}
