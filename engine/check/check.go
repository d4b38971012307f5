package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/jsondoc"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Name names one check of lossless (RoCE) readiness, stable across
// versions: it is part of `dcbtop check`'s JSON and JUnit output.
type Name string

// The checks, in the order Check runs them.
const (
	// CheckPeer: a valid DCBX peer (it sends DCBX TLVs, has not expired,
	// is alone on the link).
	CheckPeer Name = "dcbx-peer"
	// CheckRoCEPriority: the APP table maps RoCEv2 (UDP 4791) or a DSCP to
	// a priority, the one the checks below look at.
	CheckRoCEPriority Name = "roce-priority"
	// CheckRoCEPFC: PFC is on for the RoCE priority, in force here and at
	// the peer.
	CheckRoCEPFC Name = "roce-pfc"
	// CheckRoCEETS: the RoCE priority's traffic class gets ETS bandwidth
	// and no strict-priority class can starve it, here and at the peer.
	CheckRoCEETS Name = "roce-ets"
	// CheckPFCAgreement: this host's and the peer's PFC agree, or the
	// willing side adopted the other's.
	CheckPFCAgreement Name = "pfc-agreement"
	// CheckAgents: one DCBX agent on the port: no second local LLDP
	// agent, no NIC firmware agent besides the host's.
	CheckAgents Name = "single-agent"
	// CheckPauses: no pause storm, no pauses on a priority without PFC.
	CheckPauses Name = "pauses"
	// CheckECN: congestion notifications (CNPs) come with ECN marking
	// enabled (DCQCN).
	CheckECN Name = "ecn"
	// CheckLinkPause: 802.3x link-wide PAUSE is off where PFC is in force
	// (the two are mutually exclusive).
	CheckLinkPause Name = "link-pause"
	// CheckRoCEGID: every RoCE port of the interface has a routable RoCE
	// v2 GID.
	CheckRoCEGID Name = "roce-gid"
	// CheckHeadroom: every PFC priority has a receive buffer with room
	// (size above 0) and the PFC delay (cable length) is set where the
	// driver sizes headroom from it.
	CheckHeadroom Name = "headroom"
	// CheckTrust: the port classifies received traffic by the field the
	// APP table maps (DSCP entries with DSCP trust, none without).
	CheckTrust Name = "trust"
	// CheckRoCEPath: every hop of each RoCE port's path (Interface.
	// RoCEPaths) is ok: the worst hop is the verdict.
	CheckRoCEPath Name = "roce-path"
	// CheckPolicy: the operational parameters meet the expected policy.
	CheckPolicy Name = "policy"
)

// Names are every check, in the order a report lists them: the
// check label's bounded set in dcbtop check --textfile's metrics.
var Names = []Name{
	CheckPeer, CheckRoCEPriority, CheckRoCEPFC, CheckRoCEETS, CheckPFCAgreement, CheckAgents,
	CheckPauses, CheckECN, CheckLinkPause, CheckRoCEGID, CheckHeadroom, CheckTrust, CheckRoCEPath,
	CheckPolicy,
}

// A Verdict is a check's outcome, numbered as a Nagios plugin's exit
// status (Nagios Plugin API, "Plugin Return Codes").
type Verdict uint8

// The verdicts.
const (
	VerdictOK       Verdict = 0
	VerdictWarning  Verdict = 1
	VerdictCritical Verdict = 2
	// VerdictUnknown: the check could not run (its inputs are missing,
	// as on a replay without local parameters or counters).
	VerdictUnknown Verdict = 3
)

var verdictNames = [...]string{"OK", "WARNING", "CRITICAL", "UNKNOWN"}

// String returns OK, WARNING, CRITICAL or UNKNOWN.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict-" + strconv.Itoa(int(v))
}

// MarshalText returns String.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText accepts what String returns.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// severity orders verdicts for Worst: CRITICAL, then WARNING, then
// UNKNOWN, then OK (the monitoring plugins' max_state_alt).
var severity = [...]int{VerdictOK: 0, VerdictWarning: 2, VerdictCritical: 3, VerdictUnknown: 1}

