// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// setClock is a Clock that says what the test sets.
type setClock struct{ now time.Time }

func (c *setClock) Now() time.Time                         { return c.now }
func (c *setClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// nicDelta is what the simulated NIC's counters moved by in one second.
type nicDelta struct {
	bytes    [8]uint64
	pauses   [8]uint64
	ecn, cnp uint64
	oos      uint64
}

func delta(a, b engine.CountersSampled) nicDelta {
	var d nicDelta
	for p := range 8 {
		d.bytes[p] = b.PFC.Priorities[p].RxBytes.Value - a.PFC.Priorities[p].RxBytes.Value
		d.pauses[p] = b.PFC.Priorities[p].RxPause.Value - a.PFC.Priorities[p].RxPause.Value
	}
	cg := func(c lossless.CongestionCounter) uint64 {
		return b.RDMA[0].Congestion[c].Value - a.RDMA[0].Congestion[c].Value
	}
	d.ecn, d.cnp, d.oos = cg(lossless.ECNMarked), cg(lossless.CNPSent), cg(lossless.OutOfSequence)
	return d
}

// The simulated NIC's counters follow what it is told, second by second:
// no traffic without a switch, 1 GB/s on the ToS's priority, pauses in
// the bursts of congestion where the switch runs PFC on that priority and
// drops where it does not, ECN marks and CNPs once marking is on; its
// configfs takes rdma_cm's ToS writes as the kernel's does.
func TestNIC(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &setClock{now: t0}
	n := NewNIC(clock)
	on, off := true, false
	tos := func(v uint8) *uint8 { return &v }
	type second struct {
		setup  func(at time.Time)
		bursts bool // the second ends in a burst (seconds 3-5 of 5)
		want   nicDelta
	}
	var gb [8]uint64
	gb[3] = 1e9
	var gb0 [8]uint64
	gb0[0] = 1e9
	pauses := func(p uint8, v uint64) (a [8]uint64) { a[p] = v; return a }
	steps := []second{
		{setup: func(time.Time) {}, want: nicDelta{}},                                                    // 1: no switch
		{setup: func(at time.Time) { n.Fabric(at, true, dcb.PrioSet(1<<3)) }, want: nicDelta{bytes: gb}}, // 2
		{setup: func(at time.Time) { n.Script(at, NICChange{Congestion: &on}) }, want: nicDelta{bytes: gb}},
		{setup: func(time.Time) {}, bursts: true, want: nicDelta{bytes: gb, pauses: pauses(3, 400)}}, // 4
		{setup: func(at time.Time) { n.Script(at, NICChange{ECN: &on}) }, bursts: true,
			want: nicDelta{bytes: gb, pauses: pauses(3, 100), ecn: 2000, cnp: 500}}, // 5
		{setup: func(time.Time) {}, want: nicDelta{bytes: gb}}, // 6: between bursts
		{setup: func(time.Time) {}, want: nicDelta{bytes: gb}},
		{setup: func(time.Time) {}, want: nicDelta{bytes: gb}},
		{setup: func(at time.Time) { n.Fabric(at, true, dcb.PrioSet(1<<4)) }, bursts: true,
			want: nicDelta{bytes: gb, ecn: 2000, cnp: 500, oos: 50}}, // 9: the switch drops
		{setup: func(at time.Time) {
			n.Fabric(at, true, dcb.PrioSet(1<<3))
			n.Script(at, NICChange{ToS: tos(0), ECN: &off})
		},
			bursts: true, want: nicDelta{bytes: gb0, oos: 50}}, // 10: on priority 0, lossy
		{setup: func(at time.Time) { n.Fabric(at, false, 0) }, want: nicDelta{}}, // 11: no switch
	}
	prev := n.Sample("dcbdemo0", t0, time.Second)
	for i, s := range steps {
		at := t0.Add(time.Duration(i) * time.Second)
		clock.now = at
		s.setup(at)
		end := at.Add(time.Second)
		if got := n.InBurst(end.Add(-time.Millisecond)); got != s.bursts {
			t.Fatalf("second %d: in a burst %v, want %v", i+1, got, s.bursts)
		}
		cur := n.Sample("dcbdemo0", end, time.Second)
		if d := delta(prev, cur); d != s.want {
			t.Errorf("second %d: counters moved by %+v\nwant %+v", i+1, d, s.want)
		}
		prev = cur
	}
	if got := prev.RoCE[0].DefaultToS.ToS; got != 0 {
		t.Errorf("default ToS %d, want 0 as the scenario set it", got)
	}

	// rdma_cm's configfs: the write dcbtop's fix makes reads back and
	// moves the traffic; another device is not one.
	fs := n.ConfigFS()
	w, err := rdma.SetDefaultToS(fs, "mlx5_0", "1", 106)
	if err != nil || !w.Created || w.After.Byte != 106 || !w.Before.Known || w.Before.V.Byte != 0 {
		t.Fatalf("SetDefaultToS: %+v, %v; want made, 0 before, 106 after", w, err)
	}
	if _, err := rdma.SetDefaultToS(fs, "mlx5_1", "1", 106); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("SetDefaultToS on mlx5_1: %v, want ENODEV", err)
	}
	if _, err := rdma.SetDefaultToS(fs, "mlx5_0", "2", 106); err == nil {
		t.Error("SetDefaultToS on port 2: no error")
	}
	if err := fs.WriteFile(cfgTos, []byte("300\n")); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("writing 300: %v, want EINVAL", err)
	}
	at := t0.Add(time.Duration(len(steps)) * time.Second)
	n.Fabric(at, true, dcb.PrioSet(1<<3))
	cur := n.Sample("dcbdemo0", at.Add(time.Second), time.Second)
	if d := delta(prev, cur); d.bytes != gb {
		t.Errorf("after the ToS write, bytes moved by %v, want 1e9 on priority 3", d.bytes)
	}
	if cur.RoCE[0].DefaultToS.ToS != 106 || cur.RoCE[0].DefaultToS.DSCP != 26 || cur.RoCE[0].DefaultToS.ECN != 2 {
		t.Errorf("default ToS %+v, want 106 (DSCP 26, ECT(0))", *cur.RoCE[0].DefaultToS)
	}
	// A sample older than the last one moves nothing back.
	if old := n.Sample("dcbdemo0", t0, time.Second); old.RDMA[0].NDK[lossless.NDKRDMAInOctets].Value != cur.RDMA[0].NDK[lossless.NDKRDMAInOctets].Value {
		t.Error("a sample at an earlier time changed the counters")
	}
}

