package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Diagnostic codes of a host's RoCE path (the GID, the ToS rdma_cm
// stamps, link-level PAUSE beside PFC).
const (
	CodeRoCEGIDNotV2       Code = "roce-gid-not-v2"
	CodeRoCEToSNotLossless Code = "roce-tos-not-lossless"
	CodeLinkPauseWithPFC   Code = "link-pause-with-pfc"
	CodePFCNoHeadroom      Code = "pfc-no-headroom"
	CodeTrustMismatch      Code = "trust-pcp-with-dscp-map"
	CodePFCStall           Code = "pfc-stall"
	CodeRDMAOnLossy        Code = "rdma-on-lossy-priority"
	// CodeRoCEToSECN: rdma_cm's default ToS carries ECN Not-ECT or CE.
	CodeRoCEToSECN Code = "roce-tos-ecn"
	// CodeLinkPauseFrames: 802.3x PAUSE frames counted on a port that
	// runs PFC or carries RDMA.
	CodeLinkPauseFrames Code = "link-pause-frames"
)

// stallFraction is the share of an interval a PFC priority must spend
// paused, with nothing sent, to count as stalled: the rule of SONiC's PFC
// watchdog (queued, no transmission, paused over 99 % of the interval).
const stallFraction = 0.99

// roceDiagnostics judges the RoCE identity and the link pause of the last
// sample against the operational parameters:
//   - roce-gid-not-v2: a RoCE port (link layer Ethernet) whose GID table
//     has no routable RoCE v2 GID of the interface: RoCE v2 traffic cannot
//     leave the subnet, and tools that pick "the IPv4 GID" fall back to a
//     link-local or RoCE v1 one (NCCL's GID index problems);
//   - roce-tos-not-lossless: rdma_cm's default ToS carries a DSCP the
//     operational APP table maps to a priority without PFC: connections
//     that set no ToS are lossy (only judged where the table maps that
//     DSCP: the driver's own default mapping is not known here);
//   - link-pause-with-pfc: 802.3x link-wide PAUSE on beside PFC, which
//     Linux documents as mutually exclusive (IEEE 802.1Q-2018 36.1.3:
//     PFC is used instead of PAUSE; Documentation/networking/
//     flow_control.rst).
func (p *port) roceDiagnostics(cur *CountersSampled, pfcKnown bool, pfcOn PrioSet) []Diagnostic {
	var out []Diagnostic
	for i := range cur.RoCE {
		r := &cur.RoCE[i]
		if !r.IsRoCE() {
			continue
		}
		if r.RoutableV2 == nil && r.RoutableV2Why != nil {
			out = append(out, mkDiag(CodeRoCEGIDNotV2, SeverityWarning, "",
				fmt.Sprintf("give %s an IPv4 or global IPv6 address (the kernel adds its RoCE v2 GIDs) and have applications use that GID index (show_gids; NCCL_IB_GID_INDEX)", p.name),
				"%s port %d has no routable RoCE v2 GID on %s: %s", r.Device, r.Port, p.name, *r.RoutableV2Why))
		}
		t := r.DefaultToS
		if t == nil {
			continue
		}
		f := p.landingFacts(cur, r)
		var pfc *PFC
		if pfcKnown {
			pfc = p.operational.PFC
		}
		j := judgeToS(t, &f, pfc)
		if l := j.lossy; l != nil {
			where := fmt.Sprintf("maps to priority %d", *l.Priority)
			if l.Default {
				where = fmt.Sprintf("is not mapped and lands on the default priority %d", *l.Priority)
			}
			out = append(out, mkDiag(CodeRoCEToSNotLossless, SeverityError, "pfc",
				fmt.Sprintf("set rdma_cm's default ToS to a DSCP mapped to a PFC priority (cma_roce_tos -d %s -t TOS), or map DSCP %d to one", r.Device, t.DSCP),
				"rdma_cm's default ToS %d on %s port %d (DSCP %d) %s, where PFC is off: RDMA connections that set no ToS are lossy",
				t.ToS, r.Device, r.Port, t.DSCP, where))
		}
		if j.ecnBad {
			msg := "rdma_cm's default ToS %d on %s port %d has ECN Not-ECT: switches may not mark these packets (RFC 3168), so DCQCN gets no congestion signal and congestion ends in pauses or drops"
			if j.ecn == SeverityError {
				msg = "rdma_cm's default ToS %d on %s port %d has ECN CE (congestion experienced): every packet arrives as marked and the receiver answers each with a CNP"
			}
			out = append(out, mkDiag(CodeRoCEToSECN, j.ecn, "",
				fmt.Sprintf("use a ToS with ECT(0): DSCP<<2 | 2 (DSCP 26: cma_roce_tos -d %s -t %d)", r.Device, int(t.DSCP)<<2|2),
				msg, t.ToS, r.Device, r.Port))
		}
	}
	out = append(out, p.qosDiagnostics(cur.QoS, pfcKnown, pfcOn)...)
	if lp := cur.LinkPause; lp.On() && pfcKnown && pfcOn != 0 {
		out = append(out, mkDiag(CodeLinkPauseWithPFC, SeverityWarning, "pfc",
			fmt.Sprintf("turn link-wide PAUSE off: ethtool -A %s autoneg off rx off tx off", p.name),
			"802.3x link-wide PAUSE is on (rx %s, tx %s) beside PFC on %s: the two are mutually exclusive, and a link-wide PAUSE stops every priority",
			onOffPtr(lp.RX), onOffPtr(lp.TX), priorityWords(pfcOn)))
	}
	return out
}

