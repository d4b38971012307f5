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
