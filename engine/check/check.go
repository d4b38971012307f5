package check

import (
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
	// Policy, when set, adds CheckPolicy.
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
// result per check, in the order of the Check* constants (CheckPolicy only
// with a policy). A check whose inputs the snapshot lacks is UNKNOWN.
func Run(in *engine.Interface, o Options) []Result {
	c := checker{in: in, o: o}
	c.peer()
	c.rocePriority()
	c.rocePFC()
	c.roceETS()
	c.pfcAgreement()
	c.agents()
	c.pauses()
	c.ecn()
	c.linkPause()
	c.roceGID()
	c.headroom()
	c.trust()
	c.rocePath()
	if o.Policy != nil {
		c.policy()
	}
	c.fold()
	return c.out
}

// checker accumulates an interface's results.
type checker struct {
	in  *engine.Interface
	o   Options
	out []Result
	// prio is the RoCE priority (-1: unknown), prioFrom how it was found.
	prio     int
	prioFrom string
}

func (c *checker) add(name Name, v Verdict, summary, fix string, evidence ...string) {
	if evidence == nil {
		evidence = []string{}
	}
	c.out = append(c.out, Result{Interface: c.in.Name, Check: name, Verdict: v, Summary: summary, Evidence: evidence, Fix: fix})
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

func (c *checker) peer() {
	in := c.in
	switch rs := in.RemoteState(); {
	case rs == engine.RemoteNoPeer:
		summary := "no LLDP peer on the link"
		if c.o.Ended == EndWait {
			summary += " within --wait"
		}
		c.add(CheckPeer, VerdictCritical, summary,
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
		c.add(CheckPeer, VerdictCritical, summary,
			"leave one DCBX agent on the link (a second switch port, a hypervisor's or NIC firmware agent)", prefixAll("peer ", in.MultiPeer.Peers)...)
	case rs != engine.RemoteValid && rs != engine.RemoteNoDCBX:
		if d, ok := c.has(diag.CodePeerLost); ok {
			// How bad a lost peer is depends on how long it has been gone
			// and what it left in force (peer-lost).
			c.add(CheckPeer, diagVerdict(d), d.Message, d.Action, "diagnostic "+string(diag.CodePeerLost))
			c.peerEnds()
			return
		}
		c.add(CheckPeer, VerdictCritical, "the peer's DCBX information is no longer valid: "+string(*in.RemoteInvalidReason),
			"check the switch's LLDP agent and the link; the peer must keep sending within its TTL")
	case rs == engine.RemoteNoDCBX:
		c.add(CheckPeer, VerdictCritical, "the LLDP peer sends no DCBX TLVs",
			"enable DCBX (IEEE 802.1Qaz or CEE) on the switch port", c.peerNames()...)
	default:
		ev := c.peerNames()
		ev = append(ev, "dialect "+in.Dialect.String())
		c.add(CheckPeer, VerdictOK, "a valid DCBX peer ("+in.Dialect.String()+")", "", ev...)
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
		r.Verdict, r.Summary = VerdictUnknown, "ambiguous: two LLDP speakers, and nothing in the capture says which is this host and which the peer"
		r.Fix = "say which end is this host: " + strings.Join(macs, " or ")
	case e.PeerMAC != nil:
		r.Evidence = append(r.Evidence, fmt.Sprintf("the capture read as both ends of one link: this host %s, the peer %s (%s)", e.LocalMAC, e.PeerMAC, e.Rule))
	case e.LocalMAC != nil:
		r.Evidence = append(r.Evidence, fmt.Sprintf("the capture's frames from %s read as this host's (%s)", e.LocalMAC, e.Rule))
	}
}

// peerNames describes the interface's peers.
func (c *checker) peerNames() []string {
	var ev []string
	for _, p := range c.in.Peers {
		name := engine.Sanitize(p.ChassisID) + " / " + engine.Sanitize(p.PortID)
		if p.SystemName != nil {
			name = engine.Sanitize(*p.SystemName) + " (" + name + ")"
		}
		frames := fmt.Sprintf("%d frames", p.Frames)
		if p.Frames == 1 {
			frames = "1 frame"
		}
		ev = append(ev, fmt.Sprintf("peer %s, TTL %d s, %s", name, p.TTL, frames))
	}
	return ev
}

// here returns the parameters the RoCE checks read for this host: the
// operational ones when known, else nil.
func (c *checker) here() *dcb.Params {
	if c.localKnown() {
		return c.in.Operational
	}
	return nil
}

func (c *checker) rocePriority() {
	c.prio = -1
	if c.rocePriorityFromPaths() {
		return
	}
	// No RoCE port sampled: the APP table in force here, else the
	// peer's, says which priority the switch is told RoCE uses.
	sources := []struct {
		name string
		p    *dcb.Params
	}{{"operational", c.here()}, {"peer", c.in.Remote}}
	for _, s := range sources {
		if s.p == nil {
			continue
		}
		for _, a := range s.p.App {
			if (a.Selector == lldp.AppSelUDP || a.Selector == lldp.AppSelPort) && a.Protocol == lossless.RoCEv2Port {
				c.prio, c.prioFrom = int(a.Priority), fmt.Sprintf("%s APP %s %d -> priority %d", s.name, a.Selector, a.Protocol, a.Priority)
				c.add(CheckRoCEPriority, VerdictOK, fmt.Sprintf("the APP table puts RoCEv2 (UDP %d) on priority %d (no RoCE port sampled: where the NIC puts it is not judged)", lossless.RoCEv2Port, a.Priority), "", c.prioFrom)
				return
			}
		}
	}
	// No UDP 4791 entry: a DSCP entry on a PFC priority is RoCE marked by
	// DSCP (the host trusts DSCP).
	for _, s := range sources {
		if s.p == nil || s.p.PFC == nil {
			continue
		}
		for _, a := range s.p.App {
			if a.Selector == lldp.AppSelDSCP && s.p.PFC.Enabled.Has(a.Priority) {
				c.prio, c.prioFrom = int(a.Priority), fmt.Sprintf("%s APP dscp %d -> priority %d, which has PFC", s.name, a.Protocol, a.Priority)
				c.add(CheckRoCEPriority, VerdictOK, fmt.Sprintf("RoCE marked DSCP %d is on lossless priority %d (no RoCE port sampled: where the NIC puts it is not judged)", a.Protocol, a.Priority), "", c.prioFrom)
				return
			}
		}
	}
	var ev []string
	for _, s := range sources {
		if s.p != nil {
			ev = append(ev, fmt.Sprintf("%s: %d APP entries, none for UDP %d or a DSCP on a PFC priority", s.name, len(s.p.App), lossless.RoCEv2Port))
		}
	}
	if len(ev) == 0 {
		c.add(CheckRoCEPriority, VerdictUnknown, "no APP table to read the RoCE priority from (no valid peer, local parameters unknown)", "")
		return
	}
	c.add(CheckRoCEPriority, VerdictCritical, fmt.Sprintf("no APP entry maps RoCEv2 (UDP %d) or its DSCP to a priority", lossless.RoCEv2Port),
		fmt.Sprintf("advertise an APP entry from the switch: udp-port %d (or the RoCE DSCP) -> the lossless priority", lossless.RoCEv2Port), ev...)
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
	summary := fmt.Sprintf("RoCE traffic of %s/%d: %s", engine.Sanitize(at.Device), at.Port, worst.Reason)
	fix := ""
	if v != VerdictOK && v != VerdictUnknown {
		fix = "map the DSCP RoCE carries to the lossless priority where the port trusts DSCP (dcb app add dev IF dscp-prio 26:3), or tag it with that PCP; an APP entry for UDP 4791 tells the switch, not the NIC"
	}
	c.add(CheckRoCEPriority, v, summary, fix, ev...)
	return true
}

func (c *checker) rocePFC() {
	if c.prio < 0 {
		c.add(CheckRoCEPFC, VerdictUnknown, "the RoCE priority is unknown", "", "see "+string(CheckRoCEPriority))
		return
	}
	p := uint8(c.prio)
	var ev []string
	peerOn, hereOn := false, false
	if r := c.in.Remote; c.in.RemoteValid && r != nil && r.PFC != nil {
		peerOn = r.PFC.Enabled.Has(p)
		ev = append(ev, fmt.Sprintf("peer PFC enabled %s", prios(r.PFC.Enabled)))
	} else {
		ev = append(ev, "peer: no valid PFC")
	}
	here := c.here()
	if here != nil && here.PFC != nil {
		hereOn = here.PFC.Enabled.Has(p)
		ev = append(ev, fmt.Sprintf("operational PFC enabled %s (%s)", prios(here.PFC.Enabled), c.in.Resolution.PFC.Why))
	} else if here != nil {
		ev = append(ev, "operational: no PFC")
	} else {
		ev = append(ev, "operational: unknown (local parameters unknown)")
	}
	switch {
	case !peerOn:
		c.add(CheckRoCEPFC, VerdictCritical, fmt.Sprintf("the peer does not enable PFC on RoCE priority %d", p),
			fmt.Sprintf("enable PFC on priority %d on the switch port", p), ev...)
	case here == nil:
		c.add(CheckRoCEPFC, VerdictUnknown, fmt.Sprintf("the peer enables PFC on priority %d; what is in force on this host is unknown", p),
			"run dcbtop where dcbnl or a local agent shows this host's parameters", ev...)
	case !hereOn:
		c.add(CheckRoCEPFC, VerdictCritical, fmt.Sprintf("PFC is not in force on RoCE priority %d on this host", p),
			fmt.Sprintf("enable PFC on priority %d (set Willing on to take the switch's, or dcbtop apply)", p), ev...)
	default:
		c.add(CheckRoCEPFC, VerdictOK, fmt.Sprintf("PFC is on for priority %d on both sides", p), "", ev...)
	}
}

func (c *checker) roceETS() {
	if c.prio < 0 {
		c.add(CheckRoCEETS, VerdictUnknown, "the RoCE priority is unknown", "", "see "+string(CheckRoCEPriority))
		return
	}
	p := uint8(c.prio)
	var ev []string
	worst, summary, fix := VerdictOK, fmt.Sprintf("priority %d's traffic class gets bandwidth on both sides", p), ""
	judge := func(side string, e *dcb.ETS) {
		if e == nil {
			ev = append(ev, side+": no ETS")
			if worst == VerdictOK {
				worst, summary = VerdictUnknown, side+" ETS is unknown"
			}
			return
		}
		tc := e.PrioTC[p&7]
		if tc > 7 {
			ev = append(ev, fmt.Sprintf("%s: priority %d on TC %d", side, p, tc))
			worst, summary, fix = VerdictCritical, fmt.Sprintf("%s maps priority %d to an invalid traffic class %d", side, p, tc), "map the RoCE priority to a traffic class 0-7"
			return
		}
		ev = append(ev, fmt.Sprintf("%s: priority %d on TC %d, %s %d%%", side, p, tc, e.TSA[tc], e.TCBandwidth[tc]))
		var strict []string
		for t := range uint8(8) {
			if t != tc && e.TSA[t] == lldp.TSAStrict && tcUsed(e, t) {
				strict = append(strict, strconv.Itoa(int(t)))
			}
		}
		switch {
		case e.TSA[tc] == lldp.TSAETS && e.TCBandwidth[tc] == 0:
			worst, summary = VerdictCritical, fmt.Sprintf("%s gives RoCE priority %d's TC %d no ETS bandwidth", side, p, tc)
			fix = "give the RoCE traffic class an ETS share (e.g. 50%)"
		case len(strict) > 0 && e.TSA[tc] != lldp.TSAStrict:
			if worst != VerdictCritical {
				worst, summary = VerdictWarning, fmt.Sprintf("%s: strict-priority TC %s can starve RoCE TC %d", side, strings.Join(strict, ","), tc)
				fix = "keep strict priority for light control traffic only, or give it ETS"
			}
		}
	}
	if c.in.RemoteValid && c.in.Remote != nil {
		judge("peer", c.in.Remote.ETS)
	} else {
		judge("peer", nil)
	}
	if here := c.here(); here != nil {
		judge("operational", here.ETS)
	} else {
		ev = append(ev, "operational: unknown (local parameters unknown)")
		if worst == VerdictOK {
			worst, summary = VerdictUnknown, fmt.Sprintf("the peer gives priority %d bandwidth; what is in force on this host is unknown", p)
		}
	}
	c.add(CheckRoCEETS, worst, summary, fix, ev...)
}

// tcUsed reports whether any priority maps to traffic class tc.
func tcUsed(e *dcb.ETS, tc uint8) bool { return slices.Contains(e.PrioTC[:], tc) }

func (c *checker) pfcAgreement() {
	for _, code := range []diag.Code{diag.CodePFCMismatch, diag.CodeNeitherWilling} {
		if d, ok := c.has(code); ok {
			c.add(CheckPFCAgreement, diagVerdict(d), d.Message, d.Action, "diagnostic "+string(code))
			return
		}
	}
	if !c.localKnown() || !c.in.RemoteValid || c.in.Remote == nil || c.in.Remote.PFC == nil {
		c.add(CheckPFCAgreement, VerdictUnknown, "needs this host's parameters and a valid peer PFC to compare", "",
			"local source "+string(c.in.LocalSource))
		return
	}
	ev := []string{"resolution: " + c.in.Resolution.PFC.Why}
	if d, ok := c.has(diag.CodeBothWilling); ok {
		c.add(CheckPFCAgreement, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeBothWilling))...)
		return
	}
	c.add(CheckPFCAgreement, VerdictOK, "this host and the peer agree on PFC", "", ev...)
}

func (c *checker) agents() {
	if d, ok := c.has(diag.CodeDualLocalAgent); ok {
		c.add(CheckAgents, diagVerdict(d), d.Message, d.Action, "diagnostic "+string(diag.CodeDualLocalAgent))
		return
	}
	ev := []string{"local source " + string(c.in.LocalSource)}
	for _, a := range c.in.LocalAgents {
		ev = append(ev, "local agent "+engine.Sanitize(a.ChassisID)+" / "+engine.Sanitize(a.PortID))
	}
	if c.in.FirmwareManaged && (c.in.LocalSource == engine.SourceAgent || c.in.LocalSource == engine.SourceObserved) {
		c.add(CheckAgents, VerdictCritical, "the NIC firmware runs DCBX and a host agent does too", "run one: switch the firmware DCBX mode off, or stop the host agent",
			append(ev, "firmware DCBX (LLD_MANAGED)")...)
		return
	}
	c.add(CheckAgents, VerdictOK, "one DCBX agent on the port", "", ev...)
}

// counters returns the interface's lossless counters, or nil after adding
// an UNKNOWN result for name.
func (c *checker) counters(name Name) *lossless.Counters {
	switch {
	case c.o.Replay && c.in.Counters == nil:
		c.add(name, VerdictUnknown, "the capture carries no counters", "run dcbtop check live on the host, or on a dcbtop -w recording or bundle, which carry them")
	case c.in.Counters == nil:
		c.add(name, VerdictUnknown, "no counters were sampled", "run with --counters-interval above 0")
	default:
		return c.in.Counters
	}
	return nil
}

func (c *checker) pauses() {
	lc := c.counters(CheckPauses)
	if lc == nil {
		return
	}
	if lc.PFC.Source == nil {
		c.add(CheckPauses, VerdictUnknown, "no per-priority pause counters on this interface (neither dcbnl nor the driver's statistics)", "")
		return
	}
	ev := []string{"pause counters from " + string(*lc.PFC.Source)}
	if d, ok := c.has(diag.CodePauseStorm); ok {
		c.add(CheckPauses, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodePauseStorm))...)
		return
	}
	if d, ok := c.has(diag.CodePauseWithoutPFC); ok {
		c.add(CheckPauses, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodePauseWithoutPFC))...)
		return
	}
	// No diagnostic says nothing where a rate is missing: a single
	// sample, or a counter that moved by more than any link can count
	// (lossless.MaxCounterRate: a reset or a bad read). Unknown, not OK.
	for _, p := range lc.PFC.Priorities {
		if (p.RxPause != nil && p.RxPauseRate == nil) || (p.TxPause != nil && p.TxPauseRate == nil) {
			c.add(CheckPauses, VerdictUnknown, fmt.Sprintf("no pause rate over the last interval on priority %d: one sample so far, or a counter that moved by more than any link can count (a reset or a bad read)", p.Priority),
				"sample again (dcbtop check waits for two samples)", ev...)
			return
		}
	}
	c.add(CheckPauses, VerdictOK, "no pause storm, no pauses on a priority without PFC", "", ev...)
}

