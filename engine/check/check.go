// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine"

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
	for _, n := range verdict.Names {
		if n == verdict.CheckPolicy && o.Policy == nil {
			continue
		}
		c.run(n)
	}
	c.fold()
	return c.out
}

// run judges the check n with its method, and reports whether n is one
// (TestCheckTable: every name of verdict.Names is). Run takes the checks
// in verdict.Names' order, which is the report's; a check is its name
// there and its case here (a switch rather than a table of method values,
// which would put the checker on the heap at every Run).
func (c *checker) run(n verdict.Name) bool {
	switch n {
	case verdict.CheckPeer:
		c.peer()
	case verdict.CheckRoCEPriority:
		c.rocePriority()
	case verdict.CheckRoCEPFC:
		c.rocePFC()
	case verdict.CheckRoCEETS:
		c.roceETS()
	case verdict.CheckPFCAgreement:
		c.pfcAgreement()
	case verdict.CheckAgents:
		c.agents()
	case verdict.CheckPauses:
		c.pauses()
	case verdict.CheckECN:
		c.ecn()
	case verdict.CheckLinkPause:
		c.linkPause()
	case verdict.CheckRoCEGID:
		c.roceGID()
	case verdict.CheckHeadroom:
		c.headroom()
	case verdict.CheckTrust:
		c.trust()
	case verdict.CheckRoCEPath:
		c.rocePath()
	case verdict.CheckPolicy:
		c.policy()
	default:
		return false
	}
	return true
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
