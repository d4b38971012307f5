// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// maxSpeakersNamed bounds the speakers a several-lldp-speakers message
// names; the rest are counted.
const maxSpeakersNamed = 4

// speakersDiagnostic: more than one LLDP speaker (distinct MSAPs) live on
// the port, whatever they speak. A switch port is one link partner; lldpad
// keeps one neighbour per agent and flags a second MSAP as too many
// neighbours (rx.c tooManyNghbrs), and its CEE machine then treats the
// peer as absent. Several speakers mean something between this host and
// the switch passes or adds LLDP: a BMC sharing the NIC, a hypervisor's
// vSwitch forwarding its VMs' LLDPDUs, an unmanaged switch. Microsoft's
// multi-peer rule counts only DCBX speakers (multi-peer says that case);
// this counts every speaker, so a DCBX switch beside a BMC is named too.
func (p *port) speakersDiagnostic() (diag.Diagnostic, bool) {
	if p.multi {
		return diag.Diagnostic{}, false // multi-peer says it, and more
	}
	var names []string
	for _, n := range p.neighbors {
		name := msapName(n)
		if slices.Contains(names, name) {
			continue // one MSAP heard on two addresses is one speaker
		}
		names = append(names, name)
	}
	if len(names) < 2 {
		return diag.Diagnostic{}, false
	}
	var shown []string
	for _, name := range names {
		if len(shown) == maxSpeakersNamed {
			shown = append(shown, fmt.Sprintf("and %d more", len(names)-maxSpeakersNamed))
			break
		}
		shown = append(shown, p.speakerWords(name))
	}
	dcbx := 0
	for _, n := range p.neighbors {
		if n.du.Dialect() != lldp.DialectNone {
			dcbx++
		}
	}
	which := "none of them sends DCBX"
	switch {
	case dcbx == 1 && p.remoteFrom != nil:
		which = "the remote parameters come from the one that sends DCBX, " + msapName(p.remoteFrom) + ", whether or not it is the switch port"
	case dcbx > 0:
		which = fmt.Sprintf("%d of them send DCBX", dcbx)
	}
	return diag.Newf(diag.CodeSeveralSpeakers, diag.SeverityWarning, "lldp",
		"find what shares the port: a BMC on a shared NIC (its LLDP off), a vSwitch forwarding LLDP (stop it forwarding 01:80:c2:00:00:0e), or an unmanaged switch between this host and the switch",
		"%d LLDP speakers on this port (%s), where a switch port is one link partner; %s", len(names), strings.Join(shown, "; "), which), true
}

// speakerWords names a speaker for a person: its system name when it
// sends one, its MSAP and what DCBX it speaks.
func (p *port) speakerWords(msap string) string {
	for _, n := range p.neighbors {
		if msapName(n) != msap {
			continue
		}
		w := msap
		if n.sysName != nil && *n.sysName != "" {
			w = Sanitize(*n.sysName) + " (" + msap + ")"
		}
		return w + ", " + n.du.Dialect().Words()
	}
	return msap
}

// unanswered reports that the peer in force speaks a DCBX dialect that
// this host's agent does not send: an IEEE-only agent beside a CEE-only
// switch (or the reverse) never negotiates, whatever each side shows.
// lldpad falls back from IEEE to CEE when the peer speaks only CEE (its
// dcbx_version auto mode, lldp_dcbx.c); an agent that does not keeps
// sending what the peer ignores, and the peer's CEE control never
// acknowledges it (Ack stays 0; CEE DCBX 1.01, Control sub-TLV). What this
// host sends is known from its own LLDPDUs seen going out to the nearest
// bridge in the last dualAgentWindow, and from dcbtop's agent, which
// speaks the dialect it reported (AgentDCBX: IEEE 802.1Qaz, falling back
// to CEE while the peer speaks only CEE, as lldpad). peer is the peer's dialect and sends
// says what this host sends ("IEEE 802.1Qaz DCBX").
func (p *port) unanswered(now time.Time) (peer lldp.Dialect, sends string, ok bool) {
	if p.remoteFrom == nil {
		return 0, "", false
	}
	peer = p.remoteFrom.du.Dialect()
	if peer != lldp.DialectIEEE && peer != lldp.DialectCEE {
		return 0, "", false
	}
	var sent []lldp.Dialect
	if p.localSource == SourceAgent {
		sent = append(sent, p.agentDialect())
	}
	for _, a := range p.agents {
		if now.Sub(a.lastSeen) < dualAgentWindow && a.dialect != lldp.DialectNone && !slices.Contains(sent, a.dialect) {
			sent = append(sent, a.dialect)
		}
	}
	if len(sent) == 0 || slices.Contains(sent, peer) {
		return 0, "", false
	}
	words := make([]string, len(sent))
	for i, d := range sent {
		words[i] = d.Words()
	}
	return peer, strings.Join(words, " and "), true
}

