// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/verdict"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// sll2Capture writes what `tcpdump -i any -w FILE` (libpcap 1.10 and
// later: LINKTYPE_LINUX_SLL2) records on a host with two ports, each with
// its own switch: the LLDPDUs of engine/lldp's lldpd-ieee-full.pcap,
// alternately received on interface index 2 from one switch and on index
// 4 from another (a second source MAC).
func sll2Capture(t *testing.T) string {
	t.Helper()
	frames, err := testbed.ReadPcap("../../engine/lldp/testdata/lldpd-ieee-full.pcap")
	if err != nil || len(frames) == 0 {
		t.Fatalf("reading the lldpd capture: %v (%d frames)", err, len(frames))
	}
	recs := make([]testbed.PcapFrame, 6)
	for i := range recs {
		f := slices.Clone(frames[i%len(frames)].Data)
		ifindex := uint32(2)
		if i%2 == 1 {
			ifindex, f[11] = 4, f[11]^0xff // another switch: another source MAC
		}
		recs[i] = testbed.PcapFrame{Time: time.Unix(int64(1700000000+i), 0), Data: testbed.SLL2(f, ifindex, 2)} // PACKET_MULTICAST
	}
	return testbed.WritePcap(t, "any.pcap", testbed.LinkTypeLinuxSLL2, recs)
}

// TestReplaySLL2TwoPorts: a `tcpdump -i any` capture of a host with two
// ports, one switch each, is two interfaces (if2, if4) with a valid peer
// each, not one link with two peers: no multi-peer, and dcbtop check does
// not call the host's DCBX broken.
func TestReplaySLL2TwoPorts(t *testing.T) {
	path := sll2Capture(t)
	code, out, errOut := runCLI(t, "-r", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	snap := snaptest.Decode(t, "dcbtop -r any.pcap --json", out)
	if len(snap.Interfaces) != 2 {
		t.Fatalf("%d interfaces, want if2 and if4", len(snap.Interfaces))
	}
	for _, name := range []string{"if2", "if4"} {
		in := snaptest.Iface(t, snap, name)
		if !in.RemoteValid || in.MultiPeer != nil || len(in.Peers) != 1 {
			t.Errorf("%s: remote valid %v, multi-peer %v, %d peers; want valid, one peer", name, in.RemoteValid, in.MultiPeer, len(in.Peers))
		}
	}
	_, out, _ = runCLI(t, "check", "--json", "-r", path)
	var r check.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check report: %v\n%s", err, out)
	}
	if len(r.Interfaces) != 2 {
		t.Fatalf("check judged %d interfaces, want 2", len(r.Interfaces))
	}
	for _, in := range r.Interfaces {
		for _, x := range in.Results {
			if x.Check == verdict.CheckPeer && x.Verdict != verdict.OK {
				t.Errorf("%s: dcbx-peer %v (%s), want OK", in.Name, x.Verdict, x.Summary)
			}
		}
	}
}

// --text prints each indication as a readable line with the peer's system
// name, on a pipe too (issue 25, item 12); NDJSON stays behind --events.
func TestTextOutput(t *testing.T) {
	code, out, errOut := runCLI(t, "-r", "../../engine/lldp/testdata/lldpd-ieee-full.pcap", "--text")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], "LLDP_NEIGHBOR_CHANGE peer-new") || !strings.HasSuffix(lines[0], "(sw-ieee)") {
		t.Errorf("--text: the peer's appearance first, with its name: %q", lines)
	}
	lines = lines[1:]
	if len(lines) == 0 || !strings.Contains(lines[0], "QOS_REMOTE_PARAMETERS_CHANGE first-receipt") || !strings.Contains(lines[0], " peer ") ||
		!strings.HasSuffix(lines[0], ")") || strings.HasPrefix(lines[0], "{") {
		t.Errorf("--text: %q", lines)
	}
	if code, _, errOut := runCLI(t, "-r", "x.pcap", "--text", "--events"); code != 2 || !strings.Contains(errOut, "--text, --json and --events are exclusive") {
		t.Errorf("--text --events: exit %d, %q", code, errOut)
	}
}
