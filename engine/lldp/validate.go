// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// A Level ranks a Finding.
type Level uint8

// Levels, from least to most serious.
const (
	LevelInfo Level = iota
	LevelWarning
	LevelError
)

// String returns "info", "warning" or "error".
func (l Level) String() string {
	switch l {
	case LevelWarning:
		return "warning"
	case LevelError:
		return "error"
	}
	return "info"
}

// A Finding is a problem the codec finds in what it decodes or is asked
// to check: a value the standard does not allow in a well-formed TLV, a
// repeated DCBX TLV, a discarded one. The application turns findings
// into its own diagnostics (engine.Diagnostic), adding what to do about
// them.
type Finding struct {
	Code    Code   // which problem
	Level   Level  // how serious
	Feature string // the TLV's feature: "ets", "ets_reco", "pfc", "app", "cee", "lldp"
	Message string // what was found, for an operator
}

// A Code names a kind of Finding, stable across versions: "ets-bandwidth-sum".
type Code string

// The codes of the findings of Validate (CodeTLVDiscarded is a DiscardedTLV's).
const (
	CodeETSBandwidthSum    Code = "ets-bandwidth-sum"
	CodeETSBandwidthRange  Code = "ets-bandwidth-range"
	CodeETSBandwidthNonETS Code = "ets-bandwidth-non-ets"
	CodeETSPrioTCRange     Code = "ets-prio-tc-range"
	CodeETSTSAReserved     Code = "ets-tsa-reserved"
	CodePFCCapRange        Code = "pfc-cap-range"
	CodePFCCapExceeded     Code = "pfc-cap-exceeded"
	CodeAppSelector        Code = "app-selector-invalid"
	CodeAppDSCPRange       Code = "app-dscp-range"
	CodeAppEthertypeRange  Code = "app-ethertype-range"
	CodeAppDuplicate       Code = "app-duplicate-entry"
	CodeDuplicateTLV       Code = "duplicate-tlv"
	CodeDialectBoth        Code = "dialect-both"
	CodeCEEPGBandwidthSum  Code = "cee-pg-bandwidth-sum"
	CodeCEEPGIDReserved    Code = "cee-pgid-reserved"
	CodeCEEControlMissing  Code = "cee-control-missing"
	CodeCINLegacy          Code = "cin-legacy"
)

// finding builds a Finding with a formatted message.
func finding(code Code, l Level, feature, format string, a ...any) Finding {
	return Finding{Code: code, Level: l, Feature: feature, Message: fmt.Sprintf(format, a...)}
}

// Validate checks the ETS table against IEEE Std 802.1Q-2018, 37.3 and
// D.2.9: bandwidths 0..100 summing to 100 (or 0 when no TC uses ETS),
// priorities mapped to a TC below Max TCs, TSA values not reserved.
func (e *ETS) Validate() []Finding {
	f := "ets"
	if e.Recommendation {
		f = "ets_reco"
	}
	var out []Finding
	sum, anyETS := 0, false
	for tc, bw := range e.Bandwidth {
		sum += int(bw)
		if bw > 100 {
			out = append(out, finding(CodeETSBandwidthRange, LevelError, f, "TC%d bandwidth %d%% is over 100%%", tc, bw))
		}
		switch t := e.TSA[tc]; {
		case t == TSAETS:
			anyETS = true
		case t != TSAStrict && t != TSACBS && t != TSAVendor:
			out = append(out, finding(CodeETSTSAReserved, LevelError, f, "TC%d uses reserved TSA %d", tc, uint8(t)))
		}
		if bw != 0 && e.TSA[tc] != TSAETS {
			out = append(out, finding(CodeETSBandwidthNonETS, LevelWarning, f, "TC%d has %d%% bandwidth but TSA %s ignores it", tc, bw, e.TSA[tc]))
		}
	}
	if sum != 100 && (sum != 0 || anyETS) {
		out = append(out, finding(CodeETSBandwidthSum, LevelError, f, "TC bandwidths sum to %d%%, want 100%%", sum))
	}
	limit := uint8(maxTCs)
	if !e.Recommendation && e.MaxTCs > 0 && e.MaxTCs < limit {
		limit = e.MaxTCs
	}
	if d, ok := prioTCRange(e.PrioTC, limit, f); ok {
		out = append(out, d)
	}
	return out
}

