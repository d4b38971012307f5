// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// ethtoolFixture holds recorded `ethtool -i` and `ethtool -S` outputs of an
// mlx5 port (capture/counters' fixture).
const ethtoolFixture = "../../capture/counters/testdata/ethtool/ens3f0np0"

// TestRecordReplay records a live run with -w (an lldpd peer, dcbtop's
// agent, the mlx5 sysfs fixture whose counter moves during the run, the
// recorded ethtool -S, the veth's real DCB, ethtool and RDMA netlink
// answers) and replays the file with -r: the replay's final snapshot of
// the interface says what the live run's said, field for field, times,
// the capture socket's own statistics and the agent's local parameters
// aside (see below); tshark reads the recording; check -r judges it.
func TestRecordReplay(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "sys")
	if err := os.CopyFS(root, os.DirFS(mlx5Fixture)); err != nil {
		t.Fatal(err)
	}
	eth := filepath.Join(dir, "ethtool")
	if err := os.CopyFS(filepath.Join(eth, "mlx0"), os.DirFS(ethtoolFixture)); err != nil {
		t.Fatal(err)
	}
	host, sw := testbed.NewNS(t, "rech"), testbed.NewNS(t, "recs")
	testbed.Veth(t, host, "mlx0", sw, "sw0")
	testbed.StartLLDPD(t, sw, "sw0", testbed.LLDPDOpts{Hostname: "leaf1"})
	rec := filepath.Join(dir, "run.pcapng")
	p := startProc(t, "dcbtop -w", []string{ipPath(t), "netns", "exec", host.Name, envPath(t),
		control.EnvRunDir + "=" + filepath.Join(dir, "run"), "DCBTOP_SYSFS_ROOT=" + root, "DCBTOP_ETHTOOL_ROOT=" + eth,
		dcbtopBin, "-i", "mlx0", "--agent", "--json", "--duration", "5s", "-w", rec})
	time.Sleep(2 * time.Second)
	rcv := filepath.Join(root, "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data")
	if err := os.WriteFile(rcv+".new", []byte("3000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(rcv+".new", rcv); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("live run: exit %d", code)
	}
	live := snaptest.Iface(t, snaptest.Decode(t, "dcbtop --json", p.stdout()), "mlx0")
	if fi, err := os.Stat(rec); err == nil {
		t.Logf("recording: %d bytes", fi.Size())
	}

	// tshark, an independent decoder, reads the recording: the LLDPDUs,
	// the DCB (route) and ethtool (generic) netlink exchanges as netlink,
	// the host records as private data.
	testbed.RequireCommands(t, "tshark")
	code, out, errOut := runOut(t, "tshark", "-r", rec, "-T", "fields", "-e", "frame.protocols", "-e", "frame.interface_name")
	if code != 0 {
		t.Fatalf("tshark: exit %d: %s", code, errOut)
	}
	seen := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		seen[l]++
	}
	for _, want := range []string{"eth:ethertype:lldp\tmlx0", "netlink:netlink-route\tdcbtop:netlink", "user_dlt:data\tdcbtop:host"} {
		if seen[want] == 0 {
			t.Errorf("tshark shows no %q packet: %v", want, seen)
		}
	}
	if !slices.ContainsFunc(slices.Collect(maps.Keys(seen)), func(k string) bool { return strings.HasPrefix(k, "netlink:genl") }) {
		t.Errorf("tshark shows no generic netlink (ethtool) packet: %v", seen)
	}

	code, out, errOut = runOut(t, dcbtopBin, "-r", rec, "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	replayed := snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r --json", out), "mlx0")

	if live.Counters == nil || len(live.Counters.RDMA) != 1 {
		t.Fatalf("live counters %+v: want the fixture's RDMA port", live.Counters)
	}
	// Field for field, times, the capture socket's own statistics and the
	// local parameters of dcbtop's agent aside: live they are the agent's,
	// kept after its shutdown LLDPDU; a replay knows them from the
	// LLDPDUs sent, which the shutdown withdraws (docs/recording.md, "Not
	// recorded yet"), and what follows from them (operational, who
	// decided, whether the NIC holds them, the checks that judge them:
	// pfc-agreement's and single-agent's evidence, the dialect the agent
	// speaks).
	opts := cmp.Options{
		cmpopts.IgnoreTypes(time.Time{}),
		cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(engine.Interface{}, "Capture", "LocalSource", "Willing", "Local", "Operational", "Resolution", "LocalAgents", "NIC", "AgentDCBX"),
		cmpopts.IgnoreSliceElements(func(r verdict.Result) bool {
			return r.Check == verdict.CheckPFCAgreement || r.Check == verdict.CheckAgents
		}),
		cmpopts.IgnoreFields(engine.Peer{}, "ExpiresInMs"),
	}
	if diff := cmp.Diff(live, replayed, opts); diff != "" {
		t.Errorf("the replay's interface differs from the live run's (-live +replay):\n%s", diff)
	}
	// dcbtop check -r judges the recording's counters: the RoCE GID check
	// (the fixture's port has no routable RoCE v2 GID) is no longer
	// "the capture carries no counters".
	_, out, _ = runOut(t, dcbtopBin, "check", "-r", rec, "--json")
	var rep check.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Interfaces) != 1 {
		t.Fatalf("dcbtop check -r --json: %v\n%s", err, out)
	}
	for _, r := range rep.Interfaces[0].Results {
		if r.Check == verdict.CheckRoCEGID && r.Verdict != verdict.Warning {
			t.Errorf("check -r on the recording: roce-gid %s (%s), want WARNING as live (no routable RoCE v2 GID)", r.Verdict, r.Summary)
		}
	}
}
