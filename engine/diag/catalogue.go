// SPDX-License-Identifier: Apache-2.0

package diag

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine/verdict"
)

// The diagnostic codes: stable kebab-case identifiers for scripts and
// alerts (a metrics label and part of the JSON contract). Each has its
// row in the Catalogue below.

// Diagnostic codes produced by the engine (the codec's are in diagnostic.go).
const (
	CodeMalformed        Code = "lldpdu-malformed"
	CodeTooManyNeighbors Code = "too-many-neighbors"
	CodeMultiPeer        Code = "multi-peer"
	CodeETSMismatch      Code = "ets-mismatch"
	CodePFCMismatch      Code = "pfc-mismatch"
	CodeBothWilling      Code = "both-willing"
	CodeNeitherWilling   Code = "neither-willing-mismatch"
	CodeNoETSReco        Code = "no-ets-reco"
	CodePFCPrioNoApp     Code = "pfc-prio-no-app"
	CodePFCTCShared      Code = "pfc-tc-shared"
	CodeDialectConflict  Code = "dialect-conflict"
	CodeDualLocalAgent   Code = "dual-local-agent"
	CodePeerStale        Code = "peer-stale"
	CodeCEEPeerError     Code = "cee-peer-error"
	CodeLocalUnknown     Code = "local-unknown"
	CodeCaptureError     Code = "capture-error"
	CodeFirmwareDCBX     Code = "firmware-dcbx"
	CodeCaptureRecordOdd Code = "capture-record-odd"
	// CodePeerLost: the DCBX peer expired, shut down or went with the
	// link; the operational parameters fell back to the local ones.
	CodePeerLost Code = "peer-lost"
	// CodeETSDiffersFromReco: this host, not willing, runs an ETS other
	// than the peer recommends (information: ETS is asymmetric).
	CodeETSDiffersFromReco Code = "ets-differs-from-reco"
	// CodeNICDiffers: what dcbtop's agent negotiated (the operational
	// parameters) is not what the NIC reads back.
	CodeNICDiffers Code = "nic-differs"
	// CodeMaxFrameBelowMTU: the peer's Maximum Frame Size TLV is below
	// the frames this interface's MTU (or its RoCE MTU) makes.
	CodeMaxFrameBelowMTU Code = "max-frame-below-mtu"
	// CodeVLANNotAdvertised: this host uses a VLAN on the port that the
	// peer, naming its VLANs, does not name.
	CodeVLANNotAdvertised Code = "vlan-not-advertised"
	// CodeSeveralSpeakers: more than one LLDP speaker on the port,
	// whatever they speak (multi-peer counts DCBX speakers only).
	CodeSeveralSpeakers Code = "several-lldp-speakers"
	// CodeDialectUnanswered: the peer speaks a DCBX dialect this host's
	// agent does not send: nothing is negotiated.
	CodeDialectUnanswered Code = "dialect-unanswered"
	// CodeAppConflict: one APP selector and protocol mapped to several
	// priorities.
	CodeAppConflict Code = "app-conflict"
	// CodeRoCEMTU: a RoCE port whose interface MTU gives a RoCE MTU below
	// 4096.
	CodeRoCEMTU Code = "roce-mtu"
)

