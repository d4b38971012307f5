// SPDX-License-Identifier: Apache-2.0

package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// The checks of the DCB side of RoCE: the priority, PFC and ETS for it,
// PFC agreement and the agents.

// roceApp reports whether a is RoCEv2's APP entry (UDP 4791; the "any
// port" selector too).
func roceApp(a dcb.App) bool {
	return (a.Selector == lldp.AppSelUDP || a.Selector == lldp.AppSelPort) && a.Protocol == lossless.RoCEv2Port
}

func (c *checker) rocePriority() {
	c.prio = -1
	if c.rocePriorityFromPaths() {
		return
	}
	// No RoCE port sampled: the APP table in force here, else the
	// peer's, says which priority the switch is told RoCE uses. Each is
	// a fact of its side; the verdict rests on the table it is read
	// from.
	here := c.in.Operational
	if !c.localKnown() {
		here = nil
	}
	peer, peerWhy := c.peerParams()
	if peer != nil && peer.App == nil {
		peer, peerWhy = nil, "the peer sends no APP TLV"
	}
	type table struct {
		side  verdict.Side
		fact  string
		words string
		p     *dcb.Params
	}
	tables := []table{{verdict.SideHost, "this host's APP table in force", "operational", here}, {verdict.SidePeer, "the peer's APP table", "peer", peer}}
	found := func(t table, prio uint8, from, summary string) {
		c.read(t.side, t.fact, true, "")
		c.prio, c.prioFrom = int(prio), from
		c.add(verdict.CheckRoCEPriority, verdict.OK, summary, "", from)
	}
	for _, t := range tables {
		if t.p == nil {
			continue
		}
		for _, a := range t.p.App {
			if roceApp(a) {
				found(t, a.Priority, fmt.Sprintf("%s APP %s %d -> priority %d", t.words, a.Selector, a.Protocol, a.Priority),
					fmt.Sprintf("the %s APP table puts RoCEv2 (UDP %d) on priority %d (no RoCE port sampled: where the NIC puts it is not judged)", t.words, lossless.RoCEv2Port, a.Priority))
				return
			}
		}
	}
	// No UDP 4791 entry: a DSCP entry on a PFC priority is RoCE marked by
	// DSCP (the host trusts DSCP).
	for _, t := range tables {
		if t.p == nil || t.p.PFC == nil {
			continue
		}
		for _, a := range t.p.App {
			if a.Selector == lldp.AppSelDSCP && t.p.PFC.Enabled.Has(a.Priority) {
				found(t, a.Priority, fmt.Sprintf("%s APP dscp %d -> priority %d, which has PFC", t.words, a.Protocol, a.Priority),
					fmt.Sprintf("RoCE marked DSCP %d is on lossless priority %d (no RoCE port sampled: where the NIC puts it is not judged)", a.Protocol, a.Priority))
				return
			}
		}
	}
	var ev []string
	var fixes []string
	c.read(verdict.SideHost, tables[0].fact, here != nil, "this host's parameters are unknown: "+c.localWhy())
	c.read(verdict.SidePeer, tables[1].fact, peer != nil, peerWhy)
	for _, t := range tables {
		if t.p == nil {
			continue
		}
		c.blame(t.side)
		ev = append(ev, fmt.Sprintf("%s: %d APP entries, none for UDP %d or a DSCP on a PFC priority", t.words, len(t.p.App), lossless.RoCEv2Port))
		if t.side == verdict.SidePeer {
			fixes = append(fixes, fmt.Sprintf("advertise an APP entry from the switch: udp-port %d (or the RoCE DSCP) -> the lossless priority", lossless.RoCEv2Port))
		} else {
			fixes = append(fixes, fmt.Sprintf("map RoCE here: dcbtop apply -i %s --app udp-port:%d=P (or --dscp 26=P)", engine.Sanitize(c.in.Name), lossless.RoCEv2Port))
		}
	}
	if len(ev) == 0 {
		c.add(verdict.CheckRoCEPriority, verdict.Unknown, "no APP table to read the RoCE priority from", "")
		return
	}
	c.add(verdict.CheckRoCEPriority, verdict.Critical, fmt.Sprintf("no APP entry maps RoCEv2 (UDP %d) or its DSCP to a priority", lossless.RoCEv2Port),
		strings.Join(fixes, "; or "), ev...)
}