func (c *checker) ecn() {
	lc := c.counters(CheckECN)
	if lc == nil {
		return
	}
	if len(lc.RDMA) == 0 {
		c.add(CheckECN, VerdictUnknown, "no RDMA device on this interface: no congestion counters", "")
		return
	}
	var ev []string
	for _, r := range lc.RDMA {
		ev = append(ev, fmt.Sprintf("RDMA device %s port %d", engine.Sanitize(r.Device), r.Port))
	}
	if d, ok := c.has(diag.CodeCNPWithoutECN); ok {
		c.add(CheckECN, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeCNPWithoutECN))...)
		return
	}
	c.add(CheckECN, VerdictOK, "no congestion notifications without ECN marking", "", ev...)
}

func (c *checker) linkPause() {
	lc := c.counters(CheckLinkPause)
	if lc == nil {
		return
	}
	lp := lc.LinkPause
	if !lp.Known() {
		why := "nothing reports the link-wide PAUSE settings here"
		if lp != nil && lp.Unknown != nil {
			why = "link-wide PAUSE unknown: " + *lp.Unknown
		}
		c.add(CheckLinkPause, VerdictUnknown, why, "")
		return
	}
	ev := []string{fmt.Sprintf("link-wide PAUSE rx %s, tx %s (%s)", lossless.OnOffPtr(lp.RX), lossless.OnOffPtr(lp.TX), lp.Source)}
	if d, ok := c.has(diag.CodeLinkPauseWithPFC); ok {
		c.add(CheckLinkPause, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeLinkPauseWithPFC))...)
		return
	}
	c.add(CheckLinkPause, VerdictOK, "no link-wide PAUSE beside PFC", "", ev...)
}

