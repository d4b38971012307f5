// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// manyInterfacesCapture writes a pcapng with one DCBX LLDPDU on each of n
// interfaces (an Interface Description Block each) and returns its path.
func manyInterfacesCapture(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("many-%d.pcapng", n))
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		src := lldp.MAC{2, 0, 0, byte(i >> 16), byte(i >> 8), byte(i)}
		du := &lldp.DU{ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
			PortID: lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")}, TTL: 120,
			TLVs: []lldp.TLV{&lldp.PFC{Cap: 8, Enabled: 1 << 3}}}
		b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2025, 6, 1, 0, 0, i/100, 0, time.UTC)
		if err := w.WriteFrame(capture.Frame{Interface: fmt.Sprintf("e%d", i), At: at, Data: b, Dir: capture.DirectionIncoming}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayManyInterfaces: a capture naming more interfaces than the
// engine keeps gives the first DefaultMaxInterfaces (in order of
// appearance), the host-wide too-many-interfaces diagnostic with the
// count of the others, and, headless, one warning line on stderr; never
// an engine port per interface (20,000 once took 9 s and 566 MB).
func TestReplayManyInterfaces(t *testing.T) {
	t.Parallel()
	n := engine.DefaultMaxInterfaces + 100
	path := manyInterfacesCapture(t, n)
	code, out, errOut := runCLI(t, "-r", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s engine.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Interfaces) != engine.DefaultMaxInterfaces {
		t.Errorf("%d interfaces, want %d", len(s.Interfaces), engine.DefaultMaxInterfaces)
	}
	want := fmt.Sprintf("events for more than %d interfaces: 100 more interfaces ignored (100 events)", engine.DefaultMaxInterfaces)
	if len(s.Diagnostics) != 1 || s.Diagnostics[0].Code != diag.CodeTooManyInterfaces || s.Diagnostics[0].Message != want {
		t.Errorf("diagnostics %+v, want one %q", s.Diagnostics, want)
	}
	if got := strings.Count(errOut, "dcbtop: warning: too-many-interfaces:"); got != 1 {
		t.Errorf("stderr has %d too-many-interfaces warnings, want 1:\n%s", got, errOut)
	}
	_, _, errOut = runCLI(t, "-r", path, "--events")
	if got := strings.Count(errOut, "dcbtop: warning: too-many-interfaces:"); got != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("--events: stderr %q, want one warning line", errOut)
	}
}