// rocePriorityFromPaths judges the RoCE priority from the interface's
// RoCE paths (where the NIC puts each port's traffic, roceprio.go): the
// worst port's priority hop is the verdict, and its priority the one the
// checks below look at. False without a RoCE port.
func (c *checker) rocePriorityFromPaths() bool {
	lc := c.in.Counters
	if lc == nil || len(lc.RoCEPaths) == 0 {
		return false
	}
	var ev []string
	var worst *lossless.PathHop
	var at *lossless.RoCEPath
	for i := range lc.RoCEPaths {
		p := &lc.RoCEPaths[i]
		for j := range p.Hops {
			h := &p.Hops[j]
			if h.Hop != lossless.HopPriority {
				continue
			}
			ev = append(ev, fmt.Sprintf("%s/%d: %s", engine.Sanitize(p.Device), p.Port, lossless.LandingWords(p.Landings)))
			if worst == nil || h.Verdict.Worse(worst.Verdict) {
				worst, at = h, p
			}
		}
	}
	if worst == nil {
		return false
	}
	if at.Priority != nil {
		c.prio, c.prioFrom = *at.Priority, fmt.Sprintf("%s/%d lands on priority %d", engine.Sanitize(at.Device), at.Port, *at.Priority)
	}
	v := pathVerdict(worst.Verdict)
	c.read(verdict.SideHost, "where the NIC puts RoCE traffic", v != verdict.Unknown, worst.Reason)
	summary := fmt.Sprintf("RoCE traffic of %s/%d: %s", engine.Sanitize(at.Device), at.Port, worst.Reason)
	fix := ""
	if v != verdict.OK && v != verdict.Unknown {
		c.blame(verdict.SideHost)
		fix = "map the DSCP RoCE carries to the lossless priority where the port trusts DSCP (dcb app add dev IF dscp-prio 26:3), or tag it with that PCP; an APP entry for UDP 4791 tells the switch, not the NIC"
	}
	c.add(verdict.CheckRoCEPriority, v, summary, fix, ev...)
	return true
}

// needPriority adds an UNKNOWN result for name when the RoCE priority is
// unknown and reports whether it is known.
func (c *checker) needPriority(name verdict.Name) bool {
	if c.read(verdict.SideHost, "the RoCE priority", c.prio >= 0, "see "+string(verdict.CheckRoCEPriority)+"") {
		return true
	}
	c.add(name, verdict.Unknown, "the RoCE priority is unknown", "", "see "+string(verdict.CheckRoCEPriority))
	return false
}

