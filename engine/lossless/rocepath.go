// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"fmt"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A RoCEHop is one step of a RoCE packet's way through this host, in the
// order it takes them.
type RoCEHop string

// The hops of a RoCE path.
const (
	HopGID      RoCEHop = "gid"      // the source GID: a routable RoCE v2 one
	HopToS      RoCEHop = "tos"      // the ToS rdma_cm stamps (DSCP, ECN)
	HopTrust    RoCEHop = "trust"    // what the NIC classifies by (DSCP or PCP)
	HopPriority RoCEHop = "priority" // the priority the traffic lands on
	HopTC       RoCEHop = "tc"       // the traffic class of that priority
	HopPFC      RoCEHop = "pfc"      // PFC on that priority (operational)
	HopBuffer   RoCEHop = "buffer"   // its receive buffer (headroom)
	HopETS      RoCEHop = "ets"      // the ETS share of its traffic class
	HopPauses   RoCEHop = "pauses"   // pauses on it: storm, stall
	HopECN      RoCEHop = "ecn"      // DCQCN (ECN marking, CNPs) on it
)

// RoCEHops are the hops of a RoCE path, in order (the hop label's
// bounded set in the metrics).
var RoCEHops = []RoCEHop{HopGID, HopToS, HopTrust, HopPriority, HopTC, HopPFC, HopBuffer, HopETS, HopPauses, HopECN}

// A PathVerdict judges one hop.
type PathVerdict string

// The verdicts of a hop, from best to worst (unknown is not worse than a
// warning, and never better than ok).
const (
	PathOK      PathVerdict = "ok"
	PathUnknown PathVerdict = "unknown"
	PathWarning PathVerdict = "warning"
	PathError   PathVerdict = "error"
)

// Worse reports whether v is worse than o (Level).
func (v PathVerdict) Worse(o PathVerdict) bool { return v.Level() > o.Level() }

// Level orders verdicts, the one order the path's Worst, the check, the
// screen and the metrics use: 0 ok, 1 unknown, 2 warning, 3 error.
func (v PathVerdict) Level() int {
	switch v {
	case PathError:
		return 3
	case PathWarning:
		return 2
	case PathUnknown:
		return 1
	}
	return 0
}

// A PathHop is one hop with what it is, where that was read, and its
// verdict and reason. Value is null when unknown.
type PathHop struct {
	Hop     RoCEHop     `json:"hop"`
	Value   *string     `json:"value"`
	Verdict PathVerdict `json:"verdict"`
	Reason  string      `json:"reason"`
}

// A RoCEPath is the way of an RDMA port's RoCE traffic through this host,
// hop by hop, judged from the snapshot's facts only (the counters'
// samples, the parameters in force, the diagnostics).
type RoCEPath struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	// Priority is the priority the traffic lands on, null when unknown:
	// where the ways of classifying it disagree (the trust unknown), the
	// worst of Landings.
	Priority *int `json:"priority"`
	// Landings are where each way of classifying the traffic puts it: one
	// where the NIC's classifier is known.
	Landings []RoCELanding `json:"landings"`
	Hops     []PathHop     `json:"hops"`
	// Worst is the worst hop's verdict.
	Worst PathVerdict `json:"worst"`
	// Cause names the hop the worst verdict stems from (rocePathCause),
	// "" when every hop is ok: what a one-line summary blames.
	Cause RoCEHop `json:"cause"`
}

// roCEPaths judges the way of each RoCE port's traffic (RoCE ports: link
// layer Ethernet) through the interface: GID, ToS, trust, priority, TC,
// PFC, buffer, ETS, pauses, ECN. Nil without counters; [] without a RoCE
// port.
func (in *pathInput) roCEPaths() []RoCEPath {
	if in.Counters == nil {
		return nil
	}
	out := []RoCEPath{}
	for i := range in.Counters.RoCE {
		r := &in.Counters.RoCE[i]
		if r.IsRoCE() {
			out = append(out, in.rocePath(r))
		}
	}
	return out
}

