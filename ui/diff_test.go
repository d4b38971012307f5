// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

func TestParamsDiff(t *testing.T) {
	pfc := &dcb.PFC{Cap: 8, Enabled: 1 << 3}
	tests := []struct {
		name string
		a, b *dcb.Params
		want []change
	}{
		{"same", &dcb.Params{PFC: pfc}, &dcb.Params{PFC: pfc}, nil},
		{"nil to nil", nil, nil, nil},
		{
			"PFC priority 4 on, willing",
			&dcb.Params{PFC: pfc},
			&dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1<<4, Willing: true}},
			[]change{{text: "PFC priority 4 enabled", added: true}, {text: "PFC willing off → on"}},
		},
		{
			"one APP entry withdrawn",
			&dcb.Params{App: []dcb.App{roce}}, &dcb.Params{},
			[]change{{text: "- APP table withdrawn (1 entry)", removed: true}},
		},
		{
			"APP entry replaced",
			&dcb.Params{App: []dcb.App{roce}},
			&dcb.Params{App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 4}}},
			[]change{
				{text: "- APP RoCEv2 (UDP 4791) → priority 3", removed: true},
				{text: "+ APP RoCEv2 (UDP 4791) → priority 4", added: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, paramsDiff(tt.a, tt.b), cmp.AllowUnexported(change{})); diff != "" {
				t.Errorf("paramsDiff (-want +got):\n%s", diff)
			}
		})
	}
}

// A TSA change of a traffic class that carries no priority and no
// bandwidth on either side changes no traffic: one line says them all.
func TestParamsDiffIdleTCs(t *testing.T) {
	ets := func(tsa lldp.TSA) *dcb.Params {
		e := &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}}
		for tc := range e.TSA {
			e.TSA[tc] = tsa
		}
		e.TSA[0], e.TSA[1] = lldp.TSAETS, lldp.TSAETS
		return &dcb.Params{ETS: e}
	}
	var got []string
	for _, c := range paramsDiff(ets(lldp.TSAETS), ets(lldp.TSAStrict)) {
		got = append(got, c.text)
	}
	if diff := cmp.Diff([]string{"(the TSA of 6 TCs with no priority changes too)"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
