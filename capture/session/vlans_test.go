// SPDX-License-Identifier: Apache-2.0

package session

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
)

// A VLAN interface added, moved or removed on a captured interface gives
// that interface a LinkChanged with its VLANs now; one on an interface
// not captured, or a change that moves no VLAN, gives none.
func TestVLANChange(t *testing.T) {
	r := &liveRun{byName: map[string]*liveIface{"eth0": newIface(capture.Link{Name: "eth0"}, nil, nil)}, clk: capture.Clock{}}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(name string, idx, vlan, parent int, removed bool) capture.LinkEvent {
		return capture.LinkEvent{Link: capture.Link{Name: name, Index: idx, Up: true, MTU: 9000, VLAN: vlan, Parent: parent}, Removed: removed, At: at}
	}
	// VLANs of the LinkChanged events, by interface.
	vlansOf := func(evs []engine.Event) map[string][]uint16 {
		out := map[string][]uint16{}
		for _, e := range evs {
			lc := e.(engine.LinkChanged)
			if lc.MTU != 9000 || !lc.Up {
				t.Errorf("%s: MTU %d, up %v; want the parent's last state", lc.Interface, lc.MTU, lc.Up)
			}
			out[lc.Interface] = lc.VLANs
		}
		return out
	}
	for _, step := range []struct {
		what string
		le   capture.LinkEvent
		want map[string][]uint16
	}{
		{"eth0 itself", ev("eth0", 2, 0, 0, false), map[string][]uint16{}},
		{"eth1, not captured", ev("eth1", 3, 0, 0, false), map[string][]uint16{}},
		{"eth0.100 added", ev("eth0.100", 5, 100, 2, false), map[string][]uint16{"eth0": {100}}},
		{"eth0.100 again (no VLAN change)", ev("eth0.100", 5, 100, 2, false), map[string][]uint16{}},
		{"eth0.200 added", ev("eth0.200", 6, 200, 2, false), map[string][]uint16{"eth0": {100, 200}}},
		{"eth1.300 on a parent not captured", ev("eth1.300", 7, 300, 3, false), map[string][]uint16{}},
		{"eth0.100 removed", ev("eth0.100", 5, 100, 2, true), map[string][]uint16{"eth0": {200}}},
		{"eth0.200 removed", ev("eth0.200", 6, 200, 2, true), map[string][]uint16{"eth0": {}}},
	} {
		if diff := cmp.Diff(step.want, vlansOf(r.vlanChange(step.le, nil))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.what, diff)
		}
	}
	if got := r.links.VLANsOn(3); len(got) != 1 || got[0] != 300 {
		t.Errorf("VLANsOn(eth1) = %v, want [300]", got)
	}
}
