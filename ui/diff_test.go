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
