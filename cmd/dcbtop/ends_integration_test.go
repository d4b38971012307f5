// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestReplayBothEnds records, with a real tcpdump on the host's port
// (`tcpdump -i h0 -w`: a classic pcap, no direction), both ends of one
// link: a real lldpd switch and dcbtop's own agent, willing. dcbtop -r
// and dcbtop check -r read the two speakers as the two ends of one link
// (the willing one taken as this host), not as two DCBX peers (54a24de:
// "CRITICAL dcbx-peer 2 DCBX peers on one link ... (multi-peer)");
// --local-mac takes the other end; a --local-mac that never speaks is
// refused in one line naming the speakers.
func TestReplayBothEnds(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	pcap := filepath.Join(t.TempDir(), "h0.pcap")
	stop := testbed.Tcpdump(t, host, "h0", pcap)
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "leaf1", TLVs: append(swTLVs(swPFC3), swRecoTLV, roceAppTLV)})
	local := testbed.WriteFile(t, "local.json", agentParams)
	p := startProc(t, "dcbtop --agent on h0", []string{ipPath(t), "netns", "exec", host.Name, "env",
		control.EnvRunDir + "=" + testbed.ShortTempDir(t), dcbtopBin, "--agent", "--local", local, "-i", "h0", "--events", "--duration", "6s"})
	frames := testbed.WaitPcap(t, pcap, 20*time.Second, func(fs []testbed.PcapFrame) bool {
		srcs := map[string]bool{}
		for _, f := range fs {
			srcs[f.Src().String()] = true
		}
		return len(srcs) >= 2
	})
	stop() // before the agent's shutdown LLDPDU withdraws what it advertised
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("dcbtop --agent: exit %d: %s", code, p.stderrText())
	}
	hostMAC, swMAC := testbed.LinkMAC(t, host, "h0"), testbed.LinkMAC(t, sw, "p0")
	t.Logf("%d frames recorded; host %s, switch %s", len(frames), hostMAC, swMAC)

	code, out, errOut := runOut(t, dcbtopBin, "-r", pcap, "--json")
	if code != 0 {
		t.Fatalf("dcbtop -r: exit %d: %s", code, errOut)
	}
	in := snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r", out), "pcap0")
	if in.MultiPeer != nil || !in.RemoteValid || in.CaptureEnds == nil {
		t.Fatalf("multi-peer %+v, remote valid %v, ends %+v: want the two ends of one link", in.MultiPeer, in.RemoteValid, in.CaptureEnds)
	}
	if e := in.CaptureEnds; e.LocalMAC == nil || e.PeerMAC == nil || e.LocalMAC.String() != hostMAC.String() || e.PeerMAC.String() != swMAC.String() || e.Rule != engine.EndRuleWilling {
		t.Errorf("ends %+v: want this host %s (the willing end), the peer %s", e, hostMAC, swMAC)
	}
	if in.LocalSource != engine.SourceObserved || in.Remote == nil || in.Remote.PFC == nil || in.Remote.PFC.Enabled != 1<<3 {
		t.Errorf("local source %s, remote %v: want this host's advertisement observed, the switch's PFC on 3", in.LocalSource, in.Remote)
	}

	code, out, errOut = runOut(t, dcbtopBin, "check", "-r", pcap, "--json")
	var r check.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check -r: %v (exit %d, %s)", err, code, errOut)
	}
	if v, why := verdictOf(r, verdict.CheckPeer); v != verdict.OK {
		t.Errorf("check -r: dcbx-peer %v (%s), want OK", v, why)
	}
	if ev := strings.Join(r.Interfaces[0].Results[0].Evidence, "\n"); !strings.Contains(ev, "the capture read as both ends of one link: this host "+hostMAC.String()) {
		t.Errorf("check -r: dcbx-peer's evidence does not state the reading:\n%s", ev)
	}
	if v, why := verdictOf(r, verdict.CheckPFCAgreement); v != verdict.OK {
		t.Errorf("check -r: pfc-agreement %v (%s), want OK (this host's advertisement is known)", v, why)
	}

	code, out, errOut = runOut(t, dcbtopBin, "-r", pcap, "--json", "--local-mac", swMAC.String())
	if code != 0 {
		t.Fatalf("--local-mac: exit %d: %s", code, errOut)
	}
	in = snaptest.Iface(t, snaptest.Decode(t, "dcbtop -r --local-mac", out), "pcap0")
	if e := in.CaptureEnds; e == nil || e.LocalMAC == nil || e.LocalMAC.String() != swMAC.String() || e.Rule != engine.EndRuleGiven {
		t.Errorf("--local-mac %s: ends %+v", swMAC, e)
	}

	other := net.HardwareAddr{2, 0, 0, 0, 0, 0x77}.String()
	code, _, errOut = runOut(t, dcbtopBin, "check", "-r", pcap, "--local-mac", other)
	if code != 3 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--local-mac "+other+" never speaks in the capture (its LLDP speakers: pcap0: ") {
		t.Errorf("--local-mac of neither end: exit %d, stderr %q", code, errOut)
	}
}
