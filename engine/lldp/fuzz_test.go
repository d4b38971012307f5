// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Run each target on its own, for example:
//
//	go test -run='^$' -fuzz='^FuzzParse$' -fuzztime=60s ./engine/lldp
//
// Seeds come from f.Add below and from testdata/fuzz/<FuzzName>/, where
// crashers found by the fuzzer are kept (plain go test replays them).

// fuzzLLDPDUs are hand-built seeds: valid LLDPDUs of every kind and some
// malformed ones.
func fuzzLLDPDUs() [][]byte {
	return [][]byte{
		lldpdu(),
		typicalLLDPDU,
		lldpdu(refCEE, hx("0A 03 73 77 31")),
		lldpdu(juniperCEE),
		lldpdu(basicOrgBytes()...),
		lldpdu(basicOrgMalformed[0].b, lldpdMACPHY, basicOrgMalformed[len(basicOrgMalformed)-1].b),
		lldpdu(refETS, refPFC, refCEE, cinTLV, refETS),
		lldpdu(hx("10 13 05 01 C0 A8 00 3A 02 05 00 00 00 07 2B 06 01 04 01 BF 08"), hx("0E 04 00 9C 00 80"), hx("12 01 01")),
		lldpdu(hx("FE 0F 00 1B 21 02  0A 02 AA BB  00 00  FE 03 01 02 03")),
		cat(tlvChassis, tlvPort, tlvTTL, refPFC),
		cat(lldpdu(refPFC), make([]byte, 11)),
		cat(tlvChassis, tlvPort),
		lldpdu(hx("FE 07 00 80 C2 0B 88 08 00")),
		lldpdu(hx("FE 0A 00 1B 21 02  02 0A 00 00 00 00")),
		cat(tlvChassis, tlvPort, tlvTTL, hx("00 01 00")),
	}
}

// FuzzParse fuzzes Parse on any LLDPDU of up to 1500 bytes: see
// checkParse for its invariants.
func FuzzParse(f *testing.F) {
	for _, fr := range allFixtureFrames(f) {
		f.Add(lldpduOf(f, fr.data))
	}
	for _, b := range fuzzLLDPDUs() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// An LLDPDU fills at most an Ethernet payload (1500 bytes). Larger
		// inputs find nothing new and make the fuzzer's minimization of
		// interesting inputs (quadratic in their length) stall it.
		if len(b) > 1500 {
			return
		}
		checkParse(t, b)
	})
}

// checkParse checks the properties of Parse on any input b:
//   - an error is a *ParseError with a structural sentinel and an offset
//     inside b, and PeekMSAP fails only where Parse fails, in the same way;
//   - otherwise PeekMSAP agrees with the DU, the DU does not alias b,
//     parse -> marshal -> parse gives an equal DU, marshalling that gives
//     the same bytes again, and github.com/mdlayher/lldp agrees.
func checkParse(t *testing.T, b []byte) {
	t.Helper()
	in := bytes.Clone(b)
	du, err := Parse(in)
	chassis, port, ttl, perr := PeekMSAP(b)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T is not a *ParseError: %v", err, err)
		}
		if pe.Err != ErrTruncated && pe.Err != ErrInvalidLength && pe.Err != ErrMandatory {
			t.Fatalf("ParseError.Err = %v, want a structural sentinel", pe.Err)
		}
		if pe.Offset < 0 || pe.Offset > len(b) || (pe.Offset == len(b) && pe.Err != ErrMandatory) {
			t.Fatalf("ParseError.Offset %d outside a %d-byte LLDPDU: %v", pe.Offset, len(b), err)
		}
		if du != nil {
			t.Fatalf("Parse returned a DU with error %v", err)
		}
		if perr != nil && perr.Error() != err.Error() {
			t.Fatalf("PeekMSAP error %v, Parse error %v", perr, err)
		}
		return
	}
	if perr != nil {
		t.Fatalf("Parse accepted an LLDPDU that PeekMSAP rejects: %v", perr)
	}
	if !bytes.Equal(chassis, cat([]byte{byte(du.ChassisID.Subtype)}, du.ChassisID.ID)) ||
		!bytes.Equal(port, cat([]byte{byte(du.PortID.Subtype)}, du.PortID.ID)) || ttl != du.TTL {
		t.Fatalf("PeekMSAP %x %x %d disagrees with Parse %v %v %d", chassis, port, ttl, du.ChassisID, du.PortID, du.TTL)
	}

	b2, err := du.MarshalBinary()
	if err != nil {
		t.Fatalf("marshal of a parsed DU: %v", err)
	}

	// Results never alias the input: changing it changes nothing.
	for i := range in {
		in[i] ^= 0xff
	}
	if again, err := du.MarshalBinary(); err != nil || !bytes.Equal(again, b2) {
		t.Fatalf("DU changed with its input buffer: %v\nbefore %x\n after %x", err, b2, again)
	}

	du2, err := Parse(b2)
	if err != nil {
		t.Fatalf("reparse: %v\nmarshalled %x", err, b2)
	}
	checkReencoded(t, du, du2)
	b3, err := du2.MarshalBinary()
	if err != nil || !bytes.Equal(b2, b3) {
		t.Fatalf("second marshal differs: %v\n first %x\nsecond %x", err, b2, b3)
	}
	checkMdlayher(t, b, du)
}

