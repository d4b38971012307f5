// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"

	"github.com/google/go-cmp/cmp"
)

// TestPreviewOperational checks that the preview of a Willing change on a
// snapshot equals what the engine then does.
func TestPreviewOperational(t *testing.T) {
	local := &dcb.Params{ETS: localETS, PFC: &dcb.PFC{Willing: true, Cap: 8}}
	for _, peerMAC := range []struct {
		name string
		mac  lldp.MAC
	}{{"peer MAC higher", highMAC}, {"peer MAC lower", [6]byte{0x02, 0, 0, 0, 0, 0}}} {
		t.Run(peerMAC.name, func(t *testing.T) {
			e := New(Config{})
			run(e, []Event{
				LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true},
				LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: false, Params: local},
				rx(1, frame(t, peerMAC.mac, 120, etsA, recoA, pfcWilling())),
			})
			in, _ := e.Interface("eth0")
			op, r := PreviewOperational(in, true, nil)
			run(e, []Event{LocalChanged{Interface: "eth0", At: at(2), Source: "agent", Willing: true, Params: local}})
			after, _ := e.Interface("eth0")
			if diff := cmp.Diff(after.Operational, op); diff != "" {
				t.Errorf("preview differs from the result (-result +preview):\n%s", diff)
			}
			if diff := cmp.Diff(after.Resolution, r); diff != "" {
				t.Errorf("resolution (-result +preview):\n%s", diff)
			}
		})
	}
}

func pfcWilling() *lldp.PFC { return &lldp.PFC{Willing: true, Cap: 8, Enabled: 1 << 3} }

// TestPreviewSetsWilling: the preview resolves with the local parameters'
// Willing bits set as an apply sets them (dcb.Params.WithWilling): a
// willing host previews the peer's PFC (the switch is not willing), a
// host that is not its own.
func TestPreviewSetsWilling(t *testing.T) {
	e := New(Config{})
	local := &dcb.Params{ETS: localETS, PFC: &dcb.PFC{Cap: 8}}
	run(e, []Event{
		LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true},
		LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: false, Params: local},
		rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3)),
	})
	in, _ := e.Interface("eth0")
	for _, w := range []bool{false, true} {
		for _, l := range []*dcb.Params{nil, local} {
			base := l
			if base == nil {
				base = in.Local
			}
			op, res := PreviewOperational(in, w, l)
			wantOp, wantRes := PreviewOperational(in, w, base.WithWilling(w))
			if diff := cmp.Diff(wantOp, op); diff != "" || res != wantRes {
				t.Errorf("willing %v, local %v: (-with the bits set +preview):\n%s", w, l != nil, diff)
			}
		}
	}
	if op, _ := PreviewOperational(in, true, nil); op.PFC == nil || op.PFC.Enabled != 1<<3 {
		t.Errorf("willing: operational PFC %+v, want the peer's (priority 3)", op.PFC)
	}
	if op, _ := PreviewOperational(in, false, nil); op.PFC == nil || op.PFC.Enabled != 0 {
		t.Errorf("not willing: operational PFC %+v, want its own (none)", op.PFC)
	}
}
