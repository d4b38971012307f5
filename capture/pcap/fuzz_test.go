// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dcbtop/dcbtop/capture/pcap"
)

// FuzzReader feeds arbitrary files to a Reader, which must never panic,
// never loop, never allocate much more than the file's size, only return
// the errors it documents, and only deliver frames that keep the promises
// of Frame: timestamps JSON can encode, one-line notes, and a destination
// that is either recorded or one of the two a Reader assumes. More seeds,
// crashers, Linux cooked captures and over-long records included, are in
// testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	le, be := binary.LittleEndian, binary.BigEndian
	f.Add(pcapFile{order: le, nanos: true, snaplen: 65535, linkType: ltEthernet}.bytes(
		rec{at: t0, data: lldpFrame(1)}, rec{at: t0.Add(1), data: lldpFrame(2)}))
	f.Add((&ng{order: be}).shb().idb(ltEthernet, 0, "eth0").idb(ltSLL, 0, "").
		epb(0, rec{at: t0, data: lldpFrame(1)}, ptr[uint32](1)).
		epb(1, rec{at: t0, data: sll(4, lldpFrame(1)[6:12], 0x88cc, lldpPayload(1))}, nil).b)

	path := filepath.Join(f.TempDir(), "fuzz.pcap")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		allocated := bytesAllocated(func() { replayFuzzed(t, path, len(b)) })
		if limit := 2<<20 + 8*uint64(len(b)); allocated > limit {
			t.Fatalf("allocated %d bytes for a %d-byte file (limit %d)", allocated, len(b), limit)
		}
	})
}

// replayFuzzed replays the size-byte file at path to its end.
func replayFuzzed(t *testing.T, path string, size int) {
	r, err := pcap.Open(path)
	if err != nil {
		checkFuzzError(t, path, err)
		return
	}
	defer r.Close()
	for frames := 1; ; frames++ {
		f, err := r.ReadFrame(context.Background())
		if err != nil {
			if err != io.EOF {
				checkFuzzError(t, path, err)
			}
			if _, again := r.ReadFrame(context.Background()); again == nil || again.Error() != err.Error() {
				t.Fatalf("ReadFrame after %q = %v, want the same error", err, again)
			}
			return
		}
		// Every record takes at least 16 bytes of the file.
		if frames*16 > size {
			t.Fatalf("%d frames from a %d-byte file", frames, size)
		}
		if len(f.Data) > 14+256<<10 {
			t.Fatalf("%d-byte frame", len(f.Data))
		}
		if _, err := json.Marshal(f.At); err != nil {
			t.Fatalf("frame %d: %v", frames, err)
		}
		if strings.ContainsAny(f.Note, "\n\r") || f.Note != "" && !strings.HasPrefix(f.Note, "record ") {
			t.Fatalf("frame %d: note %q is not a one-liner about its record", frames, f.Note)
		}
		if f.DstAssumed && (len(f.Data) < 14 || !bytes.Equal(f.Data[:6], dstNearestBridge) && !bytes.Equal(f.Data[:6], dstUnknown)) {
			t.Fatalf("frame %d: assumed destination % x", frames, f.Data[:min(6, len(f.Data))])
		}
	}
}

// checkFuzzError checks that err is one of the documented errors, and a
// lowercase one-liner that does not repeat the path.
func checkFuzzError(t *testing.T, path string, err error) {
	t.Helper()
	known := false
	for _, target := range []error{pcap.ErrNotPcap, pcap.ErrTruncated, pcap.ErrCorrupt, pcap.ErrUnsupported} {
		known = known || errors.Is(err, target)
	}
	msg := err.Error()
	switch {
	case !known:
		t.Errorf("undocumented error %q", msg)
	case msg == "" || strings.ContainsAny(msg, "\n\r") || unicode.IsUpper([]rune(msg)[0]):
		t.Errorf("error %q is not a lowercase one-liner", msg)
	case strings.Contains(msg, path):
		t.Errorf("error %q repeats the path", msg)
	}
}

