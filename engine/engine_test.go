// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// The switch ports and TLVs of lldptest, under the names the tests use.
var (
	macA, macB         = lldptest.MacA, lldptest.MacB
	etsA, etsA2, recoA = lldptest.ETSA, lldptest.ETSA2, lldptest.RecoA
	pfc3, pfc34        = lldptest.PFC3, lldptest.PFC34
	app1, app2         = lldptest.App1, lldptest.App2
	frame, frameTo     = lldptest.Frame, lldptest.FrameTo
)

func rx(s float64, data []byte) Event {
	return FrameReceived{Interface: "eth0", At: at(s), Data: data}
}

// ind is the part of an Indication the NDIS rules are about.
type ind struct {
	T      float64
	Status Status
	Reason Reason
	Flags  Flags
	Valid  bool // params non-nil
}

func run(e *Engine, evs []Event) []ind {
	var got []ind
	for _, ev := range evs {
		for _, in := range e.Apply(ev) {
			got = append(got, ind{T: in.Time.Sub(t0).Seconds(), Status: in.Status, Reason: in.Reason, Flags: in.Flags, Valid: in.Params != nil})
		}
	}
	return got
}

const (
	allETS = FlagETSConfigured | FlagETSChanged
	allPFC = FlagPFCConfigured | FlagPFCChanged
	allApp = FlagClassificationConfigured | FlagClassificationChanged
)

