// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// dualAgentWindow is how recently another local LLDP agent must have been
// seen for dcbtop and it to count as two agents on one port.
const dualAgentWindow = 121 * time.Second

// diagnostics re-evaluates the interface's diagnostics at now: the decode
// problems of the remote peer's LLDPDU, then the configuration problems an
// operator of lossless Ethernet needs to see.
func (p *port) diagnostics(now time.Time) []diag.Diagnostic {
	out := []diag.Diagnostic{}
	if p.remoteFrom != nil {
		out = diag.AppendFindings(out, p.remoteFrom.du.Findings)
	}
	// Other peers' discarded TLVs (the remote peer's are among its
	// diagnostics above).
	for _, n := range p.neighbors {
		if n == p.remoteFrom {
			continue
		}
		for _, f := range n.du.Findings {
			if f.Code == lldp.CodeTLVDiscarded {
				f.Message = "peer " + msapName(n) + ": " + f.Message
				out = append(out, diag.FromFinding(f))
			}
		}
	}
	if p.multi {
		if macs, ok := p.ambiguousEnds(); ok {
			// Two peers is one reading of an ambiguous capture's two
			// speakers, not a finding: the remote parameters are invalid
			// as the NDIS rule has them, and which reading holds is for
			// the user to say.
			out = append(out, diag.Newf(diag.CodeMultiPeer, diag.SeverityInfo, "lldp",
				"say which end is this host: --local-mac "+strings.Join(macs, " or --local-mac "),
				"two LLDP speakers and the capture does not say which frames this host sent: read as two peers, the remote parameters are invalid; they may be this host and its peer"))
		} else {
			out = append(out, diag.Newf(diag.CodeMultiPeer, diag.SeverityError, "lldp",
				"find the second LLDP speaker: an unmanaged switch, a vswitch passing LLDP, or a NIC firmware agent next to a host agent",
				"more than one DCBX peer on this link: remote parameters are invalid until every peer's information has expired"))
		}
	}
	if d, ok := p.peerLost(now); ok {
		out = append(out, d)
	}
	if d, ok := p.speakersDiagnostic(); ok {
		out = append(out, d)
	}
	if d, ok := p.unansweredDiagnostic(now); ok {
		out = append(out, d)
	}
	out = append(out, p.appConflicts()...)
	out = append(out, p.pairDiagnostics()...)
	out = append(out, p.opDiagnostics()...)
	// Dialects heard from live peers.
	var ieee, cee bool
	for _, n := range p.neighbors {
		if n.scope != ScopeNearestBridge {
			continue // DCBX runs on the nearest-bridge agent only
		}
		switch n.du.Dialect() {
		case lldp.DialectIEEE:
			ieee = true
		case lldp.DialectCEE:
			cee = true
		}
		if ttl := time.Duration(n.du.TTL) * time.Second; ttl > 0 {
			interval := n.interval()
			if silent := now.Sub(n.lastSeen); freshnessOf(silent, interval) == FreshnessStale {
				out = append(out, diag.Newf(diag.CodePeerStale, diag.SeverityWarning, "lldp", "check the link and the peer's LLDP agent",
					"peer %s silent for %s (about %d transmit intervals); its information expires in %s",
					msapName(n), silent.Round(time.Second), int(silent/interval), n.expires.Sub(now).Round(time.Second)))
			}
		}
	}
	out = append(out, p.frameSizeDiagnostics()...)
	out = append(out, p.vlanDiagnostics()...)
	if ieee && cee {
		out = append(out, diag.Newf(diag.CodeDialectConflict, diag.SeverityWarning, "lldp", "configure the switch port for one DCBX version (IEEE recommended)",
			"both IEEE 802.1Qaz and CEE DCBX are heard on this link"))
	}
	live := 0
	for _, a := range p.agents {
		if now.Sub(a.lastSeen) < dualAgentWindow {
			live++
		}
	}
	if live > 1 {
		out = append(out, diag.Newf(diag.CodeDualLocalAgent, diag.SeverityError, "lldp",
			"run one LLDP agent per port: stop lldpad/lldpd or the NIC firmware agent",
			"%d local LLDP agents (different chassis or port IDs) transmit on this port; the switch sees a multi-peer condition", live))
	}
	if p.firmware {
		sev, msg := diag.SeverityInfo, "the NIC firmware runs DCBX (LLD_MANAGED): dcbtop shows what the driver reports and does not write ETS/PFC"
		if len(p.neighbors) == 0 {
			sev, msg = diag.SeverityWarning, "the NIC firmware runs DCBX (LLD_MANAGED) and may consume LLDP frames before the host sees them: no peer is visible here"
		}
		out = append(out, diag.Newf(diag.CodeFirmwareDCBX, sev, "lldp",
			"to let the host see LLDP (and run dcbtop --agent): "+firmwareHandOver("IF")+"; Broadcom: switch the firmware DCBX mode off",
			"%s", msg))
	}
	if p.captureErr != "" {
		out = append(out, diag.Newf(diag.CodeCaptureError, diag.SeverityError, "lldp", "dcbtop retries with backoff; check the interface and privileges",
			"capture: %s", p.captureErr))
	}
	if p.counters.Malformed > 0 {
		out = append(out, diag.Newf(diag.CodeMalformed, diag.SeverityWarning, "lldp", "",
			"discarded %d malformed LLDPDU(s); last at %s: %s", p.counters.Malformed, p.lastBadAt.UTC().Format(time.RFC3339), p.lastBad))
	}
	if p.tooManyUntil.After(now) {
		// As tooManyNeighbors (IEEE Std 802.1AB-2016, 9.2.5.22), this
		// clears when its timer runs out; the evicted count stays in
		// capture.neighbors_evicted.
		out = append(out, diag.Newf(diag.CodeTooManyNeighbors, diag.SeverityWarning, "lldp", "is something flooding LLDP on this link?",
			"neighbour table full: %d MSAP(s) evicted so far; clears %s after the last eviction if none follows",
			p.counters.NeighborsEvicted, p.tooManyUntil.Sub(now).Round(time.Second)))
	}
	if p.counters.RecordsOdd > 0 {
		out = append(out, diag.Newf(diag.CodeCaptureRecordOdd, diag.SeverityWarning, "lldp", "the capture file was written by a tool that got a length wrong; the frames are read as captured",
			"%d capture record(s) read despite an inconsistency; last: %s", p.counters.RecordsOdd, p.lastNote))
	}
	return append(out, p.lossless.Diagnostics(lossless.Port{Name: p.name, Local: p.local, Operational: p.operational,
		KernelTable: p.localSource == SourceDCBNL})...)
}

