// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"

	"github.com/google/go-cmp/cmp"
)

// TestLinkDown: a port whose link goes down discards its peers at once
// (802.1AB-2016 9.2.9): the valid remote parameters are invalidated with
// reason link-down (zeroed, *_CHANGED for each group), the peers are gone,
// and the first LLDPDU after the link returns is a first receipt. A
// multi-peer port's hold-down ends with the information it held.
func TestLinkDown(t *testing.T) {
	up := func(s float64, on bool) Event {
		return LinkChanged{Interface: "eth0", At: at(s), Ifindex: 2, MAC: lowMAC, Up: on}
	}
	e := New(Config{})
	got := run(e, []Event{
		up(0, true),
		rx(1, frame(t, highMAC, 120, etsA, pfc3, app1)),
		up(5, false),
		up(6, false), // down again: nothing more
		up(10, true),
		rx(11, frame(t, highMAC, 120, etsA, pfc3, app1)),
	})
	want := []ind{
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
		{5, StatusRemote, ReasonLinkDown, FlagETSChanged | FlagPFCChanged | FlagClassificationChanged, false},
		{11, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
	}
	var remote []ind
	for _, i := range got {
		if i.Status == StatusRemote {
			remote = append(remote, i)
		}
	}
	if diff := cmp.Diff(want, remote); diff != "" {
		t.Errorf("remote indications (-want +got):\n%s", diff)
	}

	e = New(Config{})
	run(e, []Event{up(0, true), rx(1, frame(t, highMAC, 120, etsA, pfc3, app1)), up(5, false)})
	in := e.Snapshot().Interfaces[0]
	if in.RemoteValid || in.RemoteInvalidReason == nil || *in.RemoteInvalidReason != ReasonLinkDown || len(in.Peers) != 0 ||
		in.RemoteState() != RemoteLinkDown || in.RemoteState().String() != "link-down" {
		t.Errorf("after link down: valid %v, reason %v, peers %d, state %v", in.RemoteValid, in.RemoteInvalidReason, len(in.Peers), in.RemoteState())
	}
	// The peer's identity stays: who it was, what it last sent, when and
	// why it went.
	if lp := in.LastPeer; lp == nil || lp.Reason != ReasonLinkDown || !lp.GoneAt.Equal(at(5)) || lp.SystemName == nil ||
		lp.ChassisID != in.LastPeer.ChassisID || lp.Params == nil || lp.Params.PFC == nil || lp.Params.PFC.Enabled != 1<<3 {
		t.Errorf("last peer %+v, want the link-down peer at 5 s with its PFC on 3", lp)
	}
	e = New(Config{})
	run(e, []Event{up(0, true), rx(1, frame(t, highMAC, 4, etsA, pfc3)), Tick{At: at(6)}})
	if lp := e.Snapshot().Interfaces[0].LastPeer; lp == nil || lp.Reason != ReasonTTLExpired || !lp.GoneAt.Equal(at(5)) {
		t.Errorf("after expiry: last peer %+v, want expired at 5 s", lp)
	}

	// Two DCBX peers (multi-peer), then the link goes down.
	e = New(Config{})
	run(e, []Event{up(0, true), rx(1, frame(t, highMAC, 120, etsA, pfc3)), rx(2, frame(t, macB, 120, etsA, pfc3)), up(5, false)})
	in = e.Snapshot().Interfaces[0]
	if in.MultiPeer != nil || len(in.Peers) != 0 || in.RemoteInvalidReason == nil || *in.RemoteInvalidReason != ReasonLinkDown {
		t.Errorf("multi-peer, then link down: multi %+v, peers %d, reason %v", in.MultiPeer, len(in.Peers), in.RemoteInvalidReason)
	}
}

// TestEmptyAppTable: an APP table without entries configures no
// classification, on either side: neither the peer's empty APP TLV nor a
// local empty table sets CLASSIFICATION_CONFIGURED (one rule from
// "Guidelines for Setting the Flags Member" for every status); its
// appearance is still a change.
func TestEmptyAppTable(t *testing.T) {
	e := New(Config{})
	local := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{}}
	got := run(e, []Event{
		LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Params: local},
		rx(1, frame(t, highMAC, 120, etsA, pfc3, &lldp.AppPriority{})),
	})
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, allPFC | FlagClassificationChanged, true},
		{0, StatusOperational, ReasonLocalChange, allPFC | FlagClassificationChanged, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC | FlagClassificationChanged, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
}

// TestOneDiagnosticPerFact: the same out-of-range priority map sent in
// the ETS configuration and in the recommendation is one diagnostic that
// names both; a reserved traffic class (8-15) says so and does not advise
// changing Max TCs, which cannot help.
func TestOneDiagnosticPerFact(t *testing.T) {
	cfg := &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 15}, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}}
	reco := &lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 15}, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}}
	e := New(Config{})
	e.Apply(rx(1, frame(t, highMAC, 120, cfg, reco, pfc3)))
	var got []diag.Diagnostic
	for _, d := range e.Snapshot().Interfaces[0].Diagnostics {
		if d.Code == diag.CodeETSPrioTCRange {
			got = append(got, d)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d ets-prio-tc-range diagnostics, want 1: %+v", len(got), got)
	}
	d := got[0]
	if !strings.HasPrefix(d.Message, "ETS configuration and recommendation: priority 3 maps to TC15, a reserved traffic class") ||
		strings.Contains(d.Action, "or its TC count") || !strings.Contains(d.Action, "above TC7") {
		t.Errorf("message %q, action %q", d.Message, d.Action)
	}
}

