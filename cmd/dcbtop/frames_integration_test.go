// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/testbed"
)

// TestLiveFrames: dcbtop -i IF --frames --json on a veth whose other end
// is lldpd, with dcbtop's agent transmitting: each LLDPDU as it comes,
// lldpd's (in) and the agent's (out), is the one tshark reads in the
// same run's -w recording, in order, with the same addresses and bytes;
// --from keeps one sender's.
func TestLiveFrames(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	_, hostMAC := testbed.Veth(t, sw, "p0", host, "h0")
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)})
	rec := filepath.Join(t.TempDir(), "rec.pcapng")
	env := []string{"env", control.EnvRunDir + "=" + testbed.ShortTempDir(t), statedir.EnvDir + "=" + stateDir(t), raceEnv,
		ipPath(t), "netns", "exec", host.Name, dcbtopBin}
	got := framesJSON(t, env[0], append(env[1:], "-i", "h0", "--agent", "--tx-interval", "1s", "--frames", "--json", "--duration", "4s", "-w", rec)...)
	want := testbed.TsharkLLDP(t, rec)
	if len(got) != len(want) || len(got) < 3 {
		t.Fatalf("%d LLDPDUs printed; tshark reads %d in the recording (want 3 or more)", len(got), len(want))
	}
	dirs := map[string]int{}
	for i, d := range got {
		sameFrame(t, i, d, want[i], time.Millisecond)
		if (d.Direction == "out") != (d.Src == hostMAC.String()) {
			t.Errorf("LLDPDU %d from %s is %q", d.Number, d.Src, d.Direction)
		}
		dirs[d.Direction]++
	}
	if dirs["in"] == 0 || dirs["out"] == 0 {
		t.Errorf("directions %v: want lldpd's (in) and the agent's (out)", dirs)
	}
	if first := got[0].Changes; len(first) == 0 || first[0] != "first from this sender" {
		t.Errorf("the first LLDPDU's changes %q", first)
	}
	from := framesJSON(t, env[0], append(env[1:], "-i", "h0", "--frames", "--json", "--duration", "2s", "--from", hostMAC.String())...)
	if len(from) != 0 {
		t.Errorf("--from this host without --agent: %d LLDPDUs, want none (it sends none)", len(from))
	}
}
