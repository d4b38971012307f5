package lossless

import (
	"fmt"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// RoCE's classifiers in an APP table: UDP destination port 4791 (RoCEv2;
// IANA, InfiniBand Architecture Specification Annex A17) and EtherType
// 0x8915 (RoCEv1).
const (
	RoCEv2Port      = 4791
	RoCEv1Ethertype = 0x8915
)

// losslessDiagnostics reads the last two counter samples for what an
// operator of lossless Ethernet must act on: pause storms, pauses where
// PFC is off, PFC that has never paused RDMA traffic, congestion
// notifications the host does not act on, and losses of RDMA packets.
func (p *port) losslessDiagnostics() []diag.Diagnostic {
	ls := p.lossless
	if ls == nil || ls.cur == nil {
		return nil
	}
	var out []diag.Diagnostic
	cur, prev := ls.cur, ls.prev
	if len(cur.Errors) > 0 {
		// Each failing source named: "sysfs: ports/1/...: not a number;
		// linkpause: ...".
		failed := make([]string, len(cur.Errors))
		for i, e := range cur.Errors {
			failed[i] = e.String()
		}
		out = append(out, diag.Newf(diag.CodeCountersError, diag.SeverityWarning, "", "run dcbtop as root; check that the driver exposes the counters",
			"reading lossless counters: %s", strings.Join(failed, "; ")))
	}
	var dt time.Duration
	if prev != nil {
		dt = cur.At.Sub(prev.At)
	}
	op := p.Operational
	var pfcOn dcb.PrioSet
	pfcKnown := op != nil && op.PFC != nil
	if pfcKnown {
		pfcOn = op.PFC.Enabled
	}
	if pfc := cur.PFC; pfc != nil {
		var before *PFCSample
		if prev != nil {
			before = prev.PFC
		}
		out = append(out, pauseDiagnostics(pfc, before, dt, pfcKnown, pfcOn)...)
		if d, ok := p.neverPaused(pfc, pfcOn); ok {
			out = append(out, d)
		}
	}
	out = append(out, congestionDiagnostics(cur, prev, dt)...)
	if d, ok := p.cnpPriorityLossy(cur.ECN, cur.QoS); ok {
		out = append(out, d)
	}
	if prev != nil {
		out = append(out, ecnNeverMarked(cur, prev, dt, pfcOn)...)
	}
	out = append(out, p.roceDiagnostics(cur, pfcKnown, pfcOn)...)
	if prev != nil && pfcKnown {
		out = append(out, trafficDiagnostics(cur, prev, dt, pfcOn)...)
	}
	if prev != nil {
		if d, ok := linkPauseFrames(cur, prev, dt, pfcOn); ok {
			out = append(out, d)
		}
	}
	return out
}

// pauseDiagnostics: pause storms and pauses on priorities without PFC.
func pauseDiagnostics(pfc, before *PFCSample, dt time.Duration, pfcKnown bool, pfcOn dcb.PrioSet) []diag.Diagnostic {
	var out []diag.Diagnostic
	if before != nil {
		var storm []string
		if moved(before.StormWarning, pfc.StormWarning) {
			storm = append(storm, "warning")
		}
		if moved(before.StormError, pfc.StormError) {
			storm = append(storm, "error")
		}
		if len(storm) > 0 {
			out = append(out, diag.Newf(diag.CodePauseStorm, diag.SeverityError, "pfc",
				"find the receiver that cannot drain its queue (a stuck host or NIC); the NIC stops honouring pauses while the storm lasts",
				"the NIC's pause storm guard fired (%s events counting): a receiver has been pausing this port continuously", strings.Join(storm, " and ")))
		}
	}
	var stormy, unexpected []uint8
	var worst float64
	for prio := range uint8(8) {
		if before == nil {
			break
		}
		c, b := &pfc.Priorities[prio], &before.Priorities[prio]
		rx, rxOK := readingRate(b.RxPause, c.RxPause, dt)
		tx, txOK := readingRate(b.TxPause, c.TxPause, dt)
		if !rxOK && !txOK {
			continue
		}
		if r := max(rx, tx); r >= PauseStormRate {
			stormy = append(stormy, prio)
			worst = max(worst, r)
		}
		if pfcKnown && !pfcOn.Has(prio) && (rx > 0 || tx > 0) {
			unexpected = append(unexpected, prio)
		}
	}
	if len(stormy) > 0 {
		out = append(out, diag.Newf(diag.CodePauseStorm, diag.SeverityWarning, "pfc",
			"find the congested receiver (the side sending the pauses); check for a slow host, an incast, or a NIC stuck in XOFF",
			"pause storm on priority %s: up to %.0f pause frames/s (threshold %.0f/s)", dcb.JoinNums(stormy, ","), worst, PauseStormRate))
	}
	if len(unexpected) > 0 {
		out = append(out, diag.Newf(diag.CodePauseWithoutPFC, diag.SeverityWarning, "pfc",
			"enable PFC on this priority on both sides, or stop the peer pausing it (its PFC configuration differs from the operational one here)",
			"pause frames on priority %s, where PFC is not operational (enabled: %s)", dcb.JoinNums(unexpected, ","), pfcOn.PrioWords()))
	}
	return out
}

// neverPaused reports PFC priorities that carry RDMA traffic yet have
// never paused in either direction. The RDMA priorities are those the
// operational APP table maps RoCE to; without such an entry, every
// priority with PFC on.
func (p *port) neverPaused(pfc *PFCSample, pfcOn dcb.PrioSet) (diag.Diagnostic, bool) {
	if pfcOn == 0 || !p.lossless.rdmaTraffic() {
		return diag.Diagnostic{}, false
	}
	never := func(prio uint8) bool {
		c := &pfc.Priorities[prio]
		return c.RxPause.OK() && c.TxPause.OK() && c.RxPause.Value == 0 && c.TxPause.Value == 0
	}
	// Where the driver counts each priority's traffic, each PFC priority
	// that carried traffic in the last interval is judged on its own: one
	// that never paused while another did is worth knowing (is it lossless
	// at the switch?).
	if carrying, ok := p.lossless.carrying(pfcOn); ok {
		var silent, paused []uint8
		for _, prio := range carrying.List() {
			if never(prio) {
				silent = append(silent, prio)
			} else {
				paused = append(paused, prio)
			}
		}
		if len(silent) == 0 {
			return diag.Diagnostic{}, false
		}
		msg := fmt.Sprintf("PFC priority %s carried traffic in the last interval but no pause frame has ever been sent or received there", dcb.JoinNums(silent, ","))
		action := "nothing to do if the fabric is never congested; to prove the lossless path, run an incast test and watch the pause counters move"
		if len(paused) > 0 {
			msg += fmt.Sprintf(", while PFC priority %s has paused", dcb.JoinNums(paused, ","))
			action = "check that the switch treats priority " + dcb.JoinNums(silent, ",") + " as lossless (its PFC and buffer profile): under the same congestion a lossless priority is paused too"
		}
		return diag.Newf(diag.CodePFCNoPauses, diag.SeverityInfo, "pfc", action, "%s", msg), true
	}
	roce := pfcOn
	if op := p.Operational; op != nil {
		var mapped dcb.PrioSet
		for _, a := range op.App {
			if a.Selector == lldp.AppSelUDP && a.Protocol == RoCEv2Port || a.Selector == lldp.AppSelEthertype && a.Protocol == RoCEv1Ethertype {
				mapped |= 1 << a.Priority
			}
		}
		if mapped != 0 {
			roce = mapped & pfcOn
		}
	}
	var silent []uint8
	for _, prio := range roce.List() {
		if never(prio) {
			silent = append(silent, prio)
		}
	}
	if len(silent) == 0 || len(silent) != len(roce.List()) {
		return diag.Diagnostic{}, false
	}
	return diag.Newf(diag.CodePFCNoPauses, diag.SeverityInfo, "pfc",
		"nothing to do if the fabric is never congested; to prove the lossless path, run an incast test and watch the pause counters move",
		"RDMA traffic flows and PFC is on for priority %s, but no pause frame has ever been sent or received there", dcb.JoinNums(silent, ",")), true
}

// carrying returns the priorities of set whose traffic counters (rx or
// tx bytes) rose over the last interval, and whether the driver counts
// the traffic of every one of them.
func (ls *State) carrying(set dcb.PrioSet) (dcb.PrioSet, bool) {
	cur, prev := ls.cur, ls.prev
	if prev == nil || cur.PFC == nil || prev.PFC == nil {
		return 0, false
	}
	dt := cur.At.Sub(prev.At)
	var out dcb.PrioSet
	for _, prio := range set.List() {
		c, b := &cur.PFC.Priorities[prio], &prev.PFC.Priorities[prio]
		rx, rxOK := readingRate(b.RxBytes, c.RxBytes, dt)
		tx, txOK := readingRate(b.TxBytes, c.TxBytes, dt)
		if !rxOK && !txOK {
			return 0, false
		}
		if rx > 0 || tx > 0 {
			out |= 1 << prio
		}
	}
	return out, true
}

// rdmaTraffic reports whether any RDMA port has counted frames or
// octets.
func (ls *State) rdmaTraffic() bool {
	for i := range ls.cur.RDMA {
		s := &ls.cur.RDMA[i]
		for _, c := range []NDKCounter{NDKRDMAInFrames, NDKRDMAOutFrames, NDKRDMAInOctets, NDKRDMAOutOctets} {
			if s.NDK[c].OK() && s.NDK[c].Value > 0 {
				return true
			}
		}
	}
	return false
}

// congestionDiagnostics: congestion notifications the host does not act
// on, and RDMA packets lost on the way (out of sequence).
func congestionDiagnostics(cur, prev *Sample, dt time.Duration) []diag.Diagnostic {
	if prev == nil {
		return nil
	}
	var out []diag.Diagnostic
	for i := range cur.RDMA {
		s := &cur.RDMA[i]
		b := prev.rdmaPort(s.Device, s.Port)
		if b == nil {
			continue
		}
		name := fmt.Sprintf("%s port %d", s.Device, s.Port)
		cnps := moved(b.Congestion[CNPSent], s.Congestion[CNPSent]) || moved(b.Congestion[CNPHandled], s.Congestion[CNPHandled])
		switch {
		case moved(b.Congestion[CNPIgnored], s.Congestion[CNPIgnored]):
			out = append(out, diag.Newf(diag.CodeCNPWithoutECN, diag.SeverityWarning, "",
				"enable the reaction point on the RoCE priority (mlx5: echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/P)",
				"%s: congestion notifications arrive but are ignored (rp_cnp_ignored rising): the fabric marks ECN and this host does not slow down", name))
		case cnps && cur.ECN != nil && !cur.ECN.EnablesUnknown && cur.ECN.Source != "" && (cur.ECN.NotificationPoint == 0 || cur.ECN.ReactionPoint == 0):
			out = append(out, diag.Newf(diag.CodeCNPWithoutECN, diag.SeverityWarning, "",
				"enable ECN (DCQCN) on the RoCE priority on both roles (mlx5: /sys/class/net/IF/ecn/roce_np|roce_rp/enable/P)",
				"%s: congestion notifications are counted but ECN is disabled here (notification point on %s, reaction point on %s)",
				name, cur.ECN.NotificationPoint.PrioWords(), cur.ECN.ReactionPoint.PrioWords()))
		}
		in, inOK := readingRate(b.NDK[NDKRDMAInFrames], s.NDK[NDKRDMAInFrames], dt)
		if inOK && in > 0 && moved(b.Congestion[OutOfSequence], s.Congestion[OutOfSequence]) {
			oos, _ := readingRate(b.Congestion[OutOfSequence], s.Congestion[OutOfSequence], dt)
			out = append(out, diag.Newf(diag.CodeLossyFabric, diag.SeverityWarning, "",
				"check PFC for the RoCE priority on every hop (pause counters, switch drops) and the ECN thresholds",
				"%s: RDMA packets arrive out of sequence (%.0f/s): packets are lost on a path that should be lossless", name, oos))
		}
	}
	return out
}

// CNPPriority returns the priority the CNPs this host sends travel on,
// and how that is known: by the CNP's DSCP where the port trusts DSCP and
// the operational APP table maps it (IEEE Std 802.1Q-2018 D.2.10.3), else
// its 802.1p priority (vendor cnp_802p_prio, debugfs np_cnp_prio). Not
// known when neither is read, or when a CNP takes the priority of the
// packet it answers (np_cnp_prio_mode 1: then it is the RoCE priority).
func (p *port) PriorityOfCNP(e *ECNSample, q *PortQoSSample) (prio uint8, how string, ok bool) {
	if e == nil || (e.CNPPriorityFromPacket != nil && *e.CNPPriorityFromPacket) {
		return 0, "", false
	}
	if dscp, _ := q.TrustsDSCP(); dscp && e.CNPDSCP != nil {
		table, from := nicTable(p.Local, p.Operational, p.KernelTable)
		if pr, mapped := dscpIn(table, *e.CNPDSCP); mapped {
			return uint8(pr), fmt.Sprintf("CNP DSCP %d, mapped by %s", *e.CNPDSCP, from), true
		}
	}
	if e.CNPPriority != nil {
		return *e.CNPPriority, fmt.Sprintf("CNP 802.1p priority %d", *e.CNPPriority), true
	}
	return 0, "", false
}

// cnpPriorityLossy: the CNPs this host sends travel on a priority that is
// neither lossless (PFC) nor strict (ETS TSA strict): under the very
// congestion they report they queue behind bulk traffic or are dropped,
// and the sender slows down late (DCQCN; NVIDIA's RoCE configuration puts
// CNPs on a strict-priority class, priority 6).
func (p *port) cnpPriorityLossy(e *ECNSample, q *PortQoSSample) (diag.Diagnostic, bool) {
	op := p.Operational
	prio, how, ok := p.PriorityOfCNP(e, q)
	if !ok || op == nil || op.PFC == nil || op.ETS == nil {
		return diag.Diagnostic{}, false
	}
	tc := op.ETS.PrioTC[prio%8]
	if op.PFC.Enabled.Has(prio) || (int(tc) < len(op.ETS.TSA) && op.ETS.TSA[tc] == lldp.TSAStrict) {
		return diag.Diagnostic{}, false
	}
	return diag.Newf(diag.CodeCNPPriorityLossy, diag.SeverityWarning, "ets",
		fmt.Sprintf("send CNPs on a strict-priority or PFC priority (vendor driver: echo P > /sys/class/net/%s/ecn/roce_np/cnp_802p_prio; mlxconfig -d DEV set CNP_802P_PRIO_P1=P CNP_DSCP_P1=D), or make TC %d strict", p.Name, tc),
		"the CNPs this host sends (%s) travel on priority %d, TC %d, which is neither lossless nor strict: congestion notifications can be delayed or dropped by the congestion they report",
		how, prio, tc), true
}

// ecnNeverMarked: congestion evidence on an RDMA port in the last
// interval (out_of_buffer rising: receive WQEs exhausted; or pauses
// received on a PFC priority) while its count of ECN-marked RoCE packets
// stood still: the fabric pauses or drops instead of marking, so DCQCN
// never slows the senders and PFC carries all of the congestion (ECN's
// thresholds on the switch are missing or above its PFC thresholds).
func ecnNeverMarked(cur, prev *Sample, dt time.Duration, pfcOn dcb.PrioSet) []diag.Diagnostic {
	var paused dcb.PrioSet
	if cur.PFC != nil && prev.PFC != nil {
		for _, prio := range pfcOn.List() {
			if moved(prev.PFC.Priorities[prio].RxPause, cur.PFC.Priorities[prio].RxPause) {
				paused |= 1 << prio
			}
		}
	}
	var out []diag.Diagnostic
	for i := range cur.RDMA {
		s := &cur.RDMA[i]
		b := prev.rdmaPort(s.Device, s.Port)
		if b == nil || !s.Congestion[ECNMarked].OK() || moved(b.Congestion[ECNMarked], s.Congestion[ECNMarked]) {
			continue
		}
		if !b.Congestion[ECNMarked].OK() || b.Congestion[ECNMarked].Source != s.Congestion[ECNMarked].Source {
			continue
		}
		var evidence []string
		if moved(b.Congestion[OutOfBuffer], s.Congestion[OutOfBuffer]) {
			r, _ := readingRate(b.Congestion[OutOfBuffer], s.Congestion[OutOfBuffer], dt)
			evidence = append(evidence, fmt.Sprintf("out_of_buffer rising (%.0f/s)", r))
		}
		if paused != 0 {
			evidence = append(evidence, "pauses received on "+priorityWords(paused))
		}
		if len(evidence) == 0 {
			continue
		}
		out = append(out, diag.Newf(diag.CodeECNNeverMarked, diag.SeverityWarning, "",
			"enable ECN marking (WRED/ECN thresholds below the PFC thresholds) on the switch queue of the RoCE priority, and DCQCN on both hosts",
			"%s port %d: congestion (%s) while no ECN-marked RoCE packet arrived (np_ecn_marked_roce_packets flat): the fabric pauses instead of marking, so DCQCN never slows the senders",
			s.Device, s.Port, strings.Join(evidence, ", ")))
	}
	return out
}

// rdmaPort returns the sample's RDMA port dev/port, nil if absent.
func (s *Sample) rdmaPort(dev string, port int) *RDMAPortSample {
	for j := range s.RDMA {
		if s.RDMA[j].Device == dev && s.RDMA[j].Port == port {
			return &s.RDMA[j]
		}
	}
	return nil
}

// moved reports a counter that rose between two readings from the same
// source (a reset is not a rise).
func moved(prev, cur Reading) bool {
	return prev.OK() && cur.OK() && prev.Source == cur.Source && cur.Value > prev.Value
}
