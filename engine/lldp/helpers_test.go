// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gopacket/gopacket/pcapgo"
)

// hx decodes hex bytes written with any white space in between, as the
// examples in the standards' annexes are. It panics on bad input: the
// arguments are constants of the tests.
func hx(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic("hx: " + err.Error())
	}
	return b
}

// cat concatenates byte slices into a new one.
func cat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

// The mandatory TLVs most hand-built LLDPDUs start with, and the End TLV.
var (
	tlvChassis = hx("02 07  04  02 00 00 00 00 01") // Chassis ID: MAC 02:00:00:00:00:01
	tlvPort    = hx("04 05  05  73 77 70 31")       // Port ID: ifname "swp1"
	tlvTTL     = hx("06 02  00 78")                 // TTL 120
	tlvEnd     = hx("00 00")
	// offOptional is the offset of the first TLV after tlvChassis, tlvPort
	// and tlvTTL.
	offOptional = len(tlvChassis) + len(tlvPort) + len(tlvTTL)
)

// lldpdu returns tlvChassis, tlvPort, tlvTTL, the given TLVs and End.
func lldpdu(tlvs ...[]byte) []byte {
	return cat(tlvChassis, tlvPort, tlvTTL, cat(tlvs...), tlvEnd)
}

// baseDU is the DU of lldpdu() with the given optional TLVs.
func baseDU(tlvs ...TLV) *DU {
	return &DU{
		ChassisID: ChassisID{Subtype: ChassisIDSubtypeMACAddress, ID: hx("02 00 00 00 00 01")},
		PortID:    PortID{Subtype: PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       120,
		TLVs:      tlvs,
	}
}

// TLVs used in several tests, laid out as IEEE Std 802.1Q-2018 Annex D and
// CEE DCBX v1.01 define them.
var (
	// §2.1: willing, 8 TCs, prio 3 -> TC1, others TC0, 50/50 ETS.
	refETS = hx("FE 19 00 80 C2 09 80 00 01 00 00 32 32 00 00 00 00 00 00 02 02 00 00 00 00 00 00")
	// §2.3: willing, cap 8, PFC on prio 3.
	refPFC = hx("FE 06 00 80 C2 0B 88 08")
	// §4.5: the CEE TLV of capture "dcbx_sample_capture_2".
	refCEE = hx(`FE 43
		00 1B 21 02
		02 0A 00 00 00 00 00 03 00 00 00 02
		04 11 00 00 C0 00 00 00 11 1F 19 4B 00 00 00 00 00 00 08
		06 06 00 00 C0 00 08 08
		08 16 00 00 E0 00 89 06 00 1B 21 08 0C BC 01 1B 21 08 89 14 00 1B 21 08`)
	// §4.5, the Juniper QFX3500 sample, hand-built from its description.
	juniperCEE = hx(`FE 3D
		00 1B 21 02
		02 0A 00 00 00 00 00 02 00 00 00 03
		04 11 00 00 80 00 77 77 77 77 00 00 00 00 00 00 00 64 03
		06 06 00 00 80 00 00 08
		08 10 00 00 80 00 C3 51 01 1B 21 02 C3 50 01 1B 21 04`)
)

// Decoded forms of the reference TLVs above.
var (
	refETSWant = &ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{3: 1},
		Bandwidth: [8]uint8{50, 50}, TSA: [8]TSA{TSAETS, TSAETS}}
	refPFCWant = &PFC{Willing: true, Cap: 8, Enabled: 0x08}
	refCEEWant = &CEE{
		Control: &CEEControl{SeqNo: 3, AckNo: 2},
		PG: &CEEPG{CEEFeature: CEEFeature{Enable: true, Willing: true},
			PGID: [8]uint8{0, 0, 0, 0, 1, 1, 1, 15}, Bandwidth: [8]uint8{25, 75}, NumTCs: 8},
		PFC: &CEEPFC{CEEFeature: CEEFeature{Enable: true, Willing: true}, Enabled: 0x08, NumTCs: 8},
		App: &CEEApp{CEEFeature: CEEFeature{Enable: true, Willing: true, Error: true}, Entries: []CEEAppEntry{
			{Protocol: 0x8906, Selector: 0, PriorityMap: 0x08},
			{Protocol: 3260, Selector: 1, PriorityMap: 0x08},
			{Protocol: 0x8914, Selector: 0, PriorityMap: 0x08},
		}},
	}
	juniperCEEWant = &CEE{
		Control: &CEEControl{SeqNo: 2, AckNo: 3},
		PG: &CEEPG{CEEFeature: CEEFeature{Enable: true},
			PGID: [8]uint8{7, 7, 7, 7, 7, 7, 7, 7}, Bandwidth: [8]uint8{7: 100}, NumTCs: 3},
		PFC: &CEEPFC{CEEFeature: CEEFeature{Enable: true}, Enabled: 0, NumTCs: 8},
		App: &CEEApp{CEEFeature: CEEFeature{Enable: true}, Entries: []CEEAppEntry{
			{Protocol: 50001, Selector: 1, PriorityMap: 0x02},
			{Protocol: 50000, Selector: 1, PriorityMap: 0x04},
		}},
	}
)

