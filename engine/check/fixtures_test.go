// SPDX-License-Identifier: Apache-2.0

package check

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/dcbtop/dcbtop/engine/lossless/losslesstest"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// rx is data received on eth0 s seconds after t0.
func rx(s float64, data []byte) engine.Event {
	return engine.FrameReceived{Interface: "eth0", At: at(s), Data: data}
}

// The switch ports and TLVs of lldptest, under the names the tests use.
var (
	macA, macB  = lldptest.MacA, lldptest.MacB
	etsA, recoA = lldptest.ETSA, lldptest.RecoA
	pfc3, app2  = lldptest.PFC3, lldptest.App2
	frame       = lldptest.Frame
)

// mlxSample is losslesstest.MLX as the engine takes it.
func mlxSample(at time.Time, n uint64) engine.CountersSampled {
	return engine.CountersSampled(losslesstest.MLX(at, n))
}

// goodSample is a sample of a port ready for RoCE: DCB netlink reports
// DSCP trust, a buffer with room for priority 3 and a PFC delay; DCQCN
// on priority 3 in both roles.
func goodSample(at time.Time, n uint64) engine.CountersSampled {
	s := withQoS(mlxSample(at, n), 130944, 7, "dscp", "pcp")
	s.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}
	return s
}

// liveHost is an engine seeing the host as a live run does: no other LLDP
// agent process, the NIC's DCB netlink reporting the host's DCBX mode.
func liveHost() *engine.Engine {
	e := engine.New(engine.Config{})
	e.Apply(engine.HostObserved{At: at(0), NetAdmin: true})
	e.Apply(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceDCBNL, Mode: "host, IEEE", Withdrawn: true})
	return e
}

// healthy is eth0 of a RoCE-ready host, willing, beside a switch that
// advertises ETS, its recommendation, PFC on 3 and RoCE's APP entries,
// with two samples of its counters: every check OK (TestCheck).
func healthy(t testing.TB) engine.Interface {
	t.Helper()
	e := liveHost()
	local := withDSCP(roceLocal(true))
	e.Apply(engine.LocalChanged{Interface: "eth0", At: at(0), Source: engine.SourceAgent, Willing: true, Params: local})
	for _, ev := range []engine.Event{rx(1, frame(t, macB, 120, etsA, recoA, pfc3, app2)), goodSample(at(2), 0), goodSample(at(3), 1)} {
		e.Apply(ev)
	}
	in, ok := e.Interface("eth0")
	if !ok {
		t.Fatal("no eth0")
	}
	return in
}

func sp(s string) *string  { return &s }
func u64(v uint64) *uint64 { return &v }
func bp(b bool) *bool      { return &b }