func (c *checker) roceGID() {
	lc := c.counters(CheckRoCEGID)
	if lc == nil {
		return
	}
	var ev []string
	for _, r := range lc.RoCE {
		if !r.IsRoCE() {
			continue
		}
		g := "no routable RoCE v2 GID"
		if r.RoutableV2 != nil {
			g = fmt.Sprintf("routable RoCE v2 GID index %d", *r.RoutableV2)
		}
		ev = append(ev, fmt.Sprintf("RDMA device %s port %d: %s", engine.Sanitize(r.Device), r.Port, g))
	}
	if len(ev) == 0 {
		c.add(CheckRoCEGID, VerdictUnknown, "no RoCE port (RDMA device over Ethernet) on this interface", "")
		return
	}
	if d, ok := c.has(diag.CodeRoCEGIDNotV2); ok {
		c.add(CheckRoCEGID, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeRoCEGIDNotV2))...)
		return
	}
	for _, r := range lc.RoCE {
		if r.IsRoCE() && r.RoutableV2 == nil {
			c.add(CheckRoCEGID, VerdictUnknown, "the GID table could not be read", "", ev...)
			return
		}
	}
	c.add(CheckRoCEGID, VerdictOK, "a routable RoCE v2 GID on every RoCE port", "", ev...)
}

