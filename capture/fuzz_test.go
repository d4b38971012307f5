package capture_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/dcbtop/dcbtop/capture"
)

// FuzzReplay feeds arbitrary files to a Replay, which must never panic,
// never loop, never allocate much more than the file's size, and only
// return the errors it documents. More seeds, crashers included, are in
// testdata/fuzz/FuzzReplay.
func FuzzReplay(f *testing.F) {
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
	r, err := capture.OpenReplay(path, capture.ReplayOptions{})
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
	}
}

// checkFuzzError checks that err is one of the documented errors, and a
// lowercase one-liner that does not repeat the path.
func checkFuzzError(t *testing.T, path string, err error) {
	t.Helper()
	known := false
	for _, target := range []error{capture.ErrNotPcap, capture.ErrTruncated, capture.ErrCorrupt, capture.ErrUnsupported} {
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
