// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A ChangeKind says how a Change changes its field.
type ChangeKind uint8

// Kinds of Change.
const (
	// ChangeValue: a value changed in place (From → To).
	ChangeValue ChangeKind = iota
	// ChangeAdded: a feature, an entry or a priority appeared (To).
	ChangeAdded
	// ChangeRemoved: one went away (From).
	ChangeRemoved
)

// A Change is one difference between two parameter sets, in words but
// structured, for every place that shows or reports one: the screen's
// previews and log detail, the control socket's reply.
type Change struct {
	// Feature is the PARAMS member the change is in: "ets", "ets_reco",
	// "pfc", "app", or the CEE feature flags "cee_pg", "cee_pfc",
	// "cee_app".
	Feature string
	Kind    ChangeKind
	// Field names what changed within the feature ("TC1 bandwidth",
	// "priority 4", "willing"); "" for the whole feature.
	Field string
	// From and To are the values before and after, in words ("" where
	// there is none).
	From, To string
	// App is the APP entry added or removed, for Feature "app" with
	// Field "".
	App *App
	// Idle marks a change of a traffic class that carries no priority
	// and no bandwidth on either side (its TSA): it changes no traffic,
	// so a preview may fold it away.
	Idle bool
}

// Group returns the NDIS parameter group the change belongs to.
func (c Change) Group() Group {
	switch c.Feature {
	case "ets", "ets_reco", "cee_pg":
		return GroupETS
	case "pfc", "cee_pfc":
		return GroupPFC
	}
	return GroupApp
}

// Changes lists what differs from p to q, feature by feature. It agrees
// with Diff: the groups of its changes are exactly Diff's (the CEE
// control numbers and PGID table, which Diff ignores, are not listed
// either). Either may be nil.
func (p *Params) Changes(q *Params) []Change {
	var a, b Params
	if p != nil {
		a = *p
	}
	if q != nil {
		b = *q
	}
	var out []Change
	out = etsChanges(out, "ets", etsTable(a.ETS), etsTable(b.ETS))
	if a.ETS != nil && b.ETS != nil {
		out = flag(out, "ets", "willing", a.ETS.Willing, b.ETS.Willing)
		out = flag(out, "ets", "CBS", a.ETS.CBS, b.ETS.CBS)
		out = number(out, "ets", "max TCs", a.ETS.MaxTCs, b.ETS.MaxTCs)
		out = flag(out, "ets", "from CEE", a.ETS.FromCEE, b.ETS.FromCEE)
	}
	out = etsChanges(out, "ets_reco", recoTable(a.ETSReco), recoTable(b.ETSReco))
	out = pfcChanges(out, a.PFC, b.PFC)
	if a.PFC != nil && b.PFC != nil {
		out = flag(out, "pfc", "from CEE", a.PFC.FromCEE, b.PFC.FromCEE)
	}
	out = appChanges(out, a.App, b.App)
	var ca, cb CEE
	if a.CEE != nil {
		ca = *a.CEE
	}
	if b.CEE != nil {
		cb = *b.CEE
	}
	out = ceeChanges(out, "cee_pg", ca.PG, cb.PG)
	out = ceeChanges(out, "cee_pfc", ca.PFC, cb.PFC)
	out = ceeChanges(out, "cee_app", ca.App, cb.App)
	return out
}

// etsTab is what ETS configuration and recommendation share.
type etsTab struct {
	prioTC [8]uint8
	bw     [8]uint8
	tsa    [8]lldp.TSA
}

func etsTable(e *ETS) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func recoTable(e *ETSReco) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func etsChanges(out []Change, feature string, a, b *etsTab) []Change {
	switch {
	case a == nil && b == nil:
		return out
	case a == nil:
		return append(out, Change{Feature: feature, Kind: ChangeAdded, To: b.summary()})
	case b == nil:
		return append(out, Change{Feature: feature, Kind: ChangeRemoved, From: a.summary()})
	}
	for tc := range 8 {
		if a.tsa[tc] != b.tsa[tc] {
			idle := !a.carries(uint8(tc)) && !b.carries(uint8(tc))
			out = append(out, Change{Feature: feature, Field: fmt.Sprintf("TC%d TSA", tc), From: a.tsa[tc].String(), To: b.tsa[tc].String(), Idle: idle})
		}
		if a.bw[tc] != b.bw[tc] {
			out = append(out, Change{Feature: feature, Field: fmt.Sprintf("TC%d bandwidth", tc), From: fmt.Sprintf("%d%%", a.bw[tc]), To: fmt.Sprintf("%d%%", b.bw[tc])})
		}
	}
	for p := range 8 {
		if a.prioTC[p] != b.prioTC[p] {
			out = append(out, Change{Feature: feature, Field: fmt.Sprintf("priority %d:", p), From: fmt.Sprintf("TC%d", a.prioTC[p]), To: fmt.Sprintf("TC%d", b.prioTC[p])})
		}
	}
	return out
}