// TestNDISRules has one case per rule of "Indicating Changes to the Remote
// NDIS QoS Parameters" and docs/dcbx.md "NDIS remote-parameter
// indications", as event tables.
func TestNDISRules(t *testing.T) {
	tests := []struct {
		name string
		evs  func(t testing.TB) []Event
		want []ind
	}{
		{
			name: "no indication before the first DCBX LLDPDU",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120)), rx(30, frame(t, macA, 120)), Tick{At: at(200)}}
			},
		},
		{
			name: "first DCBX LLDPDU: complete set, CONFIGURED and CHANGED per group present",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3))}
			},
			want: []ind{{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true}},
		},
		{
			name: "identical LLDPDU yields nothing",
			evs: func(t testing.TB) []Event {
				f := frame(t, macA, 120, etsA, pfc3, app1)
				return []Event{rx(0, f), rx(30, f), rx(60, f), rx(90, f)}
			},
			want: []ind{{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true}},
		},
		{
			name: "ETS change alone: ETS_CHANGED only, CONFIGURED for every group",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3, app1)), rx(30, frame(t, macA, 120, etsA2, pfc3, app1))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
				{30, StatusRemote, ReasonChanged, allETS | FlagPFCConfigured | FlagClassificationConfigured, true},
			},
		},
		{
			name: "ETS recommendation change counts as ETS",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3)), rx(30, frame(t, macA, 120, etsA, recoA, pfc3))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
				{30, StatusRemote, ReasonChanged, allETS | FlagPFCConfigured, true},
			},
		},
		{
			name: "PFC change alone",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3, app1)), rx(1, frame(t, macA, 120, etsA, pfc34, app1))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
				{1, StatusRemote, ReasonChanged, FlagETSConfigured | allPFC | FlagClassificationConfigured, true},
			},
		},
		{
			name: "APP change alone",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3, app1)), rx(1, frame(t, macA, 120, etsA, pfc3, app2))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
				{1, StatusRemote, ReasonChanged, FlagETSConfigured | FlagPFCConfigured | allApp, true},
			},
		},
		{
			name: "a group added: CHANGED and CONFIGURED for it",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA)), rx(1, frame(t, macA, 120, etsA, pfc3))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS, true},
				{1, StatusRemote, ReasonChanged, FlagETSConfigured | allPFC, true},
			},
		},
		{
			name: "a group that disappears counts as changed",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3)), rx(1, frame(t, macA, 120, etsA))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
				{1, StatusRemote, ReasonChanged, FlagETSConfigured | FlagPFCChanged, true},
			},
		},
		{
			name: "a change of system name only is no DCBX change",
			evs: func(t testing.TB) []Event {
				f2 := frame(t, macA, 120, etsA, &lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: "new"})
				return []Event{rx(0, frame(t, macA, 120, etsA)), rx(1, f2)}
			},
			want: []ind{{0, StatusRemote, ReasonFirstReceipt, allETS, true}},
		},
		{
			name: "TTL expiry fires at the instant it was due, with zeroed params and CHANGED flags",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 4, etsA, pfc3)), rx(1, frame(t, macA, 4, etsA, pfc3)), Tick{At: at(60)}}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
				{5, StatusRemote, ReasonTTLExpired, FlagETSChanged | FlagPFCChanged, false},
			},
		},
		{
			name: "expiry is due when last+TTL is not after now",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 4, etsA)), Tick{At: at(3.999)}, Tick{At: at(4)}}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS, true},
				{4, StatusRemote, ReasonTTLExpired, FlagETSChanged, false},
			},
		},
		{
			name: "after TTL expiry the next LLDPDU is a first receipt again",
			evs: func(t testing.TB) []Event {
				f := frame(t, macA, 4, etsA)
				return []Event{rx(0, f), rx(10, f)}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS, true},
				{4, StatusRemote, ReasonTTLExpired, FlagETSChanged, false},
				{10, StatusRemote, ReasonFirstReceipt, allETS, true},
			},
		},
		{
			name: "shutdown LLDPDU invalidates at once",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3, app1)), rx(2, frame(t, macA, 0))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC | allApp, true},
				{2, StatusRemote, ReasonShutdown, FlagETSChanged | FlagPFCChanged | FlagClassificationChanged, false},
			},
		},
		{
			name: "shutdown from an unknown MSAP does nothing",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 0))}
			},
		},
		{
			name: "multi-peer: one invalidation, held until every peer's information expired, then first receipt",
			evs: func(t testing.TB) []Event {
				a, b := frame(t, macA, 4, etsA, pfc3), frame(t, macB, 4, etsA2, pfc34)
				return []Event{
					rx(0, a), rx(1, a),
					rx(2, b),             // second DCBX MSAP while A is live: invalidate
					rx(3, a), rx(3.5, b), // still multi-peer: nothing
					// B goes silent; its last LLDPDU (3.5) expires at 7.5.
					rx(5, a), rx(7, a), // A's LLDPDU at 7 was received while B was live: taint until 11
					rx(9, a),  // single live peer, but hold-down until 11: nothing
					rx(11, a), // hold-down over at 11: first receipt again
				}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
				{2, StatusRemote, ReasonMultiPeer, FlagETSChanged | FlagPFCChanged, false},
				{11, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
			},
		},
		{
			name: "multi-peer: a shutdown LLDPDU withdraws that MSAP's information at once",
			evs: func(t testing.TB) []Event {
				a, b := frame(t, macA, 120, etsA), frame(t, macB, 120, etsA2)
				return []Event{
					rx(0, a), rx(1, b), // multi-peer; A tainted until 120, B until 121
					rx(2, frame(t, macB, 0)), // B withdraws
					rx(3, a),                 // A still tainted (its LLDPDU at 0 was live during the condition)
					rx(121, a),               // A's tainted information (0+120, refreshed at 3 while alone: not tainted) expired at 120
				}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS, true},
				{1, StatusRemote, ReasonMultiPeer, FlagETSChanged, false},
				{121, StatusRemote, ReasonFirstReceipt, allETS, true},
			},
		},
		{
			name: "multi-peer when both peers stop: hold-down ends when the last expires",
			evs: func(t testing.TB) []Event {
				return []Event{
					rx(0, frame(t, macA, 4, etsA)), rx(1, frame(t, macB, 4, etsA)),
					Tick{At: at(100)},
					rx(101, frame(t, macB, 4, etsA)),
				}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS, true},
				{1, StatusRemote, ReasonMultiPeer, FlagETSChanged, false},
				{101, StatusRemote, ReasonFirstReceipt, allETS, true},
			},
		},
		{
			name: "a plain LLDP neighbour does not make a multi-peer condition",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA)), rx(1, frame(t, macB, 120)), rx(2, frame(t, macB, 120))}
			},
			want: []ind{{0, StatusRemote, ReasonFirstReceipt, allETS, true}},
		},
		{
			name: "DCBX on a non-nearest-bridge agent is not used",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frameTo(t, lldp.NearestCustomerBridge, macA, 120, etsA))}
			},
		},
		{
			name: "peer stops sending DCBX TLVs: every group changed, none configured",
			evs: func(t testing.TB) []Event {
				return []Event{rx(0, frame(t, macA, 120, etsA, pfc3)), rx(1, frame(t, macA, 120))}
			},
			want: []ind{
				{0, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
				{1, StatusRemote, ReasonChanged, FlagETSChanged | FlagPFCChanged, true},
			},
		},
		{
			name: "an out-of-order timestamp does not move the clock back",
			evs: func(t testing.TB) []Event {
				return []Event{rx(10, frame(t, macA, 4, etsA)), rx(5, frame(t, macA, 4, etsA2)), Tick{At: at(13.5)}, Tick{At: at(14)}}
			},
			want: []ind{
				{10, StatusRemote, ReasonFirstReceipt, allETS, true},
				{10, StatusRemote, ReasonChanged, allETS, true},
				{14, StatusRemote, ReasonTTLExpired, FlagETSChanged, false},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(New(Config{}), tt.evs(t))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("indications (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndicationParams(t *testing.T) {
	e := New(Config{})
	ins := e.Apply(rx(0, frame(t, macA, 120, etsA, recoA, pfc3, app1)))
	if len(ins) != 1 {
		t.Fatalf("got %d indications, want 1", len(ins))
	}
	want := &dcb.Params{
		ETS:     &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		ETSReco: &dcb.ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}},
		PFC:     &dcb.PFC{Cap: 8, Enabled: 1 << 3},
		App:     []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}},
	}
	if diff := cmp.Diff(want, ins[0].Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if got, want := ins[0].Peer, "mac 02:00:00:00:00:0a / ifname swp1"; got != want {
		t.Errorf("peer = %q, want %q", got, want)
	}
}

