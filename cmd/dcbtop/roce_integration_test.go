// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// A roceFixture is a whole host's /sys for one RoCE port (testdata/roce),
// the netdev it is bound to, and the verdict each hop of its path must get
// on a veth (no DCB netlink: trust and buffer unknown; no pause counters).
type roceFixture struct {
	dir, ifname string
	hops        map[lossless.RoCEHop]lossless.PathVerdict
	// priority is the path's (the worse landing's).
	priority int
	// checkHops are the hops that differ in the check's run (a host
	// lldpd advertising only UDP 4791, no DSCP entry).
	checkHops map[lossless.RoCEHop]lossless.PathVerdict
	// checks are `dcbtop check` verdicts beyond the path's.
	checks map[verdict.Name]verdict.Verdict
}

var roceFixtures = []roceFixture{
	// On a veth there is no DCB netlink: the trust is unknown, so the
	// priority is judged under each way of classifying (docs/roce.md):
	// DCQCN's DSCP 26 goes to priority 3 by the APP table, but read by
	// PCP, untagged RoCE (a GID of the netdev itself) has none and lands
	// on priority 0, without PFC: the worse, an error, and the hops after
	// it are judged at priority 0.
	{dir: "testdata/roce/mlx5", ifname: "ens3f0np0",
		hops: map[lossless.RoCEHop]lossless.PathVerdict{
			lossless.HopGID: lossless.PathOK, lossless.HopToS: lossless.PathOK, lossless.HopTrust: lossless.PathUnknown,
			lossless.HopPriority: lossless.PathError, lossless.HopTC: lossless.PathOK, lossless.HopPFC: lossless.PathError,
			lossless.HopBuffer: lossless.PathUnknown, lossless.HopETS: lossless.PathOK, lossless.HopPauses: lossless.PathUnknown,
			// DCQCN is on for priority 3 only, and the fixture's CNPs go
			// out on priority 6, which the host's and the switch's ETS
			// leave on an ETS class without PFC: cnp-priority-lossy.
			lossless.HopECN: lossless.PathWarning},
		priority: 0,
		// The check's host agent maps no DSCP: DSCP 26 lands on 0 too.
		checkHops: map[lossless.RoCEHop]lossless.PathVerdict{lossless.HopToS: lossless.PathError},
		checks: map[verdict.Name]verdict.Verdict{verdict.CheckRoCEGID: verdict.OK, verdict.CheckECN: verdict.Warning,
			verdict.CheckRoCEPriority: verdict.Critical, verdict.CheckRoCEPath: verdict.Critical,
			verdict.CheckHeadroom: verdict.Unknown, verdict.CheckTrust: verdict.Unknown}},
	// bnxt_re: no rdma_cm default ToS, so the DSCP way is unknown; the
	// PCP way lands on priority 0: the worse, an error. (bnxt_en would
	// take the UDP 4791 entry, but on a veth the driver is veth.)
	{dir: "testdata/roce/bnxt_re", ifname: "ens2f0np0",
		hops: map[lossless.RoCEHop]lossless.PathVerdict{
			lossless.HopGID: lossless.PathOK, lossless.HopToS: lossless.PathUnknown, lossless.HopTrust: lossless.PathUnknown,
			lossless.HopPriority: lossless.PathError, lossless.HopTC: lossless.PathOK, lossless.HopPFC: lossless.PathError,
			lossless.HopBuffer: lossless.PathUnknown, lossless.HopETS: lossless.PathOK, lossless.HopPauses: lossless.PathUnknown,
			lossless.HopECN: lossless.PathUnknown},
		priority: 0,
		checks: map[verdict.Name]verdict.Verdict{verdict.CheckRoCEGID: verdict.OK, verdict.CheckRoCEPriority: verdict.Critical,
			verdict.CheckRoCEPath: verdict.Critical, verdict.CheckHeadroom: verdict.Unknown, verdict.CheckTrust: verdict.Unknown}},
}

