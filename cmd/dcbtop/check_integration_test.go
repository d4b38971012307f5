// SPDX-License-Identifier: Apache-2.0

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"encoding/json"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/dcbtop/dcbtop/assets"
	"github.com/dcbtop/dcbtop/testbed"
)

// roceAppTLV is an IEEE APP TLV mapping UDP 4791 (RoCEv2) to priority 3.
var roceAppTLV = testbed.UnknownTLV{OUI: testbed.OUI8021, Subtype: 12, Value: []byte{0x00, 3<<5 | 3, 0x12, 0xb7}}

// swRecoTLV is the switch's ETS Recommendation (IEEE 802.1Q-2018 D.2.10),
// the same table as its configuration: what a willing host adopts.
var swRecoTLV = testbed.UnknownTLV{OUI: testbed.OUI8021, Subtype: 10, Value: append([]byte{0x00}, swETS[1:]...)}

// hostTLVs are a RoCE-ready host's willing ETS (priority 3 on TC 3, 50 %),
// willing PFC on 3 and the RoCE APP entry, as a host LLDP agent (lldpd
// here) sends them.
var hostTLVs = []testbed.UnknownTLV{
	{OUI: testbed.OUI8021, Subtype: 9, Value: append([]byte{0x80}, swETS[1:]...)},
	{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x88, 0x08}},
	roceAppTLV,
}

// runCheckIn runs `dcbtop check --json args...` in ns and returns its exit
// status and report (validated against the schema).
func runCheckIn(t *testing.T, ns *testbed.NS, args ...string) (int, check.Report) {
	t.Helper()
	p := startDcbtop(t, ns, append([]string{"check", "--json"}, args...)...)
	code := p.wait(60 * time.Second)
	return code, decodeCheck(t, p)
}

// decodeCheck validates the report a finished `dcbtop check --json`
// printed against the schema and decodes it.
func decodeCheck(t *testing.T, p *proc) check.Report {
	t.Helper()
	out := p.stdout()
	if err := assets.ValidateCheck([]byte(out)); err != nil {
		t.Fatalf("report does not match check.schema.json: %v\n%s\nstderr: %s", err, out, p.stderrText())
	}
	var r check.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Interfaces) == 0 {
		t.Fatalf("no interface in the report:\n%s", out)
	}
	return r
}

// verdictOf returns the verdict of check c on the report's first
// interface.
func verdictOf(r check.Report, c verdict.Name) (verdict.Verdict, string) {
	if len(r.Interfaces) == 0 {
		return verdict.Unknown, "no interface"
	}
	for _, x := range r.Interfaces[0].Results {
		if x.Check == c {
			return x.Verdict, x.Summary
		}
	}
	return verdict.Unknown, "no such check"
}

// TestCheckLLDPD judges live links to real lldpd peers: a RoCE-ready
// switch and host agent pass every check that a veth can answer (a veth
// has no pause counters and no RDMA device, so pauses and ecn are UNKNOWN
// and the exit status 3); the switch without PFC on the RoCE priority is
// CRITICAL (2); two switches on one link are multi-peer (2); and a link
// where nothing speaks is CRITICAL once --wait has passed.
func TestCheckLLDPD(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	want := func(t *testing.T, r check.Report, vs map[verdict.Name]verdict.Verdict) {
		t.Helper()
		for c, v := range vs {
			if got, why := verdictOf(r, c); got != v {
				t.Errorf("%s: %v (%s), want %v", c, got, why, v)
			}
		}
	}
	// link makes a switch port p0 and a host port h0, with a RoCE-ready
	// host agent on h0 and, unless swPFC is nil, a switch on p0 that
	// enables PFC as swPFC says.
	link := func(t *testing.T, swPFC []byte) (sw, host *testbed.NS) {
		sw, host = testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
		testbed.Veth(t, sw, "p0", host, "h0")
		if swPFC != nil {
			testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "leaf1", TLVs: append(swTLVs(swPFC), swRecoTLV, roceAppTLV)})
			testbed.StartLLDPD(t, host, "h0", testbed.LLDPDOpts{Hostname: "host1", TLVs: hostTLVs})
		}
		return sw, host
	}
	t.Run("ready", func(t *testing.T) {
		t.Parallel()
		_, host := link(t, swPFC3)
		code, r := runCheckIn(t, host, "-i", "h0", "--wait", "20s")
		if code != 3 || r.Verdict != verdict.Unknown {
			t.Errorf("exit %d, verdict %v; want 3 (UNKNOWN: no counters on a veth)", code, r.Verdict)
		}
		want(t, r, map[verdict.Name]verdict.Verdict{
			verdict.CheckPeer: verdict.OK, verdict.CheckRoCEPriority: verdict.OK, verdict.CheckRoCEPFC: verdict.OK,
			verdict.CheckRoCEETS: verdict.OK, verdict.CheckPFCAgreement: verdict.OK,
			// A veth has no DCB netlink: whether a NIC firmware runs DCBX
			// is not known, so single-agent is not OK (7737732: OK).
			verdict.CheckAgents: verdict.Unknown,
			verdict.CheckPauses: verdict.Unknown, verdict.CheckECN: verdict.Unknown,
			// A veth has no pause operations and no RDMA device: unknown,
			// never a false OK.
			verdict.CheckLinkPause: verdict.Unknown, verdict.CheckRoCEGID: verdict.Unknown, verdict.CheckRoCEPath: verdict.Unknown,
		})
		if r.Ended != check.EndReady {
			t.Errorf("ended %q, want %q: the check should end once both agents were seen", r.Ended, check.EndReady)
		}
	})
	t.Run("switch without PFC on the RoCE priority", func(t *testing.T) {
		t.Parallel()
		_, host := link(t, swPFC4)
		code, r := runCheckIn(t, host, "-i", "h0", "--wait", "20s")
		if code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
		want(t, r, map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: verdict.Critical})
	})
	t.Run("multi-peer", func(t *testing.T) {
		t.Parallel()
		_, host, pa, pb := multiPeerLink(t)
		testbed.StartLLDPD(t, pa, "a0", testbed.LLDPDOpts{Hostname: "swA", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
		testbed.StartLLDPD(t, pb, "b0", testbed.LLDPDOpts{Hostname: "swB", TLVs: append(swTLVs(swPFC3), roceAppTLV)})
		code, r := runCheckIn(t, host, "-i", "h0", "--wait", "20s")
		if code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
		want(t, r, map[verdict.Name]verdict.Verdict{verdict.CheckPeer: verdict.Critical})
	})
	t.Run("no peer within --wait", func(t *testing.T) {
		t.Parallel()
		_, host := link(t, nil)
		code, r := runCheckIn(t, host, "-i", "h0", "--wait", "2s")
		if code != 2 || r.Ended != check.EndWait {
			t.Errorf("exit %d, ended %q; want 2 at --wait", code, r.Ended)
		}
		want(t, r, map[verdict.Name]verdict.Verdict{verdict.CheckPeer: verdict.Critical})
	})
}