// checkReencoded checks du2, what Parse makes of du re-encoded (by
// MarshalBinary or AppendFrame): discarded TLVs are not re-encoded, so
// du2 is du without them and without their tlv-discarded findings
// (one for each discarded TLV), and discards nothing itself.
func checkReencoded(t *testing.T, du, du2 *DU) {
	t.Helper()
	if len(du2.Discarded) != 0 {
		t.Fatalf("the re-encoded LLDPDU has discarded TLVs: %+v", du2.Discarded)
	}
	want := *du
	want.Discarded = nil
	want.Findings = nil
	var kept int
	for _, d := range du.Findings {
		if d.Code == CodeTLVDiscarded {
			kept++
			continue
		}
		want.Findings = append(want.Findings, d)
	}
	if kept != len(du.Discarded) {
		t.Fatalf("%d tlv-discarded findings for %d discarded TLVs", kept, len(du.Discarded))
	}
	// cmp.Equal first: cmp.Diff is slow, and the fuzzer minimizes
	// large inputs by running this function many times.
	if len(du.Discarded) == 0 {
		want.Findings = du.Findings // as it was, nil or not
	} else if len(want.Findings) == 0 && len(du2.Findings) == 0 {
		want.Findings = du2.Findings
	}
	if !cmp.Equal(&want, du2) {
		t.Fatalf("round trip (-first +second):\n%s", cmp.Diff(&want, du2))
	}
}

// FuzzSplitFrame fuzzes SplitFrame on any frame: an error is ErrTruncated
// or ErrNotLLDP without an LLDPDU; otherwise the header is 14, 18 or 22
// bytes ending in the LLDP EtherType, the addresses and the outer tag's
// VLAN and PCP are the frame's, and the LLDPDU is the rest of the frame.
// An LLDPDU that parses survives AppendFrame and SplitFrame: an untagged
// frame of at least 60 bytes whose LLDPDU is MarshalBinary's, padded,
// and parses to the first DU without its discarded TLVs (checkReencoded).
func FuzzSplitFrame(f *testing.F) {
	for _, fr := range allFixtureFrames(f) {
		f.Add(fr.data)
	}
	for _, b := range tsharkSynthetic {
		f.Add(b)
	}
	f.Add(cat(ethDst, ethSrc, hx("88 A8 2F FF 81 00 E0 09"), ethLLDP, lldpdu()))
	f.Add(cat(ethDst, ethSrc, hx("81 00 E0 09 81 00 00 01 81 00"), ethLLDP))
	f.Add(cat(ethDst, ethSrc, hx("08 00")))
	f.Add(hx("01 80 C2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, p, err := SplitFrame(b)
		if err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNotLLDP) {
				t.Fatalf("error %v is neither ErrTruncated nor ErrNotLLDP", err)
			}
			if p != nil {
				t.Fatalf("LLDPDU %x with error %v", p, err)
			}
			return
		}
		n := len(b) - len(p) // header length
		if n != 14 && n != 18 && n != 22 {
			t.Fatalf("header of %d bytes", n)
		}
		if len(p) > 0 && &p[len(p)-1] != &b[len(b)-1] {
			t.Fatal("the LLDPDU is not the tail of the frame")
		}
		if binary.BigEndian.Uint16(b[n-2:]) != EtherType {
			t.Fatalf("EtherType %x", b[n-2:n])
		}
		if h.Dst != MAC(b[0:6]) || h.Src != MAC(b[6:12]) {
			t.Fatalf("addresses %v %v of frame %x", h.Dst, h.Src, b)
		}
		if h.Tagged != (n > 14) {
			t.Fatalf("Tagged %v with a %d-byte header", h.Tagged, n)
		}
		if h.Tagged {
			tci := binary.BigEndian.Uint16(b[14:])
			if h.VLAN != tci&0xfff || h.PCP != uint8(tci>>13) {
				t.Fatalf("VLAN %d PCP %d, TCI %#04x", h.VLAN, h.PCP, tci)
			}
		}
		// An LLDPDU that parses survives AppendFrame and SplitFrame.
		du, err := Parse(p)
		if err != nil {
			return
		}
		frame, err := AppendFrame(nil, h.Dst, h.Src, du)
		if err != nil {
			t.Fatalf("AppendFrame: %v", err)
		}
		h2, p2, err := SplitFrame(frame)
		if err != nil || h2 != (EthernetHeader{Dst: h.Dst, Src: h.Src}) || len(frame) < 60 {
			t.Fatalf("SplitFrame(AppendFrame) = %+v, %v for a %d-byte frame", h2, err, len(frame))
		}
		m, err := du.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
		if pad, ok := bytes.CutPrefix(p2, m); !ok || len(bytes.Trim(pad, "\x00")) != 0 || len(pad) > 0 && len(frame) != 60 {
			t.Fatalf("the LLDPDU of AppendFrame is %x, want %x padded to 60 bytes", p2, m)
		}
		du2, err := Parse(p2)
		if err != nil {
			t.Fatalf("Parse(SplitFrame(AppendFrame)): %v", err)
		}
		checkReencoded(t, du, du2)
	})
}