// rocePFC: PFC on the RoCE priority at both ends. Each side is judged
// from its own facts: the peer's from a PFC TLV it sent (no DCBX from
// the peer, or no peer, leaves its side unknown, never "off"), this
// host's from the parameters in force; a finding names the sides whose
// facts show PFC off, both when both are off.
func (c *checker) rocePFC() {
	if !c.needPriority(verdict.CheckRoCEPFC) {
		return
	}
	p := uint8(c.prio)
	var ev []string
	peer := c.peerPFC()
	if peer != nil {
		ev = append(ev, fmt.Sprintf("peer PFC enabled %s", prios(peer.Enabled)))
	} else {
		ev = append(ev, "peer PFC: not known")
	}
	here := c.here("the PFC in force here")
	if here != nil && here.PFC != nil {
		ev = append(ev, fmt.Sprintf("operational PFC enabled %s (%s)", prios(here.PFC.Enabled), c.in.Resolution.PFC.Why))
	} else if here != nil {
		ev = append(ev, "operational: no PFC")
	}
	peerOff := peer != nil && !peer.Enabled.Has(p)
	hereOff := here != nil && (here.PFC == nil || !here.PFC.Enabled.Has(p))
	switch {
	case peerOff && hereOff && c.in.Resolution.PFC.Source == dcb.FromRemote:
		// This host, willing, took the peer's: the peer decides both.
		c.blame(verdict.SidePeer, verdict.SideHost)
		c.add(verdict.CheckRoCEPFC, verdict.Critical, fmt.Sprintf("PFC is off on RoCE priority %d at the peer, and so in force here too (this host, willing, took the peer's PFC)", p),
			fmt.Sprintf("enable PFC on priority %d on the switch port: this host, willing, takes it", p), ev...)
	case peerOff && hereOff:
		c.blame(verdict.SidePeer, verdict.SideHost)
		c.add(verdict.CheckRoCEPFC, verdict.Critical, fmt.Sprintf("PFC is off on RoCE priority %d on both sides: neither this host nor the peer enables it", p),
			fmt.Sprintf("enable PFC on priority %d on the switch port and here (Willing on takes the switch's; or dcbtop apply --pfc %d)", p, p), ev...)
	case peerOff:
		c.blame(verdict.SidePeer)
		c.add(verdict.CheckRoCEPFC, verdict.Critical, fmt.Sprintf("the peer does not enable PFC on RoCE priority %d", p),
			fmt.Sprintf("enable PFC on priority %d on the switch port", p), ev...)
	case hereOff:
		c.blame(verdict.SideHost)
		c.add(verdict.CheckRoCEPFC, verdict.Critical, fmt.Sprintf("PFC is not in force on RoCE priority %d on this host", p),
			fmt.Sprintf("enable PFC on priority %d (set Willing on to take the switch's, or dcbtop apply)", p), ev...)
	case peer != nil && here == nil:
		c.add(verdict.CheckRoCEPFC, verdict.Unknown, fmt.Sprintf("the peer enables PFC on priority %d; what is in force on this host is unknown", p),
			"run dcbtop where dcbnl or a local agent shows this host's parameters", ev...)
	case peer == nil && here != nil:
		_, why := c.peerParams()
		if why == "" {
			why = "the peer sends no PFC TLV"
		}
		c.add(verdict.CheckRoCEPFC, verdict.Unknown, fmt.Sprintf("PFC is on for priority %d here; the peer's PFC is not known: %s", p, why), "", ev...)
	default:
		c.add(verdict.CheckRoCEPFC, verdict.OK, fmt.Sprintf("PFC is on for priority %d on both sides", p), "", ev...)
	}
}

func (c *checker) roceETS() {
	if !c.needPriority(verdict.CheckRoCEETS) {
		return
	}
	p := uint8(c.prio)
	var ev []string
	worst, summary, fix := verdict.OK, fmt.Sprintf("priority %d's traffic class gets bandwidth on both sides", p), ""
	judge := func(side verdict.Side, words string, e *dcb.ETS) {
		tc := e.PrioTC[p&7]
		if tc > 7 {
			ev = append(ev, fmt.Sprintf("%s: priority %d on TC %d", words, p, tc))
			c.blame(side)
			worst, summary, fix = verdict.Critical, fmt.Sprintf("%s maps priority %d to an invalid traffic class %d", words, p, tc), "map the RoCE priority to a traffic class 0-7"
			return
		}
		ev = append(ev, fmt.Sprintf("%s: priority %d on TC %d, %s %d%%", words, p, tc, e.TSA[tc], e.TCBandwidth[tc]))
		var strict []string
		for t := range uint8(8) {
			if t != tc && e.TSA[t] == lldp.TSAStrict && tcUsed(e, t) {
				strict = append(strict, strconv.Itoa(int(t)))
			}
		}
		switch {
		case e.TSA[tc] == lldp.TSAETS && e.TCBandwidth[tc] == 0:
			c.blame(side)
			worst, summary = verdict.Critical, fmt.Sprintf("%s gives RoCE priority %d's TC %d no ETS bandwidth", words, p, tc)
			fix = "give the RoCE traffic class an ETS share (e.g. 50%)"
		case len(strict) > 0 && e.TSA[tc] != lldp.TSAStrict:
			if worst != verdict.Critical {
				c.blame(side)
				worst, summary = verdict.Warning, fmt.Sprintf("%s: strict-priority TC %s can starve RoCE TC %d", words, strings.Join(strict, ","), tc)
				fix = "keep strict priority for light control traffic only, or give it ETS"
			}
		}
	}
	peer, why := c.peerParams()
	if peer != nil && peer.ETS == nil {
		why = "the peer sends no ETS TLV"
	}
	if c.read(verdict.SidePeer, "the peer's ETS", peer != nil && peer.ETS != nil, why) {
		judge(verdict.SidePeer, "peer", peer.ETS)
	}
	here := c.here("the ETS in force here")
	if here != nil && c.read(verdict.SideHost, "the ETS in force here", here.ETS != nil, "no ETS in force") {
		judge(verdict.SideHost, "operational", here.ETS)
	}
	c.add(verdict.CheckRoCEETS, worst, summary, fix, ev...)
}