// carries reports whether traffic class tc has a priority or bandwidth.
func (t *etsTab) carries(tc uint8) bool {
	return t.bw[tc] != 0 || slices.Contains(t.prioTC[:], tc)
}

// summary renders an ETS table on one line: "TC0 ets 50%, TC1 ets 50%".
func (t *etsTab) summary() string {
	var parts []string
	for tc := range uint8(8) {
		if t.bw[tc] != 0 || slices.Contains(t.prioTC[:], tc) {
			parts = append(parts, fmt.Sprintf("TC%d %s %d%%", tc, t.tsa[tc], t.bw[tc]))
		}
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, ", ")
}

func flag(out []Change, feature, field string, a, b bool) []Change {
	if a == b {
		return out
	}
	return append(out, Change{Feature: feature, Field: field, From: OnOff(a), To: OnOff(b)})
}

func number(out []Change, feature, field string, a, b uint8) []Change {
	if a == b {
		return out
	}
	return append(out, Change{Feature: feature, Field: field, From: strconv.Itoa(int(a)), To: strconv.Itoa(int(b))})
}

// OnOff renders a flag as "on" or "off".
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// PrioWords renders a priority set as "3,4", or "none".
func (s PrioSet) PrioWords() string {
	if s == 0 {
		return "none"
	}
	return JoinNums(s.List(), ",")
}

func pfcChanges(out []Change, a, b *PFC) []Change {
	switch {
	case a == nil && b == nil:
		return out
	case a == nil:
		return append(out, Change{Feature: "pfc", Kind: ChangeAdded, To: fmt.Sprintf("on priorities %s (willing %s, cap %d)", b.Enabled.PrioWords(), OnOff(b.Willing), b.Cap)})
	case b == nil:
		return append(out, Change{Feature: "pfc", Kind: ChangeRemoved, From: "on priorities " + a.Enabled.PrioWords()})
	}
	for p := range uint8(8) {
		was, is := a.Enabled.Has(p), b.Enabled.Has(p)
		switch {
		case !was && is:
			out = append(out, Change{Feature: "pfc", Kind: ChangeAdded, Field: fmt.Sprintf("priority %d", p), To: "enabled"})
		case was && !is:
			out = append(out, Change{Feature: "pfc", Kind: ChangeRemoved, Field: fmt.Sprintf("priority %d", p), From: "disabled"})
		}
	}
	out = flag(out, "pfc", "willing", a.Willing, b.Willing)
	out = flag(out, "pfc", "MBC", a.MBC, b.MBC)
	return number(out, "pfc", "capability", a.Cap, b.Cap)
}

func appChanges(out []Change, a, b []App) []Change {
	switch {
	case a != nil && b == nil:
		return append(out, Change{Feature: "app", Kind: ChangeRemoved, Field: "table", From: entries(len(a))})
	case a == nil && b != nil && len(b) == 0:
		return append(out, Change{Feature: "app", Kind: ChangeAdded, Field: "table", To: "no entries"})
	}
	n := len(out)
	for _, e := range a {
		if !slices.Contains(b, e) {
			out = append(out, Change{Feature: "app", Kind: ChangeRemoved, App: &e})
		}
	}
	for _, e := range b {
		if !slices.Contains(a, e) {
			out = append(out, Change{Feature: "app", Kind: ChangeAdded, App: &e})
		}
	}
	if len(out) == n && !slices.Equal(a, b) {
		// The same entries in another order (or repeated): a change to
		// the table as received.
		out = append(out, Change{Feature: "app", Field: "table order", From: entries(len(a)), To: entries(len(b))})
	}
	return out
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(n) + " entries"
}

func ceeChanges(out []Change, feature string, a, b *CEEFeature) []Change {
	switch {
	case a == nil && b == nil:
		return out
	case a == nil:
		return append(out, Change{Feature: feature, Kind: ChangeAdded, To: b.words()})
	case b == nil:
		return append(out, Change{Feature: feature, Kind: ChangeRemoved, From: a.words()})
	}
	out = flag(out, feature, "enable", a.Enable, b.Enable)
	out = flag(out, feature, "willing", a.Willing, b.Willing)
	out = flag(out, feature, "error", a.Error, b.Error)
	out = number(out, feature, "oper version", a.OperVersion, b.OperVersion)
	return number(out, feature, "max version", a.MaxVersion, b.MaxVersion)
}

func (f *CEEFeature) words() string {
	return fmt.Sprintf("enable %s, willing %s, error %s, version %d/%d", OnOff(f.Enable), OnOff(f.Willing), OnOff(f.Error), f.OperVersion, f.MaxVersion)
}