// With no peer and no congestion the engine judges the simulated NIC's
// RoCE path as a real NIC's: a whole path, nothing wrong.
func TestNICHealthyPath(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &setClock{now: t0}
	n := NewNIC(clock)
	n.Fabric(t0, true, dcb.PrioSet(1<<3))
	e := engine.New(engine.Config{})
	e.Apply(engine.LinkChanged{Interface: "dcbdemo0", At: t0, Ifindex: 2, Up: true})
	sc, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(engine.LocalChanged{Interface: "dcbdemo0", At: t0, Source: engine.SourceAgent, Willing: sc.Host.Willing, Params: sc.Host.Params})
	e.Apply(n.Sample("dcbdemo0", t0, time.Second))
	e.Apply(n.Sample("dcbdemo0", t0.Add(time.Second), time.Second))
	in, _ := e.Interface("dcbdemo0")
	if in.Counters == nil || len(in.Counters.RoCEPaths) != 1 {
		t.Fatalf("counters %+v, want one RoCE path", in.Counters)
	}
	for _, h := range in.Counters.RoCEPaths[0].Hops {
		if h.Verdict == lossless.PathError || h.Verdict == lossless.PathWarning {
			t.Errorf("hop %s: %s (%s)", h.Hop, h.Verdict, h.Reason)
		}
	}
}