func TestSnapshotMultiPeer(t *testing.T) {
	e := New(Config{})
	run(e, []Event{rx(0, frame(t, macA, 10, etsA)), rx(2, frame(t, macB, 10, etsA)), Tick{At: at(3)}})
	s := e.Snapshot()
	if len(s.Interfaces) != 1 {
		t.Fatalf("%d interfaces", len(s.Interfaces))
	}
	in := s.Interfaces[0]
	if in.RemoteValid || in.Remote != nil || in.RemoteInvalidReason == nil || *in.RemoteInvalidReason != ReasonMultiPeer {
		t.Errorf("remote valid=%v remote=%v reason=%v, want invalid multi-peer", in.RemoteValid, in.Remote, in.RemoteInvalidReason)
	}
	want := &MultiPeer{Since: at(2), HoldDownMs: 9000, Peers: []string{"mac 02:00:00:00:00:0a / ifname swp1", "mac 02:00:00:00:00:0b / ifname swp1"}}
	if diff := cmp.Diff(want, in.MultiPeer); diff != "" {
		t.Errorf("multi_peer (-want +got):\n%s", diff)
	}
	if len(in.Peers) != 2 || in.Peers[0].ExpiresInMs != 7000 || in.Peers[1].ExpiresInMs != 9000 {
		t.Errorf("peers: %+v", in.Peers)
	}
	if !hasCode(in.Diagnostics, diag.CodeMultiPeer) {
		t.Errorf("no multi-peer diagnostic in %+v", in.Diagnostics)
	}
}

func hasCode(ds []diag.Diagnostic, code diag.Code) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

func TestNeighborBound(t *testing.T) {
	e := New(Config{MaxNeighbors: 4})
	e.Apply(rx(0, frame(t, macA, 120, etsA)))
	for i := range 100 {
		src := lldp.MAC{0x02, 1, 0, 0, byte(i >> 8), byte(i)}
		e.Apply(rx(1+float64(i)/100, frame(t, src, 120)))
		if n := len(e.ports["eth0"].neighbors); n > 4 {
			t.Fatalf("after %d neighbours the table holds %d, bound 4", i+2, n)
		}
	}
	in := e.Snapshot().Interfaces[0]
	if !in.RemoteValid {
		t.Error("the source of the remote parameters was evicted")
	}
	if in.Capture.NeighborsEvicted != 97 || !hasCode(in.Diagnostics, diag.CodeTooManyNeighbors) {
		t.Errorf("evicted %d, diagnostics %+v", in.Capture.NeighborsEvicted, in.Diagnostics)
	}
}

func TestMalformedCountedAndNextDecoded(t *testing.T) {
	e := New(Config{})
	good := frame(t, macA, 120, etsA)
	bad := append([]byte(nil), good[:20]...)
	var got []ind
	got = append(got, run(e, []Event{rx(0, bad), rx(1, good)})...)
	if len(got) != 1 || got[0].Reason != ReasonFirstReceipt {
		t.Errorf("indications %+v, want one first receipt", got)
	}
	in := e.Snapshot().Interfaces[0]
	if in.Capture.Malformed != 1 || !hasCode(in.Diagnostics, diag.CodeMalformed) {
		t.Errorf("counters %+v diagnostics %+v", in.Capture, in.Diagnostics)
	}
}

func TestLogBounded(t *testing.T) {
	e := New(Config{LogSize: 3})
	for i := range 10 {
		ets := *etsA
		ets.Bandwidth = [8]uint8{uint8(10 + i), uint8(90 - i)}
		e.Apply(rx(float64(i), frame(t, macA, 120, &ets)))
	}
	log := e.Snapshot().Indications
	if len(log) != 3 {
		t.Fatalf("log holds %d, want 3", len(log))
	}
	for i, in := range log {
		if want := at(float64(7 + i)); !in.Time.Equal(want) {
			t.Errorf("log[%d] at %v, want %v (oldest first)", i, in.Time, want)
		}
	}
}

