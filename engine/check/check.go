// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Options say what a Check may assume.
type Options struct {
	// Policy, when set, adds verdict.CheckPolicy.
	Policy *Policy
	// Replay: the snapshot comes from a capture file. A capture of
	// LLDPDUs carries no counters (their checks are UNKNOWN, not OK); a
	// dcbtop -w recording or bundle carries them, and they are judged as
	// live.
	Replay bool
	// Ended: why a live check stopped gathering (Report.Ended).
	Ended End
}

// Run judges an interface's lossless readiness from its snapshot: one
// result per check, in the order of the Check* constants (verdict.CheckPolicy only
// with a policy). A check whose inputs the snapshot lacks is UNKNOWN.
func Run(in *engine.Interface, o Options) []verdict.Result {
	c := checker{in: in, o: o}
	for _, k := range checks {
		if k.name == verdict.CheckPolicy && o.Policy == nil {
			continue
		}
		k.run(&c)
	}
	c.fold()
	return c.out
}

// checks is every check, in the order a report lists them
// (verdict.Names, which TestCheckTable ties it to): its name and the
// checker's method that judges it. A check is one entry here, its name
// in engine/verdict and its method; its diagnostics' area is
// checkarea.go's.
var checks = []struct {
	name verdict.Name
	run  func(*checker)
}{
	{verdict.CheckPeer, (*checker).peer},
	{verdict.CheckRoCEPriority, (*checker).rocePriority},
	{verdict.CheckRoCEPFC, (*checker).rocePFC},
	{verdict.CheckRoCEETS, (*checker).roceETS},
	{verdict.CheckPFCAgreement, (*checker).pfcAgreement},
	{verdict.CheckAgents, (*checker).agents},
	{verdict.CheckPauses, (*checker).pauses},
	{verdict.CheckECN, (*checker).ecn},
	{verdict.CheckLinkPause, (*checker).linkPause},
	{verdict.CheckRoCEGID, (*checker).roceGID},
	{verdict.CheckHeadroom, (*checker).headroom},
	{verdict.CheckTrust, (*checker).trust},
	{verdict.CheckRoCEPath, (*checker).rocePath},
	{verdict.CheckPolicy, (*checker).policy},
}

// noPeerSummary is dcbx-peer's summary without a peer.
const noPeerSummary = "no LLDP peer on the link"

// Judge is the one evaluation of lossless readiness every surface reads:
// Run without a policy, as engine.Config.Judge (a snapshot's
// Interface.Checks). replay says the snapshot comes from a capture file.
func Judge(in *engine.Interface, replay bool) []verdict.Result {
	return Run(in, Options{Replay: replay})
}

// checker accumulates an interface's results.
type checker struct {
	in  *engine.Interface
	o   Options
	out []verdict.Result
	// prio is the RoCE priority (-1: unknown), prioFrom how it was found.
	prio     int
	prioFrom string
	// facts and blames are what the check being judged has read and
	// blames, until add makes its result of them.
	facts  []verdict.Fact
	blames []verdict.Side
}

// read records that the check being judged rests on the fact name of
// side, and whether this run read it (why not, when not); it returns
// known. A check never says OK while a fact it read is unknown (add).
func (c *checker) read(side verdict.Side, name string, known bool, why string) bool {
	f := verdict.Fact{Name: name, Side: side, Read: known}
	if !known {
		f.Why = why
	}
	if i := slices.IndexFunc(c.facts, func(g verdict.Fact) bool { return g.Name == f.Name }); i >= 0 {
		c.facts[i] = f
		return known
	}
	c.facts = append(c.facts, f)
	return known
}

// blame records that the finding of the check being judged names side.
// A blame counts only where a fact of that side was read (add).
func (c *checker) blame(sides ...verdict.Side) {
	for _, s := range sides {
		if !slices.Contains(c.blames, s) {
			c.blames = append(c.blames, s)
		}
	}
}

