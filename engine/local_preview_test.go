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