// cmpErrors compares errors in cmp.Diff with errors.Is.
var cmpErrors = cmpopts.EquateErrors()

// checkErr reports whether err matches want (nil or a sentinel) with
// errors.Is, and fails the test if not. It returns true when the caller
// should go on checking the result, that is when both are nil.
func checkErr(t *testing.T, err, want error) bool {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error = %v, want %v", err, want)
	}
	return want == nil
}

// mustParse parses b or fails the test.
func mustParse(t testing.TB, b []byte) *DU {
	t.Helper()
	du, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return du
}

// mustMarshal marshals du or fails the test.
func mustMarshal(t testing.TB, du *DU) []byte {
	t.Helper()
	b, err := du.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return b
}

// A capturedFrame is one frame of a fixture file.
type capturedFrame struct {
	file string // base name
	no   int    // 1-based frame number, as tshark counts
	data []byte
}

func (f capturedFrame) name() string {
	return strings.TrimSuffix(f.file, ".pcap") + "#" + strconv.Itoa(f.no)
}

// fixturePcaps returns the lldpd-*.pcap fixtures recorded by
// testbed/record-fixtures.sh, sorted by name.
func fixturePcaps(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "lldpd-*.pcap"))
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// readPcap returns the frames of a classic pcap or pcapng file.
func readPcap(tb testing.TB, file string) []capturedFrame {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, err := br.Peek(4)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	var next func() ([]byte, error)
	if bytes.Equal(magic, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		r, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		next = func() ([]byte, error) { b, _, err := r.ReadPacketData(); return b, err }
	} else {
		r, err := pcapgo.NewReader(br)
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		next = func() ([]byte, error) { b, _, err := r.ReadPacketData(); return b, err }
	}
	var out []capturedFrame
	for {
		b, err := next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			tb.Fatalf("%s: frame %d: %v", file, len(out)+1, err)
		}
		out = append(out, capturedFrame{file: filepath.Base(file), no: len(out) + 1, data: append([]byte(nil), b...)})
	}
}

// allFixtureFrames returns every frame of every fixture pcap (recorded
// with lldpd by testbed/record-fixtures.sh).
func allFixtureFrames(tb testing.TB) []capturedFrame {
	tb.Helper()
	var out []capturedFrame
	for _, f := range fixturePcaps(tb) {
		out = append(out, readPcap(tb, f)...)
	}
	return out
}

// lldpduOf splits an Ethernet frame and returns its LLDPDU or fails.
func lldpduOf(tb testing.TB, frame []byte) []byte {
	tb.Helper()
	_, b, err := SplitFrame(frame)
	if err != nil {
		tb.Fatalf("SplitFrame: %v", err)
	}
	return b
}