// add ends the check being judged with its verdict, summary, fix and
// evidence, and the facts and blames recorded since the last add. It
// holds the two rules every check keeps by construction: OK only from
// facts read (an OK beside an unread fact is UNKNOWN, naming it), and
// blame only a side whose facts were read (a finding whose every blame
// rests on nothing read is UNKNOWN).
func (c *checker) add(name verdict.Name, v verdict.Verdict, summary, fix string, evidence ...string) {
	facts, blames := c.facts, c.blames
	c.facts, c.blames = nil, nil
	if facts == nil {
		facts = []verdict.Fact{}
	}
	r := verdict.Result{Interface: c.in.Name, Check: name, Verdict: v, Summary: summary, Fix: fix, Facts: facts, Blames: []verdict.Side{}}
	unread := r.Unread()
	if v == verdict.OK && len(unread) > 0 {
		r.Verdict, r.Fix = verdict.Unknown, ""
		r.Summary = "not known: " + strings.Join(unread, "; ")
	}
	if r.Verdict == verdict.Critical || r.Verdict == verdict.Warning {
		for _, s := range blames {
			if sideRead(facts, s) {
				r.Blames = append(r.Blames, s)
			}
		}
		if len(blames) > 0 && len(r.Blames) == 0 {
			r.Verdict, r.Fix = verdict.Unknown, ""
			r.Summary = "not known: " + strings.Join(unread, "; ")
		}
	}
	for i, u := range unread {
		if f := unreadFact(facts, i); f.Why != "" && strings.Contains(r.Summary, f.Why) && !strings.HasPrefix(r.Summary, "not known: ") {
			continue // the summary says it
		}
		evidence = append(evidence, "not read: "+u)
	}
	if evidence == nil {
		evidence = []string{}
	}
	r.Evidence = evidence
	c.out = append(c.out, r)
}

// unreadFact returns the i-th of facts that was not read.
func unreadFact(facts []verdict.Fact, i int) verdict.Fact {
	for _, f := range facts {
		if !f.Read {
			if i == 0 {
				return f
			}
			i--
		}
	}
	return verdict.Fact{}
}

// sideRead reports whether one of facts of side was read.
func sideRead(facts []verdict.Fact, side verdict.Side) bool {
	return slices.ContainsFunc(facts, func(f verdict.Fact) bool { return f.Side == side && f.Read })
}

