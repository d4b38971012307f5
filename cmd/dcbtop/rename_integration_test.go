// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// renameRig starts, in a namespace of its own, a veth PREFIX0 whose peer
// runs lldpd and a dcbtop of every interface (out: --json or --events)
// for 9 s, and waits 2 s for the peer to be seen.
func renameRig(t *testing.T, prefix, out string) (*testbed.NS, *proc) {
	t.Helper()
	testbed.RequirePriv(t)
	t.Parallel()
	host, sw := testbed.NewNS(t, prefix+"h"), testbed.NewNS(t, prefix+"s")
	testbed.Veth(t, host, prefix+"0", sw, "sw0")
	testbed.StartLLDPD(t, sw, "sw0", testbed.LLDPDOpts{Hostname: "leaf-" + prefix})
	p := startProc(t, "dcbtop "+out+" (every interface)", []string{ipPath(t), "netns", "exec", host.Name, envPath(t),
		control.EnvRunDir + "=" + filepath.Join(t.TempDir(), "run"), dcbtopBin, out, "--duration", "9s"})
	time.Sleep(2 * time.Second) // the peer seen under PREFIX0
	return host, p
}

// TestRenameNoPhantom renames a captured interface five times under a
// dcbtop without -i, an lldpd peer on its link: the link is followed by
// its index, so the last name alone is up with a valid remote, and each
// old name's port becomes the new name's instead of staying a live
// interface capturing the same link (issue 35: after 5 renames, 6
// interfaces each with a valid remote).
func TestRenameNoPhantom(t *testing.T) {
	host, p := renameRig(t, "ren", "--json")
	for i := 1; i <= 5; i++ {
		old, name := fmt.Sprintf("ren%d", i-1), fmt.Sprintf("ren%d", i)
		// Up all along: Linux renames a running interface (since 6.2,
		// IFF_LIVE_RENAME_OK), and the old name never says down.
		if _, err := host.Run("ip", "link", "set", "dev", old, "name", name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	snap := snaptest.Decode(t, "dcbtop --json", p.stdout())
	live := 0
	for _, in := range snap.Interfaces {
		if in.Name == "lo" {
			continue
		}
		if in.RemoteValid || in.OperState == "up" {
			live++
			if in.Name != "ren5" {
				t.Errorf("%s: %s, remote valid %v; want only ren5 live", in.Name, in.OperState, in.RemoteValid)
			}
		}
	}
	if live != 1 {
		t.Errorf("%d live interfaces, want ren5 alone", live)
	}
}

// TestRenameFlap: a link renamed while up, then taken down, renamed back
// and brought up again: its peer is lost with link-down under the name it
// had when the link went down, and found again under the name it comes
// back with (issue 35: a flap across a rename went unseen).
func TestRenameFlap(t *testing.T) {
	host, p := renameRig(t, "flp", "--events")
	for _, step := range [][]string{
		{"ip", "link", "set", "dev", "flp0", "name", "flp1"}, // renamed while up
		{"sleep", "1.5"},
		{"ip", "link", "set", "dev", "flp1", "down"},
		{"ip", "link", "set", "dev", "flp1", "name", "flp0"},
		{"ip", "link", "set", "dev", "flp0", "up"},
	} {
		if _, err := host.Run(step...); err != nil {
			t.Fatal(err)
		}
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var downs, found []string
	for _, l := range p.stdoutLines() {
		var in struct {
			Interface string `json:"interface"`
			Reason    string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			continue
		}
		switch in.Reason {
		case "link-down":
			downs = append(downs, in.Interface)
		case "peer-new", "first-receipt":
			found = append(found, in.Interface)
		}
	}
	if !slices.Contains(downs, "flp1") {
		t.Errorf("link-down on %v, want flp1's (the link went down under that name)", downs)
	}
	if len(found) == 0 || found[len(found)-1] != "flp0" {
		t.Errorf("peer found on %v, want flp0 last (the link came back under that name)", found)
	}
}

// TestRenameAgent renames, while it runs, the interface of a dcbtop
// --agent -i: a rename is a rename, in -i runs too. The agent speaks
// under the new name at once (its old MSAP withdrawn with a shutdown
// LLDPDU: the switch has one neighbour, Port ID the new name), its
// control socket is the new name's (dcbtop apply -i NEW reaches it, -i OLD
// finds no agent), and the port keeps its peer: no link-down, no second
// first receipt, the indications after it under the new name (issue 35:
// the agent kept sending Port ID = the old name).
func TestRenameAgent(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, sw := testbed.NewNS(t, "rnah"), testbed.NewNS(t, "rnas")
	testbed.Veth(t, host, "agt0", sw, "sw0")
	l := testbed.StartLLDPD(t, sw, "sw0", testbed.LLDPDOpts{Hostname: "leaf-rna", TLVs: swTLVs(swPFC3)})
	run := filepath.Join(t.TempDir(), "run")
	p := startProc(t, "dcbtop --agent --events", dcbtopIn(t, host, run, "--agent", "-i", "agt0", "--tx-interval", "1s", "--events", "--duration", "8s"))
	l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool { return len(ns) == 1 && ns[0].PortID == "agt0" })
	time.Sleep(2 * time.Second) // and the switch seen by dcbtop under agt0
	if _, err := host.Run("ip", "link", "set", "dev", "agt0", "name", "agt1"); err != nil {
		t.Fatal(err)
	}
	// The old MSAP withdrawn, the new one announced.
	l.WaitNeighbors(5*time.Second, func(ns []testbed.Neighbor) bool { return len(ns) == 1 && ns[0].PortID == "agt1" })
	var code int
	var out, errOut string
	deadline := time.Now().Add(3 * time.Second)
	for {
		code, out, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "agt1", "--willing", "off")...)
		if code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code != 0 || !strings.Contains(out, "agt1: applied through the running dcbtop agent") {
		t.Errorf("apply -i agt1: exit %d, stdout %q, stderr %q; want the agent's answer", code, out, errOut)
	}
	if code, _, errOut := runOut(t, dcbtopIn(t, host, run, "apply", "-i", "agt0", "--willing", "off")...); code == 0 || strings.Contains(errOut, "running dcbtop agent") {
		t.Errorf("apply -i agt0 after the rename: exit %d, stderr %q; want no agent there", code, errOut)
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	var first, downs, after []string
	for _, line := range p.stdoutLines() {
		var in struct {
			Interface string `json:"interface"`
			Status    string `json:"status"`
			Reason    string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			continue
		}
		switch in.Reason {
		case "first-receipt":
			if in.Status != "QOS_REMOTE_PARAMETERS_CHANGE" {
				continue
			}
			first = append(first, in.Interface)
		case "link-down":
			downs = append(downs, in.Interface)
		case "local-change":
			after = append(after, in.Interface)
		}
	}
	if !slices.Equal(first, []string{"agt0"}) || len(downs) != 0 {
		t.Errorf("first receipts on %v, link-downs on %v; want one first receipt (agt0), the peer kept across the rename", first, downs)
	}
	if len(after) == 0 || after[len(after)-1] != "agt1" {
		t.Errorf("local changes on %v, want the apply's under agt1", after)
	}
}

// TestRenameAgentEvery renames, while it runs, an interface of a dcbtop
// --agent, without -i (every interface) and with, at the default transmit interval
// (30 s): the switch has one neighbour, Port ID the new name, within a
// few seconds (the old MSAP withdrawn by a shutdown LLDPDU, the new one
// sent at once rather than at the next interval); /metrics has no series
// of the old name; and the snapshot has no dual-local-agent about
// dcbtop's own agent (issue 44: 7737732 sent Port ID = the old name in 8
// of 8 frames, the switch listed both, and /metrics kept the old name's
// series 12 minutes later).
func TestRenameAgentEvery(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	for _, down := range []bool{false, true} {
		for _, only := range []bool{false, true} {
			t.Run(map[bool]string{false: "up", true: "down"}[down]+map[bool]string{false: "", true: "/-i"}[only], func(t *testing.T) {
				t.Parallel()
				renameAgentEvery(t, down, only)
			})
		}
	}
}

// renameAgentEvery is TestRenameAgentEvery's run: the rename while the
// link is up (Linux 6.2 and later allow it), or the way older kernels
// need, down, renamed, up (dev_change_name refuses a running interface
// without IFF_LIVE_RENAME_OK: -EBUSY); with -i eva0 (only) or without.
func renameAgentEvery(t *testing.T, down, only bool) {
	host, sw := testbed.NewNS(t, "rneh"), testbed.NewNS(t, "rnes")
	testbed.Veth(t, host, "eva0", sw, "sw0")
	l := testbed.StartLLDPD(t, sw, "sw0", testbed.LLDPDOpts{Hostname: "leaf-rne", TLVs: swTLVs(swPFC3)})
	run := filepath.Join(t.TempDir(), "run")
	const metrics = "127.0.0.1:9424"
	args := []string{"--agent", "--json", "--metrics", metrics, "--duration", "14s"}
	if only {
		args = append(args, "-i", "eva0")
	}
	p := startProc(t, "dcbtop "+strings.Join(args, " "), dcbtopIn(t, host, run, args...))
	l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool { return len(ns) == 1 && ns[0].PortID == "eva0" })
	time.Sleep(2 * time.Second) // the switch seen by dcbtop under eva0
	steps := [][]string{{"ip", "link", "set", "dev", "eva0", "name", "eva0long"}}
	if down {
		steps = [][]string{{"ip", "link", "set", "dev", "eva0", "down"}, steps[0], {"ip", "link", "set", "dev", "eva0long", "up"}}
	}
	for _, st := range steps {
		if _, err := host.Run(st...); err != nil {
			t.Fatal(err)
		}
	}
	got := l.WaitNeighbors(5*time.Second, func(ns []testbed.Neighbor) bool { return len(ns) == 1 && ns[0].PortID == "eva0long" })
	if len(got) != 1 || got[0].PortID != "eva0long" {
		t.Errorf("the switch's neighbours 5 s after the rename: %+v; want one, Port ID eva0long", got)
	}
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, b, err := nsGet(t, host, "GET", metrics)
		body = b
		if err == nil && code == 200 && strings.Contains(body, `interface="eva0long"`) && !strings.Contains(body, `interface="eva0"`) || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(body, `interface="eva0long"`) || strings.Contains(body, `interface="eva0"`) {
		var old []string
		for line := range strings.SplitSeq(body, "\n") {
			if strings.Contains(line, `interface="eva0"`) {
				old = append(old, line)
			}
		}
		t.Errorf("/metrics after the rename: eva0long %v, series of eva0: %q", strings.Contains(body, `interface="eva0long"`), old)
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	snap := snaptest.Decode(t, "dcbtop --json", p.stdout())
	for _, in := range snap.Interfaces {
		if in.Name == "eva0" {
			t.Errorf("the snapshot still lists eva0: %+v", in.Name)
		}
		for _, d := range in.Diagnostics {
			if d.Code == "dual-local-agent" {
				t.Errorf("%s: %s: %s (dcbtop's own agent)", in.Name, d.Code, d.Message)
			}
		}
	}
	in := snaptest.Iface(t, snap, "eva0long")
	if !in.RemoteValid {
		t.Errorf("eva0long: no valid remote after the rename")
	}
}
