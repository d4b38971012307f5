// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
)

// TestFileEthtool reads recorded ethtool outputs as the ioctls would be
// read: the driver from `ethtool -i`, the statistics from `ethtool -S`,
// and through the sampler the per-priority pauses of an mlx5 and a
// bnxt_en port; an interface without recordings has no statistics.
func TestFileEthtool(t *testing.T) {
	fe := counters.FileEthtool{Root: "testdata/ethtool"}
	for _, tt := range []struct {
		ifname, driver     string
		rx, rxDur, rxTrans uint64
		tx                 *uint64
		rxBytes            *uint64
	}{
		{ifname: "ens3f0np0", driver: "mlx5_core", rx: 120, rxDur: 2500, rxTrans: 60, tx: ptr(uint64(40)), rxBytes: ptr(uint64(9400000))},
		{ifname: "bnxt0", driver: "bnxt_en", rx: 77, rxDur: 1540, rxTrans: 77, tx: ptr(uint64(0))},
	} {
		d, err := fe.DriverName(tt.ifname)
		if err != nil || d != tt.driver {
			t.Errorf("%s: driver %q (%v), want %q", tt.ifname, d, err, tt.driver)
		}
		s := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: fe})
		ev := s.Sample(tt.ifname, time.Unix(0, 0), time.Second)
		if ev.PFC == nil || ev.PFC.Source != lossless.PFCSourceEthtool {
			t.Fatalf("%s: PFC %+v, want the ethtool statistics", tt.ifname, ev.PFC)
		}
		p3 := ev.PFC.Priorities[3]
		got := []any{p3.RxPause.Value, p3.RxPauseDuration.Value, p3.RxPauseTransitions.Value}
		if diff := cmp.Diff([]any{tt.rx, tt.rxDur, tt.rxTrans}, got); diff != "" {
			t.Errorf("%s: priority 3 rx pause, duration, transitions (-want +got):\n%s", tt.ifname, diff)
		}
		if tt.tx != nil && (!p3.TxPause.OK() || p3.TxPause.Value != *tt.tx) {
			t.Errorf("%s: priority 3 tx pause %+v, want %d", tt.ifname, p3.TxPause, *tt.tx)
		}
		if tt.rxBytes != nil && (!p3.RxBytes.OK() || p3.RxBytes.Value != *tt.rxBytes) {
			t.Errorf("%s: priority 3 rx bytes %+v, want %d", tt.ifname, p3.RxBytes, *tt.rxBytes)
		}
		if len(ev.Errors) != 0 {
			t.Errorf("%s: sample errors %q", tt.ifname, ev.Errors)
		}
	}
	// No recording: no statistics, as on a veth.
	if _, err := fe.Stats("veth0"); !os.IsNotExist(err) {
		t.Errorf("veth0: %v, want not found", err)
	}
	if ev := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: fe}).Sample("veth0", time.Unix(0, 0), time.Second); ev.PFC != nil {
		t.Errorf("veth0: PFC %+v, want none", ev.PFC)
	}
	// A name that would climb out of the root is refused.
	if _, err := fe.Stats("../bnxt0"); err == nil {
		t.Error("../bnxt0 was read")
	}
	// A file rewritten between samples: the counters move.
	root := t.TempDir()
	dir := filepath.Join(root, "eth0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ethtool-i.txt", "driver: mlx5_core\n")
	write("ethtool-S.txt", "NIC statistics:\n     rx_prio3_pause: 1\n")
	s := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: counters.FileEthtool{Root: root}})
	first := s.Sample("eth0", time.Unix(0, 0), time.Second).PFC.Priorities[3].RxPause.Value
	write("ethtool-S.txt", "NIC statistics:\n     rx_prio3_pause: 9\n")
	if second := s.Sample("eth0", time.Unix(1, 0), time.Second).PFC.Priorities[3].RxPause.Value; first != 1 || second != 9 {
		t.Errorf("rx_prio3_pause %d then %d, want 1 then 9", first, second)
	}
	// Link-wide PAUSE on instead of PFC: mlx5 lists no per-priority pause
	// statistic, only the port's PAUSE frames and the "global" pause time.
	// The frames are read all the same, with the driver's name.
	write("ethtool-S.txt", "NIC statistics:\n     rx_pause_ctrl_phy: 5000\n     tx_pause_ctrl_phy: 7\n     rx_global_pause: 5000\n     rx_global_pause_duration: 180000\n")
	ev := s.Sample("eth0", time.Unix(2, 0), time.Second)
	want := &lossless.LinkPauseSample{RxFrames: ptr(uint64(5000)), TxFrames: ptr(uint64(7)), RxPauseUs: ptr(uint64(180000)), Source: "ethtool -S",
		FramesSource: "ethtool -S rx_pause_ctrl_phy, tx_pause_ctrl_phy, rx_global_pause_duration"}
	if diff := cmp.Diff(want, ev.LinkPause); diff != "" || ev.PFC != nil || ev.Driver != "mlx5_core" {
		t.Errorf("link pause only: PFC %+v, driver %q, link pause (-want +got):\n%s", ev.PFC, ev.Driver, diff)
	}
	// Netlink's settings keep their frames; without frames they take the
	// driver's.
	on, off := true, false
	nl := &lossless.LinkPauseSample{Autoneg: &off, RX: &on, TX: &on, Source: "ethtool netlink PAUSE_GET"}
	got := counters.MergeLinkPause(nl, ev.LinkPause)
	if got.RX == nil || !*got.RX || *got.RxFrames != 5000 || *got.RxPauseUs != 180000 || got.Source != nl.Source || got.FramesSource != want.FramesSource {
		t.Errorf("merged %+v", got)
	}
	nl.RxFrames, nl.TxFrames = ptr(uint64(1)), ptr(uint64(2))
	if got := counters.MergeLinkPause(nl, ev.LinkPause); *got.RxFrames != 1 || *got.RxPauseUs != 180000 {
		t.Errorf("merged with netlink's frames %+v", got)
	}
	if counters.MergeLinkPause(nil, nil) != nil || counters.MergeLinkPause(nl, nil) != nl {
		t.Error("merging nothing")
	}
}