// has returns the interface's first active diagnostic of code that is a
// warning or an error (information never changes a verdict).
func (c *checker) has(code diag.Code) (diag.Diagnostic, bool) {
	for _, d := range c.in.Diagnostics {
		if d.Code == code && d.Severity != diag.SeverityInfo {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// localKnown reports whether this host's parameters are known, so that
// what is in force here can be judged.
func (c *checker) localKnown() bool { return c.in.Local != nil && c.in.Operational != nil }

// localWhy says why this host's parameters are not known.
func (c *checker) localWhy() string {
	return "neither DCB netlink nor a local agent shows them"
}

// here returns the parameters the checks read for this host: the
// operational ones when known, else nil; and records the fact name.
func (c *checker) here(name string) *dcb.Params {
	if c.read(verdict.SideHost, name, c.localKnown(), "this host's parameters are unknown: "+c.localWhy()) {
		return c.in.Operational
	}
	return nil
}

// peerParams returns the peer's DCBX parameters where they were read
// (one valid peer, in a dialect dcbtop decodes), else nil and why not, in
// words: "no DCBX from the peer", "no LLDP peer".
func (c *checker) peerParams() (*dcb.Params, string) {
	in := c.in
	switch rs := in.RemoteState(); rs {
	case engine.RemoteNoPeer:
		return nil, "no LLDP peer"
	case engine.RemoteNoDCBX:
		return nil, "no DCBX from the peer"
	case engine.RemoteMultiPeer:
		return nil, "several DCBX peers: the remote parameters are invalid (multi-peer)"
	case engine.RemoteValid:
		switch {
		case in.Dialect == lldp.DialectCIN:
			return nil, "the peer's CIN DCBX (1.00) is not decoded"
		case in.Remote == nil:
			return nil, "no remote parameters"
		}
		return in.Remote, ""
	default:
		return nil, "the peer's DCBX information is no longer valid (" + string(rs) + ")"
	}
}

// peerPFC records and returns the peer's PFC: read when a valid PFC TLV
// (or CEE PFC feature) came.
func (c *checker) peerPFC() *dcb.PFC {
	p, why := c.peerParams()
	if p != nil && p.PFC == nil {
		why = "the peer sends no PFC TLV"
	}
	if c.read(verdict.SidePeer, "the peer's PFC", p != nil && p.PFC != nil, why) {
		return p.PFC
	}
	return nil
}

func (c *checker) peer() {
	in := c.in
	// What the capture heard on the link (a failed capture is its own
	// finding, capture-error, of this check).
	c.read(verdict.SidePeer, "the LLDPDUs on the link", true, "")
	switch rs := in.RemoteState(); {
	case rs == engine.RemoteNoPeer:
		summary := noPeerSummary
		if c.o.Ended == EndWait {
			summary += " within --wait"
		}
		c.blame(verdict.SidePeer)
		c.add(verdict.CheckPeer, verdict.Critical, summary,
			"enable LLDP and DCBX on the switch port (and check the cabling); a firmware DCBX agent may hide LLDP from the host")
	case in.MultiPeer != nil:
		summary := fmt.Sprintf("%d DCBX peers on one link: the remote parameters are invalid (multi-peer)", len(in.MultiPeer.Peers))
		if n := len(in.MultiPeer.Peers); n < 2 {
			// The hold-down outlasts the second peer (NDIS: until every
			// LLDPDU received while two spoke has expired).
			live := "no DCBX peer"
			if n == 1 {
				live = "1 DCBX peer"
			}
			summary = "multi-peer hold-down: " + live + " live now; the remote parameters stay invalid until every LLDPDU received while two or more spoke has expired"
		}
		c.blame(verdict.SidePeer)
		c.add(verdict.CheckPeer, verdict.Critical, summary,
			"leave one DCBX agent on the link (a second switch port, a hypervisor's or NIC firmware agent)", prefixAll("peer ", in.MultiPeer.Peers)...)
	case rs != engine.RemoteValid && rs != engine.RemoteNoDCBX:
		c.blame(verdict.SidePeer)
		if d, ok := c.has(diag.CodePeerLost); ok {
			// How bad a lost peer is depends on how long it has been gone
			// and what it left in force (peer-lost).
			c.add(verdict.CheckPeer, diagVerdict(d), d.Message, d.Action, "diagnostic "+string(diag.CodePeerLost))
			c.peerEnds()
			return
		}
		c.add(verdict.CheckPeer, verdict.Critical, "the peer's DCBX information is no longer valid: "+string(*in.RemoteInvalidReason),
			"check the switch's LLDP agent and the link; the peer must keep sending within its TTL")
	case rs == engine.RemoteNoDCBX:
		c.blame(verdict.SidePeer)
		summary := "the LLDP peer sends no DCBX TLVs"
		if n := c.speakers(); n > 1 {
			summary = fmt.Sprintf("none of the %d LLDP speakers on this port sends DCBX TLVs", n)
		}
		c.add(verdict.CheckPeer, verdict.Critical, summary,
			"enable DCBX (IEEE 802.1Qaz or CEE) on the switch port", c.peerNames()...)
	case in.Dialect == lldp.DialectCIN:
		c.read(verdict.SidePeer, "the peer's DCBX parameters", false, "CIN DCBX (1.00) is recognised, not decoded")
		c.blame(verdict.SidePeer)
		c.add(verdict.CheckPeer, verdict.Warning,
			"the peer speaks only CIN DCBX (1.00, before CEE): an IEEE 802.1Qaz or CEE agent does not negotiate with it (lldpad does only in its CIN mode), and its parameters are not decoded here",
			"configure the switch port for IEEE 802.1Qaz DCBX (or CEE)", append(c.peerNames(), "dialect cin")...)
	default:
		ev := c.peerNames()
		ev = append(ev, "dialect "+in.Dialect.String())
		c.add(verdict.CheckPeer, verdict.OK, "a valid DCBX peer ("+in.Dialect.String()+")", "", ev...)
	}
	c.peerEnds()
}

// peerEnds adds to the dcbx-peer result just made how a capture without
// direction was read (engine.CaptureEnds): the reading in its evidence;
// for an ambiguous one (two ends, no evidence which is this host),
// UNKNOWN, never a verdict on one reading, with both readings and how
// to choose.
func (c *checker) peerEnds() {
	e := c.in.CaptureEnds
	if e == nil {
		return
	}
	r := &c.out[len(c.out)-1]
	switch {
	case e.Ambiguous:
		r.Evidence = append(r.Evidence, "read as two peers: "+r.Summary)
		var macs []string
		for _, rd := range e.Readings {
			r.Evidence = append(r.Evidence, fmt.Sprintf("or the two ends of one link: this host %s, the peer %s", rd.LocalMAC, rd.PeerMAC))
			macs = append(macs, "--local-mac "+rd.LocalMAC.String())
		}
		r.Verdict, r.Summary = verdict.Unknown, "ambiguous: two LLDP speakers, and nothing in the capture says which is this host and which the peer"
		r.Fix = "say which end is this host: " + strings.Join(macs, " or ")
		r.Blames = []verdict.Side{}
		r.Facts = append(r.Facts, verdict.Fact{Name: "which end of the capture is this host", Side: verdict.SideHost, Why: "nothing in the capture says: no --local-mac, System Capabilities, host MAC or willing end decides"})
	case e.PeerMAC != nil:
		r.Evidence = append(r.Evidence, fmt.Sprintf("the capture read as both ends of one link: this host %s, the peer %s (%s)", e.LocalMAC, e.PeerMAC, e.Rule))
	case e.LocalMAC != nil:
		r.Evidence = append(r.Evidence, fmt.Sprintf("the capture's frames from %s read as this host's (%s)", e.LocalMAC, e.Rule))
	}
}

// speakers counts the interface's LLDP speakers: its peers' MSAPs (one
// heard on two addresses is one).
func (c *checker) speakers() int {
	var seen []string
	for i := range c.in.Peers {
		if m := c.in.Peers[i].MSAP(); !slices.Contains(seen, m) {
			seen = append(seen, m)
		}
	}
	return len(seen)
}

// peerNames describes the interface's peers.
func (c *checker) peerNames() []string {
	var ev []string
	for _, p := range c.in.Peers {
		name := engine.Sanitize(p.ChassisID) + " / " + engine.Sanitize(p.PortID)
		if p.SystemName != nil {
			name = engine.Sanitize(*p.SystemName) + " (" + name + ")"
		}
		// Not its frame count, which moves with every LLDPDU: the words
		// of a verdict stay true until what it judges changes.
		ev = append(ev, fmt.Sprintf("peer %s, TTL %d s, DCBX %s", name, p.TTL, p.DCBX))
	}
	return ev
}

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

// counters returns the interface's lossless counters, or nil after adding
// an UNKNOWN result for name.
func (c *checker) counters(name verdict.Name) *lossless.Counters {
	why := "no counters were sampled"
	if c.o.Replay {
		why = "the capture carries no counters; a dcbtop -w recording or bundle does"
	}
	if c.read(verdict.SideHost, "the lossless counters", c.in.Counters != nil, why) {
		return c.in.Counters
	}
	fix := "run with --counters-interval above 0"
	if c.o.Replay {
		fix = "run dcbtop check live on the host, or on a dcbtop -w recording or bundle, which carry them"
	}
	c.add(name, verdict.Unknown, why, fix)
	return nil
}

func (c *checker) pauses() {
	lc := c.counters(verdict.CheckPauses)
	if lc == nil {
		return
	}
	if !c.read(verdict.SideHost, "per-priority pause counters", lc.PFC.Source != nil, "neither dcbnl nor the driver's statistics count them here") {
		c.add(verdict.CheckPauses, verdict.Unknown, "no per-priority pause counters on this interface (neither dcbnl nor the driver's statistics)", "")
		return
	}
	ev := []string{"pause counters from " + string(*lc.PFC.Source)}
	for _, code := range []diag.Code{diag.CodePauseStorm, diag.CodePauseWithoutPFC} {
		if d, ok := c.has(code); ok {
			c.blame(verdict.SideHost)
			c.add(verdict.CheckPauses, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(code))...)
			return
		}
	}
	// No diagnostic says nothing where a rate is missing: a single
	// sample, or a counter that moved by more than any link can count
	// (lossless.MaxCounterRate: a reset or a bad read). Unknown, not OK.
	for _, p := range lc.PFC.Priorities {
		if (p.RxPause != nil && p.RxPauseRate == nil) || (p.TxPause != nil && p.TxPauseRate == nil) {
			c.read(verdict.SideHost, "pause rates", false, fmt.Sprintf("priority %d: one sample so far, or a counter that moved by more than any link can count (a reset or a bad read)", p.Priority))
			c.add(verdict.CheckPauses, verdict.Unknown, fmt.Sprintf("no pause rate over the last interval on priority %d: one sample so far, or a counter that moved by more than any link can count (a reset or a bad read)", p.Priority),
				"sample again (dcbtop check waits for two samples)", ev...)
			return
		}
	}
	c.read(verdict.SideHost, "pause rates", true, "")
	c.add(verdict.CheckPauses, verdict.OK, "no pause storm, no pauses on a priority without PFC", "", append(ev, pauseWords(lc)...)...)
}

// pauseWords says, per priority that paused in the last interval, the
// pauses received (the peer pausing this host) and sent (this host
// pausing the peer), apart.
func pauseWords(lc *lossless.Counters) []string {
	var out []string
	for _, p := range lc.PFC.Priorities {
		rx, tx := deref(p.RxPauseRate), deref(p.TxPauseRate)
		if rx == 0 && tx == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("priority %d: %.0f pauses/s received (the peer pausing this host), %.0f/s sent (this host pausing the peer)", p.Priority, rx, tx))
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// ecn judges DCQCN at this host's end of the traffic: as a receiver
// (marked packets arrive, np_ecn_marked_roce_packets, and CNPs go back,
// np_cnp_sent) and as a sender (CNPs arrive and are handled,
// rp_cnp_handled, or ignored, rp_cnp_ignored); the counters of the
// RDMA device's hardware counters (drivers/infiniband/hw/mlx5/counters.c).
// It rests on those counters' rates over the last interval.
func (c *checker) ecn() {
	lc := c.counters(verdict.CheckECN)
	if lc == nil {
		return
	}
	if !c.read(verdict.SideHost, "RDMA devices", len(lc.RDMA) > 0, "no RDMA device on this interface") {
		c.add(verdict.CheckECN, verdict.Unknown, "no RDMA device on this interface: no congestion counters", "")
		return
	}
	var ev []string
	rated := false
	for _, r := range lc.RDMA {
		ev = append(ev, fmt.Sprintf("RDMA device %s port %d", engine.Sanitize(r.Device), r.Port))
		for _, k := range []lossless.CongestionCounter{lossless.CNPSent, lossless.CNPHandled, lossless.ECNMarked} {
			if _, ok := r.Rates[k.Key()]; ok {
				rated = true
			}
		}
	}
	for _, code := range []diag.Code{diag.CodeCNPWithoutECN, diag.CodeECNNeverMarked, diag.CodeCNPPriorityLossy} {
		if d, ok := c.has(code); ok {
			c.read(verdict.SideHost, "congestion counters", true, "")
			c.blame(verdict.SideHost)
			c.add(verdict.CheckECN, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(code))...)
			return
		}
	}
	c.read(verdict.SideHost, "congestion counters", rated, "no rate of np_cnp_sent, rp_cnp_handled or np_ecn_marked_roce_packets: the driver has none, or one sample so far")
	c.add(verdict.CheckECN, verdict.OK, "no congestion notifications without ECN marking, at either end", "", ev...)
}

func (c *checker) linkPause() {
	lc := c.counters(verdict.CheckLinkPause)
	if lc == nil {
		return
	}
	lp := lc.LinkPause
	why := "nothing reports the link-wide PAUSE settings here"
	if lp != nil && lp.Unknown != nil {
		why = *lp.Unknown
	}
	src := "ethtool"
	if lp != nil && lp.Source != "" {
		src = lp.Source
	}
	rx := c.read(verdict.SideHost, "link-wide PAUSE rx", lp != nil && lp.RX != nil, why)
	tx := c.read(verdict.SideHost, "link-wide PAUSE tx", lp != nil && lp.TX != nil, why)
	if !rx && !tx {
		c.add(verdict.CheckLinkPause, verdict.Unknown, "link-wide PAUSE unknown: "+why, "")
		return
	}
	ev := []string{fmt.Sprintf("link-wide PAUSE rx %s, tx %s (%s)", lossless.OnOffPtr(lp.RX), lossless.OnOffPtr(lp.TX), src)}
	for _, code := range []diag.Code{diag.CodeLinkPauseWithPFC, diag.CodeLinkPauseFrames} {
		if d, ok := c.has(code); ok {
			c.blame(verdict.SideHost)
			c.add(verdict.CheckLinkPause, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(code))...)
			return
		}
	}
	if lp.On() {
		// On, and no finding: only fine where no PFC is in force.
		here := c.here("the PFC in force here")
		if here != nil && here.PFC != nil && here.PFC.Enabled != 0 {
			c.add(verdict.CheckLinkPause, verdict.Unknown, "link-wide PAUSE is on beside PFC, and no finding says it", "", ev...)
			return
		}
		c.add(verdict.CheckLinkPause, verdict.OK, "link-wide PAUSE is on, and no PFC is in force here", "", ev...)
		return
	}
	c.add(verdict.CheckLinkPause, verdict.OK, "link-wide PAUSE is off", "", ev...)
}

func (c *checker) roceGID() {
	lc := c.counters(verdict.CheckRoCEGID)
	if lc == nil {
		return
	}
	var ev []string
	readable := true
	for _, r := range lc.RoCE {
		if !r.IsRoCE() {
			continue
		}
		g := "no routable RoCE v2 GID"
		if r.RoutableV2 != nil {
			g = fmt.Sprintf("routable RoCE v2 GID index %d", *r.RoutableV2)
		} else if r.RoutableV2Why == nil {
			readable = false
			g = "GID table not read"
		}
		ev = append(ev, fmt.Sprintf("RDMA device %s port %d: %s", engine.Sanitize(r.Device), r.Port, g))
	}
	if !c.read(verdict.SideHost, "RoCE ports", len(ev) > 0, "no RDMA device over Ethernet on this interface") {
		c.add(verdict.CheckRoCEGID, verdict.Unknown, "no RoCE port (RDMA device over Ethernet) on this interface", "")
		return
	}
	c.read(verdict.SideHost, "the GID table", readable, "the GID table could not be read")
	if d, ok := c.has(diag.CodeRoCEGIDNotV2); ok {
		c.blame(verdict.SideHost)
		c.add(verdict.CheckRoCEGID, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeRoCEGIDNotV2))...)
		return
	}
	c.add(verdict.CheckRoCEGID, verdict.OK, "a routable RoCE v2 GID on every RoCE port", "", ev...)
}

