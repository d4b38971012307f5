// SPDX-License-Identifier: Apache-2.0

package pcap

// This target is in package pcap, not pcap_test like FuzzReader: it
// drives the record readers of reader.go and pcapng.go (the file header,
// then record after record) below Open and the Frames a Reader makes of
// records, which only package pcap can reach. FuzzReader's helpers
// (bytesAllocated, checkFuzzError) are in package pcap_test, which this
// package cannot import, hence heapAllocated and checkReaderError below.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
	"unicode"
)

// FuzzPcapFile fuzzes the pcap and pcapng reader on any file of up to
// 2 KiB: its header (open), then each record (readPcapRecord,
// readNgRecord) to the first error. The reader must not panic or loop,
// and must keep allocation under 2 MiB plus 8 bytes per byte of the file.
// Its errors wrap ErrNotPcap, ErrTruncated, ErrCorrupt or ErrUnsupported
// as one-line lowercase messages, and io.EOF comes only at the end of the
// file, after a whole record. Each record it returns takes at least 12
// bytes of the file, past the previous one's, and its data is exactly
// its capture length (at most 256 KiB) of bytes of the file, at the place
// its header says. Its timestamp is in UTC, and the reader's time check
// accepts it exactly when JSON can encode it (years 0 to 9999); a refusal
// wraps ErrCorrupt. Seeds: the lldpd captures of engine/lldp/testdata,
// the first records of assets/demo.pcap as they are and as a Writer
// records them (pcapng), and testdata/fuzz/FuzzPcapFile (FuzzReader's
// seeds).
func FuzzPcapFile(f *testing.F) {
	paths, err := filepath.Glob("../../engine/lldp/testdata/*.pcap")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no captures in ../../engine/lldp/testdata: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	pcap, pcapng := capturePrefix(f, "../../assets/demo.pcap", 3)
	f.Add(pcap)
	f.Add(pcapng)
	f.Fuzz(func(t *testing.T, b []byte) {
		// Longer files find nothing the seeds' mutations do not, and
		// make the fuzzer's minimization of interesting inputs
		// (quadratic in their length) stall it.
		if len(b) > maxFuzzedFile {
			return
		}
		if n, limit := heapAllocated(func() { readRecords(t, b) }), 2<<20+8*uint64(len(b)); n > limit {
			t.Fatalf("allocated %d bytes for a %d-byte file (limit %d)", n, len(b), limit)
		}
	})
}

// heapAllocated returns the bytes f allocates on the heap. Unlike
// FuzzReader's bytesAllocated (runtime.ReadMemStats, which stops the
// world: 60 µs a call, most of an execution here), runtime/metrics costs
// under a microsecond; small allocations are counted a span at a time,
// well within the limits checked.
func heapAllocated(f func()) uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	f()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// maxFuzzedFile bounds the files FuzzPcapFile reads.
const maxFuzzedFile = 2 << 10

// capturePrefix returns the first n records of the capture at path as
// the file has them, and as a Writer records them (pcapng).
func capturePrefix(tb testing.TB, path string, n int) (file, ng []byte) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	w, err := NewWriter(&out)
	if err != nil {
		tb.Fatal(err)
	}
	for range n {
		fr, err := r.ReadFrame(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.WriteFrame(fr); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b[:r.offset()], out.Bytes()
}

// fuzzReader is the buffered reader of every file readRecords reads, one
// at a time, in place of newBufReader's: allocating and clearing a new
// 64 KiB buffer was most of an execution's time.
var fuzzReader = newBufReader(nil)

// readRecords reads the file b with the reader of a Reader, as Replay.read
// does, to its first error, and checks what it returns.
func readRecords(t *testing.T, b []byte) {
	r := &Reader{cr: &countingReader{r: bytes.NewReader(b)}, br: fuzzReader}
	r.br.Reset(r.cr)
	if err := r.open(); err != nil {
		checkReaderError(t, err)
		return
	}
	end := int64(-1) // where the previous record ends
	for {
		rec, off, err := r.nextRecord()
		if at := r.offset(); at > int64(len(b)) {
			t.Fatalf("record %d: the reader is at offset %d of a %d-byte file", r.record, at, len(b))
		}
		if err == io.EOF {
			if at := r.offset(); at != int64(len(b)) {
				t.Fatalf("record %d: io.EOF at offset %d of a %d-byte file", r.record, at, len(b))
			}
			return
		}
		if err != nil {
			checkReaderError(t, err)
			return
		}
		if off < end || r.offset()-off < 12 {
			t.Fatalf("record %d from offset %d to %d, the previous one ending at %d", r.record, off, r.offset(), end)
		}
		end = r.offset()
		checkRecord(t, r, b, off, rec)
		if err := r.checkTime(off, rec.at, rec.usDflt); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("record %d: time check error %v does not wrap ErrCorrupt", r.record, err)
			}
			if _, jerr := json.Marshal(rec.at); jerr == nil {
				t.Fatalf("record %d: %v, but JSON encodes %v", r.record, err, rec.at)
			}
			checkReaderError(t, err)
			return
		}
		if _, err := json.Marshal(rec.at); err != nil {
			t.Fatalf("record %d: the time check accepts %v, which JSON cannot encode: %v", r.record, rec.at, err)
		}
	}
}

// checkRecord checks rec, read from the file b at off by r: its data is
// its capture length of the file's bytes where its header says.
func checkRecord(t *testing.T, r *Reader, b []byte, off int64, rec record) {
	t.Helper()
	if rec.capLen > maxRecordLen || uint64(len(rec.data)) != uint64(rec.capLen) {
		t.Fatalf("record %d: capture length %d with %d bytes of data", r.record, rec.capLen, len(rec.data))
	}
	if rec.at.Location() != time.UTC {
		t.Fatalf("record %d: timestamp %v is not in UTC", r.record, rec.at)
	}
	// Where the data starts: after a classic pcap record's header, or
	// after the header of the pcapng block (the type and length, then
	// the packet block's own fields).
	start := off + pcapRecordHeaderLen
	if r.ng {
		switch typ := r.order.Uint32(b[off:]); typ {
		case ngBlockEPB, ngBlockOPB:
			start = off + 8 + 20
		case ngBlockSPB:
			start = off + 8 + 4
		default:
			t.Fatalf("record %d: a record from a block of type %d", r.record, typ)
		}
	}
	if stop := start + int64(len(rec.data)); stop > r.offset() || !bytes.Equal(rec.data, b[start:stop]) {
		t.Fatalf("record %d at offset %d: %d bytes of data that are not the file's at offset %d (the record ends at %d)",
			r.record, off, len(rec.data), start, r.offset())
	}
}

// checkReaderError checks that err wraps one of the errors the package
// documents for a file that reads without fail, and is a lowercase
// one-liner.
func checkReaderError(t *testing.T, err error) {
	t.Helper()
	known := false
	for _, target := range []error{ErrNotPcap, ErrTruncated, ErrCorrupt, ErrUnsupported} {
		known = known || errors.Is(err, target)
	}
	msg := err.Error()
	switch {
	case !known:
		t.Fatalf("undocumented error %q", msg)
	case msg == "" || strings.ContainsAny(msg, "\n\r") || unicode.IsUpper([]rune(msg)[0]):
		t.Fatalf("error %q is not a lowercase one-liner", msg)
	}
}