// recordingAdvice rewrites local-unknown's advice for the replay of a
// dcbtop -w recording (one that carries host records: HostObserved came),
// which already is what the advice for a plain capture asks for: the
// host's local parameters were unknown when it was recorded too. The
// diagnostics are copied where one changes.
func recordingAdvice(ds []diag.Diagnostic) []diag.Diagnostic {
	for i, d := range ds {
		if d.Code != diag.CodeLocalUnknown {
			continue
		}
		ds = slices.Clone(ds)
		ds[i].Action = "the recording's host showed no local parameters either (no DCB netlink, no local agent): run dcbtop on the host where DCB netlink or an agent shows them, or with --agent"
		break
	}
	return ds
}

// pairDiagnostics compare local and remote Willing and parameters.
func (p *port) pairDiagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	r := p.remote
	if r == nil || p.remoteFrom == nil {
		return nil
	}
	if c := r.CEE; c != nil {
		var bad []string
		for _, f := range []struct {
			name string
			f    *dcb.CEEFeature
		}{{"PG", c.PG}, {"PFC", c.PFC}, {"APP", c.App}} {
			if f.f != nil && f.f.Error {
				bad = append(bad, f.name)
			}
		}
		if len(bad) > 0 {
			out = append(out, diag.Newf(diag.CodeCEEPeerError, diag.SeverityWarning, "cee", "compare both sides' configuration of these features",
				"CEE peer reports an error on %s", strings.Join(bad, ", ")))
		}
	}
	if p.localSource == "" {
		if r.ETS != nil || r.PFC != nil {
			action := "run live on the host (dcbnl) or with --agent to compare"
			if p.replay {
				action = "a capture carries only what was on the wire: record with dcbtop -w on the host to include its local parameters"
			}
			out = append(out, diag.Newf(diag.CodeLocalUnknown, diag.SeverityInfo, "lldp", action,
				"local parameters unknown: mismatches with the peer cannot be checked"))
		}
		return out
	}
	if p.willing && r.ETS != nil && r.ETSReco == nil && r.CEE == nil {
		out = append(out, diag.Newf(diag.CodeNoETSReco, diag.SeverityWarning, "ets", "configure an ETS recommendation on the switch, or set local Willing off and configure ETS locally",
			"peer sends no ETS recommendation: a willing host keeps its local ETS"))
	}
	lw := p.willing
	neither := false // neither-willing-mismatch says the PFC mismatch already
	if r.PFC != nil && p.local != nil && p.local.PFC != nil {
		switch {
		case lw && r.PFC.Willing && r.CEE == nil:
			out = append(out, diag.Newf(diag.CodeBothWilling, diag.SeverityWarning, "pfc", "make the switch not willing (it should be the source of truth)",
				"both sides are willing for PFC: %s", p.resolution.PFC.Why))
		case !lw && !r.PFC.Willing && p.local.PFC.Enabled != r.PFC.Enabled:
			neither = true
			out = append(out, diag.Newf(diag.CodeNeitherWilling, diag.SeverityError, "pfc", "set local Willing on, or configure the same PFC priorities on both sides",
				"neither side is willing and PFC differs: local %s, peer %s", prioList(p.local.PFC.Enabled), prioList(r.PFC.Enabled)))
		}
	}
	if op := p.operational; op != nil {
		if op.PFC != nil && r.PFC != nil && op.PFC.Enabled != r.PFC.Enabled && !neither {
			out = append(out, diag.Newf(diag.CodePFCMismatch, diag.SeverityError, "pfc", "lossless traffic will drop: make both sides enable PFC on the same priorities",
				"PFC in force here (%s) differs from the peer's (%s)", prioList(op.PFC.Enabled), prioList(r.PFC.Enabled)))
		}
	}
	if d, ok := p.etsNotAdopted(); ok {
		out = append(out, d)
	}
	if d, ok := p.etsDiffersFromReco(); ok {
		out = append(out, d)
	}
	return out
}

