package ui

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

func TestParamsDiff(t *testing.T) {
	pfc := &engine.PFC{Cap: 8, Enabled: 1 << 3}
	tests := []struct {
		name string
		a, b *engine.Params
		want []change
	}{
		{"same", &engine.Params{PFC: pfc}, &engine.Params{PFC: pfc}, nil},
		{"nil to nil", nil, nil, nil},
		{
			"PFC priority 4 on, willing",
			&engine.Params{PFC: pfc},
			&engine.Params{PFC: &engine.PFC{Cap: 8, Enabled: 1<<3 | 1<<4, Willing: true}},
			[]change{{text: "PFC priority 4 enabled", added: true}, {text: "PFC willing off → on"}},
		},
		{
			"one APP entry withdrawn",
			&engine.Params{App: []engine.App{roce}}, &engine.Params{},
			[]change{{text: "- APP table withdrawn (1 entry)", removed: true}},
		},
		{
			"APP entry replaced",
			&engine.Params{App: []engine.App{roce}},
			&engine.Params{App: []engine.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 4}}},
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