// orgTLV returns an organizationally specific TLV with the information
// string oui, sub, rest, or nil when it does not fit.
func orgTLV(oui OUI, sub uint8, rest []byte) []byte {
	if 4+len(rest) > maxValueLen {
		return nil
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(TLVTypeOrg)<<9|uint16(4+len(rest)))
	return cat(b, oui[:], []byte{sub}, rest)
}

// checkOrgTLV checks a TLV that unmarshal accepted as got: re-encoded it
// gives b with the bits dcbtop does not keep cleared, that decodes to got
// again, and Parse decodes b inside an LLDPDU to got as well.
func checkOrgTLV(t *testing.T, b []byte, got TLV, unmarshal func([]byte) (TLV, error)) {
	t.Helper()
	m, err := AppendTLV(nil, got)
	if err != nil {
		t.Fatalf("marshal of an unmarshalled TLV: %v", err)
	}
	if want := cat(b[:2], mdlayherValue(TLVTypeOrg, b[2:])); !bytes.Equal(m, want) {
		t.Fatalf("marshal\n got %x\nwant %x", m, want)
	}
	got2, err := unmarshal(m)
	if err != nil {
		t.Fatalf("unmarshal of the marshalled TLV: %v", err)
	}
	if diff := cmp.Diff(got, got2); diff != "" {
		t.Fatalf("round trip (-first +second):\n%s", diff)
	}
	du, err := Parse(lldpdu(b))
	if err != nil {
		t.Fatalf("Parse rejects a TLV UnmarshalBinary accepts: %v", err)
	}
	if diff := cmp.Diff([]TLV{got}, du.TLVs); diff != "" {
		t.Fatalf("Parse and UnmarshalBinary differ (-UnmarshalBinary +Parse):\n%s", diff)
	}
}

// checkOrgError checks an UnmarshalBinary error.
func checkOrgError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset != 0 {
		t.Fatalf("error %v is not a *ParseError at offset 0", err)
	}
	switch pe.Err {
	case ErrTruncated, ErrInvalidLength, ErrInvalidValue:
	default:
		t.Fatalf("ParseError.Err = %v", pe.Err)
	}
}

// fuzzOrg fuzzes the UnmarshalBinary of an 802.1Qaz TLV type: an error
// is a *ParseError at offset 0, and an accepted input has a length the
// type allows (validLen, given the length of the information string) and
// passes checkOrgTLV.
func fuzzOrg(f *testing.F, seeds [][]byte, unmarshal func([]byte) (TLV, error), validLen func(n int) bool) {
	for _, b := range seeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := unmarshal(b)
		if err != nil {
			checkOrgError(t, err)
			return
		}
		if !validLen(len(b) - 2) {
			t.Fatalf("%T accepted a %d-byte TLV", got, len(b))
		}
		checkOrgTLV(t, b, got, unmarshal)
	})
}

// FuzzETS fuzzes ETS.UnmarshalBinary: see fuzzOrg.
func FuzzETS(f *testing.F) {
	fuzzOrg(f, [][]byte{refETS, lldpdETS, lldpdReco, refETS[:20], cat(refETS, hx("00")), refPFC},
		func(b []byte) (TLV, error) { e := &ETS{}; return e, e.UnmarshalBinary(b) },
		func(n int) bool { return n == etsLen })
}

// FuzzPFC fuzzes PFC.UnmarshalBinary: see fuzzOrg.
func FuzzPFC(f *testing.F) {
	fuzzOrg(f, [][]byte{refPFC, hx("FE 06 00 80 C2 0B C4 29"), hx("FE 06 00 80 C2 0B 38 01"), hx("FE 07 00 80 C2 0B 88 08 00"), refETS},
		func(b []byte) (TLV, error) { p := &PFC{}; return p, p.UnmarshalBinary(b) },
		func(n int) bool { return n == pfcLen })
}

