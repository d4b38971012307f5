// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// mlx5Fixture is a sysfs tree modelled on an mlx5 RoCE port bound to the
// netdev mlx0 (capture/counters' fixture).
const mlx5Fixture = "../../capture/counters/testdata/sysfs/mlx5"

// TestLiveCountersFixture runs `DCBTOP_SYSFS_ROOT=fixture dcbtop -i mlx0
// --json --duration 4s --metrics ADDR` on a veth named as in the fixture:
// the snapshot shows the NDK set with its masks and sources, a counter
// the test raises during the run shows its new value and a rate, and
// /metrics shows the same numbers. The veth's own ethtool statistics have
// no per-priority pause counters: pfc.source is null, not zeros.
func TestLiveCountersFixture(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	root := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(root, os.DirFS(mlx5Fixture)); err != nil {
		t.Fatal(err)
	}
	ns := testbed.NewNS(t, "cnt")
	testbed.Veth(t, ns, "mlx0", ns, "peer0")
	addr := "127.0.0.1:9425"
	p := startProc(t, "dcbtop with a fixture sysfs", []string{ipPath(t), "netns", "exec", ns.Name, "env",
		"DCBTOP_SYSFS_ROOT=" + root, dcbtopBin, "-i", "mlx0", "--json", "--duration", "4s", "--metrics", addr})
	// After a sample or two of the fixture as it is, port_rcv_data goes
	// from 1000 to 3000 (by rename, so a sample never reads a half-written
	// file); the scrape comes after the next sample.
	time.Sleep(1500 * time.Millisecond)
	rcv := filepath.Join(root, "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data")
	if err := os.WriteFile(rcv+".new", []byte("3000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(rcv+".new", rcv); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	fams := scrape(t, ns, addr)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	in := snaptest.Iface(t, snaptest.Decode(t, "dcbtop --json", p.stdout()), "mlx0")
	c := in.Counters
	if c == nil || len(c.RDMA) != 1 {
		t.Fatalf("counters %+v, want one RDMA port", c)
	}
	r := c.RDMA[0]
	if r.Device != "mlx5_0" || r.Port != 1 || r.MissingCounterMask != 67108856 || r.DerivedCounterMask != 7 {
		t.Errorf("rdma %s/%d masks %d/%d", r.Device, r.Port, r.MissingCounterMask, r.DerivedCounterMask)
	}
	for _, x := range []struct {
		c    lossless.NDKCounter
		want *uint64
	}{
		{lossless.NDKConnect, ptr(12)}, {lossless.NDKAccept, ptr(3)}, {lossless.NDKConnectFailure, ptr(0)},
		{lossless.NDKConnectionError, nil}, {lossless.NDKActiveConnection, nil}, {lossless.NDKCQError, nil},
		{lossless.NDKRDMAInOctets, ptr(12000)}, {lossless.NDKRDMAOutOctets, ptr(8000)},
		{lossless.NDKRDMAInFrames, ptr(10)}, {lossless.NDKRDMAOutFrames, ptr(20)},
	} {
		got := r.NDK.Get(x.c)
		switch {
		case x.want == nil && got != nil:
			t.Errorf("%s = %d, want null", x.c.Key(), *got)
		case x.want != nil && (got == nil || *got != *x.want):
			t.Errorf("%s = %v, want %d", x.c.Key(), got, *x.want)
		}
	}
	if src := r.Sources["rdma_in_octets"]; src != "ports/1/counters/port_rcv_data x4" {
		t.Errorf("source of rdma_in_octets %q", src)
	}
	// The rate is over the last interval (by then the counter stands
	// still); engine's TestLosslessRates checks the arithmetic.
	if _, ok := r.Rates["rdma_in_octets"]; !ok {
		t.Errorf("no rate for rdma_in_octets: %v", r.Rates)
	}
	if c.PFC.Source != nil {
		t.Errorf("a veth has no per-priority pause counters, got source %q", *c.PFC.Source)
	}
	for _, pp := range c.PFC.Priorities {
		if pp.RxPause != nil || pp.TxPause != nil {
			t.Errorf("priority %d: pause counts on a veth", pp.Priority)
		}
	}
	// The metrics, scraped after the change, show the same numbers.
	labels := map[string]string{"interface": "mlx0", "device": "mlx5_0", "port": "1"}
	for name, want := range map[string]float64{
		"dcbtop_rdma_cnp_sent_total": float64(*r.Congestion.CNPSent),
	} {
		if got := gauge(t, fams, name, labels); got != want {
			t.Errorf("%s = %v, JSON says %v", name, got, want)
		}
	}
	for dir, want := range map[string]uint64{"in": 12000, "out": 8000} {
		l := map[string]string{"interface": "mlx0", "device": "mlx5_0", "port": "1", "direction": dir}
		if got := gauge(t, fams, "dcbtop_rdma_bytes_total", l); got != float64(want) {
			t.Errorf("dcbtop_rdma_bytes_total{direction=%q} = %v, want %d", dir, got, want)
		}
	}
	for _, absent := range []string{"dcbtop_rdma_connection_errors_total", "dcbtop_rdma_cq_errors_total", "dcbtop_pfc_pause_frames_total"} {
		if fams[absent] != nil && len(fams[absent].GetMetric()) > 0 {
			t.Errorf("%s has series; a counter without a source must be absent", absent)
		}
	}
}

// TestTUILossless opens the live screen on the fixture's mlx0 and presses
// l: the Lossless pane shows the NDK set of mlx5_0 port 1 with its masks,
// n/a where a counter has no source, and the congestion counters.
func TestTUILossless(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	ns := testbed.NewNS(t, "tuicnt")
	testbed.Veth(t, ns, "mlx0", ns, "peer0")
	fixture, err := filepath.Abs(mlx5Fixture)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"DCBTOP_SYSFS_ROOT=" + fixture, control.EnvRunDir + "=" + testbed.ShortTempDir(t)}
	p := startTmux(t, 160, 48, env, ipPath(t), "netns", "exec", ns.Name, dcbtopBin, "-i", "mlx0")
	p.WaitText(15*time.Second, "mlx0", "link up")
	p.Keys("l")
	s := p.WaitText(10*time.Second, "Lossless", "NDK mlx5_0/1", "missing 0x3FFFFF8", "derived 0x7", "np_cnp_sent",
		"gid      ⚠ no GID in the table")
	p.Keys("End") // the ECN settings are the pane's last line, under the RoCE path
	p.WaitText(10*time.Second, "ECN notification point on 3")
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "connection_error") && !strings.Contains(line, "n/a") {
			t.Errorf("connection_error has no source and must read n/a: %q", line)
		}
	}
	p.Quit()
}

func ptr(v uint64) *uint64 { return &v }
