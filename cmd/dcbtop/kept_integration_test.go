// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// What dcbtop apply sets on a running agent survives the agent: the next
// agent on the port starts from it (kept per MAC in the state directory,
// 0600) and says so; --local beats it; dcbtop apply --forget drops it,
// and the agent after that starts from the defaults again.
func TestKeptAcrossRestart(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, hostMAC, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1"})
	run := testbed.ShortTempDir(t)
	state := stateDir(t)

	d := startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s"))
	for _, st := range []engine.Status{engine.StatusLocal, engine.StatusOperational} {
		if in, line := d.nextIndication(t, 10*time.Second); in.Status != st {
			t.Fatalf("start: %s, want %s", line, st)
		}
	}
	file := testbed.WriteFile(t, "pfc.json", `{"pfc": {"cap": 8, "enabled": [3]}}`)
	code, out, errOut := runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", file, "--willing", "off")...)
	kept := filepath.Join(state, "ports", strings.ReplaceAll(hostMAC.String(), ":", "-")+".json")
	if code != 0 || errOut != "" || !strings.HasSuffix(out, "; kept for the next agent on this port ("+kept+")\n") {
		t.Fatalf("apply: exit %d, stdout %q, stderr %q; want it kept in %s", code, out, errOut, kept)
	}
	d.stop(t)
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept file %s: %v (mode %v), want 0600", kept, err, fi)
	}

	agentRun := func(args ...string) (engine.Interface, string) {
		t.Helper()
		argv := dcbtopIn(t, host, run, append([]string{"--agent", "-i", "h0", "--json", "--duration", "2s", "--tx-interval", "1s"}, args...)...)
		code, out, errOut := runOut(t, argv...)
		if code != 0 {
			t.Fatalf("dcbtop %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		snap := snaptest.Decode(t, "dcbtop --json", out)
		if len(snap.Interfaces) != 1 {
			t.Fatalf("%d interfaces", len(snap.Interfaces))
		}
		return snap.Interfaces[0], errOut
	}
	pfcOf := func(in engine.Interface) dcb.PrioSet {
		if in.Local == nil || in.Local.PFC == nil {
			return 0xff
		}
		return in.Local.PFC.Enabled
	}

	in, errOut := agentRun()
	if want := "dcbtop: h0: local parameters saved for h0 (" + hostMAC.String() + ") on "; !strings.HasPrefix(errOut, want) ||
		!strings.HasSuffix(errOut, kept+"; dcbtop apply --forget -i h0 drops them\n") {
		t.Errorf("restarted agent's stderr %q, want %q... naming %s", errOut, want, kept)
	}
	if !strings.HasPrefix(in.LocalKept, "saved for h0 (") || !strings.Contains(in.LocalKept, kept) {
		t.Errorf("restarted agent's local_kept %q, want where they were kept (%s)", in.LocalKept, kept)
	}
	if pfcOf(in) != 1<<3 || in.Willing == nil || *in.Willing || in.LocalSource != engine.SourceAgent {
		t.Errorf("restarted agent: local (%s) %+v, willing %v; want the applied PFC on 3, willing off", in.LocalSource, in.Local, in.Willing)
	}

	local := testbed.WriteFile(t, "local.json", `{"ets": {"willing": true, "cbs": false, "max_tcs": 8, "prio_tc": [0,0,0,0,0,0,0,0],
		"tc_bandwidth": [100,0,0,0,0,0,0,0], "tsa": ["ets","strict","strict","strict","strict","strict","strict","strict"]},
		"pfc": {"willing": true, "mbc": false, "cap": 8, "enabled": [5]}}`)
	if in, errOut := agentRun("--local", local); pfcOf(in) != 1<<5 || errOut != "" || in.LocalKept != "" {
		t.Errorf("--local: local PFC %v, stderr %q; want priority 5 (--local beats what is kept), nothing said", pfcOf(in), errOut)
	}

	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", "--forget")...)
	if want := "h0: forgot the parameters kept for its MAC (it has no permanent one) " + hostMAC.String() + " (" + kept + ")"; code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
		t.Errorf("apply --forget: exit %d, stdout %q, stderr %q; want %q...", code, out, errOut, want)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("after --forget %s: %v, want it gone", kept, err)
	}
	if code, out, _ := runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", "--forget")...); code != 0 || !strings.HasPrefix(out, "h0: nothing kept for its MAC") {
		t.Errorf("second --forget: exit %d, stdout %q", code, out)
	}
	if in, errOut := agentRun(); pfcOf(in) != 0 || errOut != "" {
		t.Errorf("after --forget: local PFC %v, stderr %q; want the defaults (PFC off), nothing said", pfcOf(in), errOut)
	}

	// A state directory that cannot be written: the apply is in force,
	// and its answer says it was not kept.
	blocked := testbed.WriteFile(t, "not-a-dir", "")
	argv := dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s")
	for i, a := range argv {
		if strings.HasPrefix(a, statedir.EnvDir+"=") {
			argv[i] = statedir.EnvDir + "=" + blocked
		}
	}
	d = startProc(t, "dcbtop --agent, state directory a file (in "+host.Name+")", argv)
	for _, st := range []engine.Status{engine.StatusLocal, engine.StatusOperational} {
		if in, line := d.nextIndication(t, 10*time.Second); in.Status != st {
			t.Fatalf("start: %s, want %s", line, st)
		}
	}
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", file)...)
	if code != 0 || errOut != "" || !strings.Contains(out, "; its LLDP peers see it within 1 s; not kept for the next agent: state directory: ") {
		t.Errorf("apply with an unwritable state directory: exit %d, stdout %q, stderr %q; want applied, and not kept said", code, out, errOut)
	}
	d.signal(syscall.SIGINT)
	if code := d.wait(10 * time.Second); code != 0 || !strings.Contains(d.stderrText(), "in force, but not kept for the next agent") {
		t.Errorf("agent: exit %d, stderr %q; want its warning", code, d.stderrText())
	}
}