// TestIdenticalLLDPDUAllocs checks that the engine's work for an LLDPDU
// identical to the previous one from the same peer allocates nothing. The
// event is passed by value, as every caller does, so an Apply that lets
// its event escape would show up here too. The frames must still refresh
// the peer: a fast path that skipped them would allocate nothing either.
func TestIdenticalLLDPDUAllocs(t *testing.T) {
	e := New(Config{})
	f := frame(t, macA, 120, etsA, recoA, pfc3, app2)
	e.Apply(rx(0, f))
	now := at(1)
	const runs = 100
	allocs := testing.AllocsPerRun(runs, func() {
		now = now.Add(time.Second)
		if ins := e.Apply(FrameReceived{Interface: "eth0", At: now, Data: f}); ins != nil {
			t.Fatal("indication for an identical LLDPDU")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per identical LLDPDU, want 0", allocs)
	}
	in := e.Snapshot().Interfaces[0]
	// AllocsPerRun calls the function once more to warm up.
	if in.Capture.Unchanged != runs+1 || len(in.Peers) != 1 || !in.Peers[0].LastSeen.Equal(now) || in.Peers[0].ExpiresInMs != 120000 {
		t.Errorf("identical LLDPDUs not taken as refreshes: counters %+v peers %+v", in.Capture, in.Peers)
	}
}

func BenchmarkApplyUnchanged(b *testing.B) {
	e := New(Config{})
	f := frame(b, macA, 120, etsA, recoA, pfc3, app2)
	e.Apply(rx(0, f))
	now := at(1)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Millisecond)
		e.Apply(FrameReceived{Interface: "eth0", At: now, Data: f})
	}
}

func BenchmarkApplyChanged(b *testing.B) {
	e := New(Config{})
	fs := [2][]byte{
		frame(b, macA, 120, etsA, recoA, pfc3, app1),
		frame(b, macA, 120, etsA2, recoA, pfc34, app2),
	}
	now := at(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		e.Apply(FrameReceived{Interface: "eth0", At: now, Data: fs[i%2]})
		i++
	}
}

// Step's Outcome says what an agent reacts to: a neighbour that appeared
// (fast transmission) and a change of what it advertises (local or
// operational parameters), and nothing for a repeated LLDPDU.
func TestStepOutcome(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), MAC: macB, Up: true})
	o := e.Step(LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Willing: true, Params: &dcb.Params{PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 1 << 4}}})
	if diff := cmp.Diff([]string{"eth0"}, o.Advertise); diff != "" || o.NewPeers != nil {
		t.Errorf("local change: advertise %v new peers %v", o.Advertise, o.NewPeers)
	}
	f := frame(t, macA, 120, etsA, pfc3)
	o = e.Step(rx(1, f))
	if diff := cmp.Diff([]string{"eth0"}, o.NewPeers); diff != "" {
		t.Errorf("first LLDPDU: new peers %v", o.NewPeers)
	}
	if diff := cmp.Diff([]string{"eth0"}, o.Advertise); diff != "" { // willing: PFC 3 adopted
		t.Errorf("first LLDPDU: advertise %v", o.Advertise)
	}
	if o = e.Step(rx(2, f)); o.NewPeers != nil || o.Advertise != nil || o.Indications != nil {
		t.Errorf("repeated LLDPDU: %+v", o)
	}
	// Not willing: a remote change changes nothing this host advertises.
	e.Apply(LocalChanged{Interface: "eth0", At: at(3), Source: SourceAgent, Willing: false, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 4}}})
	o = e.Step(rx(4, frame(t, macA, 120, etsA, pfc34)))
	if o.Advertise != nil || len(o.Indications) != 1 || o.Indications[0].Status != StatusRemote {
		t.Errorf("remote change, not willing: %+v", o)
	}
}

// BenchmarkSnapshot64 is the snapshot a switch-sized screen takes every
// second: 64 interfaces, a DCBX peer on each.
func BenchmarkSnapshot64(b *testing.B) {
	e := New(Config{})
	f := frame(b, macA, 120, etsA, recoA, pfc3, app2)
	for i := range 64 {
		e.Apply(FrameReceived{Interface: fmt.Sprintf("h%d", i), At: at(0), Data: f})
		// A sample as a veth gives: no counter at all.
		e.Apply(CountersSampled{Interface: fmt.Sprintf("h%d", i), At: at(0), Interval: time.Second, RDMA: []lossless.RDMAPortSample{}})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Snapshot()
	}
}
