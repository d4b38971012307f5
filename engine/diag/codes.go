// SPDX-License-Identifier: Apache-2.0

package diag

// The diagnostic codes: stable kebab-case identifiers for scripts and
// alerts (a metrics label and part of the JSON contract). Each has its
// rule in rules.go.

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
