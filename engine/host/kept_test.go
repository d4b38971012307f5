// SPDX-License-Identifier: Apache-2.0

package host

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// keeps returns the Keep effects of res as "IFACE WILLING PFC BITS".
func keeps(res Result) []string {
	var out []string
	for _, e := range res.Effects {
		if k, ok := e.(Keep); ok {
			out = append(out, fmt.Sprintf("%s %s PFC %v", k.Interface, dcb.OnOff(k.State.Willing), k.State.Params.PFC.Enabled))
		}
	}
	return out
}

// TestPlanAgentKept: a kept state is where a starting agent's parameters
// come from, with its Willing state, after --local and before the
// driver's and the defaults; --local says it beat it; --willing beats the
// kept Willing state.
func TestPlanAgentKept(t *testing.T) {
	kept := &Kept{Willing: false, Params: agent.DefaultLocal().Merge(&dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}), Words: "saved for h0 (…)"}
	local := agent.DefaultLocal().Merge(&dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 5}})
	for _, tt := range []struct {
		name        string
		ac          AgentConfig
		kept        *Kept
		wantFrom    AdoptedFrom
		wantPFC     dcb.PrioSet
		wantWilling bool
		wantWords   string
	}{
		{"kept", AgentConfig{Willing: true}, kept, FromKept, 1 << 3, false, "saved for h0 (…)"},
		{"kept, --willing given", AgentConfig{Willing: true, WillingSet: true}, kept, FromKept, 1 << 3, true, "saved for h0 (…)"},
		{"--local beats kept", AgentConfig{Local: local, LocalFrom: "from l.json", Willing: true}, kept, FromConfig, 1 << 5, true,
			"from l.json (beating the ones saved for h0 (…))"},
		{"nothing kept", AgentConfig{Willing: true}, nil, FromDefaults, 0, true, "the defaults (100% ETS on TC0, PFC off)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, tt.ac)
			plan, ok, err := h.PlanAgent("h0", tt.kept)
			if err != nil || !ok {
				t.Fatalf("PlanAgent: %v %v", ok, err)
			}
			got := []any{plan.From, plan.Local.PFC.Enabled, plan.Willing, plan.Words, plan.Local.PFC.Willing}
			want := []any{tt.wantFrom, tt.wantPFC, tt.wantWilling, tt.wantWords, tt.wantWilling}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestKeepEffects: an operator's write that changes the agent's local
// state asks for it to be kept (Keep, the state after); one that changes
// nothing, a kernel write and the agent's start ask nothing; an undo
// keeps the state it restores.
func TestKeepEffects(t *testing.T) {
	h := started(t, AgentConfig{Willing: true})
	at := t0.Add(40 * time.Second)
	_, res, err := h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h0 on PFC 8"}, keeps(res)); d != "" {
		t.Errorf("apply PFC 3 (-want +got):\n%s", d)
	}
	_, res, err = h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, at.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := keeps(res); got != nil {
		t.Errorf("the same apply again keeps %v, want nothing", got)
	}
	off := false
	_, res, err = h.Apply("h0", nil, &off, at.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h0 off PFC 8"}, keeps(res)); d != "" {
		t.Errorf("willing off (-want +got):\n%s", d)
	}
	_, res, err = h.UndoApply("h0", at.Add(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h0 on PFC 8"}, keeps(res)); d != "" {
		t.Errorf("undo (-want +got):\n%s", d)
	}

	k := newHost(t, AgentConfig{})
	k.Step(engine.LocalChanged{Interface: "h0", At: t0, Source: engine.SourceDCBNL, Params: agent.DefaultLocal()})
	_, res, err = k.Write("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if got := keeps(res); got != nil {
		t.Errorf("a kernel write keeps %v, want nothing (the kernel keeps it)", got)
	}
}
