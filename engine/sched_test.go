// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestInterfaceBound: past Config.MaxInterfaces events are counted, the
// host-wide too-many-interfaces diagnostic says how many interfaces and
// events were ignored, the change is reported once (the first ignored
// event changes the snapshot, later ones do not), and the kept
// interfaces go on working.
func TestInterfaceBound(t *testing.T) {
	e := New(Config{MaxInterfaces: 4})
	f := frame(t, macA, 120, pfc3)
	var changed []int
	n := 0
	for round := range 3 {
		for i := range 10 {
			o := e.Step(FrameReceived{Interface: fmt.Sprintf("if%d", i), At: at(float64(round)), Data: f})
			if i >= 4 && o.Changed {
				changed = append(changed, n)
			}
			n++
		}
	}
	if diff := cmp.Diff([]int{4}, changed); diff != "" {
		t.Errorf("ignored events reporting a change (-want +got):\n%s", diff)
	}
	s := e.Snapshot()
	var names []string
	for _, in := range s.Interfaces {
		names = append(names, in.Name)
		if !in.RemoteValid {
			t.Errorf("%s: remote not valid", in.Name)
		}
	}
	if diff := cmp.Diff([]string{"if0", "if1", "if2", "if3"}, names); diff != "" {
		t.Errorf("interfaces kept (-want +got):\n%s", diff)
	}
	want := []diag.Diagnostic{{Code: diag.CodeTooManyInterfaces, Severity: diag.SeverityWarning, Feature: "capture",
		Message: "events for more than 4 interfaces: 6 more interfaces ignored (18 events)",
		Action:  "watch fewer interfaces (-i), or split the capture by interface (editcap, tshark -Y frame.interface_id)"}}
	if diff := cmp.Diff(want, s.Diagnostics); diff != "" {
		t.Errorf("host diagnostics (-want +got):\n%s", diff)
	}
	if d := New(Config{}).Snapshot().Diagnostics; d == nil || len(d) != 0 {
		t.Errorf("no ignored interface: diagnostics %#v, want []", d)
	}
	// Every kind of event for an ignored interface is ignored.
	for _, ev := range []Event{
		LinkChanged{Interface: "x", At: at(3), Up: true},
		LocalChanged{Interface: "x", At: at(3), Source: SourceDCBNL},
		CaptureStatus{Interface: "x", At: at(3), Err: "gone"},
		CountersSampled{Interface: "x", At: at(3)},
	} {
		e.Step(ev)
	}
	if got := len(e.Snapshot().Interfaces); got != 4 {
		t.Errorf("%d interfaces after other events, want 4", got)
	}
}

// TestScheduleOrder: with many ports, each neighbour expires at its own
// TTL, in time order, whatever order the ports were created and refreshed
// in: the schedule (a heap of ports by next deadline) fires what a walk
// over every port fired.
func TestScheduleOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const ports = 300
	e := New(Config{})
	ttl := map[string]uint16{}
	perm := r.Perm(ports)
	for _, i := range perm {
		name := fmt.Sprintf("p%03d", i)
		ttl[name] = uint16(5 + r.IntN(200))
		e.Apply(FrameReceived{Interface: name, At: at(0), Data: frame(t, macA, ttl[name], pfc3)})
	}
	// Refresh a third of them at t=2 with another TTL.
	for _, i := range perm[:ports/3] {
		name := fmt.Sprintf("p%03d", i)
		ttl[name] = uint16(5 + r.IntN(200))
		e.Apply(FrameReceived{Interface: name, At: at(2), Data: frame(t, macA, ttl[name], pfc3)})
	}
	type exp struct {
		name string
		at   time.Time
	}
	var want []exp
	for _, i := range perm {
		name := fmt.Sprintf("p%03d", i)
		from := at(0)
		if slices.Contains(perm[:ports/3], i) {
			from = at(2)
		}
		want = append(want, exp{name, from.Add(time.Duration(ttl[name]) * time.Second)})
	}
	slices.SortStableFunc(want, func(a, b exp) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return 0
	})
	var got []exp
	for s := 1.0; s <= 260; s += 7 {
		for _, in := range e.Apply(Tick{At: at(s)}) {
			if in.Status == StatusRemote && in.Reason == ReasonTTLExpired {
				got = append(got, exp{in.Interface, in.Time})
			}
		}
	}
	// Ties fire in any order: compare times in order and names as sets.
	if len(got) != len(want) {
		t.Fatalf("%d expiries, want %d", len(got), len(want))
	}
	for i := range got {
		if !got[i].at.Equal(want[i].at) {
			t.Fatalf("expiry %d at %v, want %v", i, got[i].at, want[i].at)
		}
	}
	gotNames, wantNames := map[string]time.Time{}, map[string]time.Time{}
	for i := range got {
		gotNames[got[i].name], wantNames[want[i].name] = got[i].at, want[i].at
	}
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("expiry times per port (-want +got):\n%s", diff)
	}
	// A lost peer keeps one deadline, when peer-lost becomes an error
	// (two TTLs after): past it nothing is left.
	e.Apply(Tick{At: at(2000)})
	if e.TimeSensitive() {
		t.Error("TimeSensitive with every neighbour expired")
	}
	if _, ok := e.NextDeadline(); ok {
		t.Error("a deadline is left with every neighbour expired")
	}
}

// BenchmarkManyInterfaces measures one LLDPDU per port, on 1,000 and
// 10,000 ports, each with a live neighbour: the per-event work must not
// grow with the number of ports (a heap of deadlines, not a walk over
// every port), so ns/op stays about the same for both sizes. Before the
// schedule 10,000 ports cost about 100x what 1,000 did per frame.
func BenchmarkManyInterfaces(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := New(Config{MaxInterfaces: n})
			names := make([]string, n)
			frames := make([][]byte, n)
			for i := range n {
				names[i] = fmt.Sprintf("eth%d", i)
				mac := lldp.MAC{2, 0, 0, byte(i >> 16), byte(i >> 8), byte(i)}
				frames[i] = frame(b, mac, 120, pfc3)
				e.Apply(FrameReceived{Interface: names[i], At: at(0), Data: frames[i]})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				k := i % n
				e.Apply(FrameReceived{Interface: names[k], At: t0.Add(time.Duration(i) * time.Millisecond), Data: frames[k]})
			}
		})
	}
}
