package engine

import (
	"fmt"

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
)

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
		if t := r.DefaultToS; t != nil && pfcKnown {
			if prio, ok := p.dscpPriority(t.DSCP); ok && !pfcOn.Has(prio) {
				out = append(out, mkDiag(CodeRoCEToSNotLossless, SeverityError, "pfc",
					fmt.Sprintf("set rdma_cm's default ToS to a DSCP mapped to a PFC priority (cma_roce_tos -d %s -t TOS), or map DSCP %d to one", r.Device, t.DSCP),
					"rdma_cm's default ToS %d on %s port %d (DSCP %d) maps to priority %d, where PFC is off: RDMA connections that set no ToS are lossy",
					t.ToS, r.Device, r.Port, t.DSCP, prio))
			}
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

// dscpPriority returns the priority the operational APP table maps dscp
// to (IEEE Std 802.1Q-2018 D.2.10.3, selector 5), and whether it maps it.
func (p *port) dscpPriority(dscp uint8) (uint8, bool) {
	if p.operational == nil {
		return 0, false
	}
	for _, a := range p.operational.App {
		if a.Selector == lldp.AppSelDSCP && a.Protocol == uint16(dscp) {
			return a.Priority, true
		}
	}
	return 0, false
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
				"PFC is on for %s, whose receive buffer has size 0: no headroom for the frames in flight when a pause goes out", joinWords(empty)))
		case pfcOn != 0 && q.PFCDelay != nil && *q.PFCDelay == 0:
			out = append(out, mkDiag(CodePFCNoHeadroom, SeverityWarning, "pfc",
				fmt.Sprintf("set the PFC delay to the cable length (mlnx_qos -i %s --cable_len M, or dcb pfc set dev %s delay M)", p.name, p.name),
				"the PFC delay (cable length) is 0 on a NIC that sizes its lossless headroom from it: frames in flight on a long cable may be dropped"))
		}
	}
	if dscp, known := q.TrustsDSCP(); known && !q.TrustDerived {
		entries := p.localDSCPEntries()
		switch {
		case !dscp && entries > 0:
			out = append(out, mkDiag(CodeTrustMismatch, SeverityWarning, "app",
				fmt.Sprintf("trust DSCP where the fabric marks it (dcb apptrust set dev %s order dscp pcp, or mlnx_qos -i %s --trust dscp)", p.name, p.name),
				"the APP table maps %d DSCP values to priorities, but the port classifies received traffic by %s: the DSCP map is not used", entries, joinWords(q.Trust)))
		case dscp && entries == 0:
			out = append(out, mkDiag(CodeTrustMismatch, SeverityWarning, "app",
				fmt.Sprintf("map the RoCE DSCP to the lossless priority (dcb app add dev %s dscp-prio 26:3), or trust PCP", p.name),
				"the port classifies received traffic by DSCP, but the APP table maps no DSCP value: every packet lands on the default priority"))
		}
	}
	return out
}

// localDSCPEntries counts the DSCP entries of the local APP table in
// force.
func (p *port) localDSCPEntries() int {
	n := 0
	if p.local != nil {
		for _, a := range p.local.App {
			if a.Selector == lldp.AppSelDSCP {
				n++
			}
		}
	}
	return n
}

// joinWords joins with ", ".
func joinWords(s []string) string {
	out := ""
	for i, w := range s {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out
}