// updateSeeds rewrites the generated seeds of FuzzReader.
var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated seeds in testdata/fuzz/FuzzReader")

// generatedSeeds are the seeds of FuzzReader that TestFuzzSeeds keeps in
// testdata/fuzz/FuzzReader, by file name.
func generatedSeeds() map[string][]byte {
	le, be := binary.LittleEndian, binary.BigEndian
	mac := lldpFrame(1)[6:12]
	tagged := append([]byte{0xe0, 0x05, 0x88, 0xcc}, lldpPayload(2)...) // 802.1Q TCI, then LLDP
	ipv4 := []byte{0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 224, 0, 0, 1}
	sll2Recs := (&ng{order: be}).shb().idb(ltSLL2, 0, "any")
	for i, pt := range []uint8{pktHost, pktBroadcast, pktMulticast, pktOtherHost, pktOutgoing} {
		sll2Recs.epb(0, rec{at: t0.Add(time.Duration(i)), data: sll2(pt, 2, mac, 0x88cc, lldpPayload(1))}, nil)
	}
	sll2Recs.epb(0, rec{at: t0.Add(5), data: sll2(pktMulticast, 2, mac, 0x0800, ipv4)}, nil)
	noTsresol := &ng{order: le}
	return map[string][]byte{
		"pcap-le-sll-multicast-outgoing-tagged": pcapFile{order: le, snaplen: 65535, linkType: ltSLL}.bytes(
			rec{at: t0, data: sll(pktMulticast, mac, 0x88cc, lldpPayload(1))},
			rec{at: t0.Add(time.Second), data: sll(pktOutgoing, mac, 0x8100, tagged)},
			rec{at: t0.Add(2 * time.Second), data: sll(pktHost, mac, 0x88cc, lldpPayload(3))},
		),
		"pcapng-be-sll2-packet-types": sll2Recs.b,
		"pcap-caplen-over-len-and-snaplen": pcapFile{order: be, nanos: true, snaplen: 30, linkType: ltEthernet}.bytes(
			rec{at: t0, data: lldpFrame(1), origLen: 20},
			rec{at: t0.Add(time.Second), data: lldpFrame(2), origLen: 60},
			rec{at: t0.Add(2 * time.Second), data: lldpFrame(3)[:30], origLen: 36},
		),
		"pcapng-caplen-over-len-and-snaplen": (&ng{order: le}).shb().idb(ltEthernet, 30, "eth0").idb(ltSLL, 0, "any").
			epb(0, rec{at: t0, data: lldpFrame(1), origLen: 20}, nil).
			epb(0, rec{at: t0.Add(1), data: lldpFrame(2)}, nil).
			epb(1, rec{at: t0.Add(2), data: sll(pktMulticast, mac, 0x88cc, lldpPayload(1)), origLen: 16}, nil).b,
		"pcapng-nanoseconds-without-tsresol": noTsresol.shb().idbOpts(ltEthernet, 0).
			epb(0, rec{at: t0, data: lldpFrame(1)}, nil).b,
		"pcapng-tsoffset-year-0": (&ng{order: be}).shb().idbOpts(ltEthernet, 0, tsresolNanos, (&ng{order: be}).tsoffset(-62167219200)).
			epbTS(0, 0, rec{data: lldpFrame(1)}, nil).
			epbTS(0, 1<<63, rec{data: lldpFrame(2)}, nil).b,
	}
}

// TestFuzzSeeds checks that the generated seeds of FuzzReader in testdata
// are up to date; go test -run TestFuzzSeeds -update-seeds rewrites them.
func TestFuzzSeeds(t *testing.T) {
	for name, b := range generatedSeeds() {
		path := filepath.Join("testdata", "fuzz", "FuzzReader", name)
		want := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
		if *updateSeeds {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestFuzzSeeds -update-seeds writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: go test -run TestFuzzSeeds -update-seeds rewrites it", path)
		}
	}
}
