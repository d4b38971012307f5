package check

import (
	"time"

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

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }
