// SPDX-License-Identifier: Apache-2.0

package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/google/go-cmp/cmp"
)

// BenchmarkJudge is the one evaluation on a RoCE-ready port with its
// counters, as the engine runs it for each interface of each snapshot.
func BenchmarkJudge(b *testing.B) {
	in := healthy(b)
	b.ReportAllocs()
	for b.Loop() {
		Judge(&in, false)
	}
}

// BenchmarkSnapshot64 is the snapshot a switch-sized screen takes every
// second, judged as the runtime judges it: 64 interfaces, a DCBX peer on
// each, counters as a veth gives (none).
func BenchmarkSnapshot64(b *testing.B) {
	e := engine.New(engine.Config{Judge: Judge})
	f := frame(b, macA, 120, etsA, recoA, pfc3, app2)
	for i := range 64 {
		e.Apply(engine.FrameReceived{Interface: fmt.Sprintf("h%d", i), At: at(0), Data: f})
		e.Apply(engine.CountersSampled{Interface: fmt.Sprintf("h%d", i), At: at(0), Interval: time.Second, RDMA: []lossless.RDMAPortSample{}})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Snapshot()
	}
}

// TestJudgeMemo: the engine reuses a port's last evaluation while what its
// checks read is unchanged (engine's judgeMemo); after every event of a
// run that changes everything they read, in turn — peers coming, going
// stale, expiring and shutting down, a second peer and its hold-down,
// local parameters and Willing, counters samples, the host observed, a
// peer's frame count moving alone — the snapshot's checks are what a new
// evaluation of the same snapshot says.
func TestJudgeMemo(t *testing.T) {
	e := engine.New(engine.Config{Judge: Judge, NeighborEvents: true})
	local := withDSCP(roceLocal(true))
	var evs []engine.Event
	add := func(ev engine.Event) { evs = append(evs, ev) }
	add(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceDCBNL, Mode: "host, IEEE", Withdrawn: true})
	add(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceAgent, Willing: true, Params: local})
	for s := 1.0; s <= 5; s++ {
		add(rx(s, frame(t, macB, 10, etsA, recoA, pfc3, app2))) // the same LLDPDU: its frame count alone moves
	}
	add(goodSample(at(5), 0))
	add(goodSample(at(6), 1))
	add(engine.HostObserved{At: at(6), NetAdmin: true})
	add(engine.Tick{At: at(12)})                                       // stale
	add(rx(13, frame(t, macB, 10, etsA, recoA, lldptest.PFC34, app2))) // the peer changes
	add(rx(14, frame(t, macA, 10, etsA, pfc3)))                        // a second peer: multi-peer
	add(engine.Tick{At: at(20)})
	add(engine.Tick{At: at(26)}) // both expire, the hold-down ends
	add(engine.LocalChanged{Interface: "eth0", At: at(27), Source: engine.SourceAgent, Willing: false, Params: local.WithWilling(false)})
	add(rx(28, frame(t, macB, 10, etsA, recoA, pfc3, app2)))
	add(goodSample(at(29), 2))
	add(engine.HostObserved{At: at(30), NetAdmin: true, Agents: []engine.HostAgent{{Name: "lldpad", PID: 7, Transmits: true}}})
	add(engine.Tick{At: at(60)}) // lost long ago
	for i, ev := range evs {
		e.Apply(ev)
		in, ok := e.Interface("eth0")
		if !ok {
			continue
		}
		fresh := Judge(&in, false)
		if diff := cmp.Diff(fresh, in.Checks); diff != "" {
			t.Fatalf("after event %d (%T): the snapshot's checks are not a new evaluation's (-new +snapshot):\n%s", i, ev, diff)
		}
	}
}
