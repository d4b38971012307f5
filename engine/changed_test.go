// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestOutcomeChanged checks which events change what a snapshot shows
// (the screen is redrawn and the metrics refreshed only then) and when a
// snapshot ages with the clock alone (TimeSensitive).
func TestOutcomeChanged(t *testing.T) {
	peer := lldp.MAC{0x02, 0, 0, 0, 0, 1}
	mac := lldp.MAC{0x02, 0, 0, 0, 0, 9}
	quiet := CountersSampled{Interface: "eth0", At: at(1), Interval: time.Second, RDMA: []lossless.RDMAPortSample{}}
	quietAt := func(s float64) CountersSampled { c := quiet; c.At = at(s); return c }
	paused := func(s float64, n uint64) CountersSampled {
		c := mlxSample(at(s), 0)
		c.PFC.Priorities[3].RxPause = reading(n, "rx_prio3_pause")
		return c
	}
	f := frame(t, peer, 120, etsA)
	type step struct {
		name          string
		ev            Event
		changed, aged bool
	}
	steps := []step{
		{"a new interface's link", LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: mac, Up: true}, true, false},
		{"the same link again", LinkChanged{Interface: "eth0", At: at(0.5), Ifindex: 2, MAC: mac, Up: true}, false, false},
		{"link down", LinkChanged{Interface: "eth0", At: at(0.6), Ifindex: 2, MAC: mac}, true, false},
		{"first capture status", CaptureStatus{Interface: "eth0", At: at(0.7)}, false, false},
		{"a kernel drop", CaptureStatus{Interface: "eth0", At: at(0.8), KernelDrops: 1}, true, false},
		{"the same drops", CaptureStatus{Interface: "eth0", At: at(0.9), KernelDrops: 1}, false, false},
		{"first empty counters sample", quietAt(1), true, false},
		{"second empty sample", quietAt(2), true, false}, // its rates appear (none)
		{"third empty sample", quietAt(3), false, false},
		{"a sample with an error", func() CountersSampled {
			c := quietAt(4)
			c.Errors = []lossless.SourceError{{Source: "sysfs", Err: "ports/1: bad"}}
			return c
		}(), true, false},
		{"a peer appears", rx(5, f), true, true},
		{"the peer refreshes", rx(6, f), false, true},
		// Expired at 126 s; peer-lost turns an error two TTLs later, at
		// 366 s: until then the clock alone changes a snapshot.
		{"the tick that expires it", Tick{At: at(200)}, true, true},
		{"a tick with nothing", Tick{At: at(201)}, false, true},
		{"the tick when the peer is gone long", Tick{At: at(366)}, true, false},
		{"a tick with nothing, at last", Tick{At: at(367)}, false, false},
		{"dcbnl reports the mode", LocalChanged{Interface: "eth0", At: at(402), Source: SourceDCBNL, Mode: "host agent, IEEE"}, true, false},
		{"the same again", LocalChanged{Interface: "eth0", At: at(403), Source: SourceDCBNL, Mode: "host agent, IEEE"}, false, false},
	}
	e := New(Config{})
	for _, s := range steps {
		o := e.Step(s.ev)
		if o.Changed != s.changed || e.TimeSensitive() != s.aged {
			t.Errorf("%s: Changed %v, TimeSensitive %v; want %v, %v", s.name, o.Changed, e.TimeSensitive(), s.changed, s.aged)
		}
	}

	// Pause counters: rates and the pause history show change until the
	// counters stand still and the history is full of zeros.
	e = New(Config{})
	var got []bool
	n := uint64(0)
	for i := range lossless.HistorySize(time.Second) + 4 {
		if i == 2 {
			n = 500 // one burst of pauses
		}
		got = append(got, e.Step(paused(float64(i), n)).Changed)
	}
	want := make([]bool, len(got))
	for i := range want {
		// Changes until the burst has left the 60-sample window.
		want[i] = i <= 2+lossless.HistorySize(time.Second)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pause counters: Changed per sample (-want +got):\n%s", diff)
	}
}