// etsDiffersFromReco: this host is not willing and runs an ETS other than
// the one the peer recommends. ETS is asymmetric (IEEE Std 802.1Q-2018,
// 37.1: each side's configuration governs its own transmission) and the
// recommendation binds only a willing neighbour (D.2.10), so this is
// information, not a fault: the first thing an operator asks when the two
// differ on screen.
func (p *port) etsDiffersFromReco() (diag.Diagnostic, bool) {
	r, l := p.remote, p.local
	if p.willing || r == nil || r.ETSReco == nil || l == nil || l.ETS == nil {
		return diag.Diagnostic{}, false
	}
	reco := r.ETSReco
	if l.ETS.PrioTC == reco.PrioTC && l.ETS.TCBandwidth == reco.TCBandwidth && l.ETS.TSA == reco.TSA {
		return diag.Diagnostic{}, false
	}
	return diag.Newf(diag.CodeETSDiffersFromReco, diag.SeverityInfo, "ets",
		"to run the switch's recommendation set local Willing on, or configure the same ETS here; otherwise nothing to do",
		"this host is not willing and runs its own ETS (bandwidth %s, priority→TC %s), not the peer's recommendation (bandwidth %s, priority→TC %s): ETS is asymmetric, each side schedules its own transmission",
		dcb.JoinNums(l.ETS.TCBandwidth[:], "/"), dcb.JoinNums(l.ETS.PrioTC[:], ""), dcb.JoinNums(reco.TCBandwidth[:], "/"), dcb.JoinNums(reco.PrioTC[:], "")), true
}

