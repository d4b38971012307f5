// SPDX-License-Identifier: Apache-2.0

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

// pauseDiagnostics: pause storms and pauses on priorities without PFC,
// each saying who pauses whom. Pauses received are the peer pausing this
// host (the switch cannot forward what this host sends: congestion beyond
// it); pauses sent are this host's NIC pausing the peer (its receive path
// does not drain). The NIC's storm guard (mlx5 tx_pause_storm_warning_
// and _error_events, device_stall_minor/critical_watermark_cnt: "the
// device was sending pauses for a long period of time", mlx5
// counters.rst) counts this host sending.
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
				"find what stops this host's receive path (the application's receive queues, a stuck CPU or driver, the NIC's receive buffer); while the guard holds, the NIC sends no pauses and received frames are dropped",
				"the NIC's pause storm guard fired (%s events counting): this host's NIC has been sending pause frames for a long time, so its receive path does not drain, and it stops pausing the peer", strings.Join(storm, " and ")))
		}
	}
	var rxStorm, txStorm, unexpected []uint8
	var rxWorst, txWorst float64
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
		if rx >= PauseStormRate {
			rxStorm = append(rxStorm, prio)
			rxWorst = max(rxWorst, rx)
		}
		if tx >= PauseStormRate {
			txStorm = append(txStorm, prio)
			txWorst = max(txWorst, tx)
		}
		if pfcKnown && !pfcOn.Has(prio) && (rx > 0 || tx > 0) {
			unexpected = append(unexpected, prio)
		}
	}
	if len(rxStorm) > 0 {
		out = append(out, diag.Newf(diag.CodePauseStorm, diag.SeverityWarning, "pfc",
			"find the congestion beyond the switch: an incast toward the receivers, a slow receiver downstream, or a switch queue stuck in XOFF; this host holds its traffic while paused",
			"the peer pauses this host on priority %s: up to %.0f pause frames/s received (threshold %.0f/s): the switch cannot forward what this host sends",
			dcb.JoinNums(rxStorm, ","), rxWorst, PauseStormRate))
	}
	if len(txStorm) > 0 {
		out = append(out, diag.Newf(diag.CodePauseStorm, diag.SeverityWarning, "pfc",
			"find what stops this host's receive path: the application's receive queues (out_of_buffer), a stuck CPU or driver, too small a receive buffer; the peer holds its traffic while paused, and a switch PFC watchdog may drop it",
			"this host pauses the peer on priority %s: up to %.0f pause frames/s sent (threshold %.0f/s): this host cannot drain what it receives",
			dcb.JoinNums(txStorm, ","), txWorst, PauseStormRate))
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
		// Each end by its own counters (drivers/infiniband/hw/mlx5/
		// counters.c): the sender's reaction point handles or ignores the
		// CNPs that come back (rp_cnp_handled, rp_cnp_ignored); the
		// receiver's notification point counts the marked packets that
		// arrive (np_ecn_marked_roce_packets) and the CNPs it sends back
		// (np_cnp_sent).
		known := cur.ECN != nil && !cur.ECN.EnablesUnknown && cur.ECN.Source != ""
		switch {
		case moved(b.Congestion[CNPIgnored], s.Congestion[CNPIgnored]):
			out = append(out, diag.Newf(diag.CodeCNPWithoutECN, diag.SeverityWarning, "",
				"enable the reaction point on the RoCE priority (mlx5: echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/P)",
				"%s: congestion notifications arrive but are ignored (rp_cnp_ignored rising): the fabric marks ECN and this host, the sender, does not slow down", name))
		case known && cur.ECN.ReactionPoint == 0 && moved(b.Congestion[CNPHandled], s.Congestion[CNPHandled]):
			out = append(out, diag.Newf(diag.CodeCNPWithoutECN, diag.SeverityWarning, "",
				"enable the reaction point on the RoCE priority (mlx5: /sys/class/net/IF/ecn/roce_rp/enable/P)",
				"%s: congestion notifications are handled (rp_cnp_handled rising) though the reaction point is off here on every priority: the settings read are not the ones in force", name))
		case known && cur.ECN.NotificationPoint == 0 && moved(b.Congestion[ECNMarked], s.Congestion[ECNMarked]):
			out = append(out, diag.Newf(diag.CodeCNPWithoutECN, diag.SeverityWarning, "",
				"enable the notification point on the RoCE priority (mlx5: echo 1 > /sys/class/net/IF/ecn/roce_np/enable/P)",
				"%s: ECN-marked RoCE packets arrive (np_ecn_marked_roce_packets rising) but the notification point is off here (on %s): this host, the receiver, sends no CNP back, so the senders never slow down",
				name, cur.ECN.NotificationPoint.PrioWords()))
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

// ecnNeverMarked: DCQCN's signal missing at this host's end of congested
// RoCE traffic, the fabric pausing or dropping instead of marking ECN (the
// switch marks below its PFC threshold, so marks come before pauses):
//   - as a receiver (RDMA octets arriving): congestion here, out_of_buffer
//     rising (receive WQEs exhausted) or this host pausing the peer on a
//     PFC priority, while no ECN-marked RoCE packet arrived
//     (np_ecn_marked_roce_packets flat);
//   - as a sender (RDMA octets leaving): the peer pausing this host on a
//     PFC priority while no congestion notification came back
//     (rp_cnp_handled and rp_cnp_ignored flat): the receivers had no
//     marks to answer, so DCQCN never slows this sender.
//
// An end whose counters are missing is not judged.
func ecnNeverMarked(cur, prev *Sample, dt time.Duration, pfcOn dcb.PrioSet) []diag.Diagnostic {
	var rxPaused, txPaused dcb.PrioSet // pauses received (the peer pausing us), sent
	if cur.PFC != nil && prev.PFC != nil {
		for _, prio := range pfcOn.List() {
			// A rate, not a rise: a jump no link can make is no pause.
			if r, ok := readingRate(prev.PFC.Priorities[prio].RxPause, cur.PFC.Priorities[prio].RxPause, dt); ok && r > 0 {
				rxPaused |= 1 << prio
			}
			if r, ok := readingRate(prev.PFC.Priorities[prio].TxPause, cur.PFC.Priorities[prio].TxPause, dt); ok && r > 0 {
				txPaused |= 1 << prio
			}
		}
	}
	flat := func(b, s *RDMAPortSample, c CongestionCounter) bool {
		return s.Congestion[c].OK() && b.Congestion[c].OK() && b.Congestion[c].Source == s.Congestion[c].Source && !moved(b.Congestion[c], s.Congestion[c])
	}
	const action = "enable ECN marking (WRED/ECN thresholds below the PFC thresholds) on the switch queue of the RoCE priority, and DCQCN on both hosts"
	var out []diag.Diagnostic
	for i := range cur.RDMA {
		s := &cur.RDMA[i]
		b := prev.rdmaPort(s.Device, s.Port)
		if b == nil {
			continue
		}
		in, _ := readingRate(b.NDK[NDKRDMAInOctets], s.NDK[NDKRDMAInOctets], dt)
		outRate, _ := readingRate(b.NDK[NDKRDMAOutOctets], s.NDK[NDKRDMAOutOctets], dt)
		if in > 0 && flat(b, s, ECNMarked) {
			var evidence []string
			if moved(b.Congestion[OutOfBuffer], s.Congestion[OutOfBuffer]) {
				r, _ := readingRate(b.Congestion[OutOfBuffer], s.Congestion[OutOfBuffer], dt)
				evidence = append(evidence, fmt.Sprintf("out_of_buffer rising (%.0f/s)", r))
			}
			if txPaused != 0 {
				evidence = append(evidence, "this host pausing the peer on "+priorityWords(txPaused))
			}
			if len(evidence) > 0 {
				out = append(out, diag.Newf(diag.CodeECNNeverMarked, diag.SeverityWarning, "", action,
					"%s port %d, receiving RDMA: congestion (%s) while no ECN-marked RoCE packet arrived (np_ecn_marked_roce_packets flat): the fabric pauses instead of marking, so DCQCN never slows the senders",
					s.Device, s.Port, strings.Join(evidence, ", ")))
			}
		}
		if outRate > 0 && rxPaused != 0 && flat(b, s, CNPHandled) && (!s.Congestion[CNPIgnored].OK() || flat(b, s, CNPIgnored)) {
			out = append(out, diag.Newf(diag.CodeECNNeverMarked, diag.SeverityWarning, "", action,
				"%s port %d, sending RDMA: the peer pauses this host on %s while no congestion notification came back (rp_cnp_handled flat): the receivers get no ECN marks to answer, so DCQCN never slows this sender",
				s.Device, s.Port, priorityWords(rxPaused)))
		}
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