// FuzzAppPriority fuzzes AppPriority.UnmarshalBinary: see fuzzOrg.
func FuzzAppPriority(f *testing.F) {
	fuzzOrg(f, [][]byte{
		lldpdApp,
		hx("FE 05 00 80 C2 0C 00"),
		hx("FE 0B 00 80 C2 0C FF  7B 12 B7  FF FF FF"),
		hx("FE 07 00 80 C2 0C 00 63 12"),
	},
		func(b []byte) (TLV, error) { a := &AppPriority{}; return a, a.UnmarshalBinary(b) },
		func(n int) bool { return n >= appHeaderLen && (n-appHeaderLen)%appEntryLen == 0 })
}

// FuzzCEE fuzzes the sub-TLVs of a CEE TLV: the input is what follows the
// OUI and subtype. A CEE TLV that Parse discards has a truncation or
// invalid-length *ParseError naming the CEE TLV at its offset; one it
// keeps decodes as a *CEE and passes checkOrgTLV.
func FuzzCEE(f *testing.F) {
	for _, b := range [][]byte{refCEE, juniperCEE, n5kCEE} {
		f.Add(b[6:])
	}
	f.Add(hx("0A 02 AA BB  00 00  FE 03 01 02 03"))
	f.Add(hx("02 0A 00 00 00 00"))
	f.Add(hx("04 10 00 00 C0 00 00 00 11 1F 19 4B 00 00 00 00 00 00"))
	unmarshal := func(b []byte) (TLV, error) {
		du, err := Parse(lldpdu(b))
		if err != nil {
			return nil, err
		}
		if len(du.Discarded) > 0 {
			return nil, du.Discarded[0].Err // the CEE TLV had an error
		}
		return du.TLVs[0], nil
	}
	f.Fuzz(func(t *testing.T, subs []byte) {
		b := orgTLV(OUICEE, SubtypeCEE, subs)
		if b == nil {
			return
		}
		got, err := unmarshal(b)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset != offOptional || pe.OUI != OUICEE || pe.Sub != SubtypeCEE ||
				(pe.Err != ErrTruncated && pe.Err != ErrInvalidLength) {
				t.Fatalf("error %#v (%v), want a ParseError for the CEE TLV at offset %d", pe, err, offOptional)
			}
			return
		}
		if _, ok := got.(*CEE); !ok {
			t.Fatalf("decoded as %T", got)
		}
		checkOrgTLV(t, b, got, unmarshal)
	})
}

// readSeed returns the []byte of a seed file in go test fuzz v1 format.
func readSeed(t *testing.T, target, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "fuzz", target, name))
	if err != nil {
		t.Fatal(err)
	}
	header, value, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
	lit, ok := strings.CutPrefix(value, "[]byte(")
	if header != "go test fuzz v1" || !ok || !strings.HasSuffix(lit, ")") {
		t.Fatalf("%s/%s is not a go test fuzz v1 []byte seed", target, name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s/%s: %v", target, name, err)
	}
	return []byte(s)
}

// Inputs that broke the codec before it was fixed. Each is a seed in
// testdata/fuzz/FuzzParse, so go test also runs it through FuzzParse.
func TestParseRegressions(t *testing.T) {
	tests := []struct {
		name string
		seed string
		err  error
	}{
		// DU.AppendBinary wrote the Chassis/Port ID length as one byte,
		// dropping bit 8: a 255-byte ID (length 256) went out as length 0.
		{"chassis ID of 255 bytes", "regress-chassis-id-255-bytes", nil},
		// Parse kept a 300-byte System Description, marshal refused it
		// (255-byte limit): parse -> marshal failed.
		{"system description of 300 bytes", "regress-sysdesc-300-bytes", nil},
		// Parse kept a 200-byte OID, marshal refused it (128-byte limit).
		// The Management Address TLV is optional: it is now discarded and
		// the LLDPDU parses (802.1AB 9.2.7.7.2).
		{"management OID of 200 bytes", "regress-mgmt-oid-200-bytes", nil},
		// PeekMSAP said ErrTruncated where Parse said ErrMandatory.
		{"LLDPDU ends after the port ID", "regress-ends-after-port-id", ErrMandatory},
		// ParseError.Err wrapped the sentinel instead of being it. The PFC
		// TLV is now discarded (its ParseError in DU.Discarded).
		{"PFC of length 7", "regress-pfc-length-7", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := readSeed(t, "FuzzParse", tt.seed)
			_, err := Parse(b)
			checkErr(t, err, tt.err)
			var pe *ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Err != tt.err) {
				t.Errorf("error %#v, want a *ParseError with Err %v", err, tt.err)
			}
			checkParse(t, b)
		})
	}
}
