// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

// The screen's tune form against the DCB test device's driver: t, a
// rate limit and a storm timeout typed as dcbtop apply's flags take
// them, the preview naming both, y writes them (the driver holds the
// rate in kbit/s, ethtool reads the timeout back), u previews and writes
// the undo (what the driver held before); a rewrite entry is refused in
// the form, the 6.1 kernel having no rewrite table, nothing written.
func TestScreenTune(t *testing.T) {
	freshDevice(t)
	p := testbed.StartTmux(t, 120, 40, []string{"LC_ALL=C.UTF-8"}, dcbtopBin, "-i", "dcbt0")
	const slow = 60 * time.Second // TCG
	p.WaitText(slow, "dcbt0", "LIVE")
	p.Keys("t")
	p.WaitText(slow, "Tune host QoS on dcbt0", "rate limits", "no limit on any TC", "PFC storm timeout", "now 100 ms")
	p.Keys("1:10gbit", "Tab", "300", "Enter")
	p.WaitText(slow, "Tune host QoS on dcbt0", "maxrate TC1 unlimited → 10 Gbit/s", "PFC storm prevention timeout 100 ms → 300 ms", "y write it")
	p.Keys("y")
	p.WaitText(slow, "dcbt0: written and read back")
	if held := heldMaxrate(t, "dcbt0"); held != ([8]uint64{1: 10_000_000}) {
		t.Errorf("the driver holds %v kbit/s, want TC1 at 10,000,000", held)
	}
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "300" {
		t.Errorf("ethtool reads the timeout %q, want 300", got)
	}
	p.Keys("u")
	p.WaitText(slow, "Undo the last fix on dcbt0", "10 Gbit/s → unlimited", "300 ms → 100 ms")
	p.Keys("y")
	p.WaitText(slow, "dcbt0: written and read back")
	if held := heldMaxrate(t, "dcbt0"); held != ([8]uint64{}) {
		t.Errorf("after the undo the driver holds %v kbit/s", held)
	}
	if got := ethtoolStormTimeout(t, "dcbt0"); got != "100" {
		t.Errorf("after the undo ethtool reads %q, want 100", got)
	}
	// A rewrite entry: refused in the form by the preview.
	p.Keys("t", "Down", "Down", "Down", "3:26", "Enter")
	s := p.WaitText(slow, "no APP rewrite table")
	if !strings.Contains(s, "Tune host QoS on dcbt0") {
		t.Errorf("the refusal left the form:\n%s", s)
	}
	p.Keys("Escape")
	p.WaitText(slow, "tune cancelled: nothing was changed")
	p.Quit()
}
