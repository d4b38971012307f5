// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"
)

// TestRemoteState: the one rule for the state of the remote parameters,
// through the events that lead to each state.
func TestRemoteState(t *testing.T) {
	plain := func(t testing.TB) []byte { return frame(t, macA, 120) } // LLDP, no DCBX TLV
	tests := []struct {
		name string
		evs  func(t testing.TB) []Event
		want RemoteState
	}{
		{"nothing heard", func(t testing.TB) []Event { return []Event{Tick{At: at(1)}} }, RemoteNoPeer},
		{"a DCBX peer", func(t testing.TB) []Event { return []Event{rx(1, frame(t, macA, 120, pfc3))} }, RemoteValid},
		{"an LLDP peer without DCBX", func(t testing.TB) []Event { return []Event{rx(1, plain(t))} }, RemoteNoDCBX},
		{"two DCBX peers", func(t testing.TB) []Event {
			return []Event{rx(1, frame(t, macA, 120, pfc3)), rx(2, frame(t, macB, 120, pfc3))}
		}, RemoteMultiPeer},
		{"expired", func(t testing.TB) []Event { return []Event{rx(1, frame(t, macA, 4, pfc3)), Tick{At: at(10)}} }, RemoteExpired},
		{"expired, then a plain LLDP peer", func(t testing.TB) []Event {
			return []Event{rx(1, frame(t, macA, 4, pfc3)), Tick{At: at(10)}, rx(11, frame(t, macB, 120))}
		}, RemoteExpired},
		{"shut down", func(t testing.TB) []Event { return []Event{rx(1, frame(t, macA, 120, pfc3)), rx(2, frame(t, macA, 0))} }, RemoteShutdown},
	}
	var got, want []string
	for _, tt := range tests {
		e := New(Config{})
		for _, ev := range tt.evs(t) {
			e.Apply(ev)
		}
		in, ok := e.Interface("eth0")
		if !ok {
			in = Interface{Name: "eth0", Peers: []Peer{}, Diagnostics: []diag.Diagnostic{}}
		}
		settled := map[bool]string{true: " settled", false: ""}
		got = append(got, tt.name+": "+in.RemoteState().String()+settled[in.RemoteSettled()])
		want = append(want, tt.name+": "+tt.want.String()+settled[tt.want != RemoteNoPeer && tt.want != RemoteNoDCBX])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RemoteState and RemoteSettled (-want +got):\n%s", diff)
	}
}
