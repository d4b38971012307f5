// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// otherAgentParams are the separate agent's local parameters: PFC on 3
// and 5, willing (it adopts the switch's PFC on 3 as its operational
// parameters, which its LLDPDUs carry: an observer that knew only those
// would take PFC on 3 for the local parameters).
const otherAgentParams = `{
  "ets": {"prio_tc": [0,0,0,1,0,1,0,0], "tc_bandwidth": [50,50,0,0,0,0,0,0],
          "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "pfc": {"cap": 8, "enabled": [3, 5]}
}`

// eventLines returns the NDJSON lines of p's output, each with what must
// differ between a live run and its replay taken out: the host name,
// which a replay's events leave out (the capture does not say which host
// it was; docs/fleet.md, "Events as logs"). Everything else, the event
// ID and time to the nanosecond included, must be the same.
func eventLines(t *testing.T, what, out string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v: %q", what, err, l)
		}
		delete(m, "host")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

// TestOtherAgentRecordReplay: `dcbtop -w` beside a dcbtop agent of
// another process (`dcbtop --agent`) learns the agent's local parameters
// from its control socket (local_source agent); its recording holds what
// it learnt and when, so that the replay says what the live run said:
// the same NDJSON lines (event IDs and times included) and the same
// local parameters, Willing and local source. Two runs side by side:
//
//   - beside: the recording starts before the agent, which starts, has a
//     peer whose PFC (on 3) it adopts, and stops (its parameters
//     withdrawn live);
//   - short: a 12 s recording of an agent running for a while, whose
//     LLDPDUs (every 30 s) may all fall outside it: the replay has only
//     the recorded parameters to go by, not "local source none".
func TestOtherAgentRecordReplay(t *testing.T) {
	testbed.RequirePriv(t)
	t.Run("beside", func(t *testing.T) {
		t.Parallel()
		host, run, local := otherAgentLink(t)
		dir := t.TempDir()
		rec, recJSON := filepath.Join(dir, "beside.pcapng"), filepath.Join(dir, "beside-json.pcapng")
		obs := startProc(t, "dcbtop -w --events beside the agent", dcbtopIn(t, host, run, "-i", "h0", "--events", "-w", rec))
		snap := startProc(t, "dcbtop -w --json beside the agent", dcbtopIn(t, host, run, "-i", "h0", "--json", "-w", recJSON))
		obs.waitSocket(t, host, "h0")
		snap.waitSocket(t, host, "h0")
		time.Sleep(time.Second)
		agent := startProc(t, "dcbtop --agent", dcbtopIn(t, host, run, "--agent", "--local", local, "--willing", "on", "-i", "h0", "--events"))
		agent.waitSocket(t, host, "h0")
		time.Sleep(8 * time.Second) // the agent's fast transmission, the observers' polls
		agent.stop(t)
		time.Sleep(3 * time.Second) // the withdrawal, on the next poll
		obs.stop(t)
		snap.stop(t)
		// What the test is about happened: live, the observer took the
		// agent's PFC on 3 and 5 for the local parameters, then saw them
		// withdrawn.
		var learnt, withdrawn bool
		for _, l := range obs.stdoutLines() {
			var in engine.Indication
			if err := json.Unmarshal([]byte(l), &in); err != nil {
				t.Fatalf("%s: %v: %q", obs.name, err, l)
			}
			if in.Status == engine.StatusLocal && in.Params != nil && in.Params.PFC != nil && in.Params.PFC.Enabled == dcb.PrioSet(1<<3|1<<5) {
				learnt = true
			}
			if in.Status == engine.StatusLocal && in.Params == nil && learnt {
				withdrawn = true
			}
		}
		if !learnt || !withdrawn {
			t.Errorf("live beside the agent: its local parameters (PFC on 3 and 5) learnt %v, then withdrawn %v; want both", learnt, withdrawn)
		}
		compareReplay(t, obs, rec, nil)
		live := snaptest.Iface(t, snap.snapshot(t), "h0")
		compareReplay(t, nil, recJSON, &live)
	})
	t.Run("short", func(t *testing.T) {
		t.Parallel()
		host, run, local := otherAgentLink(t)
		agent := startProc(t, "dcbtop --agent", dcbtopIn(t, host, run, "--agent", "--local", local, "--willing", "on", "-i", "h0", "--events"))
		agent.waitSocket(t, host, "h0")
		time.Sleep(6 * time.Second) // past its fast transmission: an LLDPDU every 30 s
		dir := t.TempDir()
		rec := filepath.Join(dir, "short.pcapng")
		obs := startProc(t, "dcbtop -w --events, 12 s", dcbtopIn(t, host, run, "-i", "h0", "--events", "-w", rec, "--duration", "12s"))
		snap := startProc(t, "dcbtop -w --json, 12 s", dcbtopIn(t, host, run, "-i", "h0", "--json", "-w", filepath.Join(dir, "short-json.pcapng"), "--duration", "12s"))
		for _, p := range []*proc{obs, snap} {
			if code := p.wait(60 * time.Second); code != 0 {
				t.Fatalf("%s: exit %d: %s", p.name, code, p.stderrText())
			}
		}
		live := snaptest.Iface(t, snaptest.Decode(t, snap.name, snap.stdout()), "h0")
		if live.LocalSource != engine.SourceAgent || live.Local == nil || live.Local.PFC == nil || live.Local.PFC.Enabled != dcb.PrioSet(1<<3|1<<5) {
			t.Errorf("live beside the agent: local_source %q, local %v; want the agent's, PFC on 3 and 5", live.LocalSource, live.Local)
		}
		compareReplay(t, obs, rec, nil)
		compareReplay(t, nil, filepath.Join(dir, "short-json.pcapng"), &live)
		agent.stop(t)
	})
}