// TestNeighborEvents: with Config.NeighborEvents the log also records LLDP
// neighbour events, a kind of their own (StatusNeighbor, no flags, no
// parameters): a peer appeared, a second DCBX peer started a multi-peer
// hold-down, one left (its TTL), the hold-down ended; so a peer leaving
// the multi-peer condition is visible. Without it, none.
func TestNeighborEvents(t *testing.T) {
	events := func(e *Engine) []string {
		var got []string
		for _, in := range e.Log() {
			if in.Status == StatusNeighbor {
				if in.Flags != 0 || in.Params != nil || (in.Reason != ReasonHoldDownEnd && in.Peer == "") {
					t.Errorf("neighbour event %+v: flags, params or peer", in)
				}
				got = append(got, fmt.Sprintf("%g %s %s", in.Time.Sub(t0).Seconds(), in.Reason, in.PeerName))
			}
		}
		return got
	}
	evs := []Event{
		rx(1, frame(t, highMAC, 4, etsA, pfc3)),
		rx(2, frame(t, macB, 4, etsA, pfc3)),
		rx(3, frame(t, highMAC, 4, etsA, pfc3)),
		rx(6, frame(t, highMAC, 4, etsA, pfc3)),
		rx(9, frame(t, highMAC, 4, etsA, pfc3)),
		Tick{At: at(14)},
	}
	e := New(Config{NeighborEvents: true})
	run(e, evs)
	// B's information expires at 6; A's sent meanwhile (at 3) keeps the
	// hold-down until 7; A's own expires 4 s after its last LLDPDU.
	want := []string{"1 peer-new leaf-ff", "2 peer-new leaf-0b", "2 multi-peer leaf-0b", "6 ttl-expired leaf-0b", "7 hold-down-end ", "13 ttl-expired leaf-ff"}
	if diff := cmp.Diff(want, events(e)); diff != "" {
		t.Errorf("neighbour events (-want +got):\n%s", diff)
	}
	e = New(Config{})
	run(e, evs)
	if got := events(e); len(got) != 0 {
		t.Errorf("without NeighborEvents: %v", got)
	}
}

// Flags.StringLen is the length of Flags.String, for every combination.
func TestFlagsStringLen(t *testing.T) {
	const mask = allETS | allPFC | allApp | FlagWilling
	for f := Flags(mask); ; f = (f - 1) & mask { // every subset of mask
		if got, want := f.StringLen(), len(f.String()); got != want {
			t.Fatalf("%v: StringLen %d, want %d", f, got, want)
		}
		if f == 0 {
			break
		}
	}
}

// A flood of new MSAPs beyond the neighbour table records no neighbour
// event per MSAP: the too-many-neighbors condition says it once.
func TestNeighborEventsFlood(t *testing.T) {
	e := New(Config{NeighborEvents: true, MaxNeighbors: 4})
	for i := range 100 {
		mac := lldp.MAC{2, 0, 0, 0, byte(i >> 8), byte(i)}
		e.Apply(rx(1+float64(i)/1000, frame(t, mac, 120)))
	}
	n := 0
	for _, in := range e.Log() {
		if in.Status == StatusNeighbor {
			n++
		}
	}
	if n != 4 { // the four that fit; from the first overflow on, none
		t.Errorf("%d neighbour events for 100 new MSAPs into a table of 4, want 4", n)
	}
}

// TestInterfaceRemoved: a deleted interface is "removed", not "down": it
// stays listed, its peers are gone as with a link down (link-down), and
// it is up again when re-created.
func TestInterfaceRemoved(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true})
	e.Apply(FrameReceived{Interface: "eth0", At: at(1), Data: frame(t, highMAC, 120, etsA, pfc3)})
	ins := e.Apply(LinkChanged{Interface: "eth0", At: at(2), Ifindex: 2, MAC: lowMAC, Removed: true})
	in, _ := e.Interface("eth0")
	if in.OperState != "removed" || len(in.Peers) != 0 || in.RemoteValid {
		t.Errorf("removed: oper %q, %d peers, remote valid %v; want removed, none, invalid", in.OperState, len(in.Peers), in.RemoteValid)
	}
	if len(ins) == 0 || ins[0].Reason != ReasonLinkDown {
		t.Errorf("indications %+v, want link-down", ins)
	}
	e.Apply(LinkChanged{Interface: "eth0", At: at(3), Ifindex: 5, MAC: lowMAC, Up: true})
	if in, _ := e.Interface("eth0"); in.OperState != "up" {
		t.Errorf("re-created: oper %q, want up", in.OperState)
	}
}
