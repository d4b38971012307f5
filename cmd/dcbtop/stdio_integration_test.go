// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestStdio: "-" as tcpdump takes it. `dcbtop -r - --json` reads the
// capture from standard input and gives what `-r FILE --json` gives;
// `dcbtop -i h0 -w -` writes a pcapng of what it saw to standard output and
// nothing else there, which reads back as the LLDPDUs of the peer.
func TestStdio(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	const file = "../../engine/lldp/testdata/lldpd-ieee-full.pcap"
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(dcbtopBin, "-r", "-", "--json")
	cmd.Stdin = f
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("dcbtop -r - --json: %v: %s", err, e.String())
	}
	_, want, _ := runOut(t, dcbtopBin, "-r", file, "--json")
	got, wantSnap := snaptest.Decode(t, "-r -", o.String()), snaptest.Decode(t, "-r FILE", want)
	if len(got.Interfaces) != 1 || got.Interfaces[0].RemoteValid != wantSnap.Interfaces[0].RemoteValid ||
		len(got.Indications) != len(wantSnap.Indications) {
		t.Errorf("-r - gives %d interfaces, %d indications; -r FILE %d, %d", len(got.Interfaces), len(got.Indications),
			len(wantSnap.Interfaces), len(wantSnap.Indications))
	}

	host, _, _, _, _ := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := exec.CommandContext(ctx, ipPath(t), "netns", "exec", host.Name, dcbtopBin, "-i", "h0", "-w", "-", "--duration", "3s")
	var wo, we bytes.Buffer
	w.Stdout, w.Stderr = &wo, &we
	if err := w.Run(); err != nil {
		t.Fatalf("dcbtop -w -: %v: %s", err, we.String())
	}
	if we.Len() != 0 {
		t.Errorf("dcbtop -w - printed on stderr: %q", we.String())
	}
	path := filepath.Join(t.TempDir(), "out.pcapng")
	if err := os.WriteFile(path, wo.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := pcap.Open(path)
	if err != nil {
		t.Fatalf("standard output is not a capture: %v (%d bytes)", err, wo.Len())
	}
	defer r.Close()
	n := 0
	for {
		fr, err := r.ReadFrame(context.Background())
		if err != nil {
			break
		}
		if fr.Interface != "h0" {
			t.Errorf("frame on %q, want h0", fr.Interface)
		}
		n++
	}
	if n == 0 {
		t.Error("no LLDPDU in the recording written to standard output")
	}
}