// rocePath builds one port's path.
func (in *pathInput) rocePath(r *RoCEPortSample) RoCEPath {
	p := RoCEPath{Device: r.Device, Port: r.Port, Worst: PathOK}
	add := func(h RoCEHop, v PathVerdict, value, reason string) {
		hop := PathHop{Hop: h, Verdict: v, Reason: reason}
		if value != "" {
			hop.Value = &value
		}
		p.Hops = append(p.Hops, hop)
		if v.Worse(p.Worst) {
			p.Worst = v
		}
	}
	lc, op := in.Counters, in.Operational
	// GID.
	switch {
	case r.RoutableV2 != nil:
		v := fmt.Sprintf("index %d", *r.RoutableV2)
		for _, g := range r.GIDs {
			if g.Index == *r.RoutableV2 && g.GID != nil {
				v += " " + *g.GID
			}
		}
		add(HopGID, PathOK, v, "a routable RoCE v2 GID")
	case r.RoutableV2Why != nil:
		add(HopGID, PathWarning, "", *r.RoutableV2Why)
	default:
		add(HopGID, PathUnknown, "", "the GID table could not be read")
	}
	// ToS.
	landed := in.landing(r)
	tos, tosVerdict, tosWhy := in.tosHop(r, landed.facts)
	add(HopToS, tosVerdict, tos, tosWhy)
	// Trust.
	_, trustKnown := lc.QoS.TrustsDSCP()
	switch {
	case !trustKnown:
		add(HopTrust, PathUnknown, "", "DCB netlink does not report how the NIC classifies: the priority below is judged under each way it may")
	case in.hasDiag(diag.CodeTrustMismatch):
		add(HopTrust, PathWarning, strings.Join(lc.QoS.Trust, ", "), "the trust and the DSCP map disagree (trust-pcp-with-dscp-map)")
	default:
		why := "reported by " + qosSourceWords(lc.QoS)
		if lc.QoS.TrustDerived {
			why = "derived from the APP table"
		}
		add(HopTrust, PathOK, strings.Join(lc.QoS.Trust, ", "), why)
	}
	// Priority: where the NIC puts the traffic (roceprio.go).
	p.Landings = landed.all
	if landed.at < 0 || landed.all[landed.at].Priority == nil {
		why := "where the NIC puts RoCE traffic is unknown"
		if len(landed.all) > 0 {
			why += ": " + LandingWords(landed.all)
		}
		add(HopPriority, PathUnknown, "", why)
		for _, h := range []RoCEHop{HopTC, HopPFC, HopBuffer, HopETS, HopPauses, HopECN} {
			add(h, PathUnknown, "", "the priority is unknown")
		}
		p.Cause = in.rocePathCause(&p, landed)
		return p
	}
	prio := *landed.all[landed.at].Priority
	add(HopPriority, landed.verdict, landed.value(), landed.reason(prio))
	p.Priority = &prio
	// TC and ETS.
	tc := -1
	if op != nil && op.ETS != nil && int(op.ETS.PrioTC[prio]) < len(op.ETS.TCBandwidth) {
		tc = int(op.ETS.PrioTC[prio])
		add(HopTC, PathOK, fmt.Sprint(tc), "operational ETS priority-to-TC map")
	} else {
		add(HopTC, PathUnknown, "", "no ETS in force")
	}
	// PFC: on in force, and on at both ends of the link.
	in.pfcHop(add, uint8(prio))
	// Buffer.
	if q := lc.QoS; q != nil && q.Buffer != nil {
		b := q.Buffer.PrioBuffer[prio]
		size := q.Buffer.SizeBytes[b%8]
		v := fmt.Sprintf("buffer %d, %d bytes", b, size)
		if size == 0 {
			add(HopBuffer, PathError, v, "an empty receive buffer: no headroom (pfc-no-headroom)")
		} else {
			add(HopBuffer, PathOK, v, "buffer split reported by "+qosSourceWords(lc.QoS))
		}
	} else {
		add(HopBuffer, PathUnknown, "", "the driver reports no buffer split")
	}
	// ETS share.
	switch {
	case tc < 0:
		add(HopETS, PathUnknown, "", "no ETS in force")
	case op.ETS.TSA[tc] == lldp.TSAStrict:
		add(HopETS, PathOK, "strict", "strict priority")
	case op.ETS.TCBandwidth[tc] == 0:
		add(HopETS, PathError, "0%", fmt.Sprintf("TC %d has no ETS bandwidth: RoCE can starve", tc))
	default:
		add(HopETS, PathOK, fmt.Sprintf("%d%%", op.ETS.TCBandwidth[tc]), "operational ETS")
	}
	// Pauses, in each direction.
	pp := lc.PFC.Priorities[prio]
	switch {
	case lc.PFC.Source == nil:
		add(HopPauses, PathUnknown, "", "no per-priority pause counters")
	case in.hasDiag(diag.CodePFCStall) || in.hasDiag(diag.CodePauseStorm):
		add(HopPauses, PathError, fmtPaused(pp), "a pause storm or stall (see the diagnostics: who pauses whom)")
	case (pp.RxPause != nil && pp.RxPauseRate == nil) || (pp.TxPause != nil && pp.TxPauseRate == nil):
		add(HopPauses, PathUnknown, fmtPaused(pp), "no pause rate over the last interval yet (one sample so far, or a counter that jumped): a storm cannot be ruled out")
	case pp.PausedFraction != nil && *pp.PausedFraction >= heavyPausedShare:
		add(HopPauses, PathWarning, fmtPaused(pp), fmt.Sprintf("the peer paused this host %.1f%% of the last interval on priority %d: the switch cannot forward what this host sends as fast as it sends it", 100*(*pp.PausedFraction), prio))
	case pp.TxPausedFraction != nil && *pp.TxPausedFraction >= heavyPausedShare:
		add(HopPauses, PathWarning, fmtPaused(pp), fmt.Sprintf("this host paused the peer %.1f%% of the last interval on priority %d: it does not drain what it receives as fast as it arrives", 100*(*pp.TxPausedFraction), prio))
	default:
		add(HopPauses, PathOK, fmtPaused(pp), "no storm, no stall")
	}
	// ECN.
	in.ecnHop(add, lc.ECN, uint8(prio))
	p.Cause = in.rocePathCause(&p, landed)
	return p
}

