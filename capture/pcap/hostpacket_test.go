// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// A dcbtop recording's host packets come back from NextHost in the file's
// order, each before the frame that followed it; more than 256
// in a row make ReadFrame say pcap.ErrHostPending (never held all in memory);
// netlink packets of another interface are read past and counted.
func TestHostPackets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0).UTC()
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Millisecond) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WritePacket(capture.Frame{Interface: pcap.RecordingHost, At: at(0), Data: []byte("first")}, pcap.LinkTypeUser0, "d"))
	must(w.WriteFrame(capture.Frame{Interface: "eth0", At: at(1), Dir: capture.DirectionIncoming, Data: lldpFrame(1)}))
	must(w.WritePacket(capture.Frame{Interface: "nlmon0", At: at(2), Data: make([]byte, 32)}, pcap.LinkTypeNetlink, ""))
	n := 300 // over the 256 ReadFrame reads ahead of a frame
	for i := range n {
		must(w.WritePacket(capture.Frame{Interface: pcap.RecordingNetlink, At: at(3 + i), Data: []byte{byte(i)}}, pcap.LinkTypeNetlink, "d"))
	}
	must(w.WriteFrame(capture.Frame{Interface: "eth0", At: at(3 + n), Dir: capture.DirectionIncoming, Data: lldpFrame(2)}))
	if err := w.WritePacket(capture.Frame{Interface: "eth0", At: at(4 + n), Data: []byte("x")}, pcap.LinkTypeUser0, ""); err == nil {
		t.Error("eth0 (Ethernet) written again with another link type: no error")
	}
	must(w.WritePacket(capture.Frame{Interface: pcap.RecordingHost, At: at(5 + n), Data: []byte("last")}, pcap.LinkTypeUser0, "d"))
	must(w.Close())

	r, err := pcap.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if _, ok := r.NextHost(0); ok {
		t.Error("a host packet before anything was read")
	}
	f, err := r.ReadFrame(ctx)
	if err != nil || !bytes.Equal(f.Data, lldpFrame(1)) {
		t.Fatalf("first frame %v, %v", f, err)
	}
	if p, ok := r.NextHost(0); !ok || p.Netlink || string(p.Data) != "first" || p.Before != 0 || !p.At.Equal(at(0)) {
		t.Errorf("the host record before frame 0: %+v, %v", p, ok)
	}
	if _, ok := r.NextHost(0); ok {
		t.Error("a second host packet before frame 0")
	}
	var got []byte
	pending := 0
	for {
		f, err = r.ReadFrame(ctx)
		for p, ok := r.NextHost(1); ok; p, ok = r.NextHost(1) {
			if !p.Netlink || p.Before != 1 {
				t.Fatalf("packet %+v: want a netlink packet before frame 1", p)
			}
			got = append(got, p.Data...)
		}
		if errors.Is(err, pcap.ErrHostPending) {
			pending++
			continue
		}
		break
	}
	if err != nil || !bytes.Equal(f.Data, lldpFrame(2)) || pending != 1 || len(got) != n || got[5] != 5 {
		t.Errorf("second frame %v, %v; pcap.ErrHostPending %d times; %d netlink packets", f.Data, err, pending, len(got))
	}
	if _, err := r.ReadFrame(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
	if p, ok := r.NextHost(math.MaxInt); !ok || string(p.Data) != "last" || p.Before != 2 {
		t.Errorf("the last host record: %+v, %v", p, ok)
	}
	if r.Skipped() != 1 {
		t.Errorf("skipped %d packets, want nlmon0's one", r.Skipped())
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
