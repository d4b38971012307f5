// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// TestFixturesAgainstKernel holds replyStats, the fixture of the reply
// most tests decode, to the real kernel's answer to the same request
// (ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS), recorded by
// testbed/realkernel TestRecordedReplies on Debian's 6.1 kernel and the
// DCB test device (pause ops and pause statistics): same attributes, in
// the same order, nesting and lengths, the device's name aside. One
// difference is expected and stated: ETHTOOL_A_PAUSE_STATS_SRC, which
// pause_put_stats (net/ethtool/pause.c) puts before the stats nest since
// the MAC merge layer's statistics sources (Linux 6.3); 6.1 sends none.
// And this package's decoder reads the recording to what the test set.
func TestFixturesAgainstKernel(t *testing.T) {
	nlfixture.RequireLittleEndian(t) // the recording is of an x86-64 guest
	rec, err := nlfixture.ReadRecorded(filepath.Join("testdata", "kernel", "pause-get-stats.hex"))
	if err != nil {
		t.Fatal(err)
	}
	// The device's name is the one length that differs by design
	// ("dcbt0" there, "eth0" here).
	name := regexp.MustCompile(`^(/1/2 type=0x2) len=\d+$`)
	layout := func(b []byte) []string {
		t.Helper()
		l, err := nlfixture.Layout(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range l {
			l[i] = name.ReplaceAllString(line, "$1 len=name")
		}
		return l
	}
	fixture := layout(replyStats[len(genlPauseReply):])
	var want []string
	for _, line := range fixture {
		if line != "/6 type=0x6 len=8" { // ETHTOOL_A_PAUSE_STATS_SRC: Linux 6.3 on
			want = append(want, line)
		}
	}
	if len(want) != len(fixture)-1 {
		t.Fatalf("replyStats has no ETHTOOL_A_PAUSE_STATS_SRC: %q", fixture)
	}
	if d := cmp.Diff(layout(rec), want); d != "" {
		t.Errorf("replyStats's layout differs from the kernel's reply (-kernel +fixture):\n%s", d)
	}

	r, err := decodeReply(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.pause("dcbt0", true)
	if err != nil {
		t.Fatal(err)
	}
	wantPause := &Pause{Ifname: "dcbt0", Ifindex: got.Ifindex, Settings: Settings{Autoneg: Off, RX: On, TX: Off},
		Source: SourceNetlink, Stats: Stats{TxFrames: u64p(5), RxFrames: u64p(2)}}
	if d := cmp.Diff(wantPause, got); d != "" || got.Ifindex <= 0 {
		t.Errorf("the recorded reply decoded (ifindex %d; -want +got):\n%s", got.Ifindex, d)
	}
}
