// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// A findingLevel ranks a line of the Diag pane: a diagnostic's severity,
// or a check's verdict.
type findingLevel uint8

// The levels, from least to most serious for sorting (unknown sorts
// below information: it is what was not read, not a problem found).
const (
	findUnknown findingLevel = iota
	findInfo
	findWarning
	findError
)

// A finding is one thing the Diag pane says: a diagnostic of the engine,
// or a check's verdict (engine.Interface.Checks, the one evaluation
// dcbtop check reports) that no diagnostic already says: a CRITICAL or
// WARNING the check reached from its own reading (roce-pfc: "the peer
// does not enable PFC"), or an UNKNOWN (what was not read).
type finding struct {
	level  findingLevel
	tag    string // the diagnostic code or the check's name(s)
	msg    string
	action string
	// checks counts the checks an unknown finding stands for: those
	// that lack the same fact say it once ("no counters were sampled:
	// pauses, ecn, link-pause").
	checks int
}

// findingsOf returns in's findings and the host-wide diagnostics: every
// diagnostic, then each check whose verdict no diagnostic says.
func findingsOf(in *engine.Interface, host []diag.Diagnostic) []finding {
	var out []finding
	var said []string
	for _, ds := range [][]diag.Diagnostic{in.Diagnostics, host} {
		for _, d := range ds {
			lv := findInfo
			switch d.Severity {
			case diag.SeverityError:
				lv = findError
			case diag.SeverityWarning:
				lv = findWarning
			}
			out = append(out, finding{level: lv, tag: string(d.Code), msg: d.Message, action: d.Action})
			said = append(said, d.Message)
		}
	}
	var unknown []string
	// Verdicts a RoCE path hop decided: one line per level, naming the
	// hops and the checks (the Lossless pane shows the hops).
	type hopLine struct {
		hops, checks []string
	}
	var hopped [findError + 1]hopLine
	for _, r := range in.Checks {
		var lv findingLevel
		switch r.Verdict {
		case verdict.Critical:
			lv = findError
		case verdict.Warning:
			lv = findWarning
		case verdict.Unknown:
			unknown = append(unknown, string(r.Check))
			continue
		default:
			continue
		}
		if slices.Contains(said, r.Summary) {
			continue // the diagnostic that decided it is listed
		}
		if r.Hop != "" {
			h := &hopped[lv]
			if !slices.Contains(h.hops, r.Hop) {
				h.hops = append(h.hops, r.Hop)
			}
			h.checks = append(h.checks, string(r.Check))
			continue
		}
		if i := slices.IndexFunc(out, func(f finding) bool { return f.checks > 0 && f.level == lv && f.msg == r.Summary }); i >= 0 {
			// One fact deciding two checks (a hop of the RoCE path and
			// the check of its area) is said once.
			out[i].tag += ", " + string(r.Check)
			out[i].checks++
			continue
		}
		out = append(out, finding{level: lv, tag: string(r.Check), msg: r.Summary, action: r.Fix, checks: 1})
	}
	for lv := findError; lv >= findWarning; lv-- {
		if h := hopped[lv]; len(h.checks) > 0 {
			out = append(out, finding{level: lv, tag: strings.Join(h.checks, ", "), checks: len(h.checks),
				msg:    "the RoCE path: " + strings.Join(h.hops, ", ") + map[bool]string{true: " is", false: " are"}[len(h.hops) == 1] + " not ok",
				action: "the Lossless pane (l) shows each hop and why"})
		}
	}
	if len(unknown) > 0 {
		// One line for every check nothing read enough to judge: the
		// details (enter) say what each lacks.
		out = append(out, finding{level: findUnknown, tag: "unknown", checks: len(unknown),
			msg: "not judged (not read): " + strings.Join(unknown, ", ")})
	}
	return out
}

// findingCounts counts findings by level.
func findingCounts(fs []finding) (errs, warns, infos, unknown int) {
	for _, f := range fs {
		switch f.level {
		case findError:
			errs++
		case findWarning:
			warns++
		case findInfo:
			infos++
		default:
			unknown += max(1, f.checks)
		}
	}
	return
}

// interfaceCounts counts an interface's findings (its diagnostics and its
// checks): what the overview's Diag column and the header's Diag tab say.
func interfaceCounts(in *engine.Interface) (errs, warns, infos, unknown int) {
	return findingCounts(findingsOf(in, nil))
}