// diagVerdict is a diagnostic's verdict: CRITICAL for an error, WARNING
// otherwise.
func diagVerdict(d diag.Diagnostic) verdict.Verdict {
	if d.Severity == diag.SeverityError {
		return verdict.Critical
	}
	return verdict.Warning
}

// headroom: each PFC priority's receive buffer has room, and the PFC
// delay the driver sizes headroom from is set (pfc-no-headroom).
func (c *checker) headroom() {
	lc := c.counters(verdict.CheckHeadroom)
	if lc == nil {
		return
	}
	q := lc.QoS
	if !c.read(verdict.SideHost, "the receive buffer split", q != nil && q.Buffer != nil, "the driver reports no buffer split (DCB netlink DCB_ATTR_DCB_BUFFER)") {
		c.add(verdict.CheckHeadroom, verdict.Unknown, "the driver reports no receive buffer split (DCB netlink DCB_ATTR_DCB_BUFFER)", "")
		return
	}
	var ev []string
	here := c.here("the PFC in force here")
	if here != nil && here.PFC != nil {
		for _, prio := range here.PFC.Enabled.List() {
			b := q.Buffer.PrioBuffer[prio] % 8
			ev = append(ev, fmt.Sprintf("priority %d: buffer %d, %d bytes", prio, b, q.Buffer.SizeBytes[b]))
		}
	}
	if c.read(verdict.SideHost, "the PFC delay", q.PFCDelay != nil, "DCB netlink reports no PFC delay (ieee_pfc delay)") {
		ev = append(ev, fmt.Sprintf("PFC delay %d", *q.PFCDelay))
	}
	if d, ok := c.has(diag.CodePFCNoHeadroom); ok {
		c.blame(verdict.SideHost)
		c.add(verdict.CheckHeadroom, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodePFCNoHeadroom))...)
		return
	}
	if here != nil && here.PFC == nil {
		c.read(verdict.SideHost, "the PFC in force here", false, "no PFC in force: which buffers need headroom is not known")
	}
	c.add(verdict.CheckHeadroom, verdict.OK, "every PFC priority has a receive buffer with room", "", ev...)
}

