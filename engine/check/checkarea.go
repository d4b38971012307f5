// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

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

// hopCheck names each RoCE path hop's check ("" for the ToS hop, judged
// through its diagnostics).
var hopCheck = map[lossless.RoCEHop]verdict.Name{
	lossless.HopGID:      verdict.CheckRoCEGID,
	lossless.HopToS:      "",
	lossless.HopTrust:    verdict.CheckTrust,
	lossless.HopPriority: verdict.CheckRoCEPriority,
	lossless.HopTC:       verdict.CheckRoCEETS,
	lossless.HopPFC:      verdict.CheckRoCEPFC,
	lossless.HopBuffer:   verdict.CheckHeadroom,
	lossless.HopETS:      verdict.CheckRoCEETS,
	lossless.HopPauses:   verdict.CheckPauses,
	lossless.HopECN:      verdict.CheckECN,
}

// pathVerdict is a hop's verdict as a check's.
func pathVerdict(v lossless.PathVerdict) verdict.Verdict {
	switch v {
	case lossless.PathError:
		return verdict.Critical
	case lossless.PathWarning:
		return verdict.Warning
	case lossless.PathUnknown:
		return verdict.Unknown
	}
	return verdict.OK
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
			if diag.CheckOf(d.Code) != r.Check || d.Severity == diag.SeverityInfo {
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
				r.Verdict, r.Summary, r.Hop = v, hopSummary(&p, &h), string(h.Hop)
				if v != verdict.Unknown {
					r.Fix = "see the Lossless pane's RoCE path and the diagnostics"
				}
			}
		}
	}
}

// hopSummary is the summary of a verdict a hop decides, the same in
// roce-path and in the check of the hop's area: "RoCE path mlx5_0/1,
// pfc: PFC is off on priority 3".
func hopSummary(p *lossless.RoCEPath, h *lossless.PathHop) string {
	return fmt.Sprintf("RoCE path %s/%d, %s: %s", engine.Sanitize(p.Device), p.Port, h.Hop, h.Reason)
}

// afterPriority reports whether hop h is judged at the RoCE priority (TC,
// PFC, buffer, ETS, pauses, ECN): unknown with it.
func afterPriority(h lossless.RoCEHop) bool {
	i, j := slices.Index(lossless.RoCEHops, h), slices.Index(lossless.RoCEHops, lossless.HopPriority)
	return i > j
}

// worse reports whether v is worse than w (Verdict.Worst's order).
func worse(v, w verdict.Verdict) bool { return w.Worst(v) == v && v != w }

// appendOnce appends s to l unless it is there.
func appendOnce(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}