// TestRoCEPathFixtures runs dcbtop on a veth named as each fixture's
// netdev, with DCBTOP_SYSFS_ROOT standing for the host's /sys and a real
// lldpd switch (ETS, PFC on 3, RoCE APP) on the other end: the snapshot
// JSON carries the RoCE path hop by hop with the verdicts the fixture's
// facts give (and null values where unknown), /metrics the same verdicts
// per hop, and `dcbtop check` the path with every hop as evidence. On the
// mlx5 fixture the screen shows the path at 160x48 without a key press.
func TestRoCEPathFixtures(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	for i, fx := range roceFixtures {
		root, err := filepath.Abs(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		env := "DCBTOP_SYSFS_ROOT=" + root
		// link: a switch port p0 facing the host's fx.ifname.
		link := func(t *testing.T) (sw, host *testbed.NS) {
			sw, host = testbed.NewNS(t, "rsw"), testbed.NewNS(t, "rhost")
			testbed.Veth(t, sw, "p0", host, fx.ifname)
			testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "leaf1", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
			return sw, host
		}
		t.Run(filepath.Base(fx.dir)+"/json and metrics", func(t *testing.T) {
			t.Parallel()
			_, host := link(t)
			local := testbed.WriteFile(t, "local.json", agentParams)
			addr := "127.0.0.1:" + []string{"9431", "9432"}[i]
			p := startProc(t, "dcbtop --agent on "+fx.ifname, []string{ipPath(t), "netns", "exec", host.Name, "env", env,
				control.EnvRunDir + "=" + testbed.ShortTempDir(t), dcbtopBin, "--agent", "--local", local, "--willing", "off",
				"-i", fx.ifname, "--json", "--duration", "6s", "--metrics", addr})
			time.Sleep(4500 * time.Millisecond)
			fams := scrape(t, host, addr)
			if code := p.wait(30 * time.Second); code != 0 {
				t.Fatalf("exit %d: %s", code, p.stderrText())
			}
			in := snaptest.Iface(t, snaptest.Decode(t, "dcbtop --json", p.stdout()), fx.ifname)
			if in.Counters == nil || len(in.Counters.RoCEPaths) != 1 {
				t.Fatalf("counters %+v: want one RoCE path", in.Counters)
			}
			path := in.Counters.RoCEPaths[0]
			if len(path.Hops) != len(lossless.RoCEHops) {
				t.Fatalf("%d hops, want %d: %+v", len(path.Hops), len(lossless.RoCEHops), path.Hops)
			}
			for j, h := range path.Hops {
				if h.Hop != lossless.RoCEHops[j] {
					t.Errorf("hop %d is %s, want %s", j, h.Hop, lossless.RoCEHops[j])
				}
				if want := fx.hops[h.Hop]; h.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", h.Hop, h.Verdict, h.Reason, want)
				}
				if h.Verdict == lossless.PathOK && h.Value == nil {
					t.Errorf("%s is ok without a value", h.Hop)
				}
				labels := map[string]string{"interface": fx.ifname, "device": path.Device, "port": "1", "hop": string(h.Hop)}
				if got := gauge(t, fams, "dcbtop_roce_path_hop_status", labels); got != float64(h.Verdict.Level()) {
					t.Errorf("dcbtop_roce_path_hop_status{hop=%q} = %v, JSON says %s", h.Hop, got, h.Verdict)
				}
			}
			if path.Priority == nil || *path.Priority != fx.priority {
				t.Errorf("RoCE priority %v, want %d", path.Priority, fx.priority)
			}
			if len(path.Landings) != 2 {
				t.Errorf("landings %+v: want the DSCP and the PCP way (the trust unknown)", path.Landings)
			}
		})
		t.Run(filepath.Base(fx.dir)+"/check", func(t *testing.T) {
			t.Parallel()
			_, host := link(t)
			testbed.StartLLDPD(t, host, fx.ifname, testbed.LLDPDOpts{Hostname: "host1", TLVs: hostTLVs})
			p := startProc(t, "dcbtop check on "+fx.ifname, []string{ipPath(t), "netns", "exec", host.Name, "env", env,
				dcbtopBin, "check", "--json", "-i", fx.ifname, "--wait", "20s"})
			p.wait(60 * time.Second)
			r := decodeCheck(t, p)
			for c, want := range fx.checks {
				if got, why := verdictOf(r, c); got != want {
					t.Errorf("%s: %v (%s), want %v", c, got, why, want)
				}
			}
			for _, x := range r.Interfaces[0].Results {
				if x.Check != verdict.CheckRoCEPath {
					continue
				}
				ev := strings.Join(x.Evidence, "\n")
				for _, h := range lossless.RoCEHops {
					want, ok := fx.checkHops[h]
					if !ok {
						want = fx.hops[h]
					}
					if !strings.Contains(ev, " "+string(h)+": "+string(want)) {
						t.Errorf("roce-path evidence lacks %s: %s:\n%s", h, want, ev)
					}
				}
			}
		})
	}
	t.Run("mlx5/screen", func(t *testing.T) {
		t.Parallel()
		testbed.RequireCommands(t, "tmux")
		fx := roceFixtures[0]
		root, err := filepath.Abs(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		sw, host := testbed.NewNS(t, "rsw"), testbed.NewNS(t, "rhost")
		testbed.Veth(t, sw, "p0", host, fx.ifname)
		testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "leaf1", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
		local := testbed.WriteFile(t, "local.json", agentParams)
		env := []string{"DCBTOP_SYSFS_ROOT=" + root, control.EnvRunDir + "=" + testbed.ShortTempDir(t)}
		p := startTmux(t, 160, 48, env, ipPath(t), "netns", "exec", host.Name, dcbtopBin, "--agent", "--local", local,
			"--willing", "off", "-i", fx.ifname)
		// No key pressed: the log shares its place with the Lossless pane,
		// which opens with the RoCE port and its path.
		p.WaitText(20*time.Second, "Log ·", "Lossless ·", "RoCE mlx5_0/1: RoCE v2 GID 3 192.168.10.11",
			"gid      ✓ index 3", "tos      ✓ 106 (DSCP 26, ECT(0))", "priority ✗ 3 by dscp, 0 by pcp", "pfc      ✗ local off, peer off, operational off")
		p.Quit()
	})
}