// landingFacts returns what decides where r's traffic lands on this
// port, from sample cur.
func (p *port) landingFacts(cur *CountersSampled, r *RoCEPortSample) landingFacts {
	f := landingFacts{ifname: p.name, r: r, qos: cur.QoS, driver: cur.Driver}
	f.table, f.tableFrom = nicTable(p.local, p.operational, p.localSource)
	return f
}

// onOffPtr says "on", "off" or "unknown".
func onOffPtr(b *bool) string {
	if b == nil {
		return "unknown"
	}
	return OnOff(*b)
}

// priorityWords says "priority 3" or "priorities 3,4".
func priorityWords(s PrioSet) string {
	if len(s.List()) == 1 {
		return "priority " + s.PrioWords()
	}
	return "priorities " + s.PrioWords()
}

// qosDiagnostics judges how the NIC classifies and buffers received
// traffic (DCB netlink) against PFC and the local APP table:
//   - pfc-no-headroom: a PFC priority whose receive buffer has size 0
//     (error: pauses go out too late, frames are dropped), or a PFC
//     delay of 0 on a NIC that sizes headroom from it (mlx5 reports its
//     buffers and takes the delay as the cable length): no room for what
//     is in flight when the pause goes out (linux/dcbnl.h struct
//     ieee_pfc: delay, "allowance made for a round-trip propagation
//     delay of the link in bits"; mlx5 computes each lossless buffer's
//     headroom from it in en/port_buffer.c);
//   - trust-pcp-with-dscp-map: DSCP APP entries while the port classifies
//     by PCP (they are never used), or the port classifies by DSCP with
//     no DSCP entry (every packet lands on the default priority). Only
//     where the kernel reports the trust table: a trust derived from the
//     APP table cannot disagree with it.
func (p *port) qosDiagnostics(q *PortQoSSample, pfcKnown bool, pfcOn PrioSet) []Diagnostic {
	if q == nil {
		return nil
	}
	var out []Diagnostic
	if b := q.Buffer; b != nil && pfcKnown {
		var empty []string
		for _, prio := range pfcOn.List() {
			if buf := b.PrioBuffer[prio]; int(buf) < len(b.SizeBytes) && b.SizeBytes[buf] == 0 {
				empty = append(empty, fmt.Sprintf("priority %d (buffer %d)", prio, buf))
			}
		}
		switch {
		case len(empty) > 0:
			out = append(out, mkDiag(CodePFCNoHeadroom, SeverityError, "pfc",
				fmt.Sprintf("give each PFC priority a receive buffer with headroom (mlnx_qos -i %s --buffer_size ..., or dcb buffer set dev %s)", p.name, p.name),
				"PFC is on for %s, whose receive buffer has size 0: no headroom for the frames in flight when a pause goes out", strings.Join(empty, ", ")))
		case pfcOn != 0 && q.PFCDelay != nil && *q.PFCDelay == 0:
			out = append(out, mkDiag(CodePFCNoHeadroom, SeverityWarning, "pfc",
				fmt.Sprintf("set the PFC delay to the cable length (mlnx_qos -i %s --cable_len M, or dcb pfc set dev %s delay M)", p.name, p.name),
				"the PFC delay (cable length) is 0 on a NIC that sizes its lossless headroom from it: frames in flight on a long cable may be dropped"))
		}
	}
	if dscp, known := q.TrustsDSCP(); known && !q.TrustDerived {
		entries := p.nicDSCPEntries()
		switch {
		case !dscp && entries > 0:
			out = append(out, mkDiag(CodeTrustMismatch, SeverityWarning, "app",
				fmt.Sprintf("trust DSCP where the fabric marks it (dcb apptrust set dev %s order dscp pcp, or mlnx_qos -i %s --trust dscp)", p.name, p.name),
				"the APP table maps %d DSCP values to priorities, but the port classifies received traffic by %s: the DSCP map is not used", entries, strings.Join(q.Trust, ", ")))
		case dscp && entries == 0:
			out = append(out, mkDiag(CodeTrustMismatch, SeverityWarning, "app",
				fmt.Sprintf("map the RoCE DSCP to the lossless priority (dcb app add dev %s dscp-prio 26:3), or trust PCP", p.name),
				"the port classifies received traffic by DSCP, but the APP table maps no DSCP value: every packet lands on the default priority"))
		}
	}
	return out
}