// trust: the port classifies by the field the APP table maps. The trust
// is read where DCB netlink reports the APP trust table; without one it is
// derived from the APP table as mlx5 sets it (mlx5e_dcbnl_ieee_setapp:
// DSCP first once a DSCP entry exists), a fact only on mlx5.
func (c *checker) trust() {
	lc := c.counters(verdict.CheckTrust)
	if lc == nil {
		return
	}
	q := lc.QoS
	_, known := q.TrustsDSCP()
	why := "the port's trust (DSCP or PCP) is not reported by DCB netlink"
	if known && q.TrustDerived && (lc.Driver == nil || *lc.Driver != "mlx5_core") {
		driver := "the driver is not known"
		if lc.Driver != nil {
			driver = "this driver is " + engine.Sanitize(*lc.Driver)
		}
		known, why = false, "the kernel has no APP trust table here, and the trust derived from the APP table is how mlx5 sets it; "+driver
	}
	if !c.read(verdict.SideHost, "the port's trust", known, why) {
		c.add(verdict.CheckTrust, verdict.Unknown, why, "")
		return
	}
	how := "reported by DCB netlink (APP trust table)"
	if q.TrustDerived {
		how = "derived from the APP table as mlx5 sets it"
	}
	ev := []string{fmt.Sprintf("trust %s, %s", strings.Join(q.Trust, ", "), how)}
	if d, ok := c.has(diag.CodeTrustMismatch); ok {
		c.blame(verdict.SideHost)
		c.add(verdict.CheckTrust, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeTrustMismatch))...)
		return
	}
	c.here("this host's APP table")
	if q.TrustDerived {
		c.add(verdict.CheckTrust, verdict.OK, "the trust follows the APP table (derived: the kernel has no trust table)", "", ev...)
		return
	}
	c.add(verdict.CheckTrust, verdict.OK, "the port classifies by the field the APP table maps", "", ev...)
}

