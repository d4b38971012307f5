package demo

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// The simulated NIC's counters only grow, its traffic runs at its rate,
// and priority 3 is paused (and ECN marked) in the bursts only; the engine
// judges its RoCE path as a real NIC's: a whole, healthy path.
func TestNIC(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := NewNIC(t0)
	prev := n.Sample("dcbdemo0", t0, time.Second)
	pausedIn := map[bool]int{}
	for s := 1; s <= 30; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		cur := n.Sample("dcbdemo0", at, time.Second)
		for _, c := range []lossless.NDKCounter{lossless.NDKRDMAInOctets, lossless.NDKRDMAOutOctets} {
			if d := cur.RDMA[0].NDK[c].Value - prev.RDMA[0].NDK[c].Value; d != 1e9 {
				t.Fatalf("second %d: %v moved by %d, want 1e9", s, c, d)
			}
		}
		p := cur.PFC.Priorities[3].RxPause.Value - prev.PFC.Priorities[3].RxPause.Value
		marked := cur.RDMA[0].Congestion[lossless.ECNMarked].Value - prev.RDMA[0].Congestion[lossless.ECNMarked].Value
		if (p > 0) != (marked > 0) {
			t.Errorf("second %d: %d pauses, %d ECN marks: both in a burst or neither", s, p, marked)
		}
		if p > 0 {
			pausedIn[n.InBurst(at.Add(-time.Millisecond))]++
		}
		prev = cur
	}
	if pausedIn[false] != 0 || pausedIn[true] != 9 {
		t.Errorf("seconds with pauses in bursts %d, outside %d; want 9 and 0", pausedIn[true], pausedIn[false])
	}

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
	// No peer in this test: PFC at the switch is unknown, nothing is wrong.
	for _, h := range in.Counters.RoCEPaths[0].Hops {
		if h.Verdict == lossless.PathError || h.Verdict == lossless.PathWarning {
			t.Errorf("hop %s: %s (%s)", h.Hop, h.Verdict, h.Reason)
		}
	}
}
