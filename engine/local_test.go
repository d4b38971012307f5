// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The local parameters in force come from the most authoritative source
// that provides them: dcbtop's agent, then dcbnl, then another agent's
// observed LLDPDUs; each source's latest is kept, so when one withdraws
// the next takes over. The DCBX mode is the NIC's (dcbnl) only.
func TestLocalSourcePrecedence(t *testing.T) {
	pfc := func(prio uint) *dcb.Params { return &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << prio}} }
	lc := func(s float64, src LocalSource, p *dcb.Params) Event {
		return LocalChanged{Interface: "eth0", At: at(s), Source: src, Params: p, Mode: "mode of " + string(src)}
	}
	observed := func(s float64, p *lldp.PFC) Event {
		return FrameReceived{Interface: "eth0", At: at(s), Outgoing: true, Data: frame(t, macA, 120, p)}
	}
	type state struct {
		Source LocalSource
		PFC    uint8 // the enabled priorities in force, 0 when none
		Mode   string
	}
	tests := []struct {
		name   string
		events []Event
		want   state
	}{
		{"nothing", nil, state{SourceNone, 0, ""}},
		{"observed only", []Event{observed(1, pfc3)}, state{SourceObserved, 1 << 3, ""}},
		{"dcbnl over observed", []Event{observed(1, pfc3), lc(2, SourceDCBNL, pfc(4))}, state{SourceDCBNL, 1 << 4, "mode of dcbnl"}},
		{"observed after dcbnl stays behind", []Event{lc(1, SourceDCBNL, pfc(4)), observed(2, pfc3)}, state{SourceDCBNL, 1 << 4, "mode of dcbnl"}},
		{"agent over dcbnl", []Event{lc(1, SourceDCBNL, pfc(4)), lc(2, SourceAgent, pfc(5))}, state{SourceAgent, 1 << 5, "mode of dcbnl"}},
		{"dcbnl update under the agent", []Event{lc(1, SourceAgent, pfc(5)), lc(2, SourceDCBNL, pfc(6))}, state{SourceAgent, 1 << 5, "mode of dcbnl"}},
		{"agent withdrawn: dcbnl's latest", []Event{lc(1, SourceAgent, pfc(5)), lc(2, SourceDCBNL, pfc(6)),
			LocalChanged{Interface: "eth0", At: at(3), Source: SourceAgent, Withdrawn: true}}, state{SourceDCBNL, 1 << 6, "mode of dcbnl"}},
		{"agent withdrawn: observed", []Event{observed(1, pfc3), lc(2, SourceAgent, pfc(5)),
			LocalChanged{Interface: "eth0", At: at(3), Source: SourceAgent, Withdrawn: true}}, state{SourceObserved, 1 << 3, ""}},
		{"observed agent shuts down", []Event{observed(1, pfc3), FrameReceived{Interface: "eth0", At: at(2), Outgoing: true, Data: frame(t, macA, 0)}},
			state{SourceNone, 0, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LinkChanged{Interface: "eth0", At: at(0), MAC: macB, Up: true})
			for _, ev := range tt.events {
				e.Apply(ev)
			}
			in, _ := e.Interface("eth0")
			got := state{Source: in.LocalSource}
			if in.Local != nil && in.Local.PFC != nil {
				got.PFC = uint8(in.Local.PFC.Enabled)
			}
			if in.DCBXMode != nil {
				got.Mode = *in.DCBXMode
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