func (c *checker) rocePath() {
	lc := c.counters(verdict.CheckRoCEPath)
	if lc == nil {
		return
	}
	if !c.read(verdict.SideHost, "RoCE ports", len(lc.RoCEPaths) > 0, "no RDMA device over Ethernet on this interface") {
		c.add(verdict.CheckRoCEPath, verdict.Unknown, "no RoCE port (RDMA device over Ethernet) on this interface", "")
		return
	}
	worst := lossless.PathOK
	var ev, unknown []string
	var bad *lossless.PathHop
	var badAt *lossless.RoCEPath
	for i := range lc.RoCEPaths {
		p := &lc.RoCEPaths[i]
		for i := range p.Hops {
			h := &p.Hops[i]
			v := "?"
			if h.Value != nil {
				v = *h.Value
			}
			ev = append(ev, fmt.Sprintf("%s/%d %s: %s %s", engine.Sanitize(p.Device), p.Port, h.Hop, h.Verdict, engine.Sanitize(v)))
			if h.Verdict == lossless.PathUnknown && !slices.Contains(unknown, string(h.Hop)) {
				unknown = append(unknown, string(h.Hop))
			}
			if h.Verdict.Worse(worst) {
				worst, bad, badAt = h.Verdict, h, p
			}
		}
	}
	for _, p := range lc.RoCEPaths {
		for _, h := range p.Hops {
			c.read(verdict.SideHost, "the RoCE path's "+string(h.Hop)+" hop", h.Verdict != lossless.PathUnknown, h.Reason)
		}
	}
	if badAt != nil {
		// Blame the hop the path's facts blame (RoCEPath.Cause), as the
		// overview does.
		for i := range badAt.Hops {
			if badAt.Hops[i].Hop == badAt.Cause && badAt.Hops[i].Verdict == worst {
				bad = &badAt.Hops[i]
			}
		}
	}
	switch worst {
	case lossless.PathError:
		c.blame(verdict.SideHost)
		c.add(verdict.CheckRoCEPath, verdict.Critical, hopSummary(badAt, bad), "fix that hop (see the diagnostics and the Lossless pane's path)", ev...)
		c.out[len(c.out)-1].Hop = string(bad.Hop)
	case lossless.PathWarning:
		c.blame(verdict.SideHost)
		c.add(verdict.CheckRoCEPath, verdict.Warning, hopSummary(badAt, bad), "fix that hop (see the diagnostics and the Lossless pane's path)", ev...)
		c.out[len(c.out)-1].Hop = string(bad.Hop)
	case lossless.PathUnknown:
		c.add(verdict.CheckRoCEPath, verdict.Unknown, "RoCE path: unknown at "+strings.Join(unknown, ", "), "", ev...)
	default:
		c.add(verdict.CheckRoCEPath, verdict.OK, "every hop of the RoCE path is ok", "", ev...)
	}
}

// prios renders a priority set as "{3,4}", "{}" when empty.
func prios(s dcb.PrioSet) string {
	var b []string
	for _, p := range s.List() {
		b = append(b, strconv.Itoa(int(p)))
	}
	return "{" + strings.Join(b, ",") + "}"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func prefixAll(prefix string, s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = prefix + engine.Sanitize(v)
	}
	return out
}

// Changes says which checks a change of an interface would change, one
// line each ("trust: WARNING → OK"), judging before and after with o.
func Changes(before, after *engine.Interface, o Options) []string {
	was := map[verdict.Name]verdict.Verdict{}
	for _, r := range judged(before, o) {
		was[r.Check] = r.Verdict
	}
	var out []string
	for _, r := range judged(after, o) {
		if v, ok := was[r.Check]; !ok || v != r.Verdict {
			out = append(out, fmt.Sprintf("%s: %s → %s", r.Check, v, r.Verdict))
		}
	}
	return out
}
