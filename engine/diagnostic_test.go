// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A received ETS mapping priorities past Max TCs, and a discarded TLV,
// carry the engine's action in the interface's diagnostics.
func TestFindingActionsInSnapshot(t *testing.T) {
	e := New(Config{})
	e.Apply(rx(0, badPFCFrame(t)))
	in, _ := e.Interface("eth0")
	var found bool
	for _, d := range in.Diagnostics {
		if d.Code == diag.CodeTLVDiscarded {
			found = true
			if d.Action == "" || d.Severity != diag.SeverityWarning {
				t.Errorf("tlv-discarded %+v: want a warning with an action", d)
			}
		}
	}
	if !found {
		t.Errorf("no tlv-discarded diagnostic: %+v", in.Diagnostics)
	}
	e = New(Config{})
	e.Apply(rx(0, frame(t, macA, 120, &lldp.ETS{MaxTCs: 3, PrioTC: [8]uint8{7, 7, 7, 7, 7, 7, 7, 7}, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{lldp.TSAETS}})))
	in, _ = e.Interface("eth0")
	found = false
	for _, d := range in.Diagnostics {
		if d.Code == diag.CodeETSPrioTCRange {
			found = true
			if d.Action == "" || d.Severity != diag.SeverityWarning || d.Message != "priorities 0-7 map to TC7, but Max TCs is 3 (TC0-TC2)" {
				t.Errorf("ets-prio-tc-range %+v: want the message, a warning and an action", d)
			}
		}
	}
	if !found {
		t.Errorf("no ets-prio-tc-range diagnostic: %+v", in.Diagnostics)
	}
}
