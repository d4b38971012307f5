// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/dcbtop/dcbtop/capture/demo"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
)

// The timing of TestPrometheusServer.
const (
	// promSpeed is the demo's --speed: scenario second s comes at wall
	// time demoStart + s/promSpeed.
	promSpeed = 4
	// promForDivisor divides every for: clause of the rules Prometheus
	// runs (30s becomes 250ms, 1m 500ms, 2m 1s, 5m 2.5s).
	promForDivisor = 120
	// promScrape is Prometheus' scrape and evaluation interval.
	promScrape = 500 * time.Millisecond
	// promEnd is how far into the scenario the test watches, in scenario
	// seconds: past leaf-1's first-receipt in the second loop (125 s),
	// which ends the shutdown episode, by promLag.
	promEnd = 134.0
	// promLag bounds, in wall time, how long an alert takes to reflect a
	// change of dcbtop's state: a scrape interval, an evaluation interval
	// and slack for a loaded machine.
	promLag = 3 * time.Second
	// promRateInterval stands for Grafana's $__rate_interval: 5 scrape
	// intervals (Grafana's own minimum is 4).
	promRateInterval = "2500ms"
)

// Addresses inside the test's network namespace (its own loopback, so
// fixed ports clash with no other test).
const (
	promDemoAddr = "127.0.0.1:9400"
	promAddr     = "127.0.0.1:9090"
)

// promFixtureIf is the netdev of the mlx5 fixture (testdata/roce/mlx5);
// promDemoIf is the name the kernel gives the demo's host end
// (demo.HostIfPattern) in a namespace that has no dcbdemoN yet.
const (
	promFixtureIf = "ens3f0np0"
	promDemoIf    = "dcbdemo0"
)

