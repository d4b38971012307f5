// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestReplayTcpdumpAny checks docs/recording.md's promise about
// `tcpdump -i any`: a real tcpdump records lldpd's DCBX on every interface of a
// namespace as Linux cooked frames (no destination address), and
// `dcbtop -r` of that file gives the peer's DCBX, its scope marked
// assumed.
func TestReplayTcpdumpAny(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	pcap := filepath.Join(t.TempDir(), "any.pcap")
	stop := testbed.Tcpdump(t, host, "any", pcap)
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)})
	// lldpd sends at start, then every interval; a cooked record of an
	// LLDPDU is well over 100 bytes after the 24-byte file header.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if fi, err := os.Stat(pcap); err == nil && fi.Size() > 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tcpdump -i any recorded no LLDPDU in 15 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	code, out, errOut := runOut(t, dcbtopBin, "-r", pcap, "--json")
	if code != 0 {
		t.Fatalf("dcbtop -r: exit %d, stderr %q", code, errOut)
	}
	s := snaptest.Decode(t, "dcbtop -r", out)
	var in *engine.Interface
	for i := range s.Interfaces {
		if len(s.Interfaces[i].Peers) > 0 {
			in = &s.Interfaces[i]
		}
	}
	if in == nil {
		t.Fatalf("no interface with a peer in %+v", s.Interfaces)
	}
	if !in.RemoteValid || in.Remote == nil || in.Remote.PFC == nil || in.Remote.PFC.Enabled != 1<<3 {
		t.Errorf("remote valid %v, remote %+v; want lldpd's PFC on priority 3", in.RemoteValid, in.Remote)
	}
	p := in.Peers[0]
	if p.Scope != engine.ScopeNearestBridge || !p.ScopeAssumed {
		t.Errorf("peer scope %s, assumed %v; want nearest-bridge, assumed", p.Scope, p.ScopeAssumed)
	}
	if p.SystemName == nil || *p.SystemName != "sw1" {
		t.Errorf("peer system name %v, want sw1", p.SystemName)
	}
}