// unansweredDiagnostic is dialect-unanswered (unanswered): an error, as
// nothing the two sides show is negotiated.
func (p *port) unansweredDiagnostic(now time.Time) (diag.Diagnostic, bool) {
	peer, sends, ok := p.unanswered(now)
	if !ok {
		return diag.Diagnostic{}, false
	}
	control := ""
	if c := p.remote.CEE; c != nil && peer == lldp.DialectCEE {
		control = fmt.Sprintf(" (the peer's CEE control: seq %d, ack %d)", c.Seq, c.Ack)
	}
	agent := "this host's agent"
	if p.localSource == SourceAgent {
		agent = "dcbtop's agent"
	}
	return diag.Newf(diag.CodeDialectUnanswered, diag.SeverityError, "lldp",
		"configure the switch port for IEEE 802.1Qaz DCBX, or run an agent that answers "+peer.Words()+" (lldpad and dcbtop's agent fall back to CEE by themselves)",
		"the peer speaks only %s and %s sends %s only: nothing is negotiated%s, and the remote parameters are not adopted", peer.Words(), agent, sends, control), true
}

// appConflicts: an APP table (the peer's, or this host's own) maps one
// selector and protocol to several priorities. The kernel keeps them all
// (net/dcb/dcbnl.c dcb_ieee_setapp; dcb_ieee_getapp_mask returns every
// one), but a NIC classifies a DSCP to one priority, the last written
// (mlx5e_dcbnl_ieee_setapp), and a sender picks one of a port's: which
// priority the traffic takes is not decided by the table. A warning; an
// error where the priorities differ in PFC in force (one of them lossy).
func (p *port) appConflicts() []diag.Diagnostic {
	var out []diag.Diagnostic
	var pfcKnown bool
	var pfcOn dcb.PrioSet
	if op := p.operational; op != nil && op.PFC != nil {
		pfcKnown, pfcOn = true, op.PFC.Enabled
	}
	judge := func(whose string, table []dcb.App) {
		for _, c := range appConflictsOf(table) {
			sev, tail := diag.SeverityWarning, ""
			if pfcKnown && c.prios&pfcOn != 0 && c.prios&^pfcOn != 0 {
				sev, tail = diag.SeverityError, fmt.Sprintf(", and PFC is in force on %s only: that traffic may be lossy", (c.prios&pfcOn).PrioWords())
			}
			out = append(out, diag.Newf(diag.CodeAppConflict, sev, "app",
				"keep one APP entry per selector and protocol (on the switch for the peer's table; dcb app del or dcbtop apply for this host's)",
				"%s APP table maps %s %d to priorities %s: the kernel keeps every entry, but a NIC classifies a DSCP to one priority (the last written) and which one the traffic takes is not decided by the table%s",
				whose, c.sel, c.proto, c.prios.PrioWords(), tail))
		}
	}
	if p.remoteFrom != nil && p.remote != nil {
		judge("the peer's", p.remote.App)
	}
	if p.local != nil {
		judge("this host's", p.local.App)
	}
	return out
}

// An appConflict is a selector and protocol with its several priorities.
type appConflict struct {
	sel   lldp.AppSelector
	proto uint16
	prios dcb.PrioSet
}

// appConflictsOf returns the table's selectors and protocols that map to
// more than one priority, in the table's order.
func appConflictsOf(table []dcb.App) []appConflict {
	var out []appConflict
	for i, a := range table {
		c := appConflict{sel: a.Selector, proto: a.Protocol, prios: 1 << (a.Priority % 8)}
		first := true
		for j, b := range table {
			if b.Selector != a.Selector || b.Protocol != a.Protocol {
				continue
			}
			if j < i {
				first = false
				break
			}
			c.prios |= 1 << (b.Priority % 8)
		}
		if first && len(c.prios.List()) > 1 {
			out = append(out, c)
		}
	}
	return out
}
