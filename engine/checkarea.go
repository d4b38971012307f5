package engine

import (
	"fmt"
	"slices"
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
var diagCheck = map[Code]CheckName{
	// The peer and what dcbtop hears of it.
	CodeMultiPeer:          CheckPeer,
	CodeTooManyNeighbors:   CheckPeer,
	CodePeerStale:          CheckPeer,
	CodePeerLost:           CheckPeer,
	CodeDialectConflict:    CheckPeer,
	CodeCEEPeerError:       CheckPeer,
	CodeMalformed:          CheckPeer,
	CodeCaptureError:       CheckPeer,
	CodeCaptureRecordOdd:   CheckPeer,
	CodeTooManyInterfaces:  CheckPeer,
	CodeTLVDiscarded:       CheckPeer,
	CodeDuplicateTLV:       CheckPeer,
	CodeDialectBoth:        CheckPeer,
	CodeCINLegacy:          CheckPeer,
	CodeCEEControlMissing:  CheckPeer,
	CodeETSBandwidthSum:    CheckRoCEETS,
	CodeETSBandwidthRange:  CheckRoCEETS,
	CodeETSBandwidthNonETS: CheckRoCEETS,
	CodeETSPrioTCRange:     CheckRoCEETS,
	CodeETSTSAReserved:     CheckRoCEETS,
	CodeETSMaxTCsRange:     CheckRoCEETS,
	CodeCEEPGBandwidthSum:  CheckRoCEETS,
	CodeCEEPGIDReserved:    CheckRoCEETS,
	CodeETSMismatch:        CheckRoCEETS,
	CodeNoETSReco:          CheckRoCEETS,
	CodePFCTCShared:        CheckRoCEETS,
	CodeETSDiffersFromReco: CheckRoCEETS,
	CodePFCCapRange:        CheckRoCEPFC,
	CodePFCCapExceeded:     CheckRoCEPFC,
	CodePFCMismatch:        CheckPFCAgreement,
	CodeBothWilling:        CheckPFCAgreement,
	CodeNeitherWilling:     CheckPFCAgreement,
	CodeLocalUnknown:       CheckPFCAgreement,
	CodeAppSelector:        CheckRoCEPriority,
	CodeAppDSCPRange:       CheckRoCEPriority,
	CodeAppEthertypeRange:  CheckRoCEPriority,
	CodeAppDuplicate:       CheckRoCEPriority,
	CodeAppPriorityRange:   CheckRoCEPriority,
	CodeTLVTooLong:         CheckRoCEPriority,
	CodePFCPrioNoApp:       CheckRoCEPriority,
	CodeRoCEToSNotLossless: CheckRoCEPriority,
	CodeRDMAOnLossy:        CheckRoCEPriority,
	CodeDualLocalAgent:     CheckAgents,
	CodeFirmwareDCBX:       CheckAgents,
	CodePauseStorm:         CheckPauses,
	CodePauseWithoutPFC:    CheckPauses,
	CodePFCNoPauses:        CheckPauses,
	CodePFCStall:           CheckPauses,
	CodeLossyFabric:        CheckPauses,
	CodeCNPWithoutECN:      CheckECN,
	CodeCNPPriorityLossy:   CheckECN,
	CodeECNNeverMarked:     CheckECN,
	CodeRoCEToSECN:         CheckECN,
	CodeLinkPauseWithPFC:   CheckLinkPause,
	CodeLinkPauseFrames:    CheckLinkPause,
	CodeRoCEGIDNotV2:       CheckRoCEGID,
	CodePFCNoHeadroom:      CheckHeadroom,
	CodeTrustMismatch:      CheckTrust,
	CodeCountersError:      CheckRoCEPath,
}

// hopCheck names each RoCE path hop's check ("" for the ToS hop, judged
// through its diagnostics).
var hopCheck = map[RoCEHop]CheckName{
	HopGID:      CheckRoCEGID,
	HopToS:      "",
	HopTrust:    CheckTrust,
	HopPriority: CheckRoCEPriority,
	HopTC:       CheckRoCEETS,
	HopPFC:      CheckRoCEPFC,
	HopBuffer:   CheckHeadroom,
	HopETS:      CheckRoCEETS,
	HopPauses:   CheckPauses,
	HopECN:      CheckECN,
}

// CheckOfCode returns the check a diagnostic code belongs to, and whether
// the code is known.
func CheckOfCode(code Code) (CheckName, bool) {
	c, ok := diagCheck[code]
	return c, ok
}

// CheckOfHop returns the check a RoCE path hop belongs to ("" for the
// ToS hop).
func CheckOfHop(h RoCEHop) CheckName { return hopCheck[h] }

// pathVerdict is a hop's verdict as a check's.
func pathVerdict(v PathVerdict) Verdict {
	switch v {
	case PathError:
		return VerdictCritical
	case PathWarning:
		return VerdictWarning
	case PathUnknown:
		return VerdictUnknown
	}
	return VerdictOK
}

// fold makes each result the worst of itself, the interface's
// diagnostics of its check and the hops of its check: a worse finding
// takes the summary (its message or reason) and the fix, the finding
// joins the evidence. A replay's counters checks keep their UNKNOWN
// (nothing was sampled).
func (c *checker) fold() {
	for i := range c.out {
		r := &c.out[i]
		for _, d := range c.in.Diagnostics {
			if diagCheck[d.Code] != r.Check || d.Severity == SeverityInfo {
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
				if hopCheck[h.Hop] != r.Check || h.Verdict == PathOK {
					continue
				}
				if h.Verdict == PathUnknown && p.Priority == nil && afterPriority(h.Hop) {
					continue // unknown because the priority is: nothing of its own
				}
				v := pathVerdict(h.Verdict)
				if !worse(v, r.Verdict) {
					continue
				}
				r.Evidence = appendOnce(r.Evidence, fmt.Sprintf("%s/%d %s: %s", Sanitize(p.Device), p.Port, h.Hop, h.Verdict))
				r.Verdict, r.Summary = v, fmt.Sprintf("RoCE path %s/%d, %s: %s", Sanitize(p.Device), p.Port, h.Hop, h.Reason)
				if v != VerdictUnknown {
					r.Fix = "see the Lossless pane's RoCE path and the diagnostics"
				}
			}
		}
	}
}

// afterPriority reports whether hop h is judged at the RoCE priority (TC,
// PFC, buffer, ETS, pauses, ECN): unknown with it.
func afterPriority(h RoCEHop) bool {
	i, j := slices.Index(RoCEHops, h), slices.Index(RoCEHops, HopPriority)
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
