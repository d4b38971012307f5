// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A change is one line of a parameter diff; added and removed say how to
// colour it (both false: a value changed in place).
type change struct {
	text           string
	added, removed bool
}

// paramsDiff lists what differs from a to b, feature by feature, in words:
// "ETS TC1 bandwidth 50% → 40%", "PFC priority 4 enabled", "+ APP …",
// from engine's Changes (the one parameter diff). Either may be nil
// (nothing known / withdrawn).
func paramsDiff(a, b *dcb.Params) []change {
	var out []change
	idle := 0
	for _, c := range a.Changes(b) {
		if c.Idle {
			idle++ // a TSA of a TC with no priority: said once below
			continue
		}
		out = append(out, changeLine(c))
	}
	if idle > 0 {
		out = append(out, change{text: fmt.Sprintf("(the TSA of %s with no priority changes too)", plural(idle, "TC"))})
	}
	return out
}

// featureNames name a Change's feature on screen.
var featureNames = map[string]string{
	"ets": "ETS", "ets_reco": "ETS reco", "pfc": "PFC", "app": "APP",
	"cee_pg": "CEE PG", "cee_pfc": "CEE PFC", "cee_app": "CEE APP",
}

// changeLine renders one Change.
func changeLine(c dcb.Change) change {
	name := featureNames[c.Feature]
	added, removed := c.Kind == dcb.ChangeAdded, c.Kind == dcb.ChangeRemoved
	var text string
	switch {
	case c.App != nil && added:
		text = "+ APP " + appWords(*c.App)
	case c.App != nil:
		text = "- APP " + appWords(*c.App)
	case c.Feature == "app" && c.Field == "table" && removed:
		text = "- APP table withdrawn (" + c.From + ")"
	case c.Feature == "app" && c.Field == "table" && added:
		text = "+ APP table (" + c.To + ")"
	case c.Feature == "app" && c.Field == "table order":
		text = "APP table reordered (" + c.To + ")"
	case c.Field == "" && added:
		text = "+ " + name + " " + c.To
	case c.Field == "" && removed:
		text = "- " + name + " " + c.From + " (withdrawn)"
	case added:
		text = name + " " + c.Field + " " + c.To
	case removed:
		text = name + " " + c.Field + " " + c.From
	default:
		text = name + " " + c.Field + " " + c.From + " → " + c.To
	}
	return change{text: text, added: added, removed: removed}
}

// etsTab is the part of ETS configuration and recommendation that both
// share.
type etsTab struct {
	prioTC [8]uint8
	bw     [8]uint8
	tsa    [8]lldp.TSA
}

func etsTables(e *dcb.ETS) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func recoTables(e *dcb.ETSReco) *etsTab {
	if e == nil {
		return nil
	}
	return &etsTab{e.PrioTC, e.TCBandwidth, e.TSA}
}

func appWords(e dcb.App) string {
	return fmt.Sprintf("%s → priority %d", appProtocol(e.Selector, e.Protocol), e.Priority)
}

// resolutionDiff lists the features whose operational source changes.
func resolutionDiff(a, b dcb.Resolution) []change {
	var out []change
	for _, f := range []struct {
		name string
		a, b dcb.Choice
	}{{"ETS", a.ETS, b.ETS}, {"PFC", a.PFC, b.PFC}, {"APP", a.App, b.App}} {
		if f.a != f.b && f.b.Source != "" {
			out = append(out, change{text: fmt.Sprintf("%s from %s → %s (%s)", f.name, f.a.Source, f.b.Source, f.b.Why)})
		}
	}
	return out
}