// Diagnostic codes of the lossless counters.
const (
	CodePauseStorm      Code = "pause-storm"
	CodePauseWithoutPFC Code = "pause-without-pfc"
	CodePFCNoPauses     Code = "pfc-no-pauses"
	CodeCNPWithoutECN   Code = "cnp-without-ecn"
	CodeLossyFabric     Code = "lossy-fabric"
	CodeCountersError   Code = "counters-error"
	// CodeCNPPriorityLossy: the CNPs this host sends travel on a priority
	// neither lossless nor strict.
	CodeCNPPriorityLossy Code = "cnp-priority-lossy"
	// CodeECNNeverMarked: congestion while ECN-marked packets stay flat.
	CodeECNNeverMarked Code = "ecn-never-marked"
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

// Diagnostic codes of Validate beyond the codec's.
const (
	CodeETSMaxTCsRange   Code = "ets-max-tcs-range"
	CodeAppPriorityRange Code = "app-priority-range"
	// CodeTLVTooLong: the parameters do not fit the TLV that carries
	// them (more than lldp.MaxAppEntries APP entries).
	CodeTLVTooLong Code = "tlv-too-long"
)

// CodeTooManyInterfaces is the host-wide diagnostic raised once events
// arrived for more interfaces than Config.MaxInterfaces.
const CodeTooManyInterfaces Code = "too-many-interfaces"

// An Entry is a diagnostic code's row in the Catalogue: the code, the
// severities its rules raise it at (an error makes its check CRITICAL, a
// warning WARNING, information changes no verdict), the check of dcbtop
// check whose verdict its findings weigh on (its area), and the rule it
// comes from: the standard clause, the Microsoft document or the design
// decision (the same as docs/dcbx.md's tables).
type Entry struct {
	Code       Code
	Severities Severities
	Check      verdict.Name
	Rule       string
}

// Catalogue is every diagnostic code, once: Codes, Rule, SeveritiesOf
// and CheckOf read it, engine/check's areas and engine/metrics' code label come from it,
// and the JSON Schema's enum is tested against it. A new diagnostic is
// its code's constant, one row here and the rule that raises it.
var Catalogue = []Entry{
	{CodeETSBandwidthSum, Error, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 37.3: the ETS traffic classes' bandwidths sum to 100%"},
	{CodeETSBandwidthRange, Error, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 D.2.9: a TC bandwidth is 0-100%"},
	{CodeETSBandwidthNonETS, Warning, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 37.3: strict-priority and CBS traffic classes get no ETS bandwidth"},
	{CodeETSPrioTCRange, Warning, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 D.2.9: priorities map to traffic classes below Max TCs"},
	{CodeETSTSAReserved, Error, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 Table D-8: TSA is strict (0), CBS (1), ETS (2) or vendor (255)"},
	{CodePFCCapRange, Error, verdict.CheckRoCEPFC, "IEEE 802.1Q-2018 D.2.11: the PFC capability is at most 8"},
	{CodePFCCapExceeded, Error, verdict.CheckRoCEPFC, "IEEE 802.1Q-2018 D.2.11: no more priorities enabled than the PFC capability"},
	{CodeAppSelector, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 Table D-9: APP selectors 1-5"},
	{CodeAppDSCPRange, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 Table D-9: a DSCP value is 0-63"},
	{CodeAppEthertypeRange, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 Table D-9: an EtherType is 0x0600 or more (0: the default priority)"},
	{CodeAppDuplicate, Warning, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 D.2.12: each APP entry once"},
	{CodeDuplicateTLV, SeveritySet(SeverityWarning, SeverityError), verdict.CheckPeer, "IEEE 802.1Q-2018 D.1: one TLV of each DCBX kind per LLDPDU"},
	{CodeDialectBoth, Warning, verdict.CheckPeer, "lldpad: with IEEE 802.1Qaz and CEE TLVs in one LLDPDU, IEEE is used"},
	{CodeCEEPGBandwidthSum, Error, verdict.CheckRoCEETS, "CEE DCBX 1.01, Priority Group TLV: the PG bandwidths sum to 100%"},
	{CodeCEEPGIDReserved, Error, verdict.CheckRoCEETS, "CEE DCBX 1.01, Priority Group TLV: PGIDs 0-7 and 15 (strict)"},
	{CodeCEEControlMissing, Error, verdict.CheckPeer, "CEE DCBX 1.01: a CEE TLV carries a Control sub-TLV"},
	{CodeCINLegacy, Info, verdict.CheckPeer, "CIN DCBX (pre-CEE) is recognised but not decoded"},
	{CodeTLVDiscarded, Warning, verdict.CheckPeer, "IEEE 802.1AB-2016 9.2.7.7.2: an error in an optional TLV discards that TLV only"},
	{CodeETSMaxTCsRange, Error, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 D.2.9: Max TCs is 1-8"},
	{CodeAppPriorityRange, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 D.2.12: an APP priority is 0-7"},
	{CodeTLVTooLong, Error, verdict.CheckRoCEPriority, "IEEE 802.1AB-2016 8.4.1: a TLV value is at most 511 bytes (168 APP entries)"},
	{CodeMalformed, Warning, verdict.CheckPeer, "IEEE 802.1AB-2016 9.2.7.7.2: an error in the framing or the mandatory TLVs discards the LLDPDU"},
	{CodeTooManyNeighbors, Warning, verdict.CheckPeer, "IEEE 802.1AB-2016 9.2.5.22: tooManyNeighbors, until its timer runs out"},
	{CodeTooManyInterfaces, Warning, verdict.CheckPeer, "dcbtop's bound on interfaces (engine.DefaultMaxInterfaces, 1,024): a host has a handful, a switch 64 to 256"},
	{CodeMultiPeer, SeveritySet(SeverityInfo, SeverityError), verdict.CheckPeer, "Microsoft, Indicating Changes to the Remote NDIS QoS Parameters: more than one peer invalidates the remote parameters"},
	{CodeETSMismatch, Warning, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 37.1 (ETS is asymmetric): a willing host runs the ETS the resolver puts in force"},
	{CodePFCMismatch, Error, verdict.CheckPFCAgreement, "IEEE 802.1Q-2018 (PFC is symmetric): both ends enable PFC on the same priorities"},
	{CodeBothWilling, Warning, verdict.CheckPFCAgreement, "lldpad's PFC tie-break: with both sides willing, the lower MAC adopts the peer's PFC"},
	{CodeNeitherWilling, Error, verdict.CheckPFCAgreement, "IEEE 802.1Q-2018 (PFC is symmetric): with neither side willing, nothing reconciles different PFC"},
	{CodeNoETSReco, Warning, verdict.CheckRoCEETS, "lldpad's ETS machine: a willing host without an ETS recommendation keeps its own ETS"},
	{CodePFCPrioNoApp, Warning, verdict.CheckRoCEPriority, "design: a lossless priority needs an APP entry to get traffic"},
	{CodePFCTCShared, Warning, verdict.CheckRoCEETS, "design: a lossless priority on a TC shared with lossy priorities loses its isolation"},
	{CodeDialectConflict, Warning, verdict.CheckPeer, "lldpad: one DCBX version per port"},
	{CodeDualLocalAgent, Error, verdict.CheckAgents, "IEEE 802.1AB-2016: one LLDP agent per port and destination address"},
	{CodePeerStale, Warning, verdict.CheckPeer, "IEEE 802.1AB-2016 9.2.5.22: a peer sends every TTL/4 or so; three missed intervals is a warning"},
	{CodeCEEPeerError, Warning, verdict.CheckPeer, "CEE DCBX 1.01: the feature's Error bit"},
	{CodeLocalUnknown, Info, verdict.CheckPFCAgreement, "design: without local parameters nothing can be compared"},
	{CodeCaptureError, Error, verdict.CheckPeer, "design: the capture or transmission failed"},
	{CodeMaxFrameBelowMTU, SeveritySet(SeverityWarning, SeverityError), verdict.CheckPeer, "IEEE Std 802.3-2018 79.3.4 (Maximum Frame Size TLV: the largest frame the peer's MAC and PHY accept, destination address to FCS) and 3.1.1 (an MTU-sized payload is framed by 18 bytes: addresses 12, length/type 2, FCS 4); the TLV is the MAC and PHY's capability, not the port's configured MTU (lldpd/lldpd#511), so a smaller one is a hard limit and a larger one proves nothing; RoCE's MTU is include/rdma/ib_addr.h iboe_get_mtu of the interface's MTU, framed by Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4 and FCS 4 at least"},
	{CodeVLANNotAdvertised, Warning, verdict.CheckPeer, "IEEE Std 802.1Q-2018 D.2.3 (VLAN Name TLV: a VLAN the port is a member of) and 8.6.2 (ingress filtering discards a frame whose VLAN the port is not a member of); a warning, since D.2.3 does not oblige a bridge to name every VLAN"},
	{CodeSeveralSpeakers, Warning, verdict.CheckPeer, "lldpad rx.c (one neighbour per agent: a second MSAP is tooManyNghbrs, and its CEE machine then treats the peer as absent) and IEEE 802.1AB-2016 9.2.5.22 (tooManyNeighbors): a switch port is one link partner, so a second speaker is a BMC sharing the NIC, a vSwitch forwarding LLDP or an unmanaged switch; Microsoft's multi-peer rule counts DCBX speakers only, this counts every speaker"},
	{CodeDialectUnanswered, Error, verdict.CheckPFCAgreement, "CEE DCBX 1.01, Control sub-TLV (a feature is in force once the peer acknowledges its sequence number) and lldpad lldp_dcbx.c (IEEE first, falling back to CEE while the peer speaks only CEE): an agent that sends only the other dialect is never answered, so nothing is negotiated"},
	{CodeAppConflict, SeveritySet(SeverityWarning, SeverityError), verdict.CheckRoCEPriority, "net/dcb/dcbnl.c dcb_ieee_setapp (the kernel's APP table keeps every selector, protocol and priority, so one protocol may have several; dcb_ieee_getapp_mask returns them all) against drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c mlx5e_dcbnl_ieee_setapp (one priority per DSCP: a later entry replaces the one before): which priority the traffic takes depends on the order the entries were written"},
	{CodeRoCEMTU, SeveritySet(SeverityInfo, SeverityWarning), verdict.CheckRoCEPath, "include/rdma/ib_addr.h iboe_get_mtu: a RoCE port's path MTU is the largest InfiniBand MTU (256-4096) that fits the interface's MTU less 96 bytes of IB headers, so an MTU below 4192 gives RoCE less than 4096-byte packets (MTU 1500: 1024)"},
	{CodeNICDiffers, Warning, verdict.CheckAgents, "IEEE 802.1Q-2018 D.2 (the operational parameters are those in force) and lldpad's lldp_8021qaz.c set_ieee_hw, which programs the driver with DCB_CMD_IEEE_SET after every resolution: a NIC that reads back other values runs something other than what the peer is told"},
	{CodeFirmwareDCBX, SeveritySet(SeverityInfo, SeverityWarning), verdict.CheckAgents, "design: the NIC firmware runs DCBX (LLD_MANAGED), the host does not write"},
	{CodeCaptureRecordOdd, Warning, verdict.CheckPeer, "design: capture records read despite an inconsistency"},
	{CodePauseStorm, SeveritySet(SeverityWarning, SeverityError), verdict.CheckPauses, "design: a priority pausing at 1,000 frames/s or more, each direction apart (rx_prio{p}_pause: the peer pausing this host; tx_prio{p}_pause: this host pausing the peer); or the NIC's storm guard counting, which is this host sending (mlx5 counters.rst: tx_pause_storm_warning_events and tx_pause_storm_error_events, the device sending pauses for a long time)"},
	{CodePauseWithoutPFC, Warning, verdict.CheckPauses, "IEEE 802.1Q-2018 36.1: pauses on a priority without PFC"},
	{CodePFCNoPauses, Info, verdict.CheckPauses, "design: RDMA traffic on a PFC priority that never paused"},
	{CodeCNPWithoutECN, Warning, verdict.CheckECN, "DCQCN (RoCEv2 congestion control) at each end, by its own counters (drivers/infiniband/hw/mlx5/counters.c; mlx5 counters.rst): a sender's reaction point handles or ignores the CNPs that come back (rp_cnp_handled, rp_cnp_ignored), a receiver's notification point counts the marked packets that arrive (np_ecn_marked_roce_packets) and sends CNPs (np_cnp_sent)"},
	{CodeLossyFabric, Warning, verdict.CheckPauses, "design: RDMA traffic with out-of-sequence packets rising"},
	{CodeCountersError, Warning, verdict.CheckRoCEPath, "design: a counter source exists but could not be read"},
	{CodeRoCEGIDNotV2, Warning, verdict.CheckRoCEGID, "IBTA Annex A17 (RoCE v2): only a RoCE v2 GID with a routable IP address carries traffic beyond the subnet"},
	{CodeRoCEToSNotLossless, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 D.2.10.3: the APP table maps DSCP to priority; rdma_cm's default ToS (cma_configfs.c) must land on a PFC priority"},
	{CodeLinkPauseWithPFC, Warning, verdict.CheckLinkPause, "IEEE 802.1Q-2018 36.1.3 and Linux Documentation/networking/flow_control.rst: link-level PAUSE and PFC are mutually exclusive"},
	{CodePFCNoHeadroom, SeveritySet(SeverityWarning, SeverityError), verdict.CheckHeadroom, "linux/dcbnl.h ieee_pfc delay and dcbnl_buffer: a lossless priority needs a receive buffer with headroom for the round trip"},
	{CodeTrustMismatch, Warning, verdict.CheckTrust, "linux/dcbnl.h DCB_ATTR_DCB_APP_TRUST_TABLE: the APP entries of a selector the port does not trust are never used"},
	{CodePFCStall, Error, verdict.CheckPauses, "SONiC PFC watchdog's detection rule: paused over 99% of the interval with nothing transmitted is a stall"},
	{CodeRDMAOnLossy, Error, verdict.CheckRoCEPriority, "IEEE 802.1Q-2018 36.1 (PFC pauses only its priorities) against the counters: RDMA's port byte counters (IBTA PortXmitData/PortRcvData) exceed the PFC priorities' byte counters (mlx5 en_stats.c tx/rx_prio{p}_bytes) by a tenth or more, and the lossy priorities carried the difference"},
	{CodeCNPPriorityLossy, Warning, verdict.CheckECN, "DCQCN (Zhu et al., SIGCOMM 2015) and NVIDIA's RoCE configuration: CNPs go on a lossless or strict-priority class so that they are not delayed by the congestion they report"},
	{CodePeerLost, SeveritySet(SeverityWarning, SeverityError), verdict.CheckPeer, "IEEE 802.1AB 9.2.5.23 (rxInfoAge) and 9.2.7.7.1 (shutdown LLDPDU): a neighbour's information is deleted when its TTL runs out or it sends a shutdown LLDPDU; Microsoft, Indicating Changes to the Remote NDIS QoS Parameters: the remote parameters are then invalid, and the operational ones the local"},
	{CodeETSDiffersFromReco, Info, verdict.CheckRoCEETS, "IEEE 802.1Q-2018 37.1 and D.2.10: ETS is asymmetric; the ETS Recommendation TLV is what the peer asks its willing neighbour to run, which a host that is not willing need not"},
	{CodeRoCEToSECN, SeveritySet(SeverityWarning, SeverityError), verdict.CheckECN, "RFC 3168 5 and 6.1.1: a router marks CE only on ECN-capable (ECT) packets, and a sender never sets CE; DCQCN's notification point answers CE-marked packets with CNPs"},
	{CodeLinkPauseFrames, SeveritySet(SeverityWarning, SeverityError), verdict.CheckLinkPause, "IEEE 802.3 30.3.4.2 and 30.3.4.3 (aPAUSEMACCtrlFramesTransmitted/Received) and Linux Documentation/networking/flow_control.rst: link-wide PAUSE stops every priority, which PFC exists to avoid"},
	{CodeECNNeverMarked, Warning, verdict.CheckECN, "DCQCN: the switch marks ECN below its PFC threshold, so marks come before pauses; judged at each end by its own counters (drivers/infiniband/hw/mlx5/counters.c): a receiver under congestion (out_of_buffer rising, or pausing the peer) with np_ecn_marked_roce_packets flat, a sender paused by the peer with rp_cnp_handled flat"},
}

// catalogue indexes Catalogue by code.
var catalogue = func() map[Code]Entry {
	m := make(map[Code]Entry, len(Catalogue))
	for _, e := range Catalogue {
		m[e.Code] = e
	}
	return m
}()

// Rule returns the rule a diagnostic code comes from (the
// standard clause, the document or the design decision), "" for an
// unknown code.
func Rule(code Code) string { return catalogue[code].Rule }

// SeveritiesOf returns the severities a diagnostic code is raised at
// (none for an unknown code).
func SeveritiesOf(code Code) Severities { return catalogue[code].Severities }

// CheckOf returns the check whose verdict a diagnostic code weighs on,
// "" for an unknown code.
func CheckOf(code Code) verdict.Name { return catalogue[code].Check }

// Codes returns every diagnostic code, sorted: each has its rule.
func Codes() []Code {
	out := make([]Code, 0, len(Catalogue))
	for _, e := range Catalogue {
		out = append(out, e.Code)
	}
	slices.Sort(out)
	return out
}