// Worst returns the worse of v and w: CRITICAL over WARNING over UNKNOWN
// over OK.
func (v Verdict) Worst(w Verdict) Verdict {
	if int(w) < len(severity) && (int(v) >= len(severity) || severity[w] > severity[v]) {
		return w
	}
	return v
}

// A Result is one check's verdict on one interface, with what it
// was decided from and what to do about it.
type Result struct {
	Interface string  `json:"interface"`
	Check     Name    `json:"check"`
	Verdict   Verdict `json:"verdict"`
	// Summary says the verdict's reason in one line.
	Summary string `json:"summary"`
	// Evidence lists the facts it rests on.
	Evidence []string `json:"evidence"`
	// Fix suggests what to do; "" when there is nothing to do.
	Fix string `json:"fix"`
}

// A Policy is what `dcbtop check --expect` holds the operational
// parameters to: a PARAMS-shaped JSON object whose members are all
// optional. Its JSON form is
//
//	{"pfc": {"enabled": [3]},
//	 "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}],
//	 "ets": {"min_bandwidth": {"3": 50}},
//	 "willing": false}
//
// pfc.enabled is the exact set of priorities with PFC; each app entry must
// be in force; ets.min_bandwidth maps a priority to the least bandwidth
// share (percent) its traffic class must get under ETS; willing is the
// local DCBX Willing state.
type Policy struct {
	PFC     *PolicyPFC `json:"pfc,omitempty"`
	App     []dcb.App  `json:"app,omitempty"`
	ETS     *PolicyETS `json:"ets,omitempty"`
	Willing *bool      `json:"willing,omitempty"`
	// Trust is what the NIC must classify received traffic by first:
	// "dscp" or "pcp" (the DCB netlink trust table).
	Trust *string `json:"trust,omitempty"`
	// RoCE holds what RoCE traffic must carry: the DSCP of rdma_cm's
	// default ToS.
	RoCE *PolicyRoCE `json:"roce,omitempty"`
	// CNP holds the congestion notification packets' DSCP and priority.
	CNP *PolicyCNP `json:"cnp,omitempty"`
}

// PolicyRoCE is a Policy's RoCE part.
type PolicyRoCE struct {
	DSCP *int `json:"dscp,omitempty"`
}

// PolicyCNP is a Policy's CNP part: the DSCP and 802.1p priority the NIC
// marks its CNPs with.
type PolicyCNP struct {
	DSCP     *int `json:"dscp,omitempty"`
	Priority *int `json:"priority,omitempty"`
}

// PolicyPresets are the policies operators use, by name (dcbtop check
// --expect NAME); docs/dcbx.md cites their sources.
var PolicyPresets = map[string]string{
	// NVIDIA nic-configuration-operator's "RoCE optimized" NIC
	// configuration: trust DSCP, PFC on priority 3 (RoCE's DSCP 26 on it),
	// CNPs with DSCP 4 on priority 6.
	"roce-k8s": `{"trust":"dscp","pfc":{"enabled":[3]},"app":[{"selector":"dscp","protocol":26,"priority":3}],"roce":{"dscp":26},"cnp":{"dscp":4,"priority":6}}`,
	// Microsoft's Azure Local (Azure Stack HCI) host networking: the host
	// does not accept the switch's DCB (Willing off), PFC on priority 3
	// for SMB Direct (RDMA), nothing else lossless.
	"azure-local": `{"willing":false,"pfc":{"enabled":[3]}}`,
}

// PresetPolicy returns the preset policy of that name.
func PresetPolicy(name string) (*Policy, bool) {
	s, ok := PolicyPresets[name]
	if !ok {
		return nil, false
	}
	p, err := ParsePolicy([]byte(s))
	if err != nil {
		panic("engine: preset policy " + name + ": " + err.Error()) // TestPolicyPresets
	}
	return p, true
}

