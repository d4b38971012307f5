// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"fmt"
	"strconv"
)

// A Name names one check of lossless (RoCE) readiness, stable across
// versions: it is part of `dcbtop check`'s JSON and JUnit output.
type Name string

// The checks, in the order engine/check runs them.
const (
	// CheckPeer: a valid DCBX peer (it sends DCBX TLVs, has not expired,
	// is alone on the link).
	CheckPeer Name = "dcbx-peer"
	// CheckRoCEPriority: the APP table maps RoCEv2 (UDP 4791) or a DSCP to
	// a priority, the one the checks below look at.
	CheckRoCEPriority Name = "roce-priority"
	// CheckRoCEPFC: PFC is on for the RoCE priority, in force here and at
	// the peer.
	CheckRoCEPFC Name = "roce-pfc"
	// CheckRoCEETS: the RoCE priority's traffic class gets ETS bandwidth
	// and no strict-priority class can starve it, here and at the peer.
	CheckRoCEETS Name = "roce-ets"
	// CheckPFCAgreement: this host's and the peer's PFC agree, or the
	// willing side adopted the other's.
	CheckPFCAgreement Name = "pfc-agreement"
	// CheckAgents: one DCBX agent on the port: no second local LLDP
	// agent, no NIC firmware agent besides the host's.
	CheckAgents Name = "single-agent"
	// CheckPauses: no pause storm, no pauses on a priority without PFC.
	CheckPauses Name = "pauses"
	// CheckECN: congestion notifications (CNPs) come with ECN marking
	// enabled (DCQCN).
	CheckECN Name = "ecn"
	// CheckLinkPause: 802.3x link-wide PAUSE is off where PFC is in force
	// (the two are mutually exclusive).
	CheckLinkPause Name = "link-pause"
	// CheckRoCEGID: every RoCE port of the interface has a routable RoCE
	// v2 GID.
	CheckRoCEGID Name = "roce-gid"
	// CheckHeadroom: every PFC priority has a receive buffer with room
	// (size above 0) and the PFC delay (cable length) is set where the
	// driver sizes headroom from it.
	CheckHeadroom Name = "headroom"
	// CheckTrust: the port classifies received traffic by the field the
	// APP table maps (DSCP entries with DSCP trust, none without).
	CheckTrust Name = "trust"
	// CheckRoCEPath: every hop of each RoCE port's path (Interface.
	// RoCEPaths) is ok: the worst hop is the verdict.
	CheckRoCEPath Name = "roce-path"
	// CheckPolicy: the operational parameters meet the expected policy.
	CheckPolicy Name = "policy"
)

// Names are every check, in the order a report lists them: the
// check label's bounded set in dcbtop check --textfile's metrics.
var Names = []Name{
	CheckPeer, CheckRoCEPriority, CheckRoCEPFC, CheckRoCEETS, CheckPFCAgreement, CheckAgents,
	CheckPauses, CheckECN, CheckLinkPause, CheckRoCEGID, CheckHeadroom, CheckTrust, CheckRoCEPath,
	CheckPolicy,
}

// A Verdict is a check's outcome, numbered as a Nagios plugin's exit
// status (Nagios Plugin API, "Plugin Return Codes").
type Verdict uint8

// The verdicts.
const (
	OK       Verdict = 0
	Warning  Verdict = 1
	Critical Verdict = 2
	// Unknown: the check could not run (its inputs are missing,
	// as on a replay without local parameters or counters).
	Unknown Verdict = 3
)

var verdictNames = [...]string{"OK", "WARNING", "CRITICAL", "UNKNOWN"}

// String returns OK, WARNING, CRITICAL or UNKNOWN.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict-" + strconv.Itoa(int(v))
}

// MarshalText returns String.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText accepts what String returns.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// severity orders verdicts for Worst: CRITICAL, then WARNING, then
// UNKNOWN, then OK (the monitoring plugins' max_state_alt).
var severity = [...]int{OK: 0, Warning: 2, Critical: 3, Unknown: 1}

// Worst returns the worse of v and w: CRITICAL over WARNING over UNKNOWN
// over OK.
func (v Verdict) Worst(w Verdict) Verdict {
	if int(w) < len(severity) && (int(v) >= len(severity) || severity[w] > severity[v]) {
		return w
	}
	return v
}

// A Result is one check's verdict on one interface, with what it
// was decided from and what to do about it.
type Result struct {
	Interface string  `json:"interface"`
	Check     Name    `json:"check"`
	Verdict   Verdict `json:"verdict"`
	// Summary says the verdict's reason in one line.
	Summary string `json:"summary"`
	// Evidence lists the facts it rests on.
	Evidence []string `json:"evidence"`
	// Fix suggests what to do; "" when there is nothing to do.
	Fix string `json:"fix"`
	// Facts are the inputs the verdict judges, each with whether it was
	// read: a verdict is OK only when every one of them was.
	Facts []Fact `json:"facts"`
	// Blames are the sides a CRITICAL or WARNING finding names, each
	// resting on a fact of that side that was read; empty otherwise.
	Blames []Side `json:"blames"`
	// Hop names the RoCE path hop the verdict stems from ("pfc"), where
	// one decided it; absent otherwise.
	Hop string `json:"hop,omitempty"`
}

// A Side is an end of the link a fact describes or a finding blames.
type Side string

// The sides.
const (
	// SideHost: this host (its parameters, its NIC, its counters, its
	// agents).
	SideHost Side = "host"
	// SidePeer: the link partner (the switch port): what it sends over
	// LLDP, or that it sends nothing.
	SidePeer Side = "peer"
)

// A Fact is one input a verdict judges: what it is (in words, "the
// peer's PFC"), whose it is, and whether it was read in this run.
// Why says, when it was not read, why not ("no DCBX from the peer").
type Fact struct {
	Name string `json:"name"`
	Side Side   `json:"side"`
	Read bool   `json:"read"`
	Why  string `json:"why,omitempty"`
}

// Unread returns the names of r's facts that were not read, with why
// ("the peer's PFC (no DCBX from the peer)").
func (r *Result) Unread() []string {
	var out []string
	for _, f := range r.Facts {
		if !f.Read {
			n := f.Name
			if f.Why != "" {
				n += " (" + f.Why + ")"
			}
			out = append(out, n)
		}
	}
	return out
}
