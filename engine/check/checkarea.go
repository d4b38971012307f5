package check

import (
	"fmt"
	"slices"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// Every diagnostic belongs to the check of its area, and so does every
// hop of a RoCE path but the ToS's (judged through its diagnostics,
// roce-tos-not-lossless and roce-tos-ecn, whose checks differ). A check's
// verdict is the worst of its own reading, its diagnostics (an error
// CRITICAL, a warning WARNING; information never changes a verdict) and
// its hops (error CRITICAL, warning WARNING, unknown UNKNOWN): dcbtop
// check never says OK beside a finding of its own area
// (TestCheckAreas walks every code).

// diagCheck names each diagnostic code's check.
var diagCheck = map[diag.Code]Name{
	// The peer and what dcbtop hears of it.
	diag.CodeMultiPeer:          CheckPeer,
	diag.CodeTooManyNeighbors:   CheckPeer,
	diag.CodePeerStale:          CheckPeer,
	diag.CodeMaxFrameBelowMTU:   CheckPeer,
	diag.CodeVLANNotAdvertised:  CheckPeer,
	diag.CodePeerLost:           CheckPeer,
	diag.CodeDialectConflict:    CheckPeer,
	diag.CodeCEEPeerError:       CheckPeer,
	diag.CodeMalformed:          CheckPeer,
	diag.CodeCaptureError:       CheckPeer,
	diag.CodeCaptureRecordOdd:   CheckPeer,
	diag.CodeTooManyInterfaces:  CheckPeer,
	diag.CodeTLVDiscarded:       CheckPeer,
	diag.CodeDuplicateTLV:       CheckPeer,
	diag.CodeDialectBoth:        CheckPeer,
	diag.CodeCINLegacy:          CheckPeer,
	diag.CodeCEEControlMissing:  CheckPeer,
	diag.CodeETSBandwidthSum:    CheckRoCEETS,
	diag.CodeETSBandwidthRange:  CheckRoCEETS,
	diag.CodeETSBandwidthNonETS: CheckRoCEETS,
	diag.CodeETSPrioTCRange:     CheckRoCEETS,
	diag.CodeETSTSAReserved:     CheckRoCEETS,
	diag.CodeETSMaxTCsRange:     CheckRoCEETS,
	diag.CodeCEEPGBandwidthSum:  CheckRoCEETS,
	diag.CodeCEEPGIDReserved:    CheckRoCEETS,
	diag.CodeETSMismatch:        CheckRoCEETS,
	diag.CodeNoETSReco:          CheckRoCEETS,
	diag.CodePFCTCShared:        CheckRoCEETS,
	diag.CodeETSDiffersFromReco: CheckRoCEETS,
	diag.CodePFCCapRange:        CheckRoCEPFC,
	diag.CodePFCCapExceeded:     CheckRoCEPFC,
	diag.CodePFCMismatch:        CheckPFCAgreement,
	diag.CodeBothWilling:        CheckPFCAgreement,
	diag.CodeNeitherWilling:     CheckPFCAgreement,
	diag.CodeLocalUnknown:       CheckPFCAgreement,
	diag.CodeAppSelector:        CheckRoCEPriority,
	diag.CodeAppDSCPRange:       CheckRoCEPriority,
	diag.CodeAppEthertypeRange:  CheckRoCEPriority,
	diag.CodeAppDuplicate:       CheckRoCEPriority,
	diag.CodeAppPriorityRange:   CheckRoCEPriority,
	diag.CodeTLVTooLong:         CheckRoCEPriority,
	diag.CodePFCPrioNoApp:       CheckRoCEPriority,
	diag.CodeRoCEToSNotLossless: CheckRoCEPriority,
	diag.CodeRDMAOnLossy:        CheckRoCEPriority,
	diag.CodeDualLocalAgent:     CheckAgents,
	diag.CodeFirmwareDCBX:       CheckAgents,
	diag.CodeNICDiffers:         CheckAgents,
	diag.CodePauseStorm:         CheckPauses,
	diag.CodePauseWithoutPFC:    CheckPauses,
	diag.CodePFCNoPauses:        CheckPauses,
	diag.CodePFCStall:           CheckPauses,
	diag.CodeLossyFabric:        CheckPauses,
	diag.CodeCNPWithoutECN:      CheckECN,
	diag.CodeCNPPriorityLossy:   CheckECN,
	diag.CodeECNNeverMarked:     CheckECN,
	diag.CodeRoCEToSECN:         CheckECN,
	diag.CodeLinkPauseWithPFC:   CheckLinkPause,
	diag.CodeLinkPauseFrames:    CheckLinkPause,
	diag.CodeRoCEGIDNotV2:       CheckRoCEGID,
	diag.CodePFCNoHeadroom:      CheckHeadroom,
	diag.CodeTrustMismatch:      CheckTrust,
	diag.CodeCountersError:      CheckRoCEPath,
}

// hopCheck names each RoCE path hop's check ("" for the ToS hop, judged
// through its diagnostics).
var hopCheck = map[lossless.RoCEHop]Name{
	lossless.HopGID:      CheckRoCEGID,
	lossless.HopToS:      "",
	lossless.HopTrust:    CheckTrust,
	lossless.HopPriority: CheckRoCEPriority,
	lossless.HopTC:       CheckRoCEETS,
	lossless.HopPFC:      CheckRoCEPFC,
	lossless.HopBuffer:   CheckHeadroom,
	lossless.HopETS:      CheckRoCEETS,
	lossless.HopPauses:   CheckPauses,
	lossless.HopECN:      CheckECN,
}

// pathVerdict is a hop's verdict as a check's.
func pathVerdict(v lossless.PathVerdict) Verdict {
	switch v {
	case lossless.PathError:
		return VerdictCritical
	case lossless.PathWarning:
		return VerdictWarning
	case lossless.PathUnknown:
		return VerdictUnknown
	}
	return VerdictOK
}

// fold makes each result the worst of itself, the interface's
// diagnostics of its check and the hops of its check: a worse finding
// takes the summary (its message or reason) and the fix, the finding
// joins the evidence. A capture without counters keeps its counters
// checks UNKNOWN (nothing was sampled).
func (c *checker) fold() {
	for i := range c.out {
		r := &c.out[i]
		for _, d := range c.in.Diagnostics {
			if diagCheck[d.Code] != r.Check || d.Severity == diag.SeverityInfo {
				continue
			}
			r.Evidence = appendOnce(r.Evidence, "diagnostic "+string(d.Code))
			if v := diagVerdict(d); worse(v, r.Verdict) {
				r.Verdict, r.Summary, r.Fix = v, d.Message, d.Action
			}
		}
		if c.in.Counters == nil {
			continue
		}
		for _, p := range c.in.Counters.RoCEPaths {
			for _, h := range p.Hops {
				if hopCheck[h.Hop] != r.Check || h.Verdict == lossless.PathOK {
					continue
				}
				if h.Verdict == lossless.PathUnknown && p.Priority == nil && afterPriority(h.Hop) {
					continue // unknown because the priority is: nothing of its own
				}
				v := pathVerdict(h.Verdict)
				if !worse(v, r.Verdict) {
					continue
				}
				r.Evidence = appendOnce(r.Evidence, fmt.Sprintf("%s/%d %s: %s", engine.Sanitize(p.Device), p.Port, h.Hop, h.Verdict))
				r.Verdict, r.Summary = v, fmt.Sprintf("RoCE path %s/%d, %s: %s", engine.Sanitize(p.Device), p.Port, h.Hop, h.Reason)
				if v != VerdictUnknown {
					r.Fix = "see the Lossless pane's RoCE path and the diagnostics"
				}
			}
		}
	}
}

// afterPriority reports whether hop h is judged at the RoCE priority (TC,
// PFC, buffer, ETS, pauses, ECN): unknown with it.
func afterPriority(h lossless.RoCEHop) bool {
	i, j := slices.Index(lossless.RoCEHops, h), slices.Index(lossless.RoCEHops, lossless.HopPriority)
	return i > j
}

// worse reports whether v is worse than w (Verdict.Worst's order).
func worse(v, w Verdict) bool { return w.Worst(v) == v && v != w }

// appendOnce appends s to l unless it is there.
func appendOnce(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}