// PolicyPFC is a Policy's PFC part.
type PolicyPFC struct {
	// Enabled lists priorities as JSON numbers (an int slice: a []uint8
	// would also accept a base64 string).
	Enabled []int `json:"enabled"`
}

// PolicyETS is a Policy's ETS part.
type PolicyETS struct {
	// MinBandwidth maps a priority ("0"-"7") to the least ETS bandwidth
	// share of its traffic class, 0-100.
	MinBandwidth map[string]uint8 `json:"min_bandwidth"`
}

// ParsePolicy decodes a policy, refusing unknown members, members given
// twice, values of the wrong type, priorities outside 0-7, DSCPs outside
// 0-63 and shares over 100. Its error (a *JSONError) lists every problem,
// each at its line and column. Member names match exactly.
func ParsePolicy(b []byte) (*Policy, error) {
	d, root := jsondoc.Read(b)
	if root != nil {
		if p := readPolicy(d, root); d.Total() == 0 {
			return p, nil
		}
	}
	return nil, d.Err("policy")
}

// readPolicy walks a policy document.
func readPolicy(d *jsondoc.Doc, v *jsondoc.Value) *Policy {
	p := &Policy{}
	if !d.WantObject(v, "", "a policy object") {
		return p
	}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path := jsondoc.MemberPath("", key)
		switch key {
		case "pfc":
			p.PFC = nil
			if d.WantObject(v, path, "an object") {
				p.PFC = &PolicyPFC{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "enabled" {
						p.PFC.Enabled = dcb.ReadPriorities(d, path, v)
					} else {
						d.Unknown(m, "pfc", "enabled")
					}
				}
			}
		case "app":
			var bad []bool
			p.App, bad = dcb.ReadApps(d, path, v)
			for i, a := range p.App {
				if bad[i] {
					continue
				}
				at := func(field string) (int, string) {
					path := jsondoc.IndexPath(path, i)
					if off, ok := d.At(path + "." + field); ok {
						return off, path + "." + field
					}
					off, _ := d.At(path)
					return off, path
				}
				if a.Priority > 7 {
					off, path := at("priority")
					d.Errorf(off, path, "priority %d is not 0-7", a.Priority)
				}
				if a.Selector < lldp.AppSelEthertype || a.Selector > lldp.AppSelDSCP {
					off, path := at("selector")
					d.Errorf(off, path, "selector %v is not one of ethertype, tcp-port, udp-port, port or dscp", a.Selector)
				}
			}
		case "ets":
			p.ETS = nil
			if d.WantObject(v, path, "an object") {
				p.ETS = &PolicyETS{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "min_bandwidth" {
						p.ETS.MinBandwidth = minBandwidth(d, path, v)
					} else {
						d.Unknown(m, "ets", "min_bandwidth")
					}
				}
			}
		case "willing":
			d.Leaf(v, path, "true, false or null", &p.Willing)
		case "trust":
			if d.Leaf(v, path, `"dscp", "pcp" or null`, &p.Trust) && p.Trust != nil && *p.Trust != "dscp" && *p.Trust != "pcp" {
				d.Errorf(v.Off, path, "%s is not dscp or pcp", jsondoc.Describe(v))
			}
		case "roce":
			p.RoCE = nil
			if d.WantObject(v, path, "an object") {
				p.RoCE = &PolicyRoCE{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					if path := jsondoc.MemberPath(path, key); key == "dscp" {
						p.RoCE.DSCP = intIn(d, path, v, 63, "a DSCP 0-63")
					} else {
						d.Unknown(m, "roce", "dscp")
					}
				}
			}
		case "cnp":
			p.CNP = nil
			if d.WantObject(v, path, "an object") {
				p.CNP = &PolicyCNP{}
				for _, m := range v.Members {
					key, v := m.Key, m.Value
					switch path := jsondoc.MemberPath(path, key); key {
					case "dscp":
						p.CNP.DSCP = intIn(d, path, v, 63, "a DSCP 0-63")
					case "priority":
						p.CNP.Priority = intIn(d, path, v, 7, "a priority 0-7")
					default:
						d.Unknown(m, "cnp", "dscp or priority")
					}
				}
			}
		default:
			d.Unknown(m, "", "pfc, app, ets, willing, trust, roce or cnp")
		}
	}
	return p
}

