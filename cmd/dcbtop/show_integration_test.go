// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
)

// dcbtop show answers from the running agent (what it heard from the
// switch: its name, the operational PFC it adopted, the checks), in text
// and JSON; with no agent it reads the kernel and says the peer is
// unknown, and --wait hears the peer. dcbtop check beside the agent
// judges the agent's view at once.
func TestShow(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, _, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1", TLVs: []testbed.UnknownTLV{
		{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}}, // PFC: not willing, capability 8, priority 3
	}})
	run := testbed.ShortTempDir(t)

	// No agent: the kernel now, the peer unknown.
	code, out, errOut := runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0")...)
	if code != 0 || !strings.HasPrefix(out, "h0: from the kernel (no capture running: the peer is unknown") || !strings.Contains(out, "  remote: unknown (no capture running)\n") {
		t.Errorf("show without an agent: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0", "--wait", "3s", "--json")...)
	if snap := decodeShown(t, out); code != 0 || len(snap) != 1 || snap[0].RemotePeer == nil || snap[0].Source != "kernel and a 3s capture (no dcbtop agent running here)" {
		t.Errorf("show --wait 3s: exit %d, stderr %q, stdout %s; want the peer heard", code, errOut, out)
	}

	d := startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--willing", "on", "--events", "--tx-interval", "1s"))
	// The agent adopts the switch's PFC: an operational indication with it.
	deadline := time.Now().Add(15 * time.Second)
	for {
		in, line := d.nextIndication(t, time.Until(deadline))
		if in.Status == engine.StatusOperational && in.Params != nil && in.Params.PFC != nil && in.Params.PFC.Enabled == 1<<3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no operational PFC 3 from the agent (last %s)", line)
		}
	}
	start := time.Now()
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0", "--json")...)
	took := time.Since(start)
	snap := decodeShown(t, out)
	if code != 0 || errOut != "" || len(snap) != 1 {
		t.Fatalf("show --json from the agent: exit %d, stderr %q, stdout %s", code, errOut, out)
	}
	in := snap[0]
	if in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != 1<<3 || in.LocalSource != engine.SourceAgent || in.RemotePeer == nil || len(in.Checks) == 0 {
		t.Errorf("show from the agent: local source %s, operational %+v, remote peer %v, %d checks; want the agent's adopted PFC 3, the switch, the checks",
			in.LocalSource, in.Operational, in.RemotePeer, len(in.Checks))
	}
	if !strings.HasPrefix(in.Source, "agent (pid ") {
		t.Errorf("show --json does not say the agent answered:\n%s", out)
	}
	t.Logf("dcbtop show --json answered from the agent in %v (ip netns exec and the process start included)", took.Round(time.Millisecond))
	code, out, _ = runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0")...)
	if code != 0 || !strings.HasPrefix(out, "h0: from the agent (pid ") || !strings.Contains(out, "  operational: ") || !strings.Contains(out, "PFC 3") || !strings.Contains(out, "  check ") {
		t.Errorf("show from the agent, text: exit %d:\n%s", code, out)
	}
	// dcbtop check takes the same shortcut: the agent's view, judged at
	// once (ended "agent"), with the verdicts the agent's snapshot holds.
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "check", "-i", "h0", "--json")...)
	var rep struct {
		Ended      string `json:"ended"`
		Interfaces []struct {
			Results []struct {
				Check, Verdict string
			} `json:"results"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Ended != "agent" || len(rep.Interfaces) != 1 || len(rep.Interfaces[0].Results) != len(in.Checks) {
		t.Errorf("check -i h0 beside the agent: exit %d, %v, stderr %q: ended %q, want agent and the agent's %d checks:\n%s", code, err, errOut, rep.Ended, len(in.Checks), out)
	}
	code, out, _ = runOut(t, dcbtopIn(t, host, run, "check", "-i", "h0")...)
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, ", from the running dcbtop)") {
		t.Errorf("check's text beside the agent (exit %d) begins %q, want it to say the agent answered", code, first)
	}
	d.stop(t)
}

// decodeShown decodes dcbtop show --json: a snapshot object whose
// interfaces say where their answer came from.
func decodeShown(t *testing.T, out string) []shown {
	t.Helper()
	var v struct {
		Interfaces []shown `json:"interfaces"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("dcbtop show --json: %v:\n%s", err, out)
	}
	return v.Interfaces
}

// An exporter (dcbtop --metrics, no agent) answers dcbtop show and dcbtop
// check at once on its view socket, with the peer it heard.
func TestShowFromExporter(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, _, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1", TLVs: []testbed.UnknownTLV{
		{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}}, // PFC: not willing, capability 8, priority 3
	}})
	run := testbed.ShortTempDir(t)
	d := startProc(t, "dcbtop --metrics (in "+host.Name+")", dcbtopIn(t, host, run, "-i", "h0", "--metrics", "127.0.0.1:9434", "--events"))
	if in, line := d.nextIndication(t, 15*time.Second); in.Status != engine.StatusNeighbor && in.Status != engine.StatusRemote {
		t.Fatalf("exporter: first indication %s", line)
	}
	var in shown
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, out, errOut := runOut(t, dcbtopIn(t, host, run, "show", "-i", "h0", "--json")...)
		snap := decodeShown(t, out)
		if code != 0 || len(snap) != 1 {
			t.Fatalf("show --json beside the exporter: exit %d, stderr %q, stdout %s", code, errOut, out)
		}
		if in = snap[0]; in.RemotePeer != nil && strings.HasPrefix(in.Source, "running dcbtop (pid ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("show beside the exporter: source %q, remote peer %v; want the exporter's view with the switch", in.Source, in.RemotePeer)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if in.Remote == nil || in.Remote.PFC == nil || in.Remote.PFC.Enabled != 1<<3 || in.LocalSource == engine.SourceAgent {
		t.Errorf("the exporter's view: remote %+v, local source %s; want the switch's PFC 3, no agent", in.Remote, in.LocalSource)
	}
	code, out, _ := runOut(t, dcbtopIn(t, host, run, "check", "-i", "h0")...)
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, ", from the running dcbtop)") {
		t.Errorf("check's text beside the exporter (exit %d) begins %q, want it to say the running dcbtop answered", code, first)
	}
	d.stop(t)
}