// otherAgentLink is a host h0 linked to a switch (lldpd, PFC on 3), a
// run directory for the agents' control sockets and the agent's PARAMS
// file.
func otherAgentLink(t *testing.T) (host *testbed.NS, run, local string) {
	t.Helper()
	host, _, _, _, _ = lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
	return host, testbed.ShortTempDir(t), testbed.WriteFile(t, "local.json", otherAgentParams)
}

// compareReplay replays the recording rec: with --events, its lines are
// live's (the observer obs, when not nil), line for line; with --json,
// its interface h0 is live (when not nil), field for field, but for the
// times and what counts down from them (the live snapshot is taken when
// the run stops, the replay's at the recording's last record), the
// capture socket's own statistics, which a recording does not hold, and
// the diagnostics' advice, worded for where its reader is (live: run
// with dcbnl or --agent; a replay: record with -w).
func compareReplay(t *testing.T, obs *proc, rec string, live *engine.Interface) {
	t.Helper()
	if obs != nil {
		code, out, errOut := runOut(t, dcbtopBin, "-r", rec, "--events")
		if code != 0 {
			t.Fatalf("dcbtop -r %s --events: exit %d: %s", filepath.Base(rec), code, errOut)
		}
		want, got := eventLines(t, obs.name, obs.stdout()), eventLines(t, "the replay", out)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the replay's NDJSON differs from the live run's (-live +replay):\n%s", filepath.Base(rec), diff)
		}
	}
	if live != nil {
		code, out, errOut := runOut(t, dcbtopBin, "-r", rec, "--json")
		if code != 0 {
			t.Fatalf("dcbtop -r %s --json: exit %d: %s", filepath.Base(rec), code, errOut)
		}
		replayed := snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r --json", out), "h0")
		opts := cmp.Options{
			cmpopts.IgnoreTypes(time.Time{}),
			cmpopts.EquateEmpty(),
			cmpopts.IgnoreFields(engine.Interface{}, "Capture"),
			cmpopts.IgnoreFields(engine.Peer{}, "ExpiresInMs", "Freshness"),
			cmpopts.IgnoreFields(diag.Diagnostic{}, "Action"),
		}
		if diff := cmp.Diff(*live, replayed, opts); diff != "" {
			t.Errorf("%s: the replay's interface differs from the live run's (-live +replay):\n%s", filepath.Base(rec), diff)
		}
	}
}