// prioTCRange is the one ets-prio-tc-range finding of a priority table
// that maps priorities to traffic classes at or above limit (Max TCs,
// 802.1Q D.2.9), listing the priorities per TC: "priorities 0-7 map to
// TC7, but Max TCs is 3 (TC0-TC2)". A real switch (Juniper QFX3500) maps
// every priority to TC7 with Max TCs 3: one problem, one finding. It is
// a warning: received, it is the sender's advertisement of a table it says
// it cannot honour, which this host can neither fix nor refuse; what
// dcbtop itself sends or writes is held to it as an error
// (dcb.Params.Validate).
func prioTCRange(prioTC [8]uint8, limit uint8, feature string) (Finding, bool) {
	var byTC [16]uint8 // priorities (bit set) per out-of-range TC
	for p, tc := range prioTC {
		if tc >= limit && int(tc) < len(byTC) {
			byTC[tc] |= 1 << p
		}
	}
	// Groups in the order of their lowest priority.
	type group struct{ tc, prios uint8 }
	var groups []group
	for tc, prios := range byTC {
		if prios != 0 {
			groups = append(groups, group{uint8(tc), prios})
		}
	}
	if len(groups) == 0 {
		return Finding{}, false
	}
	slices.SortFunc(groups, func(a, b group) int { return bits.TrailingZeros8(a.prios) - bits.TrailingZeros8(b.prios) })
	var parts []string
	for i, g := range groups {
		word, verb := "priority", "maps to"
		if bits.OnesCount8(g.prios) > 1 {
			word, verb = "priorities", "map to"
		}
		if i > 0 {
			verb = "to"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s TC%d", word, prioRanges(g.prios), verb, g.tc))
	}
	msg := strings.Join(parts, ", ")
	if groups[0].tc >= maxTCs && limit == maxTCs {
		// TC values 8-15 are reserved (802.1Q-2018 D.2.9): no Max TCs
		// makes them valid.
		return finding(CodeETSPrioTCRange, LevelWarning, feature, "%s, a reserved traffic class (TC0-TC7 exist)", msg), true
	}
	return finding(CodeETSPrioTCRange, LevelWarning, feature, "%s, but Max TCs is %d (TC0-TC%d)", msg, limit, limit-1), true
}

// prioRanges writes a set of priorities as "0-3,5,7".
func prioRanges(s uint8) string {
	var parts []string
	for p := 0; p < 8; {
		if s&(1<<p) == 0 {
			p++
			continue
		}
		q := p
		for q+1 < 8 && s&(1<<(q+1)) != 0 {
			q++
		}
		switch {
		case q == p:
			parts = append(parts, fmt.Sprint(p))
		case q == p+1:
			parts = append(parts, fmt.Sprint(p), fmt.Sprint(q))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", p, q))
		}
		p = q + 1
	}
	return strings.Join(parts, ",")
}

// Validate checks the PFC TLV (IEEE Std 802.1Q-2018, D.2.11): a capability
// of at most 8 and no more priorities enabled than the capability allows.
func (p *PFC) Validate() []Finding {
	var out []Finding
	if p.Cap > maxTCs {
		out = append(out, finding(CodePFCCapRange, LevelError, "pfc", "PFC capability %d is over 8", p.Cap))
	}
	if n := bits.OnesCount8(p.Enabled); n > int(p.Cap) {
		out = append(out, finding(CodePFCCapExceeded, LevelError, "pfc", "%d priorities have PFC enabled but the capability is %d", n, p.Cap))
	}
	return out
}

// Validate checks the Application Priority entries (entries numbered from
// 1 in messages, as the screen shows them; IEEE Std 802.1Q-2018,
// D.2.12 and Table D-9): a defined selector, DSCP values 0..63, EtherTypes
// of at least 0x600 (or 0, the default priority), no repeated entry.
func (a *AppPriority) Validate() []Finding {
	var out []Finding
	for i, e := range a.Entries {
		switch {
		case e.Selector == 0 || e.Selector > AppSelDSCP:
			out = append(out, finding(CodeAppSelector, LevelError, "app", "entry %d uses reserved selector %d", i+1, uint8(e.Selector)))
		case e.Selector == AppSelDSCP && e.Protocol > 63:
			out = append(out, finding(CodeAppDSCPRange, LevelError, "app", "entry %d: DSCP %d is over 63", i+1, e.Protocol))
		case e.Selector == AppSelEthertype && e.Protocol != 0 && e.Protocol < 0x600:
			out = append(out, finding(CodeAppEthertypeRange, LevelError, "app", "entry %d: EtherType %#04x is below 0x0600", i+1, e.Protocol))
		}
		for _, prev := range a.Entries[:i] {
			if prev == e {
				out = append(out, finding(CodeAppDuplicate, LevelWarning, "app", "entry %d repeats %s %d priority %d", i+1, e.Selector, e.Protocol, e.Priority))
				break
			}
		}
	}
	return out
}

// Validate checks the CEE TLV: a Control sub-TLV present, PG bandwidths
// summing to 100 and no reserved PGIDs (8..14).
func (c *CEE) Validate() []Finding {
	var out []Finding
	if c.Control == nil {
		out = append(out, finding(CodeCEEControlMissing, LevelError, "cee", "CEE TLV has no Control sub-TLV"))
	}
	if pg := c.PG; pg != nil {
		sum := 0
		for _, bw := range pg.Bandwidth {
			sum += int(bw)
		}
		if sum != 100 {
			out = append(out, finding(CodeCEEPGBandwidthSum, LevelError, "ets", "CEE priority group bandwidths sum to %d%%, want 100%%", sum))
		}
		for p, id := range pg.PGID {
			if id > 7 && id != ceeStrictPGID {
				out = append(out, finding(CodeCEEPGIDReserved, LevelError, "ets", "priority %d uses reserved PGID %d", p, id))
			}
		}
	}
	for _, o := range c.Other {
		if o.Type >= ceeSubControl && o.Type <= ceeSubApp {
			out = append(out, finding(CodeDuplicateTLV, LevelWarning, "cee", "CEE sub-TLV %d repeated; the first one is used", o.Type))
		}
	}
	return out
}

// Validate returns every semantic problem of the LLDPDU: those of each DCBX
// TLV, repeated DCBX TLVs (only the first is used, as lldpad does), and both
// IEEE and CEE DCBX in one LLDPDU (IEEE takes precedence).
func (du *DU) Validate() []Finding {
	var out []Finding
	var seen [4]bool // ETS config, ETS reco, PFC, APP
	seenCEE, ieee, cee := false, false, false
	dup := func(i int, name string) bool {
		if seen[i] {
			out = append(out, finding(CodeDuplicateTLV, LevelWarning, "lldp", "%s TLV repeated; the first one is used", name))
			return true
		}
		seen[i] = true
		return false
	}
	for _, t := range du.TLVs {
		switch x := t.(type) {
		case *ETS:
			ieee = true
			i, name := 0, "ETS Configuration"
			if x.Recommendation {
				i, name = 1, "ETS Recommendation"
			}
			if !dup(i, name) {
				out = append(out, x.Validate()...)
			}
		case *PFC:
			ieee = true
			if !dup(2, "PFC Configuration") {
				out = append(out, x.Validate()...)
			}
		case *AppPriority:
			ieee = true
			if !dup(3, "Application Priority") {
				out = append(out, x.Validate()...)
			}
		case *CEE:
			cee = true
			if seenCEE {
				out = append(out, finding(CodeDuplicateTLV, LevelError, "cee", "CEE DCBX TLV repeated; the first one is used (lldpad discards such LLDPDUs)"))
				continue
			}
			seenCEE = true
			out = append(out, x.Validate()...)
		}
	}
	if du.HasCIN() {
		cee = true
		out = append(out, finding(CodeCINLegacy, LevelInfo, "cee", "legacy CIN DCBX (v1.0) TLV present; dcbtop shows it raw only"))
	}
	if ieee && cee {
		out = append(out, finding(CodeDialectBoth, LevelWarning, "lldp", "LLDPDU carries both IEEE 802.1Qaz and CEE DCBX TLVs; IEEE is used"))
	}
	return out
}
