// SPDX-License-Identifier: Apache-2.0

package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// The checks that read the host: the counters (pauses, ECN, link-wide
// PAUSE), the GID, the buffer, the trust mode and the RoCE path.

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
