// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"strconv"
	"testing"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
)

// Without local parameters the form opens on the table dcbtop's agent
// starts with (agent.DefaultLocal), not a default of its own.
func TestEditFormDefault(t *testing.T) {
	f := newEditForm(&engine.Interface{Name: "eth0"})
	want := agent.DefaultLocal().ETS
	for tc := range 8 {
		if f.tsa[tc] != want.TSA[tc] || f.bw[tc] != strconv.Itoa(int(want.TCBandwidth[tc])) || f.prioTC[tc] != strconv.Itoa(int(want.PrioTC[tc])) {
			t.Errorf("TC %d: %v %s%% prio->%s, want %v %d%% prio->%d", tc, f.tsa[tc], f.bw[tc], f.prioTC[tc], want.TSA[tc], want.TCBandwidth[tc], want.PrioTC[tc])
		}
	}
}