// etsNotAdopted reports ETS that this host should run but does not. ETS
// is asymmetric (IEEE Std 802.1Q-2018, 37.1: each side's ETS
// Configuration describes its own transmission; CEE PG likewise): the
// peer's configuration differing from this host's is no problem, and a
// willing host adopts the peer's recommendation (CEE: configuration).
// The standard requires agreement only there: when the resolver puts the
// peer's ETS in force, the ETS this host actually runs, as read from the
// kernel (dcbnl) or advertised by another agent of this host, must be it.
// dcbtop's own agent transmits what the resolver chose, so it is not
// checked.
func (p *port) etsNotAdopted() (diag.Diagnostic, bool) {
	op, l := p.operational, p.local
	if op == nil || op.ETS == nil || l == nil || l.ETS == nil || !p.willing {
		return diag.Diagnostic{}, false
	}
	if src := p.resolution.ETS.Source; src != dcb.FromRemote && src != dcb.FromRemoteReco {
		return diag.Diagnostic{}, false
	}
	if p.localSource != SourceDCBNL && p.localSource != SourceObserved {
		return diag.Diagnostic{}, false
	}
	if l.ETS.PrioTC == op.ETS.PrioTC && l.ETS.TCBandwidth == op.ETS.TCBandwidth && l.ETS.TSA == op.ETS.TSA {
		return diag.Diagnostic{}, false
	}
	return diag.Newf(diag.CodeETSMismatch, diag.SeverityWarning, "ets",
		"the host's DCBX agent or NIC did not apply the peer's ETS: check lldpad/firmware DCBX mode, or set local Willing off and configure ETS locally",
		"local Willing is on and the peer's ETS should be in force (%s), but this host runs other ETS (%s): bandwidth %s vs %s, priority→TC %s vs %s",
		p.resolution.ETS.Why, p.localSource,
		dcb.JoinNums(l.ETS.TCBandwidth[:], "/"), dcb.JoinNums(op.ETS.TCBandwidth[:], "/"), dcb.JoinNums(l.ETS.PrioTC[:], ""), dcb.JoinNums(op.ETS.PrioTC[:], "")), true
}

// opDiagnostics checks the operational set for lossless-Ethernet traps.
func (p *port) opDiagnostics() []diag.Diagnostic {
	op := p.operational
	if op == nil || op.PFC == nil || op.PFC.Enabled == 0 {
		return nil
	}
	var out []diag.Diagnostic
	var noApp []uint8
	for _, prio := range op.PFC.Enabled.List() {
		found := false
		for _, a := range op.App {
			if a.Priority == prio {
				found = true
			}
		}
		if !found {
			noApp = append(noApp, prio)
		}
	}
	if len(noApp) > 0 {
		out = append(out, diag.Newf(diag.CodePFCPrioNoApp, diag.SeverityWarning, "app", "add an APP entry (e.g. UDP 4791 or the RoCE DSCP) for the lossless priority",
			"PFC is enabled on priority %s but no APP entry classifies traffic into it", dcb.JoinNums(noApp, ",")))
	}
	if op.ETS != nil {
		for tc := range uint8(8) {
			var lossless, lossy []uint8
			for prio, t := range op.ETS.PrioTC {
				if t != tc {
					continue
				}
				if op.PFC.Enabled.Has(uint8(prio)) {
					lossless = append(lossless, uint8(prio))
				} else {
					lossy = append(lossy, uint8(prio))
				}
			}
			if len(lossless) > 0 && len(lossy) > 0 {
				out = append(out, diag.Newf(diag.CodePFCTCShared, diag.SeverityWarning, "ets", "map the lossless priority to a TC of its own",
					"TC%d carries PFC priority %s and lossy priority %s: pauses stall the lossy traffic too", tc, dcb.JoinNums(lossless, ","), dcb.JoinNums(lossy, ",")))
			}
		}
	}
	return out
}