// intIn decodes a number 0-max or null at v.
func intIn(d *jsondoc.Doc, path string, v *jsondoc.Value, max int, want string) *int {
	var x *int
	if d.Leaf(v, path, want+" or null", &x) && x != nil && (*x < 0 || *x > max) {
		d.Errorf(v.Off, path, "%d is not 0-%d", *x, max)
	}
	return x
}

// minBandwidth decodes ets.min_bandwidth at v: priority keys "0" to "7",
// one spelling each ("3", never "03" or "+3"), shares 0-100.
func minBandwidth(d *jsondoc.Doc, path string, v *jsondoc.Value) map[string]uint8 {
	if v.Null() {
		return nil
	}
	if !v.Object() {
		d.Errorf(v.Off, path, "want an object of priorities to percentages, got %s", jsondoc.Describe(v))
		return nil
	}
	out := map[string]uint8{}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path := jsondoc.MapKeyPath(path, key)
		if len(key) != 1 || key[0] < '0' || key[0] > '7' {
			d.Errorf(m.KeyOff, path, "the key is not a priority 0-7")
		}
		var x uint8
		if d.Leaf(v, path, "a percentage 0-100", &x) && x > 100 {
			d.Errorf(v.Off, path, "%d%% is over 100", x)
		}
		out[key] = x
	}
	return out
}

// Options say what a Check may assume.
type Options struct {
	// Policy, when set, adds CheckPolicy.
	Policy *Policy
	// Replay: the snapshot comes from a capture file, which carries no
	// counters (their checks are UNKNOWN, not OK).
	Replay bool
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
		c.add(CheckPeer, VerdictCritical, "no LLDP peer on the link",
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
	if e := in.CaptureEnds; e != nil {
		// A capture without direction read as both ends of one link: the
		// reading is part of the verdict's evidence.
		r := &c.out[len(c.out)-1]
		r.Evidence = append(r.Evidence, fmt.Sprintf("the capture read as both ends of one link: this host %s, the peer %s (%s)", e.LocalMAC, e.PeerMAC, e.Rule))
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
		ev = append(ev, fmt.Sprintf("peer %s, TTL %d s, %d frames", name, p.TTL, p.Frames))
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
	if c.o.Replay || lc == nil || len(lc.RoCEPaths) == 0 {
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
	case c.o.Replay:
		c.add(name, VerdictUnknown, "a capture file carries no counters", "run dcbtop check live on the host")
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

func (c *checker) policy() {
	pol := c.o.Policy
	here := c.here()
	if here == nil {
		c.add(CheckPolicy, VerdictUnknown, "the operational parameters are unknown (local parameters unknown)", "")
		return
	}
	var bad, ev []string
	if pol.PFC != nil {
		var want dcb.PrioSet
		for _, p := range pol.PFC.Enabled {
			want |= 1 << p
		}
		var got dcb.PrioSet
		if here.PFC != nil {
			got = here.PFC.Enabled
		}
		ev = append(ev, fmt.Sprintf("pfc.enabled: want %s, in force %s", prios(want), prios(got)))
		if got != want {
			bad = append(bad, fmt.Sprintf("PFC on %s, expected %s", prios(got), prios(want)))
		}
	}
	for _, a := range pol.App {
		if slices.Contains(here.App, a) {
			ev = append(ev, fmt.Sprintf("app %s %d -> %d: in force", a.Selector, a.Protocol, a.Priority))
		} else {
			bad = append(bad, fmt.Sprintf("APP %s %d -> priority %d not in force", a.Selector, a.Protocol, a.Priority))
		}
	}
	if pol.ETS != nil {
		keys := make([]string, 0, len(pol.ETS.MinBandwidth))
		for k := range pol.ETS.MinBandwidth {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			min := pol.ETS.MinBandwidth[k]
			p, _ := strconv.Atoi(k) // ParsePolicy checked it
			if here.ETS == nil {
				bad = append(bad, "no ETS in force")
				break
			}
			tc := here.ETS.PrioTC[p]
			if tc > 7 {
				bad = append(bad, fmt.Sprintf("priority %d on invalid TC %d", p, tc))
				continue
			}
			bw, tsa := here.ETS.TCBandwidth[tc], here.ETS.TSA[tc]
			ev = append(ev, fmt.Sprintf("ets: priority %d on TC %d, %s %d%% (want ets >= %d%%)", p, tc, tsa, bw, min))
			if tsa != lldp.TSAETS || bw < min {
				bad = append(bad, fmt.Sprintf("priority %d's TC %d has %s %d%%, expected ets >= %d%%", p, tc, tsa, bw, min))
			}
		}
	}
	if pol.Willing != nil {
		switch {
		case c.in.Willing == nil:
			bad = append(bad, "the Willing state is unknown")
		case *c.in.Willing != *pol.Willing:
			bad = append(bad, fmt.Sprintf("Willing is %s, expected %s", onOff(*c.in.Willing), onOff(*pol.Willing)))
		default:
			ev = append(ev, "willing "+onOff(*c.in.Willing))
		}
	}
	unknown := c.policyRoCE(&bad, &ev)
	if len(bad) > 0 {
		c.add(CheckPolicy, VerdictCritical, strings.Join(bad, "; "), "apply the policy (dcbtop apply, or the switch's configuration when this host is willing)", ev...)
		return
	}
	if len(unknown) > 0 {
		c.add(CheckPolicy, VerdictUnknown, "the policy could not be checked in full: "+strings.Join(unknown, "; "), "", ev...)
		return
	}
	c.add(CheckPolicy, VerdictOK, "the operational parameters meet the policy", "", ev...)
}

// policyRoCE checks a policy's trust, RoCE DSCP and CNP parts against the
// sampled facts, adding what differs to bad and what was seen to ev; it
// returns what could not be checked.
func (c *checker) policyRoCE(bad, ev *[]string) (unknown []string) {
	pol := c.o.Policy
	lc := c.in.Counters
	if pol.Trust != nil {
		var q *lossless.PortQoSSample
		if lc != nil {
			q = lc.QoS
		}
		dscp, known := q.TrustsDSCP()
		got := "pcp"
		if dscp {
			got = "dscp"
		}
		switch {
		case !known:
			unknown = append(unknown, "trust: DCB netlink does not report what the NIC classifies by")
		case got != *pol.Trust:
			*bad = append(*bad, fmt.Sprintf("the NIC trusts %s first, expected %s", got, *pol.Trust))
		default:
			*ev = append(*ev, "trust "+got)
		}
	}
	if want := roceDSCP(pol.RoCE); want != nil {
		var got []string
		known := false
		if lc != nil {
			for _, r := range lc.RoCE {
				if r.DefaultToS != nil {
					known = true
					if int(r.DefaultToS.DSCP) != *want {
						*bad = append(*bad, fmt.Sprintf("%s port %d: rdma_cm's default DSCP is %d, expected %d", engine.Sanitize(r.Device), r.Port, r.DefaultToS.DSCP, *want))
					}
					got = append(got, fmt.Sprintf("%s/%d dscp %d", engine.Sanitize(r.Device), r.Port, r.DefaultToS.DSCP))
				}
			}
		}
		if known {
			*ev = append(*ev, "roce: "+strings.Join(got, ", "))
		} else {
			unknown = append(unknown, "roce.dscp: no RoCE port with rdma_cm's default ToS configured")
		}
	}
	if pol.CNP != nil && (pol.CNP.DSCP != nil || pol.CNP.Priority != nil) {
		unknown = append(unknown, c.policyCNP(bad, ev)...)
	}
	return unknown
}

// policyCNP checks the policy's CNP marking against the DCQCN settings
// read (ECNSample.CNPDSCP, CNPPriority); what was not read is unknown,
// with the command that would tell.
func (c *checker) policyCNP(bad, ev *[]string) (unknown []string) {
	pol := c.o.Policy.CNP
	var e *lossless.ECNSample
	if lc := c.in.Counters; lc != nil {
		e = lc.ECN
	}
	hint := "mlxconfig -d DEV q CNP_DSCP_P1 CNP_802P_PRIO_P1"
	if e != nil && e.Hint != "" {
		hint = e.Hint
	}
	for _, f := range []struct {
		name string
		want *int
		got  *uint8
	}{{"cnp.dscp", pol.DSCP, e.DSCPOfCNP()}, {"cnp.priority", pol.Priority, e.PriorityOfCNP()}} {
		switch {
		case f.want == nil:
		case f.got == nil:
			unknown = append(unknown, f.name+": not read here ("+hint+")")
		case int(*f.got) != *f.want:
			*bad = append(*bad, fmt.Sprintf("%s is %d, expected %d", f.name, *f.got, *f.want))
		default:
			*ev = append(*ev, fmt.Sprintf("%s %d", f.name, *f.got))
		}
	}
	return unknown
}

func roceDSCP(r *PolicyRoCE) *int {
	if r == nil {
		return nil
	}
	return r.DSCP
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

// SchemaVersion identifies the JSON contract of `dcbtop check --json`
// (assets/check.schema.json).
const SchemaVersion = "dcbtop.check/v1"

// A Report is `dcbtop check`'s verdict on a snapshot: every checked
// interface's results, and the worst verdict, which is also the exit
// status.
type Report struct {
	Schema  string    `json:"schema"`
	Verdict Verdict   `json:"verdict"`
	Exit    int       `json:"exit_code"`
	TakenAt time.Time `json:"taken_at"`
	// Source is "live" or "replay"; File the capture file replayed.
	Source     string            `json:"source"`
	File       *string           `json:"file"`
	Interfaces []InterfaceReport `json:"interfaces"`
}

// A InterfaceReport is one interface's results and their worst verdict.
type InterfaceReport struct {
	Name    string   `json:"name"`
	Verdict Verdict  `json:"verdict"`
	Results []Result `json:"results"`
}

// NewReport checks the interfaces of snap named in names (all of
// them when names is empty, sorted as in the snapshot). A name the
// snapshot lacks is CRITICAL for CheckPeer: nothing was seen on it.
func NewReport(snap engine.Snapshot, names []string, o Options) Report {
	r := Report{Schema: SchemaVersion, TakenAt: snap.TakenAt, Source: "live", Interfaces: []InterfaceReport{}}
	if o.Replay {
		r.Source = "replay"
	}
	pick := snap.Interfaces
	if len(names) > 0 {
		pick = nil
		for _, n := range names {
			i := slices.IndexFunc(snap.Interfaces, func(in engine.Interface) bool { return in.Name == n })
			if i < 0 {
				pick = append(pick, engine.Interface{Name: n})
				continue
			}
			pick = append(pick, snap.Interfaces[i])
		}
	}
	for i := range pick {
		res := Run(&pick[i], o)
		ci := InterfaceReport{Name: pick[i].Name, Results: res}
		for _, x := range res {
			ci.Verdict = ci.Verdict.Worst(x.Verdict)
		}
		r.Verdict = r.Verdict.Worst(ci.Verdict)
		r.Interfaces = append(r.Interfaces, ci)
	}
	if len(r.Interfaces) == 0 {
		r.Verdict = VerdictUnknown // nothing to judge
	}
	r.Exit = int(r.Verdict)
	return r
}