// nicDSCPEntries counts the DSCP entries of the APP table the NIC
// applies (nicTable: the kernel's, else the one in force).
func (p *port) nicDSCPEntries() int {
	table, _ := nicTable(p.local, p.operational, p.localSource)
	n := 0
	for _, a := range table {
		if a.Selector == lldp.AppSelDSCP {
			n++
		}
	}
	return n
}

// trafficDiagnostics judges the per-priority traffic of the last interval
// (mlx5 rx_prio{p}_bytes, tx_prio{p}_bytes, rx_prio{p}_pause_duration):
//   - pfc-stall: a PFC priority paused by the peer for stallFraction of
//     the interval or more while its transmit counter stood still: a PFC
//     deadlock or a receiver that stopped draining (SONiC pfcwd's
//     detection rule);
//   - rdma-on-lossy-priority: RDMA traffic flows (an RDMA port's octets
//     rise) while every PFC priority carries none and a priority without
//     PFC carries traffic: RoCE landed on a lossy priority.
func trafficDiagnostics(cur, prev *CountersSampled, dt time.Duration, pfcOn PrioSet) []Diagnostic {
	if cur.PFC == nil || prev.PFC == nil || dt <= 0 {
		return nil
	}
	var out []Diagnostic
	for _, prio := range pfcOn.List() {
		c, b := &cur.PFC.Priorities[prio], &prev.PFC.Priorities[prio]
		f, ok := pausedFraction(b.RxPauseDuration, c.RxPauseDuration, dt)
		if !ok || f < stallFraction || !c.TxBytes.OK() || !b.TxBytes.OK() || c.TxBytes.Source != b.TxBytes.Source || c.TxBytes.Value != b.TxBytes.Value {
			continue
		}
		out = append(out, mkDiag(CodePFCStall, SeverityError, "pfc",
			"find the receiver that stopped draining priority "+strconv.Itoa(int(prio))+" (a stuck host or NIC on the peer's side, or a pause loop in the fabric); a switch PFC watchdog drops or forwards on such a stall",
			"priority %d was paused by the peer for %.1f%% of the last %s and sent nothing: a PFC stall (deadlock or a receiver that stopped draining)",
			prio, 100*f, dt.Round(time.Millisecond)))
	}
	if len(out) > 0 || !rdmaFlowing(cur, prev) {
		// A stalled lossless priority is not an idle one.
		return out
	}
	var lossless, lossy float64
	var lossySet PrioSet
	known := false
	for p := range uint8(8) {
		c, b := &cur.PFC.Priorities[p], &prev.PFC.Priorities[p]
		var bytes float64
		have := false
		for _, r := range [][2]Reading{{b.RxBytes, c.RxBytes}, {b.TxBytes, c.TxBytes}} {
			if v, ok := readingRate(r[0], r[1], dt); ok {
				bytes, have = bytes+v, true
			}
		}
		if !have {
			continue
		}
		known = true
		if pfcOn.Has(p) {
			lossless += bytes
		} else if bytes > 0 {
			lossy += bytes
			lossySet |= 1 << p
		}
	}
	if known && pfcOn != 0 && lossless == 0 && lossy > 0 {
		lossyWords := priorityWords(lossySet)
		out = append(out, mkDiag(CodeRDMAOnLossy, SeverityError, "pfc",
			"check where RoCE is classified: the GID and ToS the application uses, the port's trust (PCP or DSCP) and its DSCP or PCP map, so that RDMA traffic lands on a PFC priority",
			"RDMA traffic flows, but no traffic on PFC %s and traffic on %s without PFC: RoCE is on a lossy priority",
			priorityWords(pfcOn), lossyWords))
	}
	return out
}

// rdmaFlowing reports whether an RDMA port's traffic octets rose over the
// interval.
func rdmaFlowing(cur, prev *CountersSampled) bool {
	for i := range cur.RDMA {
		c := &cur.RDMA[i]
		for j := range prev.RDMA {
			b := &prev.RDMA[j]
			if b.Device != c.Device || b.Port != c.Port {
				continue
			}
			for _, n := range []NDKCounter{NDKRDMAInOctets, NDKRDMAOutOctets} {
				if c.NDK[n].OK() && b.NDK[n].OK() && c.NDK[n].Source == b.NDK[n].Source && c.NDK[n].Value > b.NDK[n].Value {
					return true
				}
			}
		}
	}
	return false
}
