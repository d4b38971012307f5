// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecordedRoundTrip: what FormatRecorded writes ReadRecorded reads
// back, comments and line breaks aside.
func TestRecordedRoundTrip(t *testing.T) {
	b := make([]byte, 37)
	for i := range b {
		b[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "r.hex")
	text := FormatRecorded("two lines\nof comment # with a hash", b)
	if err := os.WriteFile(path, []byte(text+"  0a0b # trailing comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecorded(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(append(b, 0x0a, 0x0b), got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if err := os.WriteFile(path, []byte("0a0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecorded(path); err == nil {
		t.Error("an odd number of digits read without an error")
	}
}

// TestLayout: attributes in order with their paths, nests descended
// (NLA_F_NESTED, or where nested says), padding skipped, framing errors
// reported.
func TestLayout(t *testing.T) {
	RequireLittleEndian(t)
	b := Cat(
		[]byte{0x05, 0x00, 0x01, 0x00, 0x01, 0, 0, 0}, // /1 u8 + pad
		[]byte{0x10, 0x00, 0x02, 0x80, // /2 nested
			0x0c, 0x00, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 7, 8}, // /2/3 u64
		[]byte{0x0c, 0x00, 0x04, 0x00, // /4 nested without the flag
			0x08, 0x00, 0x05, 0x00, 1, 0, 0, 0}, // /4/5
	)
	got, err := Layout(b, func(p string) bool { return p == "/4" })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/1 type=0x1 len=5", "/2 type=0x8002 len=16", "/2/3 type=0x3 len=12", "/4 type=0x4 len=12", "/4/5 type=0x5 len=8"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for name, bad := range map[string][]byte{
		"trailing bytes":   {0x04, 0x00, 0x01, 0x00, 0x01},
		"length too short": {0x02, 0x00, 0x01, 0x00},
		"length too long":  {0x09, 0x00, 0x01, 0x00, 0x01},
	} {
		if _, err := Layout(bad, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
