package ui

import (
	"fmt"
	"slices"

	"dcbtop/engine"
	"dcbtop/engine/lldp"
)

// A change is one line of a parameter diff; added and removed say how to
// colour it (both false: a value changed in place).
type change struct {
	text           string
	added, removed bool
}

// paramsDiff lists what differs from a to b, feature by feature, in words:
// "ETS TC1 bandwidth 50% → 40%", "PFC priority 4 enabled", "+ APP …".
// Either may be nil (nothing known / withdrawn).
func paramsDiff(a, b *engine.Params) []change {
	pa, pb := orZero(a), orZero(b)
	var out []change
	out = append(out, etsDiff("ETS", etsTables(pa.ETS), etsTables(pb.ETS))...)
	if pa.ETS != nil && pb.ETS != nil {
		if pa.ETS.Willing != pb.ETS.Willing {
			out = append(out, change{text: fmt.Sprintf("ETS willing %s → %s", onOff(pa.ETS.Willing), onOff(pb.ETS.Willing))})
		}
		if pa.ETS.CBS != pb.ETS.CBS {
			out = append(out, change{text: fmt.Sprintf("ETS CBS %s → %s", onOff(pa.ETS.CBS), onOff(pb.ETS.CBS))})
		}
		if pa.ETS.MaxTCs != pb.ETS.MaxTCs {
			out = append(out, change{text: fmt.Sprintf("ETS max TCs %d → %d", pa.ETS.MaxTCs, pb.ETS.MaxTCs)})
		}
	}
	out = append(out, etsDiff("ETS reco", recoTables(pa.ETSReco), recoTables(pb.ETSReco))...)
	out = append(out, pfcDiff(pa.PFC, pb.PFC)...)
	out = append(out, appDiff(pa.App, pb.App)...)
	return out
}

// etsTab is the part of ETS configuration and recommendation that both
// share.
type etsTab struct {
	prioTC [8]uint8
	bw     [8]uint8
	tsa    [8]lldp.TSA
}

func etsTables(e *engine.ETS) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func recoTables(e *engine.ETSReco) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func etsDiff(name string, a, b *etsTab) []change {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return []change{{text: "+ " + name + " " + etsSummary(b), added: true}}
	case b == nil:
		return []change{{text: "- " + name + " " + etsSummary(a) + " (withdrawn)", removed: true}}
	}
	var out []change
	for tc := range 8 {
		if a.tsa[tc] != b.tsa[tc] {
			out = append(out, change{text: fmt.Sprintf("%s TC%d TSA %s → %s", name, tc, a.tsa[tc], b.tsa[tc])})
		}
		if a.bw[tc] != b.bw[tc] {
			out = append(out, change{text: fmt.Sprintf("%s TC%d bandwidth %d%% → %d%%", name, tc, a.bw[tc], b.bw[tc])})
		}
	}
	for p := range 8 {
		if a.prioTC[p] != b.prioTC[p] {
			out = append(out, change{text: fmt.Sprintf("%s priority %d: TC%d → TC%d", name, p, a.prioTC[p], b.prioTC[p])})
		}
	}
	return out
}

// etsSummary renders an ETS table on one line: "TC0 ets 50% TC1 ets 50%".
func etsSummary(t *etsTab) string {
	s := ""
	for tc := range uint8(8) {
		used := t.bw[tc] != 0 || slices.Contains(t.prioTC[:], tc)
		if !used {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("TC%d %s %d%%", tc, t.tsa[tc], t.bw[tc])
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

func pfcDiff(a, b *engine.PFC) []change {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return []change{{text: fmt.Sprintf("+ PFC on priorities %s (willing %s, cap %d)", prioList(b.Enabled), onOff(b.Willing), b.Cap), added: true}}
	case b == nil:
		return []change{{text: fmt.Sprintf("- PFC on priorities %s (withdrawn)", prioList(a.Enabled)), removed: true}}
	}
	var out []change
	for p := range uint8(8) {
		was, is := a.Enabled.Has(p), b.Enabled.Has(p)
		switch {
		case !was && is:
			out = append(out, change{text: fmt.Sprintf("PFC priority %d enabled", p), added: true})
		case was && !is:
			out = append(out, change{text: fmt.Sprintf("PFC priority %d disabled", p), removed: true})
		}
	}
	if a.Willing != b.Willing {
		out = append(out, change{text: fmt.Sprintf("PFC willing %s → %s", onOff(a.Willing), onOff(b.Willing))})
	}
	if a.MBC != b.MBC {
		out = append(out, change{text: fmt.Sprintf("PFC MBC %s → %s", onOff(a.MBC), onOff(b.MBC))})
	}
	if a.Cap != b.Cap {
		out = append(out, change{text: fmt.Sprintf("PFC capability %d → %d", a.Cap, b.Cap)})
	}
	return out
}

func appDiff(a, b []engine.App) []change {
	var out []change
	if a != nil && b == nil {
		return []change{{text: "- APP table withdrawn (" + plural(len(a), "entry") + ")", removed: true}}
	}
	for _, e := range a {
		if !slices.Contains(b, e) {
			out = append(out, change{text: "- APP " + appWords(e), removed: true})
		}
	}
	for _, e := range b {
		if !slices.Contains(a, e) {
			out = append(out, change{text: "+ APP " + appWords(e), added: true})
		}
	}
	if a == nil && b != nil && len(b) == 0 {
		out = append(out, change{text: "+ APP table (no entries)", added: true})
	}
	return out
}

func appWords(e engine.App) string {
	return fmt.Sprintf("%s → priority %d", appProtocol(e.Selector, e.Protocol), e.Priority)
}

// resolutionDiff lists the features whose operational source changes.
func resolutionDiff(a, b engine.Resolution) []change {
	var out []change
	for _, f := range []struct {
		name string
		a, b engine.Choice
	}{{"ETS", a.ETS, b.ETS}, {"PFC", a.PFC, b.PFC}, {"APP", a.App, b.App}} {
		if f.a != f.b && f.b.Source != "" {
			out = append(out, change{text: fmt.Sprintf("%s from %s → %s (%s)", f.name, f.a.Source, f.b.Source, f.b.Why)})
		}
	}
	return out
}
