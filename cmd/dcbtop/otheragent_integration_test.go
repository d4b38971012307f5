// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestOtherAgentIsLocal: with `dcbtop --agent -i h0` running, `dcbtop
// check -i h0`, `dcbtop -i h0 --json` and a second dcbtop ask its control
// socket: the local parameters are the agent's (local_source agent), the
// RoCE checks judge what is in force, and single-agent names the agent,
// instead of "local source none". When the agent stops, they are withdrawn.
func TestOtherAgentIsLocal(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, _, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
	run := testbed.ShortTempDir(t)
	local := testbed.WriteFile(t, "local.json", agentParams)
	agent := startProc(t, "dcbtop --agent", dcbtopIn(t, host, run, "--agent", "--local", local, "--willing", "off", "-i", "h0", "--events"))
	agent.waitSocket(t, host, "h0")
	time.Sleep(500 * time.Millisecond) // its control socket listens once the loop runs

	j := startProc(t, "dcbtop --json beside the agent", dcbtopIn(t, host, run, "-i", "h0", "--json", "--duration", "2s"))
	if code := j.wait(30 * time.Second); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, j.stderrText())
	}
	in := snaptest.Iface(t, snaptest.Decode(t, "dcbtop --json", j.stdout()), "h0")
	if in.LocalSource != engine.SourceAgent || in.Local == nil || in.Local.PFC == nil || in.Local.PFC.Enabled != 1<<3 || in.Willing == nil || *in.Willing {
		t.Errorf("beside the agent: local_source %q, local %+v, willing %v; want the agent's (PFC on 3, willing off)", in.LocalSource, in.Local, in.Willing)
	}

	c := startProc(t, "dcbtop check beside the agent", dcbtopIn(t, host, run, "check", "--json", "-i", "h0", "--wait", "10s"))
	c.wait(60 * time.Second)
	r := decodeCheck(t, c)
	// single-agent: UNKNOWN on a veth, which reports no DCBX mode (no
	// DCB netlink): whether a NIC firmware runs DCBX is not known.
	for ch, want := range map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: verdict.OK, verdict.CheckRoCEPriority: verdict.OK,
		verdict.CheckPFCAgreement: verdict.OK, verdict.CheckAgents: verdict.Unknown} {
		if got, why := verdictOf(r, ch); got != want {
			t.Errorf("check beside the agent: %s %v (%s), want %v", ch, got, why, want)
		}
	}
	for _, x := range r.Interfaces[0].Results {
		if x.Check == verdict.CheckAgents && !slices.ContainsFunc(x.Evidence, func(e string) bool { return strings.Contains(e, "local source agent") }) {
			t.Errorf("single-agent evidence %v, want the agent named", x.Evidence)
		}
	}

	// The agent stops: a reader started before sees the local parameters
	// withdrawn.
	ev := startProc(t, "dcbtop --json after the agent", dcbtopIn(t, host, run, "-i", "h0", "--json", "--duration", "6s"))
	time.Sleep(2 * time.Second)
	agent.stop(t)
	if code := ev.wait(30 * time.Second); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, ev.stderrText())
	}
	in = snaptest.Iface(t, snaptest.Decode(t, "dcbtop --json", ev.stdout()), "h0")
	if in.LocalSource == engine.SourceAgent {
		t.Errorf("after the agent stopped: local_source still %q", in.LocalSource)
	}
}
