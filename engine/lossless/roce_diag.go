// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
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
func (p *port) roceDiagnostics(cur *Sample, pfcKnown bool, pfcOn dcb.PrioSet) []diag.Diagnostic {
	var out []diag.Diagnostic
	for i := range cur.RoCE {
		r := &cur.RoCE[i]
		if !r.IsRoCE() {
			continue
		}
		if r.RoutableV2 == nil && r.RoutableV2Why != nil {
			out = append(out, diag.Newf(diag.CodeRoCEGIDNotV2, diag.SeverityWarning, "",
				fmt.Sprintf("give %s an IPv4 or global IPv6 address (the kernel adds its RoCE v2 GIDs) and have applications use that GID index (show_gids; NCCL_IB_GID_INDEX)", p.Name),
				"%s port %d has no routable RoCE v2 GID on %s: %s", r.Device, r.Port, p.Name, *r.RoutableV2Why))
		}
		t := r.DefaultToS
		if t == nil {
			continue
		}
		f := p.landingFacts(cur, r)
		var pfc *dcb.PFC
		if pfcKnown {
			pfc = p.Operational.PFC
		}
		j := judgeToS(t, &f, pfc)
		if l := j.lossy; l != nil {
			where := fmt.Sprintf("maps to priority %d", *l.Priority)
			if l.Default {
				where = fmt.Sprintf("is not mapped and lands on the default priority %d", *l.Priority)
			}
			out = append(out, diag.Newf(diag.CodeRoCEToSNotLossless, diag.SeverityError, "pfc",
				fmt.Sprintf("set rdma_cm's default ToS to a DSCP mapped to a PFC priority (dcbtop apply -i %s --roce-tos %s/%d=TOS), or map DSCP %d to one (--dscp %d=P)", p.Name, r.Device, r.Port, t.DSCP, t.DSCP),
				"rdma_cm's default ToS %d on %s port %d (DSCP %d) %s, where PFC is off: RDMA connections that set no ToS are lossy",
				t.ToS, r.Device, r.Port, t.DSCP, where))
		}
		if j.ecnBad {
			msg := "rdma_cm's default ToS %d on %s port %d has ECN Not-ECT: switches may not mark these packets (RFC 3168), so DCQCN gets no congestion signal and congestion ends in pauses or drops"
			if j.ecn == diag.SeverityError {
				msg = "rdma_cm's default ToS %d on %s port %d has ECN CE (congestion experienced): every packet arrives as marked and the receiver answers each with a CNP"
			}
			out = append(out, diag.Newf(diag.CodeRoCEToSECN, j.ecn, "",
				fmt.Sprintf("use a ToS with ECT(0), DSCP<<2 | 2: dcbtop apply -i %s --roce-tos %s/%d=%d", p.Name, r.Device, r.Port, int(t.DSCP)<<2|2),
				msg, t.ToS, r.Device, r.Port))
		}
	}
	out = append(out, p.qosDiagnostics(cur.QoS, pfcKnown, pfcOn)...)
	if lp := cur.LinkPause; lp.On() && pfcKnown && pfcOn != 0 {
		out = append(out, diag.Newf(diag.CodeLinkPauseWithPFC, diag.SeverityWarning, "pfc",
			fmt.Sprintf("turn link-wide PAUSE off: ethtool -A %s autoneg off rx off tx off", p.Name),
			"802.3x link-wide PAUSE is on (rx %s, tx %s) beside PFC on %s: the two are mutually exclusive, and a link-wide PAUSE stops every priority",
			OnOffPtr(lp.RX), OnOffPtr(lp.TX), priorityWords(pfcOn)))
	}
	return out
}

// landingFacts returns what decides where r's traffic lands on this
// port, from sample cur.
func (p *port) landingFacts(cur *Sample, r *RoCEPortSample) landingFacts {
	f := landingFacts{ifname: p.Name, r: r, qos: cur.QoS, driver: cur.Driver}
	f.table, f.tableFrom = nicTable(p.Local, p.Operational, p.KernelTable)
	return f
}

// OnOffPtr says "on", "off" or "unknown".
func OnOffPtr(b *bool) string {
	if b == nil {
		return "unknown"
	}
	return dcb.OnOff(*b)
}

