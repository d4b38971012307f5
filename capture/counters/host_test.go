// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/engine"
)

// A host's sampler adds each RDMA port's RoCE identity (capture/rdma) and
// the link pause (capture/linkpause) to the counters: on a fixture shaped
// like an mlx5 port the GID table, the routable RoCE v2 GID and rdma_cm's
// default ToS are there; on this machine's loopback (no RDMA device, no
// pause operations) nothing is, and nothing reads as 0 or off.
func TestHostSampler(t *testing.T) {
	root := "../rdma/testdata/sysfs/mlx5"
	s := counters.New(counters.Config{SysfsRoot: root})
	ev := s.Sample("ens3f0np0", time.Now(), time.Second)
	if len(ev.RoCE) != 1 {
		t.Fatalf("RoCE ports %+v, want mlx5_0 port 1", ev.RoCE)
	}
	p := ev.RoCE[0]
	if p.Device != "mlx5_0" || p.Port != 1 || !p.IsRoCE() || p.RoutableV2 == nil || *p.RoutableV2 != 3 ||
		p.DefaultToS == nil || p.DefaultToS.DSCP != 26 || p.DefaultMode == nil || *p.DefaultMode != "RoCE v2" || len(p.Problems) != 0 {
		t.Errorf("port %+v", p)
	}
	if len(p.GIDs) < 4 || p.GIDs[3].Index != 3 || p.GIDs[3].IPv4 == nil || *p.GIDs[3].IPv4 != "192.168.10.11" ||
		p.GIDs[3].Type == nil || *p.GIDs[3].Type != "RoCE v2" || p.GIDs[3].Netdev == nil || *p.GIDs[3].Netdev != "ens3f0np0" {
		t.Errorf("GIDs %+v", p.GIDs)
	}

	cfg := counters.Config{}
	if pc, err := linkpause.Dial(); err == nil {
		cfg.Pause = pc
		defer pc.Close()
	}
	ev = counters.New(cfg).Sample("lo", time.Now(), time.Second)
	if len(ev.RoCE) != 0 || ev.LinkPause.Known() || ev.LinkPause.On() {
		t.Errorf("loopback: RoCE %+v, link pause %+v; want none and unknown", ev.RoCE, ev.LinkPause)
	}
	if !counters.Empty(ev) {
		t.Errorf("loopback counts as sampled: %+v", ev)
	}
}

// roceFixture is a whole host's /sys for one mlx5 RoCE port (GID table,
// rdma_cm defaults, port and DCQCN counters, the vendor ECN tree), the
// end-to-end tests' (cmd/dcbtop/testdata/roce).
const roceFixture = "../../cmd/dcbtop/testdata/roce/mlx5"

// BenchmarkHostSample: one sample of an mlx5 port's counters, RoCE
// identity and DCQCN settings from the fixture tree (issue 24: eight such
// ports every second must cost under 1 % of a core, 1.25 ms a port; make
// bench reports 8 x this as a share of a core).
func BenchmarkHostSample(b *testing.B) {
	s := counters.New(counters.Config{SysfsRoot: roceFixture})
	at := time.Now()
	for b.Loop() {
		s.Sample("ens3f0np0", at, time.Second)
	}
}

// roceSnapshotBytes is what an mlx5 RoCE port adds to the snapshot JSON:
// the interface's counters after two samples of the fixture, less the
// same interface's counters without an RDMA port.
func roceSnapshotBytes(t testing.TB) int {
	size := func(root, ifname string) int {
		s := counters.New(counters.Config{SysfsRoot: root})
		e := engine.New(engine.Config{})
		at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
		e.Apply(s.Sample(ifname, at, time.Second))
		ev := s.Sample(ifname, at.Add(time.Second), time.Second)
		ev.Interface = "eth0"
		e.Apply(ev)
		in, _ := e.Interface("eth0")
		b, err := json.Marshal(in.Counters)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	return size(roceFixture, "ens3f0np0") - size(t.TempDir(), "eth0")
}

// The snapshot grows by less than 8 KiB per RoCE port (issue 24).
func TestRoCESnapshotSize(t *testing.T) {
	if n := roceSnapshotBytes(t); n <= 0 || n >= 8<<10 {
		t.Errorf("an mlx5 RoCE port adds %d bytes to the snapshot, want under 8 KiB", n)
	}
}

// BenchmarkRoCESnapshot reports the snapshot bytes a RoCE port adds
// (json-B/port) for make bench.
func BenchmarkRoCESnapshot(b *testing.B) {
	n := 0
	for b.Loop() {
		n = roceSnapshotBytes(b)
	}
	b.ReportMetric(float64(n), "json-B/port")
}

// TestCadence: an interface with counters is sampled every round; one
// found empty again EmptyProbeEvery later (or the round after); a new
// one at once; removed ones are forgotten. The rounds come every
// interval while an interface has counters or is new, else every
// EmptyProbeEvery.
func TestCadence(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	c := counters.NewCadence()
	round := func(now time.Time, names []string, empty map[string]bool) []string {
		var got []string
		for _, n := range names {
			if c.Due(n, now) {
				got = append(got, n)
				c.Sampled(n, now, empty[n])
			}
		}
		c.Keep(names)
		return got
	}
	names := []string{"eth0", "h0", "h1"}
	empty := map[string]bool{"h0": true, "h1": true}
	steps := []struct {
		at         int
		names      []string
		wantSample []string
		wantPeriod time.Duration
	}{
		{0, names, names, time.Second},
		{1, names, []string{"eth0"}, time.Second},
		{29, names, []string{"eth0"}, time.Second},
		{30, names, []string{"eth0", "h0", "h1"}, time.Second},
		{31, append(names, "h2"), []string{"eth0", "h2"}, time.Second},
		{32, []string{"h0", "h1", "h2"}, nil, counters.EmptyProbeEvery},
		{60, []string{"h0", "h1", "h2"}, []string{"h0", "h1"}, counters.EmptyProbeEvery},
		{61, []string{"h0", "h1", "h2"}, []string{"h2"}, counters.EmptyProbeEvery},
		{62, []string{"h0", "h1"}, nil, counters.EmptyProbeEvery},
		{89, []string{"h0", "h1"}, nil, counters.EmptyProbeEvery},
		{90, []string{"h0", "h1"}, []string{"h0", "h1"}, counters.EmptyProbeEvery},
	}
	empty["h2"] = true
	for _, st := range steps {
		got := round(at(st.at), st.names, empty)
		if diff := cmp.Diff(st.wantSample, got); diff != "" {
			t.Errorf("round at %ds sampled (-want +got):\n%s", st.at, diff)
		}
		if p := c.Period(time.Second, st.names); p != st.wantPeriod {
			t.Errorf("after the round at %ds: next in %v, want %v", st.at, p, st.wantPeriod)
		}
	}
	// h2, removed, is forgotten: back, it is new, sampled at once.
	if !c.Due("h2", at(89)) || c.Period(time.Second, []string{"h0", "h1", "h2"}) != time.Second {
		t.Error("h2, removed, is still remembered")
	}
}