// promMovingCounters are the fixture's counter files the test raises
// during the run (by rename, so a sample never reads a half-written
// file), by how much every 250 ms, and the metric each feeds: their
// dashboard panels must show rates above zero. The error counters
// (out_of_sequence, out_of_buffer, REJs) stay still: RDMAErrorsRising
// must not fire.
var promMovingCounters = []movingCounter{
	{"class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "dcbtop_rdma_bytes_total", 1000},
	{"class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "dcbtop_rdma_bytes_total", 2000},
	{"class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", "dcbtop_rdma_cnp_sent_total", 2},
	{"class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_handled", "dcbtop_rdma_cnp_handled_total", 1},
	{"class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets", "dcbtop_rdma_ecn_marked_packets_total", 3},
}

// A movingCounter is a counter file of the fixture the test raises by
// step, and the metric it feeds.
type movingCounter struct {
	file, metric string
	step         uint64
}

// promPauseStep is how many pauses the test adds to priority 3's
// received pause counter (mlx5 rx_prio3_pause, in the recorded ethtool -S
// of promFixture) every 250 ms: 20 a second, far below the pause-storm
// diagnostic's 1,000 a second, so PFCPauseStorm must stay quiet.
const promPauseStep = 5

// promEthtoolFixture is the recorded ethtool output the demo's interface
// gets (DCBTOP_ETHTOOL_ROOT): an mlx5 port with PFC on priority 3.
const promEthtoolFixture = "../../capture/counters/testdata/ethtool/ens3f0np0"

// promMustNotFire are alerts the demo never triggers: pauses well below
// a storm and no storm guard events, and RDMA error counters that stay
// still.
var promMustNotFire = []string{"PFCPauseStorm", "RDMAErrorsRising"}

// An alertEpisode is a stretch of the scenario during which an alert is
// expected: it must not be active (pending or firing) outside it, give or
// take the scrape and evaluation lag, and it must be inactive again after.
type alertEpisode struct {
	step   string            // what happens, for the messages
	alert  string            // alertname
	labels map[string]string // labels the ALERTS series must have (nil: any)
	// from and to bound the episode in scenario seconds.
	from, to float64
	// mustFire: the alert must reach firing within the episode. Otherwise
	// it may be pending or firing, and must go pending only when
	// Prometheus recorded the condition (cond) in two scrapes or more:
	// the episode is too short for the scrapes to be sure to see it.
	mustFire bool
	cond     *promCond
	// throughout: the condition holds from the start to the end of the
	// run (and still at its end).
	throughout bool
}

// A promCond is an alert's condition, read on the raw samples Prometheus
// stored: metric's series whose labels include match, at value.
type promCond struct {
	metric string
	match  map[string]string
	value  float64
}

// TestPrometheusServer runs Debian's real Prometheus against `dcbtop demo
// --metrics` with the project's alerting rules, and checks that the
// alerts follow the demo's scenario (assets/demo/scenario.json) and that
// every query of the Grafana dashboard (assets/grafana/dcbtop.json)
// returns data from that Prometheus. It replaces nothing: `promtool test
// rules` (assets/fleet_test.go) still unit-tests the rules.
//
// The demo runs in a network namespace of the test's own, so the kernel
// names its host end dcbdemo0, with DCBTOP_SYSFS_ROOT pointing at a copy
// of the mlx5 RoCE fixture (testdata/roce/mlx5) whose netdev is renamed
// dcbdemo0: dcbtop exports RDMA, congestion and RoCE path series for it,
// and the test raises the traffic and congestion counters during the run
// (promMovingCounters); DCBTOP_ETHTOOL_ROOT gives it an mlx5 port's
// recorded ethtool -S, whose priority 3 pauses the test raises too
// (promPauseStep), for the PFC pause panels. Prometheus runs in the same
// namespace, scraping and evaluating every second.
//
// Reconciling the rules' for: clauses with the demo's speed: Prometheus
// evaluates for: in wall time, while the demo plays its scenario
// promSpeed (4) times faster, so its loop of 120 s takes 30 s; and the
// scenario's episodes are shorter than the clauses even at speed 1 (the
// multi-peer hold-down 22 s against for: 30s, ttl-expired 11 s and
// shutdown 10 s against 1m). So Prometheus gets a copy of the rules in
// which only the for: durations are divided by promForDivisor (120: 30s
// becomes 250ms, 1m 500ms, 2m 1s, 5m 2.5s): the rules' clock runs 30 times
// faster than the scenario's; Prometheus scrapes and evaluates every
// promScrape (500 ms). The test checks that the copy differs from
// the original in those durations alone, that `promtool check rules`
// accepts both, and that Prometheus loaded every alert of the original
// with its divided for:. At that pace the shortest episode that must fire
// (shutdown: 2.5 s of wall time) holds its condition for longer than the
// divided for: (500 ms) plus the scrape and evaluation lag (up to 1 s)
// with 1 s to spare.
//
// After 134 s of scenario (33.5 s of wall time, one loop and the start of
// the next), the test reads the ALERTS series Prometheus recorded and maps
// each sample to scenario time through the demo's start (the time of its
// first indication, scenario second 0) and promSpeed:
//
//   - DCBXMultiPeer fires during the multi-peer hold-down, from leaf-2's
//     arrival (50 s) to leaf-1's first-receipt once every LLDPDU received
//     while both spoke has expired (72 s);
//   - DCBXPeerLost{reason="ttl-expired"} fires between leaf-1's TTL
//     running out (89 s) and its return (100 s);
//   - DCBXPFCMismatch may go pending, or even firing, during the 3 s
//     after leaf-1's return willing with PFC on 4 (100 s), until it
//     adopts the host's PFC on 3: the host's RoCE priority 3 is lossless
//     on one end only. It must go pending when Prometheus scraped that
//     mismatch twice or more;
//   - RoCEPathLossy fires the whole run: the veth has no DCB netlink, so
//     the trust is unknown and untagged RoCE read by PCP lands on
//     priority 0, without PFC (the worse way of classifying);
//   - DCBXPeerLost{reason="shutdown"} fires between leaf-1's shutdown
//     (115 s) and its first-receipt in the next loop (125 s);
//   - none of them is active outside its episodes (promLag of slack), and
//     none is active at the end, leaf-1 being back;
//   - PFCPauseStorm and RDMAErrorsRising never go pending.
//
// Alerts of other rules (ones added later) are logged, not checked.
//
// Every targets[].expr of the dashboard (nested panels and rows included)
// and every label_values() variable query, with $instance and $interface
// as .*, $__rate_interval as promRateInterval and $__range as the run's
// length, must return a non-empty range result over the run; the panels
// of promMovingCounters' metrics and of the pause frames a value above
// zero.
func TestPrometheusServer(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "prometheus", "promtool")
	t.Parallel()
	testStart := time.Now()

	sc, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	episodes := promEpisodes(t, sc)

	dir := t.TempDir()
	rules := scaledRules(t, dir)
	sysRoot, ethRoot := promFixture(t, dir)

	ns := testbed.NewNS(t, "prom")
	pc := promClient{t: t, ns: ns, addr: promAddr}
	prom := startPrometheus(t, ns, dir, rules.path, promDemoAddr)
	pc.waitReady(30 * time.Second)
	checkLoadedRules(t, pc, rules)

	d := startProc(t, "dcbtop demo (in "+ns.Name+")", []string{ipPath(t), "netns", "exec", ns.Name, "env",
		"DCBTOP_SYSFS_ROOT=" + sysRoot, "DCBTOP_ETHTOOL_ROOT=" + ethRoot, dcbtopBin, "demo", "--events", "--speed", strconv.Itoa(promSpeed),
		"--metrics", promDemoAddr, "--duration", "90s"})
	start := promDemoStart(t, d)
	wall := func(s float64) time.Time { return start.Add(time.Duration(s / promSpeed * float64(time.Second))) }
	scen := func(at time.Time) float64 { return at.Sub(start).Seconds() * promSpeed }
	t.Logf("demo started at %s; scenario second s at %s + s/%d", start.Format(time.RFC3339Nano), start.Format("15:04:05.000"), promSpeed)

	end := wall(promEnd)
	for time.Now().Before(end) {
		if d.exited() {
			t.Fatalf("the demo exited (status %d) at %.1f s of scenario: %s", d.code, scen(time.Now()), d.stderrText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The demo still runs (leaf-1 is back, the target up): what is active
	// now did not resolve.
	for _, a := range pc.activeAlerts() {
		if slices.ContainsFunc(episodes, func(e alertEpisode) bool { return e.alert == a.Labels["alertname"] && !e.throughout }) ||
			slices.Contains(promMustNotFire, a.Labels["alertname"]) {
			t.Errorf("%s%s still %s at %.1f s of scenario (active since %s), with leaf-1 back", a.Labels["alertname"], fmtLabels(a.Labels), a.State, promEnd, a.ActiveAt)
		}
	}
	window := time.Since(start) + 5*time.Second

	checkAlerts(t, pc, episodes, window, scen)
	checkDashboard(t, pc, start, end)

	d.signal(syscall.SIGINT)
	if code := d.wait(15 * time.Second); code != 0 {
		t.Errorf("the demo: exit %d after SIGINT: %s", code, d.stderrText())
	}
	stopPrometheus(t, prom)
	t.Logf("test ran %.1f s", time.Since(testStart).Seconds())
}

// promEpisodes returns the episodes the alerts must follow, at the times
// the scenario gives its steps (so that a change of the scenario shows
// here rather than as alerts at odd times).
func promEpisodes(t *testing.T, sc *demo.Scenario) []alertEpisode {
	t.Helper()
	if sc.Duration() != 120*time.Second {
		t.Fatalf("scenario loop %v, want 120 s (promEnd)", sc.Duration())
	}
	// expecting returns the time of the n-th step (from 0) expecting
	// reason.
	expecting := func(r engine.Reason, n int) float64 {
		for _, st := range sc.Steps {
			for _, e := range st.Expect {
				if e.Reason == r {
					if n == 0 {
						return st.At.Seconds()
					}
					n--
				}
			}
		}
		t.Fatalf("scenario: no step expecting %s", r)
		return 0
	}
	stepOf := func(sw string, a demo.Action) demo.Step {
		for _, st := range sc.Steps {
			if st.Switch == sw && st.Action == a {
				return st
			}
		}
		t.Fatalf("scenario: no %s step for %s", a, sw)
		return demo.Step{}
	}
	leaf1, ok := sc.Switch("leaf-1")
	if !ok {
		t.Fatal("scenario: no leaf-1")
	}
	resume := stepOf("leaf-1", demo.ActionResume)
	if len(resume.Expect) == 0 || !slices.Contains(resume.Expect[0].Diagnostics, "pfc-mismatch") {
		t.Fatalf("scenario: leaf-1's return expects %+v, want pfc-mismatch", resume.Expect)
	}
	// The mismatch lasts until leaf-1 has heard the host (within a host
	// transmit interval, 1 s) and its reaction delay has passed.
	mismatchEnd := resume.At.Seconds() + leaf1.ReactDelay.Seconds() + 1
	pfcMismatch := &promCond{metric: "dcbtop_dcbx_feature_mismatch", match: map[string]string{"feature": "pfc"}, value: 1}
	return []alertEpisode{
		{step: "leaf-2 joins: multi-peer, until the hold-down ends with leaf-1's first-receipt", alert: "DCBXMultiPeer",
			from: expecting(engine.ReasonMultiPeer, 0), to: expecting(engine.ReasonFirstReceipt, 1), mustFire: true},
		{step: "leaf-1's TTL runs out: ttl-expired, until leaf-1 returns", alert: "DCBXPeerLost", labels: map[string]string{"reason": "ttl-expired"},
			from: expecting(engine.ReasonTTLExpired, 0), to: resume.At.Seconds(), mustFire: true},
		{step: "leaf-1 returns willing with PFC on 4: pfc-mismatch, until it adopts the host's PFC", alert: "DCBXPFCMismatch",
			from: resume.At.Seconds(), to: mismatchEnd, cond: pfcMismatch},
		// The demo's veth has no DCB netlink: the port's trust is
		// unknown, and untagged RoCE read by PCP lands on priority 0,
		// without PFC: the path is lossy the whole run, the worse of
		// the two ways of classifying (docs/roce.md). It must fire from
		// its for: on, and stay.
		{step: "the whole run: the trust unknown, untagged RoCE on priority 0", alert: "RoCEPathLossy",
			from: 0, to: promEnd + 30, mustFire: true, throughout: true},
		{step: "leaf-1 shuts down: shutdown, until its first-receipt in the next loop", alert: "DCBXPeerLost", labels: map[string]string{"reason": "shutdown"},
			from: expecting(engine.ReasonShutdown, 0), to: sc.Duration().Seconds() + expecting(engine.ReasonFirstReceipt, 0), mustFire: true},
	}
}

// promRules is the rules file Prometheus runs: the project's, with every
// for: divided by promForDivisor.
type promRules struct {
	path string
	// forOf is each alert's for: in the original (0 without one).
	forOf map[string]time.Duration
}

var (
	forLineRe   = regexp.MustCompile(`^(\s*for:\s*)(\S+)(\s*)$`)
	alertLineRe = regexp.MustCompile(`^\s*-\s*alert:\s*(\S+)\s*$`)
)

// scaledRules writes the copy of assets/prometheus/dcbtop.rules.yml with
// its for: durations divided by promForDivisor, checks that it differs
// from the original in nothing else, and has promtool check both.
func scaledRules(t *testing.T, dir string) promRules {
	t.Helper()
	orig, err := filepath.Abs("../../assets/prometheus/dcbtop.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	r := promRules{path: filepath.Join(dir, "dcbtop.rules.yml"), forOf: map[string]time.Duration{}}
	var alert string
	var out strings.Builder
	scaled := 0
	for _, l := range lines {
		if m := alertLineRe.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
			alert = m[1]
			r.forOf[alert] = 0
		}
		m := forLineRe.FindStringSubmatch(strings.TrimRight(l, "\n"))
		if m == nil {
			out.WriteString(l)
			continue
		}
		d, err := model.ParseDuration(m[2])
		if err != nil || alert == "" {
			t.Fatalf("%s: %q: not a for: of an alert (%v)", orig, l, err)
		}
		r.forOf[alert] = time.Duration(d)
		nd := model.Duration(time.Duration(d) / promForDivisor)
		out.WriteString(m[1] + nd.String() + m[3] + l[len(strings.TrimRight(l, "\n")):])
		scaled++
	}
	if scaled == 0 || len(r.forOf) == 0 {
		t.Fatalf("%s: %d alerts, %d for: clauses", orig, len(r.forOf), scaled)
	}
	if err := os.WriteFile(r.path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The copy against the original, line by line: the same lines but for
	// for: durations, each the original's divided by promForDivisor.
	copyLines := strings.SplitAfter(out.String(), "\n")
	if len(copyLines) != len(lines) {
		t.Fatalf("the scaled rules have %d lines, the original %d", len(copyLines), len(lines))
	}
	for i := range lines {
		if lines[i] == copyLines[i] {
			continue
		}
		mo, mc := forLineRe.FindStringSubmatch(strings.TrimRight(lines[i], "\n")), forLineRe.FindStringSubmatch(strings.TrimRight(copyLines[i], "\n"))
		if mo == nil || mc == nil || mo[1] != mc[1] || mo[3] != mc[3] {
			t.Fatalf("line %d of the scaled rules differs from the original beyond a for: duration:\n%q\n%q", i+1, lines[i], copyLines[i])
		}
		do, _ := model.ParseDuration(mo[2])
		dc, err := model.ParseDuration(mc[2])
		if err != nil || time.Duration(dc) != time.Duration(do)/promForDivisor || dc == 0 {
			t.Fatalf("line %d: for: %s in the copy, want %s / %d", i+1, mc[2], mo[2], promForDivisor)
		}
	}
	if code, o, e := runOut(t, "promtool", "check", "rules", orig, r.path); code != 0 {
		t.Fatalf("promtool check rules: exit %d\n%s%s", code, o, e)
	}
	return r
}

// promFixture copies the mlx5 fixture into dir/sys with its netdev renamed
// promDemoIf (in paths and in the GID table's ndevs), and raises
// promMovingCounters until the test ends.
func promFixture(t *testing.T, dir string) (sysRoot, ethtoolRoot string) {
	t.Helper()
	src, root := "testdata/roce/mlx5", filepath.Join(dir, "sys")
	err := filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, strings.ReplaceAll(rel, promFixtureIf, promDemoIf))
		if de.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, bytes.ReplaceAll(b, []byte(promFixtureIf), []byte(promDemoIf)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "class/net", promDemoIf)); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	// The driver statistics: the recorded ethtool -i and -S of an mlx5
	// port, as the demo's interface's.
	eth := filepath.Join(dir, "ethtool")
	ethDir := filepath.Join(eth, promDemoIf)
	if err := os.MkdirAll(ethDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stats, err := os.ReadFile(filepath.Join(promEthtoolFixture, "ethtool-S.txt"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.ReadFile(filepath.Join(promEthtoolFixture, "ethtool-i.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ethDir, "ethtool-i.txt"), info, 0o644); err != nil {
		t.Fatal(err)
	}
	pauseLine := regexp.MustCompile(`(?m)^(\s*rx_prio3_pause: )(\d+)$`)
	m := pauseLine.FindSubmatch(stats)
	if m == nil {
		t.Fatalf("%s: no rx_prio3_pause", promEthtoolFixture)
	}
	pauses, _ := strconv.ParseUint(string(m[2]), 10, 64)
	writeStats := func() error {
		b := pauseLine.ReplaceAll(stats, []byte("${1}"+strconv.FormatUint(pauses, 10)))
		f := filepath.Join(ethDir, "ethtool-S.txt")
		if err := os.WriteFile(f+".new", b, 0o644); err != nil {
			return err
		}
		return os.Rename(f+".new", f)
	}
	if err := writeStats(); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for _, c := range promMovingCounters {
				if err := bumpCounter(filepath.Join(root, c.file), c.step); err != nil {
					t.Errorf("fixture: %v", err)
					return
				}
			}
			pauses += promPauseStep
			if err := writeStats(); err != nil {
				t.Errorf("fixture: %v", err)
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return root, eth
}

// bumpCounter adds step to the decimal counter in file, by rename.
func bumpCounter(file string, step uint64) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if err := os.WriteFile(file+".new", []byte(strconv.FormatUint(v+step, 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(file+".new", file)
}

// startPrometheus starts prometheus in ns, scraping target and evaluating
// rules every second, with its storage in dir, listening on promAddr. A
// cleanup stops it (SIGTERM, then SIGKILL) if the test has not.
func startPrometheus(t *testing.T, ns *testbed.NS, dir, rules, target string) *proc {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: %s
rule_files:
  - %q
scrape_configs:
  - job_name: dcbtop
    static_configs:
      - targets: [%q]
`, model.Duration(promScrape), model.Duration(promScrape), model.Duration(promScrape), rules, target), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, "prometheus (in "+ns.Name+")", []string{ipPath(t), "netns", "exec", ns.Name, bin,
		"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "tsdb"), "--web.listen-address=" + promAddr,
		"--log.level=warn"})
	t.Cleanup(func() {
		if !p.exited() {
			p.signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(15 * time.Second): // startProc's cleanup kills it
			}
		}
	})
	return p
}

// stopPrometheus stops prometheus with SIGTERM and checks it exits 0.
func stopPrometheus(t *testing.T, p *proc) {
	t.Helper()
	p.signal(syscall.SIGTERM)
	if code := p.wait(20 * time.Second); code != 0 {
		t.Errorf("prometheus: exit %d after SIGTERM: %s", code, p.stderrText())
	}
}

// promDemoStart reads the demo's first indication, whose time (scenario
// clock) is the demo's start, and checks that the demo's host end is
// promDemoIf and that leaf-1's first-receipt comes at 5 s of scenario.
func promDemoStart(t *testing.T, d *proc) time.Time {
	t.Helper()
	var start time.Time
	for {
		line, ok := d.next(30 * time.Second)
		if !ok {
			t.Fatalf("the demo printed no first-receipt within 30 s (exited: %v): %s", d.exited(), d.stderrText())
		}
		var in engine.Indication
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("the demo: not an indication: %q: %v", line, err)
		}
		if in.Interface != promDemoIf {
			t.Fatalf("the demo's host end is %s, not %s: the fixture is named for %s", in.Interface, promDemoIf, promDemoIf)
		}
		if start.IsZero() {
			start = in.Time
		}
		if in.Status == engine.StatusRemote {
			if at := in.Time.Sub(start); in.Reason != engine.ReasonFirstReceipt || at < 4*time.Second || at > 7*time.Second {
				t.Fatalf("first remote indication %s at %v of scenario, want first-receipt at about 5 s", in.Reason, at)
			}
			return start
		}
	}
}

// promClient queries the Prometheus HTTP API at addr inside ns.
type promClient struct {
	t    *testing.T
	ns   *testbed.NS
	addr string
}

// get sends GET path (HTTP/1.0) from inside the namespace: the connection
// is dialled there (net/http's transport would dial on a goroutine of its
// own, outside it).
func (c promClient) get(path string) (int, []byte, error) {
	var conn net.Conn
	var err error
	c.ns.Go(c.t, func() { conn, err = net.DialTimeout("tcp", c.addr, 2*time.Second) })
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, c.addr); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// waitReady waits for /-/ready to answer 200.
func (c promClient) waitReady(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		code, body, err := c.get("/-/ready")
		if err == nil && code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("prometheus not ready after %v: %d %s %v", timeout, code, body, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// api calls /api/v1/endpoint with the query q and decodes its data into
// out, failing the test on any error.
func (c promClient) api(endpoint string, q url.Values, out any) {
	c.t.Helper()
	path := "/api/v1/" + endpoint
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	code, body, err := c.get(path)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	var r struct {
		Status    string          `json:"status"`
		Error     string          `json:"error"`
		ErrorType string          `json:"errorType"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		c.t.Fatalf("GET %s: %d %s: %s %s (%v)", path, code, r.Status, r.ErrorType, r.Error, err)
	}
	if err := json.Unmarshal(r.Data, out); err != nil {
		c.t.Fatalf("GET %s: data: %v", path, err)
	}
}

// A promSeries is one series of a matrix result.
type promSeries struct {
	Metric map[string]string `json:"metric"`
	Values [][2]any          `json:"values"`
}

// points returns the series' samples as times and values.
func (s promSeries) points() (ts []time.Time, vs []float64) {
	for _, v := range s.Values {
		sec, _ := v[0].(float64)
		str, _ := v[1].(string)
		f, err := strconv.ParseFloat(str, 64)
		if err != nil {
			f = math.NaN()
		}
		ts = append(ts, time.Unix(0, int64(sec*1e9)))
		vs = append(vs, f)
	}
	return ts, vs
}

// raw returns the raw samples Prometheus stored for selector over the
// last window (the range vector selector[window], evaluated now).
func (c promClient) raw(selector string, window time.Duration) []promSeries {
	c.t.Helper()
	var data struct {
		ResultType string       `json:"resultType"`
		Result     []promSeries `json:"result"`
	}
	c.api("query", url.Values{"query": {fmt.Sprintf("%s[%ds]", selector, int(window.Seconds()))},
		"time": {strconv.FormatFloat(float64(time.Now().UnixMilli())/1000, 'f', 3, 64)}}, &data)
	if data.ResultType != "matrix" {
		c.t.Fatalf("%s: result type %s", selector, data.ResultType)
	}
	return data.Result
}

// rangeQuery runs query_range from start to end at 1 s steps.
func (c promClient) rangeQuery(query string, start, end time.Time) []promSeries {
	c.t.Helper()
	var data struct {
		Result []promSeries `json:"result"`
	}
	c.api("query_range", url.Values{"query": {query}, "start": {strconv.FormatInt(start.Unix(), 10)},
		"end": {strconv.FormatInt(end.Unix()+1, 10)}, "step": {"1"}}, &data)
	return data.Result
}

// A promAlert is one active alert of /api/v1/alerts.
type promAlert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"`
	ActiveAt string            `json:"activeAt"`
}

func (c promClient) activeAlerts() []promAlert {
	c.t.Helper()
	var data struct {
		Alerts []promAlert `json:"alerts"`
	}
	c.api("alerts", nil, &data)
	return data.Alerts
}

// checkLoadedRules checks, through /api/v1/rules, that Prometheus runs
// every alert of the original rules, each with its for: divided by
// promForDivisor.
func checkLoadedRules(t *testing.T, pc promClient, r promRules) {
	t.Helper()
	var data struct {
		Groups []struct {
			Rules []struct {
				Name     string  `json:"name"`
				Type     string  `json:"type"`
				Duration float64 `json:"duration"`
				Health   string  `json:"health"`
			} `json:"rules"`
		} `json:"groups"`
	}
	pc.api("rules", nil, &data)
	loaded := map[string]bool{}
	for _, g := range data.Groups {
		for _, rule := range g.Rules {
			if rule.Type != "alerting" {
				continue
			}
			loaded[rule.Name] = true
			want, ok := r.forOf[rule.Name]
			if !ok {
				t.Errorf("prometheus runs %s, which the rules file does not have", rule.Name)
				continue
			}
			if got := time.Duration(rule.Duration * float64(time.Second)); got != want/promForDivisor {
				t.Errorf("prometheus runs %s with for: %v, want %v / %d", rule.Name, got, want, promForDivisor)
			}
			if rule.Health == "err" {
				t.Errorf("rule %s: health %s", rule.Name, rule.Health)
			}
		}
	}
	for name := range r.forOf {
		if !loaded[name] {
			t.Errorf("prometheus does not run %s", name)
		}
	}
}

// An alertSpan is a run of ALERTS samples of one series, in one state,
// with no gap longer than 1.5 evaluation intervals.
type alertSpan struct {
	labels   map[string]string
	state    string
	from, to time.Time
}

// checkAlerts reads the ALERTS series of the last window and checks them
// against the episodes; scen maps a wall time to scenario seconds.
func checkAlerts(t *testing.T, pc promClient, episodes []alertEpisode, window time.Duration, scen func(time.Time) float64) {
	t.Helper()
	var spans []alertSpan
	for _, s := range pc.raw("ALERTS", window) {
		ts, _ := s.points()
		for i, at := range ts {
			if i == 0 || at.Sub(ts[i-1]) > 1500*time.Millisecond {
				spans = append(spans, alertSpan{labels: s.Metric, state: s.Metric["alertstate"], from: at})
			}
			spans[len(spans)-1].to = at
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Before(spans[j].from) })
	lag := promLag.Seconds() * promSpeed
	for _, sp := range spans {
		name := sp.labels["alertname"]
		t.Logf("%-16s %-8s reason=%-12s scenario %6.1f-%6.1f s (wall +%.1f-%.1f s)", name, sp.state, sp.labels["reason"],
			scen(sp.from), scen(sp.to), scen(sp.from)/promSpeed, scen(sp.to)/promSpeed)
		if slices.Contains(promMustNotFire, name) {
			t.Errorf("%s went %s at %.1f s of scenario: the demo never triggers it", name, sp.state, scen(sp.from))
			continue
		}
		known, inside := false, false
		for _, e := range episodes {
			if e.alert != name || !labelsMatch(sp.labels, e.labels) {
				continue
			}
			known = true
			if scen(sp.from) >= e.from-promSpeed && scen(sp.to) <= e.to+lag {
				inside = true
			}
		}
		if known && !inside {
			t.Errorf("%s %s at %.1f-%.1f s of scenario, outside its episodes", name, sp.state, scen(sp.from), scen(sp.to))
		}
	}
	for _, e := range episodes {
		var pending, firing bool
		for _, sp := range spans {
			if sp.labels["alertname"] != e.alert || !labelsMatch(sp.labels, e.labels) ||
				scen(sp.to) < e.from-promSpeed || scen(sp.from) > e.to+lag {
				continue
			}
			pending = pending || sp.state == "pending"
			firing = firing || sp.state == "firing"
		}
		switch {
		case e.mustFire && !firing:
			t.Errorf("%s%s did not fire during %.0f-%.0f s of scenario (%s); pending: %v", e.alert, fmtLabels(e.labels), e.from, e.to, e.step, pending)
		case e.cond != nil && !pending && !firing:
			if n := condSamples(pc, e.cond, window, scen, e.from-promSpeed, e.to+lag); n >= 2 {
				t.Errorf("%s did not go pending during %.0f-%.0f s of scenario (%s), though Prometheus scraped %s%s = %v %d times then",
					e.alert, e.from, e.to, e.step, e.cond.metric, fmtLabels(e.cond.match), e.cond.value, n)
			} else {
				t.Logf("%s: not pending during %.0f-%.0f s of scenario: Prometheus scraped %s%s = %v only %d times then",
					e.alert, e.from, e.to, e.cond.metric, fmtLabels(e.cond.match), e.cond.value, n)
			}
		}
	}
}

// condSamples counts the scrapes, between scenario seconds from and to,
// in which Prometheus recorded cond.
func condSamples(pc promClient, cond *promCond, window time.Duration, scen func(time.Time) float64, from, to float64) int {
	at := map[time.Time]bool{}
	for _, s := range pc.raw(cond.metric, window) {
		if !labelsMatch(s.Metric, cond.match) {
			continue
		}
		ts, vs := s.points()
		for i := range ts {
			if vs[i] == cond.value && scen(ts[i]) >= from && scen(ts[i]) <= to {
				at[ts[i]] = true
			}
		}
	}
	return len(at)
}

// fmtLabels formats labels as PromQL does, sorted, "" when there are none.
func fmtLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	var kv []string
	for k, v := range labels {
		kv = append(kv, k+"="+strconv.Quote(v))
	}
	sort.Strings(kv)
	return "{" + strings.Join(kv, ",") + "}"
}

// labelsMatch reports whether have has every label of want.
func labelsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// A dashQuery is a query of the Grafana dashboard and where it is.
type dashQuery struct {
	where, expr string
}

// dashboardQueries returns every targets[].expr of the dashboard's panels
// (nested panels and old-style rows included) and every label_values()
// variable query as the PromQL that lists the same label values.
func dashboardQueries(t *testing.T, b []byte) (qs []dashQuery, vars []string) {
	t.Helper()
	var dash map[string]any
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("grafana/dcbtop.json: %v", err)
	}
	var walk func(path string, ps []any)
	walk = func(path string, ps []any) {
		for _, x := range ps {
			p, _ := x.(map[string]any)
			title, _ := p["title"].(string)
			where := path + fmt.Sprintf("panel %q", title)
			targets, _ := p["targets"].([]any)
			for _, tg := range targets {
				if tm, _ := tg.(map[string]any); tm != nil {
					if e, _ := tm["expr"].(string); e != "" {
						qs = append(qs, dashQuery{where, e})
					}
				}
			}
			sub, _ := p["panels"].([]any)
			walk(where+" > ", sub)
		}
	}
	top, _ := dash["panels"].([]any)
	walk("", top)
	rows, _ := dash["rows"].([]any)
	walk("", rows)
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)
	templating, _ := dash["templating"].(map[string]any)
	list, _ := templating["list"].([]any)
	for _, x := range list {
		v, _ := x.(map[string]any)
		name, _ := v["name"].(string)
		vars = append(vars, name)
		if v["type"] != "query" {
			continue
		}
		q, _ := v["query"].(string)
		if qm, ok := v["query"].(map[string]any); ok {
			q, _ = qm["query"].(string)
		}
		m := labelValues.FindStringSubmatch(strings.TrimSpace(q))
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(METRIC, LABEL)", name, q)
			continue
		}
		qs = append(qs, dashQuery{fmt.Sprintf("variable %q", name), fmt.Sprintf("count by (%s) (%s)", m[2], m[1])})
	}
	if len(qs) == 0 {
		t.Fatal("the dashboard has no query")
	}
	return qs, vars
}

// grafanaVars substitutes the dashboard's variables in expr: its own (vars)
// with .*, Grafana's $__ ones with the run's values. It returns the
// unknown variables left.
func grafanaVars(expr string, vars []string, rangeLen time.Duration) (string, []string) {
	builtin := map[string]string{
		"__rate_interval": promRateInterval,
		"__interval":      "1s",
		"__interval_ms":   "1000",
		"__range":         fmt.Sprintf("%ds", int(rangeLen.Seconds())),
		"__range_s":       strconv.Itoa(int(rangeLen.Seconds())),
		"__range_ms":      strconv.FormatInt(rangeLen.Milliseconds(), 10),
	}
	for _, v := range vars {
		builtin[v] = ".*"
	}
	var unknown []string
	re := regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]`)
	out := re.ReplaceAllStringFunc(expr, func(s string) string {
		m := re.FindStringSubmatch(s)
		name := m[1] + m[2] + m[3]
		if v, ok := builtin[name]; ok {
			return v
		}
		unknown = append(unknown, s)
		return s
	})
	return out, unknown
}

// checkDashboard runs every query of the dashboard over the run (start to
// end) and fails, naming the panel, for each empty result.
func checkDashboard(t *testing.T, pc promClient, start, end time.Time) {
	t.Helper()
	b, err := os.ReadFile("../../assets/grafana/dcbtop.json")
	if err != nil {
		t.Fatal(err)
	}
	qs, vars := dashboardQueries(t, b)
	metricOf := regexp.MustCompile(`\bdcbtop_[a-z0-9_]+`)
	for _, q := range qs {
		expr, unknown := grafanaVars(q.expr, vars, end.Sub(start))
		if len(unknown) > 0 {
			t.Errorf("%s: query %q: unknown variables %v", q.where, q.expr, unknown)
			continue
		}
		res := pc.rangeQuery(expr, start, end)
		metrics := metricOf.FindAllString(expr, -1)
		if len(res) == 0 {
			t.Errorf("%s: query %q returned no data", q.where, expr)
			continue
		}
		moving := slices.ContainsFunc(promMovingCounters, func(c movingCounter) bool { return slices.Contains(metrics, c.metric) }) ||
			slices.Contains(metrics, "dcbtop_pfc_pause_frames_total")
		if !moving {
			continue
		}
		peak := 0.0
		for _, s := range res {
			_, vs := s.points()
			for _, v := range vs {
				peak = math.Max(peak, v)
			}
		}
		if peak <= 0 {
			t.Errorf("%s: query %q: %d series, never above 0, though the test raises the counter", q.where, expr, len(res))
		}
	}
}