// priorityWords says "priority 3" or "priorities 3,4".
func priorityWords(s dcb.PrioSet) string {
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
func (p *port) qosDiagnostics(q *PortQoSSample, pfcKnown bool, pfcOn dcb.PrioSet) []diag.Diagnostic {
	if q == nil {
		return nil
	}
	var out []diag.Diagnostic
	if b := q.Buffer; b != nil && pfcKnown {
		var empty []string
		for _, prio := range pfcOn.List() {
			if buf := b.PrioBuffer[prio]; int(buf) < len(b.SizeBytes) && b.SizeBytes[buf] == 0 {
				empty = append(empty, fmt.Sprintf("priority %d (buffer %d)", prio, buf))
			}
		}
		switch {
		case len(empty) > 0:
			out = append(out, diag.Newf(diag.CodePFCNoHeadroom, diag.SeverityError, "pfc",
				fmt.Sprintf("give each PFC priority a receive buffer with headroom (dcbtop apply -i %s --buffer PRIO-BUFFERS:SIZES --dry-run previews it)", p.Name),
				"PFC is on for %s, whose receive buffer has size 0: no headroom for the frames in flight when a pause goes out", strings.Join(empty, ", ")))
		case pfcOn != 0 && q.PFCDelay != nil && *q.PFCDelay == 0:
			out = append(out, diag.Newf(diag.CodePFCNoHeadroom, diag.SeverityWarning, "pfc",
				fmt.Sprintf("set the PFC delay to the cable length: dcbtop apply -i %s --pfc-delay M", p.Name),
				"the PFC delay (cable length) is 0 on a NIC that sizes its lossless headroom from it: frames in flight on a long cable may be dropped"))
		}
	}
	if dscp, known := q.TrustsDSCP(); known && !q.TrustDerived {
		entries := p.nicDSCPEntries()
		switch {
		case !dscp && entries > 0:
			out = append(out, diag.Newf(diag.CodeTrustMismatch, diag.SeverityWarning, "app",
				fmt.Sprintf("trust DSCP where the fabric marks it: dcbtop apply -i %s --trust dscp,pcp", p.Name),
				"the APP table maps %s to priorities, but the port classifies received traffic by %s: the DSCP map is not used", count(uint64(entries), "DSCP value"), strings.Join(q.Trust, ", ")))
		case dscp && entries == 0:
			out = append(out, diag.Newf(diag.CodeTrustMismatch, diag.SeverityWarning, "app",
				fmt.Sprintf("map the RoCE DSCP to the lossless priority: dcbtop apply -i %s --dscp 26=3; or trust PCP", p.Name),
				"the port classifies received traffic by DSCP, but the APP table maps no DSCP value: every packet lands on the default priority"))
		}
	}
	return out
}

// nicDSCPEntries counts the DSCP entries of the APP table the NIC
// applies (nicTable: the kernel's, else the one in force).
func (p *port) nicDSCPEntries() int {
	table, _ := nicTable(p.Local, p.Operational, p.KernelTable)
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
//   - rdma-on-lossy-priority: a material share of the RDMA ports' bytes
//     is missing from the PFC priorities' traffic and the lossy priorities
//     carried at least as much (rdmaOnLossy).
func trafficDiagnostics(cur, prev *Sample, dt time.Duration, pfcOn dcb.PrioSet) []diag.Diagnostic {
	if dt <= 0 {
		return nil
	}
	if cur.PFC == nil || prev.PFC == nil {
		if pfcOn == 0 {
			return rdmaOnLossy(cur, prev, dt, pfcOn) // needs no per-priority counter
		}
		return nil
	}
	var out []diag.Diagnostic
	for _, prio := range pfcOn.List() {
		c, b := &cur.PFC.Priorities[prio], &prev.PFC.Priorities[prio]
		f, ok := pausedFraction(b.RxPauseDuration, c.RxPauseDuration, dt)
		if !ok || f < stallFraction || !c.TxBytes.OK() || !b.TxBytes.OK() || c.TxBytes.Source != b.TxBytes.Source || c.TxBytes.Value != b.TxBytes.Value {
			continue
		}
		out = append(out, diag.Newf(diag.CodePFCStall, diag.SeverityError, "pfc",
			"find the receiver that stopped draining priority "+strconv.Itoa(int(prio))+" (a stuck host or NIC on the peer's side, or a pause loop in the fabric); a switch PFC watchdog drops or forwards on such a stall",
			"priority %d was paused by the peer for %.1f%% of the last %s and sent nothing: a PFC stall (deadlock or a receiver that stopped draining)",
			prio, 100*f, dt.Round(time.Millisecond)))
	}
	if len(out) > 0 {
		// A stalled lossless priority is not an idle one.
		return out
	}
	return append(out, rdmaOnLossy(cur, prev, dt, pfcOn)...)
}

// materialShare is the share of RDMA's bytes that must be missing from
// the PFC priorities' traffic before rdma-on-lossy-priority speaks: the
// per-priority counters count whole frames and RDMA's port counters
// less, so a smaller gap is within the difference of the two counts.
const materialShare = 0.10

// rdmaOnLossy compares, per direction, the RDMA ports' byte rate with the
// bytes the PFC priorities carried (mlx5 rx_prio{p}_bytes / tx_prio{p}_bytes,
// bnxt_en rx_bytes_pri{p} / tx_bytes_pri{p}): RDMA bytes the lossless
// priorities did not carry, a material share of them, travelled on a
// priority without PFC, provided the lossy priorities carried at least
// as much. The bound is a lower one (other traffic on the PFC
// priorities hides RDMA bytes elsewhere), so nothing is claimed where
// the counts do not add up.
func rdmaOnLossy(cur, prev *Sample, dt time.Duration, pfcOn dcb.PrioSet) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, dir := range []struct {
		verb  string
		rdma  NDKCounter
		bytes func(p *PrioPauseSample) Reading
	}{
		{"received", NDKRDMAInOctets, func(p *PrioPauseSample) Reading { return p.RxBytes }},
		{"sent", NDKRDMAOutOctets, func(p *PrioPauseSample) Reading { return p.TxBytes }},
	} {
		r := rdmaRate(cur, prev, dt, dir.rdma)
		if r <= 0 {
			continue
		}
		if pfcOn == 0 {
			// No priority has PFC: every RDMA byte is lossy, whichever
			// priority carries it (IEEE 802.1Q-2018 36.1: PFC pauses only
			// the priorities it is enabled on).
			out = append(out, diag.Newf(diag.CodeRDMAOnLossy, diag.SeverityError, "pfc",
				"enable PFC on the RoCE priority on both ends (dcbtop apply --pfc P, or Willing on to take the switch's) and map RoCE to it",
				"RDMA %s %s/s while no priority has PFC in force: every RDMA byte travels without PFC", dir.verb, byteWords(r)))
			continue
		}
		var lossless, lossy float64
		var lossySet dcb.PrioSet
		var lossyWords []string
		known := false
		for p := range uint8(8) {
			v, ok := readingRate(dir.bytes(&prev.PFC.Priorities[p]), dir.bytes(&cur.PFC.Priorities[p]), dt)
			if !ok {
				continue
			}
			known = true
			switch {
			case pfcOn.Has(p):
				lossless += v
			case v > 0:
				lossy += v
				lossySet |= 1 << p
				lossyWords = append(lossyWords, fmt.Sprintf("%d (%s/s)", p, byteWords(v)))
			}
		}
		missing := r - lossless
		if !known || missing < materialShare*r || lossy < missing {
			continue
		}
		what := "no PFC priority carried any"
		if lossless > 0 {
			what = fmt.Sprintf("PFC %s carried %s/s", priorityWords(pfcOn), byteWords(lossless))
		}
		out = append(out, diag.Newf(diag.CodeRDMAOnLossy, diag.SeverityError, "pfc",
			"check where RoCE is classified: the GID and ToS the application uses, the port's trust (PCP or DSCP) and its DSCP or PCP map, so that RDMA traffic lands on a PFC priority",
			"RDMA %s %s/s while %s: at least %.0f%% of RDMA's %s bytes travel without PFC, on %s %s",
			dir.verb, byteWords(r), what, 100*missing/r, dir.verb, map[bool]string{true: "priority", false: "priorities"}[len(lossySet.List()) == 1], strings.Join(lossyWords, ", ")))
	}
	return out
}

// linkPausedShare is the share of an interval spent paused by link-wide
// PAUSE frames at which link-pause-frames is an error: a tenth of the
// link's time stopped for every priority.
const linkPausedShare = 0.10

// linkPauseFrames: IEEE 802.3 Annex 31B (link-wide) PAUSE frames counted
// in the last interval on a port that runs PFC or carries RDMA: a
// link-wide PAUSE stops every priority, the lossless one included
// (Documentation/networking/flow_control.rst; IEEE Std 802.1Q-2018
// 36.1.3). The frames come from ethtool netlink's statistics, else the
// driver's (mlx5 rx_pause_ctrl_phy); where the per-priority PFC counters
// moved by as many frames, they are taken as PFC frames the driver also
// counts here, and nothing is claimed. A warning; an error when the
// driver's pause time says the port stood paused a tenth of the interval
// or more.
func linkPauseFrames(cur, prev *Sample, dt time.Duration, pfcOn dcb.PrioSet) (diag.Diagnostic, bool) {
	c, b := cur.LinkPause, prev.LinkPause
	if c == nil || b == nil || dt <= 0 || c.FramesSource != b.FramesSource {
		return diag.Diagnostic{}, false
	}
	rate := func(x, y *uint64) float64 {
		r, _ := plausible(x, y, dt) // missing, or an impossible jump: no rate
		return r
	}
	rx, tx := rate(b.RxFrames, c.RxFrames), rate(b.TxFrames, c.TxFrames)
	if rx == 0 && tx == 0 {
		return diag.Diagnostic{}, false
	}
	rdma := rdmaRate(cur, prev, dt, NDKRDMAInOctets)+rdmaRate(cur, prev, dt, NDKRDMAOutOctets) > 0
	if pfcOn == 0 && !rdma {
		return diag.Diagnostic{}, false
	}
	if cur.PFC != nil && prev.PFC != nil {
		var prx, ptx float64
		for p := range cur.PFC.Priorities {
			if v, ok := readingRate(prev.PFC.Priorities[p].RxPause, cur.PFC.Priorities[p].RxPause, dt); ok {
				prx += v
			}
			if v, ok := readingRate(prev.PFC.Priorities[p].TxPause, cur.PFC.Priorities[p].TxPause, dt); ok {
				ptx += v
			}
		}
		if rx <= prx && tx <= ptx {
			return diag.Diagnostic{}, false // as many PFC frames: counted twice
		}
	}
	var why []string
	if pfcOn != 0 {
		why = append(why, "PFC runs on "+priorityWords(pfcOn))
	}
	if rdma {
		why = append(why, "RDMA traffic flows")
	}
	sev, paused := diag.SeverityWarning, ""
	if r, ok := plausible(b.RxPauseUs, c.RxPauseUs, dt); ok {
		f := min(1, r/1e6)
		paused = fmt.Sprintf(", paused %.1f%% of the interval", 100*f)
		if f >= linkPausedShare {
			sev = diag.SeverityError
		}
	}
	src := c.FramesSource
	if src == "" {
		src = c.Source
	}
	return diag.Newf(diag.CodeLinkPauseFrames, sev, "pfc",
		"turn link-wide PAUSE off on both ends (ethtool -A IF rx off tx off; on the switch, flowcontrol off) and let PFC pause the lossless priority alone",
		"802.3x link-wide PAUSE frames flow (%.0f/s received, %.0f/s sent%s; %s) while %s: each one stops every priority, the lossless one included",
		rx, tx, paused, src, strings.Join(why, " and ")), true
}

// rdmaRate is the summed byte rate of the sample's RDMA ports for NDK
// counter c (RDMAInOctets or RDMAOutOctets) over the interval; 0 when
// unknown.
func rdmaRate(cur, prev *Sample, dt time.Duration, c NDKCounter) float64 {
	var sum float64
	for i := range cur.RDMA {
		for j := range prev.RDMA {
			if prev.RDMA[j].Device == cur.RDMA[i].Device && prev.RDMA[j].Port == cur.RDMA[i].Port {
				if v, ok := readingRate(prev.RDMA[j].NDK[c], cur.RDMA[i].NDK[c], dt); ok {
					sum += v
				}
			}
		}
	}
	return sum
}

// plausible is PlausibleRate of two optional counter values, false when
// either is missing.
func plausible(prev, cur *uint64, dt time.Duration) (float64, bool) {
	if prev == nil || cur == nil {
		return 0, false
	}
	return PlausibleRate(*prev, *cur, dt)
}

// byteWords renders a byte count in SI units: "800 kB", "1.5 GB".
func byteWords(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	u := 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	if v >= 100 || u == 0 {
		return fmt.Sprintf("%.0f %s", v, units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}