// tcUsed reports whether any priority maps to traffic class tc.
func tcUsed(e *dcb.ETS, tc uint8) bool { return slices.Contains(e.PrioTC[:], tc) }

func (c *checker) pfcAgreement() {
	here := c.here("this host's PFC")
	peer := c.peerPFC()
	for _, code := range []diag.Code{diag.CodeDialectUnanswered, diag.CodePFCMismatch, diag.CodeNeitherWilling} {
		if d, ok := c.has(code); ok {
			c.blame(verdict.SidePeer, verdict.SideHost)
			c.add(verdict.CheckPFCAgreement, diagVerdict(d), d.Message, d.Action, "diagnostic "+string(code))
			return
		}
	}
	if here == nil || peer == nil {
		c.add(verdict.CheckPFCAgreement, verdict.OK, "", "", "local source "+string(c.in.LocalSource))
		return
	}
	ev := []string{"resolution: " + c.in.Resolution.PFC.Why}
	if d, ok := c.has(diag.CodeBothWilling); ok {
		c.blame(verdict.SidePeer, verdict.SideHost)
		c.add(verdict.CheckPFCAgreement, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeBothWilling))...)
		return
	}
	c.add(verdict.CheckPFCAgreement, verdict.OK, "this host and the peer agree on PFC", "", ev...)
}

// agents: one DCBX agent on the port. What it rests on: the host's LLDP
// agent processes (read live, or from a recording's host records), the
// frames this host was seen sending, and whether the NIC's firmware
// runs DCBX (DCB netlink GDCBX); an OK needs the processes and the
// firmware's mode read.
func (c *checker) agents() {
	in := c.in
	procsWhy := "this run did not look at the host's processes"
	if c.o.Replay {
		procsWhy = "a capture of LLDPDUs does not say which agents ran on the host; a dcbtop -w recording does"
	}
	procs := c.read(verdict.SideHost, "the host's LLDP agent processes", in.HostAgents != nil, procsWhy)
	mode := c.read(verdict.SideHost, "the NIC's DCBX mode", in.DCBXMode != nil, "DCB netlink's DCB_CMD_GDCBX answered nothing here")
	ev := []string{"local source " + string(in.LocalSource)}
	if procs {
		if len(in.HostAgents) == 0 {
			ev = append(ev, "no LLDP agent process on this host")
		}
		for _, a := range in.HostAgents {
			tx := "transmits"
			if !a.Transmits {
				tx = "receives only"
			}
			ev = append(ev, fmt.Sprintf("host agent %s, %s", engine.Sanitize(a.String()), tx))
		}
	}
	if mode {
		ev = append(ev, "NIC DCBX mode "+engine.Sanitize(*in.DCBXMode))
	}
	for _, a := range in.LocalAgents {
		ev = append(ev, "this host sends as "+engine.Sanitize(a.ChassisID)+" / "+engine.Sanitize(a.PortID))
	}
	if d, ok := c.has(diag.CodeDualLocalAgent); ok {
		c.read(verdict.SideHost, "the LLDPDUs this host sends", true, "")
		c.blame(verdict.SideHost)
		c.add(verdict.CheckAgents, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeDualLocalAgent))...)
		return
	}
	hostAgent := in.LocalSource == engine.SourceAgent || in.LocalSource == engine.SourceObserved
	for _, a := range in.HostAgents {
		hostAgent = hostAgent || a.Transmits
	}
	if in.FirmwareManaged && hostAgent {
		c.blame(verdict.SideHost)
		c.add(verdict.CheckAgents, verdict.Critical, "the NIC firmware runs DCBX and a host agent does too", "run one: switch the firmware DCBX mode off, or stop the host agent",
			append(ev, "firmware DCBX (LLD_MANAGED)")...)
		return
	}
	c.add(verdict.CheckAgents, verdict.OK, "no second DCBX agent on the port", "", ev...)
}
