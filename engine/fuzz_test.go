// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// FuzzEngine drives the engine with random event sequences built from a
// small alphabet of frames, ticks and local changes, and checks its
// invariants: no panic, the neighbour table stays within its bound, every
// indication reports a change, and operational indications only follow a
// real change of the operational set.
func FuzzEngine(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{0, 0x80, 0, 0x41, 1, 0xff, 0x22, 3})
	f.Add([]byte{5, 5, 5, 6, 0xf0, 6, 7, 8, 0x80, 9})
	f.Fuzz(func(t *testing.T, prog []byte) { runProg(t, prog) })
}

func runProg(t *testing.T, prog []byte) {
	var (
		peers = []lldp.MAC{macA, macB, {0x02, 0, 0, 0, 0, 0xc}, {0x02, 0, 0, 0, 0, 0xd}}
		tlvs  = [][]lldp.TLV{
			nil, {etsA}, {etsA, pfc3}, {etsA2, recoA, pfc34, app2}, {pfc3, app1},
			{&lldp.CEE{Control: &lldp.CEEControl{SeqNo: 1}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 8}}},
		}
		ttls = []uint16{0, 1, 4, 120}
	)
	{
		const bound = 3
		e := New(Config{MaxNeighbors: bound, LogSize: 16})
		now := t0
		var lastOp *dcb.Params
		opSeen := false
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i], prog[i+1]
			now = now.Add(time.Duration(arg&0x3f) * 250 * time.Millisecond)
			var ev Event
			switch op % 4 {
			case 0, 1:
				src := peers[int(arg>>6)%len(peers)]
				if op&0x80 != 0 {
					src = lldp.MAC{0x02, 9, 0, 0, 0, op}
				}
				ev = FrameReceived{Interface: "eth0", At: now, Outgoing: op&0x40 != 0 && op&0x20 != 0,
					Data: frame(t, src, ttls[int(op>>2)%len(ttls)], tlvs[int(op>>4)%len(tlvs)]...)}
			case 2:
				ev = Tick{At: now}
			case 3:
				var p *dcb.Params
				if op&0x10 != 0 {
					p = &dcb.Params{ETS: localETS, PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: dcb.PrioSet(arg)}}
				}
				ev = LocalChanged{Interface: "eth0", At: now, Source: "agent", Willing: op&0x20 != 0, Params: p}
			}
			for _, in := range e.Apply(ev) {
				switch {
				case in.Status == StatusRemote && in.Reason == ReasonChanged && in.Flags&(FlagETSChanged|FlagPFCChanged|FlagClassificationChanged) == 0:
					t.Fatalf("event %d: remote 'changed' indication without a CHANGED flag: %+v", i/2, in)
				case in.Status == StatusOperational:
					if opSeen && lastOp.Diff(in.Params) == 0 && (lastOp == nil) == (in.Params == nil) {
						t.Fatalf("event %d: operational indication without a change: %+v", i/2, in)
					}
					lastOp, opSeen = in.Params, true
				}
				if in.Time.After(now) {
					t.Fatalf("indication from the future: %v > %v", in.Time, now)
				}
			}
			for _, p := range e.ports {
				if len(p.neighbors) > bound {
					t.Fatalf("neighbour table holds %d, bound %d", len(p.neighbors), bound)
				}
			}
		}
		_ = e.Snapshot()
	}
}