// rocePathCause names the hop a path's worst verdict stems from: the
// first hop of that verdict in the path's order, except that the ToS and
// priority hops follow the PFC hop where the traffic lands where the APP
// table puts it (not the port's default) on a priority configured
// lossless somewhere, this host's configuration or the peer's: there the
// classification is as configured and PFC missing in force (a switch
// that stopped advertising it, a willing host that took that) is what
// changed, not the ToS (7737732's overview blamed the ToS).
func (in *pathInput) rocePathCause(p *RoCEPath, l landed) RoCEHop {
	if p.Worst == PathOK {
		return ""
	}
	var first, pfc RoCEHop
	for _, h := range p.Hops {
		if h.Verdict != p.Worst {
			continue
		}
		if first == "" {
			first = h.Hop
		}
		if h.Hop == HopPFC {
			pfc = h.Hop
		}
	}
	if pfc == "" || (first != HopToS && first != HopPriority) || p.Priority == nil {
		return first
	}
	if l.at < 0 || l.all[l.at].Default {
		return first // the port's default took it: the ToS or map is the cause
	}
	prio := uint8(*p.Priority)
	configured := func(x *dcb.Params) bool { return x != nil && x.PFC != nil && x.PFC.Enabled.Has(prio) }
	if configured(in.Local) || (in.RemoteValid && configured(in.Remote)) {
		return HopPFC
	}
	return first
}

// pfcHop judges PFC on the RoCE priority at the three places it must
// be on: in force here (operational), in this host's own configuration
// (local), and in what the peer advertises (remote; IEEE Std 802.1Q-2018
// D.2.10: the PFC Configuration TLV carries the sender's configuration).
// Off in force is lossy: an error. Off at the peer while it advertises
// PFC is an error too: the switch neither sends nor honours pauses on that
// priority, whatever this host does. Off locally while on in force is
// fine (a willing host took the peer's). No peer advertising PFC leaves
// the switch's side unknown (DCBX off there, or configured by hand).
func (in *pathInput) pfcHop(add func(RoCEHop, PathVerdict, string, string), prio uint8) {
	op := in.Operational
	word := func(p *dcb.Params) string {
		if p == nil || p.PFC == nil {
			return "—"
		}
		return dcb.OnOff(p.PFC.Enabled.Has(prio))
	}
	var remote *dcb.Params
	if in.RemoteValid {
		remote = in.Remote
	}
	v := fmt.Sprintf("local %s, peer %s, operational %s", word(in.Local), word(remote), word(op))
	switch {
	case op == nil || op.PFC == nil:
		add(HopPFC, PathUnknown, v, "no PFC in force")
	case !op.PFC.Enabled.Has(prio):
		add(HopPFC, PathError, v, fmt.Sprintf("PFC is off on priority %d: RoCE traffic is lossy", prio))
	case remote != nil && remote.PFC != nil && !remote.PFC.Enabled.Has(prio):
		add(HopPFC, PathError, v, fmt.Sprintf("the peer advertises PFC off on priority %d: the switch neither sends nor honours pauses there", prio))
	case in.hasDiag(diag.CodeLinkPauseWithPFC):
		add(HopPFC, PathWarning, v, "802.3x link-wide PAUSE is on beside it (link-pause-with-pfc)")
	case remote == nil || remote.PFC == nil:
		add(HopPFC, PathUnknown, v, "on in force here; the peer advertises no PFC, so the switch's side is not known")
	default:
		add(HopPFC, PathOK, v, fmt.Sprintf("on here and at the peer (resolved: %s)", in.Resolution.PFC.Source))
	}
}