// diagVerdict is a diagnostic's verdict: CRITICAL for an error, WARNING
// otherwise.
func diagVerdict(d diag.Diagnostic) Verdict {
	if d.Severity == diag.SeverityError {
		return VerdictCritical
	}
	return VerdictWarning
}

func (c *checker) headroom() {
	lc := c.counters(CheckHeadroom)
	if lc == nil {
		return
	}
	q := lc.QoS
	if q == nil || q.Buffer == nil {
		c.add(CheckHeadroom, VerdictUnknown, "the driver reports no receive buffer split (DCB netlink DCB_ATTR_DCB_BUFFER)", "")
		return
	}
	var ev []string
	if op := c.in.Operational; op != nil && op.PFC != nil {
		for _, prio := range op.PFC.Enabled.List() {
			b := q.Buffer.PrioBuffer[prio] % 8
			ev = append(ev, fmt.Sprintf("priority %d: buffer %d, %d bytes", prio, b, q.Buffer.SizeBytes[b]))
		}
	}
	if q.PFCDelay != nil {
		ev = append(ev, fmt.Sprintf("PFC delay %d", *q.PFCDelay))
	}
	if d, ok := c.has(diag.CodePFCNoHeadroom); ok {
		c.add(CheckHeadroom, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodePFCNoHeadroom))...)
		return
	}
	if op := c.in.Operational; op == nil || op.PFC == nil {
		c.add(CheckHeadroom, VerdictUnknown, "no PFC in force: which buffers need headroom is not known", "", ev...)
		return
	}
	c.add(CheckHeadroom, VerdictOK, "every PFC priority has a receive buffer with room", "", ev...)
}

