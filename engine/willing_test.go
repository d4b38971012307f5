// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"
)

// operational set one operational indication with the same flag scheme.
func TestWillingIndications(t *testing.T) {
	e := New(Config{})
	mac := lowMAC
	local := &dcb.Params{ETS: localETS, PFC: &dcb.PFC{Cap: 8}}
	evs := []Event{
		LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: mac, Up: true},
		LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: false, Params: local},
		rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3)),
		LocalChanged{Interface: "eth0", At: at(2), Source: "agent", Willing: true, Params: local},
		LocalChanged{Interface: "eth0", At: at(3), Source: "agent", Willing: true, Params: local}, // no change
		LocalChanged{Interface: "eth0", At: at(4), Source: "agent", Willing: false, Params: local},
	}
	got := run(e, evs)
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagETSChanged | FlagPFCConfigured | FlagPFCChanged, true},
		{0, StatusOperational, ReasonLocalChange, allETS | allPFC, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
		// Willing off: operational stays local, nothing to indicate.
		{2, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagPFCConfigured | FlagWilling, true},
		// Willing on: ETS from the recommendation, PFC from the peer (not willing).
		{2, StatusOperational, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{4, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagPFCConfigured, true},
		{4, StatusOperational, ReasonLocalChange, allETS | allPFC, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
}

// TestOperationalFollowsRemote checks that remote changes and
// invalidations move the operational set when willing.
func TestOperationalFollowsRemote(t *testing.T) {
	e := New(Config{})
	local := &dcb.Params{ETS: localETS, PFC: &dcb.PFC{Willing: true, Cap: 8}}
	got := run(e, []Event{
		LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: true, Params: local},
		rx(1, frame(t, highMAC, 4, etsA, pfc3)),
		rx(2, frame(t, highMAC, 4, etsA, pfc34)),
		Tick{At: at(10)},
	})
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{0, StatusOperational, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
		{1, StatusOperational, ReasonFirstReceipt, FlagETSConfigured | allPFC | FlagWilling, true},
		{2, StatusRemote, ReasonChanged, FlagETSConfigured | allPFC, true},
		{2, StatusOperational, ReasonChanged, FlagETSConfigured | allPFC | FlagWilling, true},
		{6, StatusRemote, ReasonTTLExpired, FlagETSChanged | FlagPFCChanged, false},
		{6, StatusOperational, ReasonTTLExpired, FlagETSConfigured | allPFC | FlagWilling, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
	in := e.Snapshot().Interfaces[0]
	if in.Resolution.PFC.Source != dcb.FromLocal || in.Operational.PFC.Enabled != 0 {
		t.Errorf("after expiry: resolution %+v operational PFC %v", in.Resolution, in.Operational.PFC)
	}
}