// ecnHop judges DCQCN on the RoCE priority: both roles enabled there,
// the CNPs this host sends on a lossless or strict priority
// (cnp-priority-lossy), and ECN marks arriving under congestion
// (ecn-never-marked). Enables the source does not have (upstream mlx5's
// debugfs) leave the hop unknown, with the command that would tell.
func (in *pathInput) ecnHop(add func(RoCEHop, PathVerdict, string, string), e *ECNSample, prio uint8) {
	if e == nil || e.Source == "" {
		why := "the host's DCQCN settings are unknown"
		if e != nil && e.Why != "" {
			why = e.Why
		}
		if e != nil && e.Hint != "" {
			why += " (" + e.Hint + ")"
		}
		add(HopECN, PathUnknown, "", why)
		return
	}
	var parts []string
	if !e.EnablesUnknown {
		parts = append(parts, "np "+dcb.OnOff(e.NotificationPoint.Has(prio)), "rp "+dcb.OnOff(e.ReactionPoint.Has(prio)))
	}
	parts = append(parts, e.CNPWords()...)
	value := strings.Join(parts, ", ")
	for _, code := range []diag.Code{diag.CodeCNPPriorityLossy, diag.CodeECNNeverMarked} {
		if in.hasDiag(code) {
			add(HopECN, PathWarning, value, "see the diagnostic "+string(code))
			return
		}
	}
	switch {
	case e.EnablesUnknown:
		why := "the per-priority DCQCN enables are not exposed here (" + e.Source + ")"
		if e.Hint != "" {
			why += ": " + e.Hint
		}
		add(HopECN, PathUnknown, value, why)
	case !e.NotificationPoint.Has(prio) || !e.ReactionPoint.Has(prio):
		add(HopECN, PathWarning, value, fmt.Sprintf("DCQCN is not on for priority %d in both roles", prio))
	default:
		add(HopECN, PathOK, value, "DCQCN on in both roles ("+e.Source+")")
	}
}

// qosSourceWords names where the NIC's classification and buffers were
// read: DCB netlink, or the sampler's own source (the demo's simulated
// NIC says "demo").
func qosSourceWords(q *PortQoSSample) string {
	if q == nil || q.Source == "" || strings.HasPrefix(q.Source, "dcbnl") {
		return "DCB netlink"
	}
	return q.Source
}

// count writes n and the noun, plural unless n is 1: "1 pause", "2
// pauses".
func count(n uint64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprint(n) + " " + noun + "s"
}

// heavyPausedShare is the share of an interval a priority spent paused,
// in either direction, at which the pauses hop warns: a tenth of the
// link's time stopped, as link-pause-frames counts it an error for
// link-wide PAUSE (linkPausedShare). A priority paused 40% of the time
// is lossless and slow, never "ok".
const heavyPausedShare = linkPausedShare

// fmtPaused says how much a priority paused, each direction apart: the
// pauses received (the peer pausing this host) and the share of the last
// interval they held it, then the pauses sent (this host pausing the
// peer) and their share, where the driver counts them.
func fmtPaused(pp PrioPause) string {
	var parts []string
	dir := func(n *uint64, share *float64, verb, who string) {
		s := ""
		if n != nil {
			s = count(*n, "pause") + " " + verb
		}
		if share != nil {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%s %.1f%% of the last interval", who, 100*(*share))
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	dir(pp.RxPause, pp.PausedFraction, "received", "paused")
	dir(pp.TxPause, pp.TxPausedFraction, "sent", "pausing the peer")
	return strings.Join(parts, "; ")
}

// hasDiag reports whether the interface has a diagnostic of code.
func (in *pathInput) hasDiag(code diag.Code) bool {
	_, ok := in.Diagnostic(code)
	return ok
}