func prioList(s dcb.PrioSet) string {
	if s == 0 {
		return "none"
	}
	return "priority " + s.PrioWords()
}

// defaultTTL stands for a lost peer's TTL when it advertised none: IEEE
// Std 802.1AB's defaults (msgTxInterval 30 s x msgTxHold 4, plus 1).
const defaultTTL = 121 * time.Second

// lostLongAfter is how long a lost peer must be gone before peer-lost is
// an error: two of its TTLs, past any reboot of a switch or restart of
// its LLDP agent that keeps its configuration.
func lostLongAfter(n *neighbor) time.Duration {
	ttl := defaultTTL
	if n.du != nil && n.du.TTL > 0 {
		ttl = time.Duration(n.du.TTL) * time.Second
	}
	return 2 * ttl
}

// peerLost: the DCBX peer whose parameters were valid is gone (its TTL
// ran out, it sent a shutdown LLDPDU, or the link went down) and no other
// took its place. The remote parameters are invalid and the operational
// ones fell back to the local (Microsoft, "Indicating Changes to the
// Remote NDIS QoS Parameters"). A warning, an error once gone for two of
// its TTLs, or at once where the fallback changed the PFC in force
// against what the peer still runs, as far as this host knows.
func (p *port) peerLost(now time.Time) (diag.Diagnostic, bool) {
	switch p.invalid {
	case ReasonTTLExpired, ReasonShutdown, ReasonLinkDown:
	default:
		return diag.Diagnostic{}, false
	}
	n := p.lost
	if p.remoteFrom != nil || p.multi || n == nil || n.params == nil {
		return diag.Diagnostic{}, false
	}
	what := map[Reason]string{ReasonTTLExpired: "its information expired (no LLDPDU within its TTL)",
		ReasonShutdown: "it sent a shutdown LLDPDU (its LLDP agent stopped)", ReasonLinkDown: "the link went down"}[p.invalid]
	name := msapName(n)
	if sys := textTLV(n.du, lldp.TLVTypeSystemName); sys != nil {
		name = Sanitize(*sys) + " (" + name + ")"
	}
	sev := diag.SeverityWarning
	long := now.Sub(p.lostAt) >= lostLongAfter(n)
	if long {
		sev = diag.SeverityError
	}
	var left string
	op := p.operational
	switch {
	case op == nil:
		left = "this host's parameters are unknown"
	case !p.willing:
		left = "this host was not willing: what is in force here did not change"
	default:
		left = "the operational parameters fell back to this host's own"
		if lp, op := n.params.PFC, op.PFC; lp != nil && op != nil && lp.Enabled != op.Enabled {
			sev = diag.SeverityError
			left += fmt.Sprintf(": PFC on %s now, where the peer ran %s", prioList(op.Enabled), prioList(lp.Enabled))
		}
	}
	gone := fmt.Sprintf("gone since %s", p.lostAt.UTC().Format("15:04:05 UTC"))
	if long {
		gone += fmt.Sprintf(", over %s", lostLongAfter(n))
	}
	return diag.Newf(diag.CodePeerLost, sev, "lldp",
		"check the switch port's LLDP/DCBX and the link; until a peer speaks again the switch's side is unknown",
		"no DCBX peer: %s is %s: %s; %s", name, gone, what, left), true
}

// ambiguousEnds returns the addresses of an ambiguous capture's two ends
// (CaptureEnds.Ambiguous) when every neighbour is one of them: the
// multi-peer in force is then that reading of the two.
func (p *port) ambiguousEnds() ([]string, bool) {
	if p.ends == nil || !p.ends.Ambiguous {
		return nil, false
	}
	var macs []string
	for _, r := range p.ends.Readings {
		macs = append(macs, r.LocalMAC.String())
	}
	for _, n := range p.neighbors {
		if !slices.Contains(macs, n.src.String()) {
			return nil, false
		}
	}
	return macs, true
}