func ptr[T any](v T) *T { return &v }

// TestParseEthtoolStats: ethtool -S's format, and what is not it.
func TestParseEthtoolStats(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want map[string]uint64
		err  string
	}{
		{in: "NIC statistics:\n     rx_packets: 12\n     port.rx_priority_3_xoff: 4\n", want: map[string]uint64{"rx_packets": 12, "port.rx_priority_3_xoff": 4}},
		{in: "", want: map[string]uint64{}},
		{in: "     a: 1\n     a: 2\n", want: map[string]uint64{"a": 2}},
		{in: "     rx_queue_0_xdp_packets: 18446744073709551615\n", want: map[string]uint64{"rx_queue_0_xdp_packets": 18446744073709551615}},
		{in: "NIC statistics:\n     rx_packets: -1\n", err: `ethtool -S line 2: "rx_packets: -1" is not name: value`},
		{in: "NIC statistics:\n     rx_packets 12\n", err: `ethtool -S line 2: "rx_packets 12" is not name: value`},
		{in: "     : 12\n", err: `ethtool -S line 1: ": 12" is not name: value`},
		{in: "     x: 18446744073709551616\n", err: `ethtool -S line 1: "x: 18446744073709551616" is not name: value`},
		{in: "     a\rb: 1\n", err: `ethtool -S line 1: "a\rb: 1" is not name: value`},
		{in: "garbage\n", err: `ethtool -S line 1: "garbage" is not name: value`},
	} {
		got, err := counters.ParseEthtoolStats([]byte(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzParseEthtoolStats: any input parses or fails with the number of a
// line it has; what parses prints back (name: value lines) to the same
// statistics.
func FuzzParseEthtoolStats(f *testing.F) {
	for _, p := range []string{"testdata/ethtool/ens3f0np0/ethtool-S.txt", "testdata/ethtool/bnxt0/ethtool-S.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("NIC statistics:\n a:b: 3\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := counters.ParseEthtoolStats(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ethtool -S") {
				t.Fatalf("error %q", err)
			}
			return
		}
		var sb strings.Builder
		for k, v := range got {
			if strings.ContainsAny(k, "\n\r") {
				t.Fatalf("name %q spans lines", k)
			}
			sb.WriteString("     " + k + ": " + strconv.FormatUint(v, 10) + "\n")
		}
		again, err := counters.ParseEthtoolStats([]byte(sb.String()))
		if err != nil {
			t.Fatalf("printed back: %v\n%s", err, sb.String())
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("printed back (-first +again):\n%s", diff)
		}
	})
}

// A recorded `ethtool -S` with a line that is no statistic makes every
// counter of it unknown and says why, under the ethtool source (the
// counters-error diagnostic), rather than leaving the pause counters
// null in silence (issue 35); a missing recording is no error.
func TestFileEthtoolMalformed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mlx0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ethtool-i.txt"), []byte("driver: mlx5_core\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ethtool-S.txt"), []byte("NIC statistics:\n     rx_prio3_pause: 12\n     tx_prio3_pause twelve\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: counters.FileEthtool{Root: root}})
	ev := s.Sample("mlx0", time.Unix(0, 0), time.Second)
	want := []lossless.SourceError{{Source: "ethtool", Err: `ethtool -S line 3: "tx_prio3_pause twelve" is not name: value`}}
	if diff := cmp.Diff(want, ev.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if ev.PFC != nil && ev.PFC.Priorities[3].RxPause.OK() {
		t.Errorf("a malformed file's counter read: %+v", ev.PFC.Priorities[3].RxPause)
	}
	if ev := s.Sample("veth0", time.Unix(0, 0), time.Second); len(ev.Errors) != 0 {
		t.Errorf("no recording: errors %q", ev.Errors)
	}
}
