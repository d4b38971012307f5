// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/tunable"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// fakeTunables is a driver's ETHTOOL_PFC_PREVENTION_TOUT: its value, the
// errors of its get and set, whether a set is ignored, what auto stores
// (mlx5: 100 ms), and the calls.
type fakeTunables struct {
	ms             uint16
	getErr, setErr error
	ignore         bool
	auto           uint16
	calls          []string
}

func (f *fakeTunables) PFCStormTimeout(ifname string) (uint16, error) {
	f.calls = append(f.calls, "GTUNABLE")
	if f.getErr != nil {
		return 0, &tunable.Error{Op: "ETHTOOL_GTUNABLE", Ifname: ifname, Err: f.getErr}
	}
	return f.ms, nil
}

func (f *fakeTunables) SetPFCStormTimeout(ifname string, ms uint16) error {
	f.calls = append(f.calls, "STUNABLE")
	if f.setErr != nil {
		return &tunable.Error{Op: "ETHTOOL_STUNABLE", Ifname: ifname, Err: f.setErr}
	}
	if ms == qos.StormTimeoutAuto && f.auto != 0 {
		ms = f.auto
	}
	if !f.ignore {
		f.ms = ms
	}
	return nil
}

// The storm timeout is read, written only where it differs, and read
// back; a driver without the tunable is refused in one line before any
// write, auto reads back as the driver's default, and the undo restores
// what was read before.
func TestApplyStormTimeout(t *testing.T) {
	u := func(v uint16) *uint16 { return &v }
	for _, tt := range []struct {
		name      string
		tun       *fakeTunables
		want      uint16
		wantCalls []string
		wantErr   string
		wantNote  string
		wantAfter uint16
	}{
		{"100 → 300", &fakeTunables{ms: 100}, 300, []string{"GTUNABLE", "STUNABLE", "GTUNABLE"}, "", "", 300},
		{"off", &fakeTunables{ms: 100}, 0, []string{"GTUNABLE", "STUNABLE", "GTUNABLE"}, "", "", 0},
		{"auto reads back as mlx5's 100 ms", &fakeTunables{ms: 0, auto: 100}, qos.StormTimeoutAuto, []string{"GTUNABLE", "STUNABLE", "GTUNABLE"}, "",
			"auto: the driver reads back its default, 100 ms", 100},
		{"unchanged: nothing written", &fakeTunables{ms: 100}, 100, []string{"GTUNABLE"}, "", "", 100},
		{"no tunable (a veth)", &fakeTunables{getErr: syscall.EOPNOTSUPP}, 100, []string{"GTUNABLE"},
			"pfc storm timeout: mlx0 has no PFC storm prevention timeout (the driver has no ethtool tunable pfc-prevention-tout)", "", 0},
		{"refused (EINVAL)", &fakeTunables{ms: 100, setErr: syscall.EINVAL}, 50, []string{"GTUNABLE", "STUNABLE"},
			"the driver refused 50 ms: mlx5 takes 80-8000 ms, off or auto", "", 100},
		{"ignored: read back differs", &fakeTunables{ms: 100, ignore: true}, 300, []string{"GTUNABLE", "STUNABLE", "GTUNABLE"},
			"reads back 100 ms, want 300 ms", "", 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := qos.Change{PFCStormTimeout: u(tt.want)}
			res := ApplyQoS(nil, nil, tt.tun, "mlx0", ch)
			if diff := cmp.Diff(tt.wantCalls, tt.tun.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantErr == "" && res.Err != nil:
				t.Fatalf("error %v", res.Err)
			case tt.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want %q", res.Err, tt.wantErr)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(res.Notes, "; "), tt.wantNote) {
				t.Errorf("notes %q, want %q", res.Notes, tt.wantNote)
			}
			if errors.Is(tt.tun.getErr, syscall.EOPNOTSUPP) {
				return
			}
			if res.After.StormTimeout == nil || *res.After.StormTimeout != tt.wantAfter {
				t.Errorf("after %v, want %d", res.After.StormTimeout, tt.wantAfter)
			}
			if res.Err == nil && len(res.Written) > 0 {
				undo, notes := res.Undo(ch)
				if diff := cmp.Diff(qos.Change{PFCStormTimeout: res.Before.StormTimeout}, undo); diff != "" || len(notes) != 0 {
					t.Errorf("undo (-want +got):\n%s%v", diff, notes)
				}
			}
		})
	}
	if res := ApplyQoS(nil, nil, nil, "mlx0", qos.Change{PFCStormTimeout: u(100)}); res.Err == nil || !strings.Contains(res.Err.Error(), "cannot be opened") {
		t.Errorf("no tunables: %v", res.Err)
	}
}