func (c *checker) trust() {
	lc := c.counters(CheckTrust)
	if lc == nil {
		return
	}
	q := lc.QoS
	if _, known := q.TrustsDSCP(); !known {
		c.add(CheckTrust, VerdictUnknown, "the port's trust (DSCP or PCP) is not reported by DCB netlink", "")
		return
	}
	how := "reported by DCB netlink (APP trust table)"
	if q.TrustDerived {
		how = "derived from the APP table as the driver sets it"
	}
	ev := []string{fmt.Sprintf("trust %s, %s", strings.Join(q.Trust, ", "), how)}
	if d, ok := c.has(diag.CodeTrustMismatch); ok {
		c.add(CheckTrust, diagVerdict(d), d.Message, d.Action, append(ev, "diagnostic "+string(diag.CodeTrustMismatch))...)
		return
	}
	if q.TrustDerived {
		c.add(CheckTrust, VerdictOK, "the trust follows the APP table (derived: the kernel has no trust table)", "", ev...)
		return
	}
	c.add(CheckTrust, VerdictOK, "the port classifies by the field the APP table maps", "", ev...)
}

func (c *checker) rocePath() {
	lc := c.counters(CheckRoCEPath)
	if lc == nil {
		return
	}
	if len(lc.RoCEPaths) == 0 {
		c.add(CheckRoCEPath, VerdictUnknown, "no RoCE port (RDMA device over Ethernet) on this interface", "")
		return
	}
	worst := lossless.PathOK
	var ev, unknown []string
	var bad *lossless.PathHop
	for _, p := range lc.RoCEPaths {
		for i := range p.Hops {
			h := &p.Hops[i]
			v := "?"
			if h.Value != nil {
				v = *h.Value
			}
			ev = append(ev, fmt.Sprintf("%s/%d %s: %s %s", engine.Sanitize(p.Device), p.Port, h.Hop, h.Verdict, engine.Sanitize(v)))
			if h.Verdict == lossless.PathUnknown {
				unknown = append(unknown, string(h.Hop))
			}
			if h.Verdict.Worse(worst) {
				worst, bad = h.Verdict, h
			}
		}
	}
	switch worst {
	case lossless.PathError:
		c.add(CheckRoCEPath, VerdictCritical, fmt.Sprintf("RoCE path: %s: %s", bad.Hop, bad.Reason), "fix that hop (see the diagnostics and the Lossless pane's path)", ev...)
	case lossless.PathWarning:
		c.add(CheckRoCEPath, VerdictWarning, fmt.Sprintf("RoCE path: %s: %s", bad.Hop, bad.Reason), "fix that hop (see the diagnostics and the Lossless pane's path)", ev...)
	case lossless.PathUnknown:
		c.add(CheckRoCEPath, VerdictUnknown, "RoCE path: unknown at "+strings.Join(unknown, ", "), "", ev...)
	default:
		c.add(CheckRoCEPath, VerdictOK, "every hop of the RoCE path is ok", "", ev...)
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
	was := map[Name]Verdict{}
	for _, r := range Run(before, o) {
		was[r.Check] = r.Verdict
	}
	var out []string
	for _, r := range Run(after, o) {
		if v, ok := was[r.Check]; !ok || v != r.Verdict {
			out = append(out, fmt.Sprintf("%s: %s → %s", r.Check, v, r.Verdict))
		}
	}
	return out
}
