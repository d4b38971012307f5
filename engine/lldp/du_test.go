// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// typicalLLDPDU is what a DCBX switch port sends: chassis, port, TTL, port
// description, system name, ETS, ETS recommendation, PFC and APP with three
// entries.
var typicalLLDPDU = lldpdu(
	hx("08 05 73 77 70 31 32"),          // Port Description "swp12"
	hx("0A 08 6C 65 61 66 2D 30 31 61"), // System Name "leaf-01a"
	lldpdETS, lldpdReco, refPFC,
	hx("FE 0E 00 80 C2 0C 00  63 12 B7  65 00 1A  61 89 06"),
)

var typicalDU = baseDU(
	&Text{TLVTypePortDescription, "swp12"},
	&Text{TLVTypeSystemName, "leaf-01a"},
	lldpdETSWant, lldpdRecoWant, refPFCWant,
	&AppPriority{Entries: []AppEntry{
		{Priority: 3, Selector: AppSelUDP, Protocol: 4791},
		{Priority: 3, Selector: AppSelDSCP, Protocol: 26},
		{Priority: 3, Selector: AppSelEthertype, Protocol: 0x8906},
	}},
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want *DU
	}{
		{"mandatory TLVs only", lldpdu(), baseDU()},
		{"shutdown", cat(tlvChassis, tlvPort, hx("06 02 00 00"), tlvEnd),
			&DU{ChassisID: baseDU().ChassisID, PortID: baseDU().PortID, TTL: 0}},
		{"typical DCBX", typicalLLDPDU, typicalDU},
		{"CEE", lldpdu(hx("0A 03 73 77 31"), refCEE), baseDU(&Text{TLVTypeSystemName, "sw1"}, refCEEWant)},
		{"unknown TLVs between DCBX TLVs",
			lldpdu(hx("12 01 01"), refPFC, hx("FE 06 00 80 C2 06 00 32"), refETS),
			baseDU(&RawTLV{T: 9, Value: hx("01")}, refPFCWant, &RawTLV{T: TLVTypeOrg, Value: hx("00 80 C2 06 00 32")}, refETSWant)},
		{"basic 802.1 and 802.3 TLVs between DCBX TLVs",
			lldpdu(hx("FE 06 00 80 C2 01 00 32"), refPFC, lldpdMACPHY, refETS, hx("FE 06 00 12 0F 04 24 00")),
			baseDU(&PortVLANID{PVID: 50}, refPFCWant, lldpdMACPHYWant, refETSWant, &MaxFrameSize{Size: 9216})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.b)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(DU{}, "Findings")); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.b, mustMarshal(t, got)); diff != "" {
				t.Errorf("MarshalBinary (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.b, mustMarshal(t, tt.want)); diff != "" {
				t.Errorf("MarshalBinary of want (-want +got):\n%s", diff)
			}
		})
	}
}

// Parse, marshal and parse again gives the same DU, Findings included;
// for canonical input the bytes are the same too.
func TestRoundTrip(t *testing.T) {
	type input struct {
		name      string
		b         []byte
		canonical bool // MarshalBinary gives b back
	}
	inputs := []input{
		{"mandatory only", lldpdu(), true},
		{"typical DCBX", typicalLLDPDU, true},
		{"CEE 4.5", lldpdu(refCEE), true},
		{"CEE Juniper", lldpdu(juniperCEE), true},
		{"CIN", lldpdu(cinTLV), true},
		{"both dialects, duplicates", lldpdu(refETS, refETS, refCEE, refPFC, refCEE, cinTLV), true},
		{"reserved bits", lldpdu(hx("FE 06 00 80 C2 0B 38 01"), hx("FE 08 00 80 C2 0C FF 7B 12 B7")), false},
		{"basic 802.1 and 802.3 TLVs", lldpdu(basicOrgBytes()...), true},
		{"padding", cat(lldpdu(refPFC), make([]byte, 11)), false},
		{"no End", cat(tlvChassis, tlvPort, tlvTTL, refPFC), false},
	}
	for _, f := range allFixtureFrames(t) {
		// lldpd sends no padding on a veth and no reserved bits.
		inputs = append(inputs, input{f.name(), lldpduOf(t, f.data), true})
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			du1 := mustParse(t, in.b)
			b2 := mustMarshal(t, du1)
			du2 := mustParse(t, b2)
			if diff := cmp.Diff(du1, du2); diff != "" {
				t.Errorf("parse, marshal, parse (-first +second):\n%s", diff)
			}
			if in.canonical {
				if diff := cmp.Diff(in.b, b2); diff != "" {
					t.Errorf("MarshalBinary (-input +marshalled):\n%s", diff)
				}
			}
			prefix := []byte("xyz")
			b3, err := du1.AppendBinary(prefix)
			if err != nil || !bytes.Equal(b3, cat(prefix, b2)) {
				t.Errorf("AppendBinary(prefix) = %x, %v; want prefix + MarshalBinary", b3, err)
			}
		})
	}
}

func TestPadding(t *testing.T) {
	want := baseDU(refPFCWant)
	tests := []struct {
		name string
		b    []byte
	}{
		{"none", lldpdu(refPFC)},
		{"even zero padding", cat(lldpdu(refPFC), make([]byte, 10))},
		{"odd zero padding", cat(lldpdu(refPFC), make([]byte, 7))},
		{"one byte", cat(lldpdu(refPFC), hx("00"))},
		{"junk after End", cat(lldpdu(refPFC), hx("FF FF 12"))},
		{"a TLV header after End", cat(lldpdu(refPFC), hx("FE FF 00"))},
		{"a bad TLV after End", cat(lldpdu(refPFC), hx("FE 18"), refETS[2:26])},
		{"no End", cat(tlvChassis, tlvPort, tlvTTL, refPFC)},
		{"padded to 60 by AppendFrame", cat(lldpdu(refPFC), make([]byte, 60-14-len(lldpdu(refPFC))))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.b)
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(DU{}, "Findings")); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(lldpdu(refPFC), mustMarshal(t, got)); diff != "" {
				t.Errorf("MarshalBinary (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("no End, mandatory only", func(t *testing.T) {
		got := mustParse(t, cat(tlvChassis, tlvPort, tlvTTL))
		if diff := cmp.Diff(baseDU(), got); diff != "" {
			t.Errorf("Parse (-want +got):\n%s", diff)
		}
	})
}

// Results never alias the input: a capture loop reuses its buffer.
func TestParseDoesNotAlias(t *testing.T) {
	b := lldpdu(hx("08 02 70 30"), hx("10 13 05 01 C0 A8 00 3A 02 05 00 00 00 07 2B 06 01 04 01 BF 08"),
		hx("12 03 01 02 03"), refCEE, refETS, hx("FE 08 00 80 C2 0C 00 63 12 B7"),
		hx("FE 0F 00 1B 21 02  0A 02 AA BB  00 00  FE 03 01 02 03"))
	want := mustParse(t, bytes.Clone(b))
	got := mustParse(t, b)
	for i := range b {
		b[i] = 0xEE
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DU changed with its input buffer (-want +got):\n%s", diff)
	}
}

// checkDiscarded checks that b parses with exactly one discarded TLV,
// described by want (and message, the error's text, when given), reported
// as a tlv-discarded finding, and that the LLDPDU re-encodes without it.
func checkDiscarded(t *testing.T, b []byte, want ParseError, message string) {
	t.Helper()
	du, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse error %v, want the LLDPDU with the TLV discarded", err)
	}
	if len(du.Discarded) != 1 {
		t.Fatalf("discarded %+v, want one TLV", du.Discarded)
	}
	d := du.Discarded[0]
	if d.Offset != want.Offset || d.Type != want.Type || d.OUI != want.OUI || d.Sub != want.Sub {
		t.Errorf("discarded %+v, want offset %d type %v OUI %v/%d", d, want.Offset, want.Type, want.OUI, want.Sub)
	}
	if diff := cmp.Diff(want, *d.Err, cmpErrors, cmpopts.IgnoreFields(ParseError{}, "Detail")); diff != "" {
		t.Errorf("discard error (-want +got):\n%s", diff)
	}
	if message != "" && d.Err.Error() != message {
		t.Errorf("discard error:\n got %s\nwant %s", d.Err, message)
	}
	var diags int
	for _, g := range du.Findings {
		if g.Code == CodeTLVDiscarded {
			diags++
			if !strings.Contains(g.Message, fmt.Sprintf("offset %d", want.Offset)) {
				t.Errorf("finding %+v does not give the offset %d", g, want.Offset)
			}
		}
	}
	if diags != 1 {
		t.Errorf("%d tlv-discarded findings in %+v, want 1", diags, du.Findings)
	}
	for _, tlv := range du.TLVs {
		if tlv.Type() == want.Type && want.Type != TLVTypeOrg {
			t.Errorf("the discarded TLV is among the TLVs: %+v", tlv)
		}
	}
	again, err := du.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	du2, err := Parse(again)
	if err != nil || len(du2.Discarded) != 0 || len(du2.TLVs) != len(du.TLVs) {
		t.Errorf("re-encoded LLDPDU: %v, discarded %+v, %d TLVs (want %d)", err, du2.Discarded, len(du2.TLVs), len(du.TLVs))
	}
}

func TestParseMalformed(t *testing.T) {
	long := cat(hx("05 01 07"), make([]byte, 256)) // Port ID of length 257
	tests := []struct {
		name    string
		b       []byte
		want    ParseError // Detail is not compared
		message string     // the complete Error(), when checked
	}{
		{name: "empty", b: nil,
			want:    ParseError{Offset: 0, Type: TLVTypeChassisID, Err: ErrMandatory},
			message: "lldp: TLV Chassis ID at offset 0: mandatory TLV missing or out of order: LLDPDU ends after 0 TLVs"},
		{name: "header cut off", b: hx("02"),
			want: ParseError{Offset: 0, Type: TLVTypeChassisID, Err: ErrTruncated}},
		{name: "header cut off after TTL", b: cat(tlvChassis, tlvPort, tlvTTL, hx("0A")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeSystemName, Err: ErrTruncated},
			message: "lldp: TLV System Name at offset 20: truncated: TLV header cut off"},
		{name: "chassis ID past end", b: hx("02 07 04 02 00"),
			want: ParseError{Offset: 0, Type: TLVTypeChassisID, Err: ErrTruncated}},
		{name: "TLV past end", b: cat(tlvChassis, tlvPort, tlvTTL, hx("0A 05 73 77")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeSystemName, Err: ErrTruncated},
			message: "lldp: TLV System Name at offset 20: truncated: length 5 but 2 bytes left"},
		{name: "org TLV past end", b: cat(tlvChassis, tlvPort, tlvTTL, refETS[:20]),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypeETSConfig, Err: ErrTruncated}},
		{name: "chassis ID missing", b: cat(tlvPort, tlvTTL, tlvEnd),
			want:    ParseError{Offset: 0, Type: TLVTypePortID, Err: ErrMandatory},
			message: "lldp: TLV Port ID at offset 0: mandatory TLV missing or out of order: TLV #1 is Port ID, want Chassis ID"},
		{name: "chassis and port swapped", b: cat(tlvPort, tlvChassis, tlvTTL, tlvEnd),
			want: ParseError{Offset: 0, Type: TLVTypePortID, Err: ErrMandatory}},
		{name: "End first", b: tlvEnd,
			want: ParseError{Offset: 0, Type: TLVTypeEnd, Err: ErrMandatory}},
		{name: "port ID missing", b: cat(tlvChassis, tlvTTL, tlvEnd),
			want: ParseError{Offset: 9, Type: TLVTypeTTL, Err: ErrMandatory}},
		{name: "TTL missing", b: cat(tlvChassis, tlvPort, tlvEnd),
			want: ParseError{Offset: 16, Type: TLVTypeEnd, Err: ErrMandatory}},
		{name: "TTL after a description", b: cat(tlvChassis, tlvPort, hx("08 02 70 30"), tlvTTL, tlvEnd),
			want: ParseError{Offset: 16, Type: TLVTypePortDescription, Err: ErrMandatory}},
		{name: "ends after 2 TLVs", b: cat(tlvChassis, tlvPort),
			want:    ParseError{Offset: 16, Type: TLVTypeTTL, Err: ErrMandatory},
			message: "lldp: TLV TTL at offset 16: mandatory TLV missing or out of order: LLDPDU ends after 2 TLVs"},
		{name: "TTL repeated", b: lldpdu(tlvTTL),
			want:    ParseError{Offset: offOptional, Type: TLVTypeTTL, Err: ErrMandatory},
			message: "lldp: TLV TTL at offset 20: mandatory TLV missing or out of order: TTL repeated"},
		{name: "TTL repeated after DCBX", b: lldpdu(refPFC, hx("06 02 00 00")),
			want: ParseError{Offset: offOptional + len(refPFC), Type: TLVTypeTTL, Err: ErrMandatory}},
		{name: "chassis ID repeated", b: lldpdu(tlvChassis),
			want: ParseError{Offset: offOptional, Type: TLVTypeChassisID, Err: ErrMandatory}},
		{name: "port ID repeated", b: lldpdu(tlvPort),
			want: ParseError{Offset: offOptional, Type: TLVTypePortID, Err: ErrMandatory}},
		{name: "TTL length 3", b: cat(tlvChassis, tlvPort, hx("06 03 00 78 00"), tlvEnd),
			want:    ParseError{Offset: 16, Type: TLVTypeTTL, Err: ErrInvalidLength},
			message: "lldp: TLV TTL at offset 16: invalid length: 3, want 2"},
		{name: "TTL length 1", b: cat(tlvChassis, tlvPort, hx("06 01 78"), tlvEnd),
			want: ParseError{Offset: 16, Type: TLVTypeTTL, Err: ErrInvalidLength}},
		{name: "chassis ID length 1", b: cat(hx("02 01 04"), tlvPort, tlvTTL, tlvEnd),
			want:    ParseError{Offset: 0, Type: TLVTypeChassisID, Err: ErrInvalidLength},
			message: "lldp: TLV Chassis ID at offset 0: invalid length: 1, want 2..256"},
		{name: "chassis ID length 0", b: cat(hx("02 00"), tlvPort, tlvTTL, tlvEnd),
			want: ParseError{Offset: 0, Type: TLVTypeChassisID, Err: ErrInvalidLength}},
		{name: "port ID length 257", b: cat(tlvChassis, long, tlvTTL, tlvEnd),
			want: ParseError{Offset: 9, Type: TLVTypePortID, Err: ErrInvalidLength}},
		{name: "system capabilities length 3", b: lldpdu(hx("0E 03 00 14 00")),
			want: ParseError{Offset: offOptional, Type: TLVTypeSystemCapabilities, Err: ErrInvalidLength}},
		{name: "management address length 8", b: lldpdu(hx("10 08 05 01 C0 00 02 01 02 00")),
			want: ParseError{Offset: offOptional, Type: TLVTypeManagementAddress, Err: ErrInvalidLength}},
		{name: "management address string length 1", b: lldpdu(hx("10 0A 01 01 C0 00 02 01 02 00 00 00")),
			want: ParseError{Offset: offOptional, Type: TLVTypeManagementAddress, Err: ErrInvalidLength}},
		{name: "management address string past the TLV", b: lldpdu(hx("10 0C 0A 01 C0 00 02 01 02 00 00 00 02 00")),
			want: ParseError{Offset: offOptional, Type: TLVTypeManagementAddress, Err: ErrInvalidLength}},
		{name: "management OID past the TLV", b: lldpdu(hx("10 0C 05 01 C0 00 02 01 02 00 00 00 02 01")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeManagementAddress, Err: ErrInvalidLength},
			message: "lldp: TLV Management Address at offset 20: invalid length: OID length 1 does not fit the TLV (0 bytes left, at most 128)"},
		{name: "management OID of 129 bytes", b: lldpdu(cat(hx("10 8D 05 01 C0 00 02 01 02 00 00 00 02 81"), make([]byte, 129))),
			want: ParseError{Offset: offOptional, Type: TLVTypeManagementAddress, Err: ErrInvalidLength}},
		{name: "org length 3", b: lldpdu(hx("FE 03 00 80 C2")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, Err: ErrInvalidLength},
			message: "lldp: TLV Org at offset 20: invalid length: 3, want at least 4 (OUI and subtype)"},
		{name: "ETS length 24", b: lldpdu(cat(hx("FE 18"), refETS[2:26])),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypeETSConfig, Err: ErrInvalidLength},
			message: "lldp: TLV Org 00-80-c2/9 at offset 20: invalid length: 24, want 25"},
		{name: "ETS recommendation length 26", b: lldpdu(cat(hx("FE 1A"), lldpdReco[2:], hx("00"))),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypeETSReco, Err: ErrInvalidLength}},
		{name: "PFC length 7", b: lldpdu(hx("FE 07 00 80 C2 0B 88 08 00")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypePFC, Err: ErrInvalidLength},
			message: "lldp: TLV Org 00-80-c2/11 at offset 20: invalid length: 7, want 6"},
		{name: "PFC length 5", b: lldpdu(hx("FE 05 00 80 C2 0B 88")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypePFC, Err: ErrInvalidLength}},
		{name: "APP length 7", b: lldpdu(hx("FE 07 00 80 C2 0C 00 63 12")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypeAppPriority, Err: ErrInvalidLength},
			message: "lldp: TLV Org 00-80-c2/12 at offset 20: invalid length: 7, want 5+3N"},
		{name: "APP length 4", b: lldpdu(hx("FE 04 00 80 C2 0C")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypeAppPriority, Err: ErrInvalidLength}},
		{name: "bad PFC after a good ETS", b: lldpdu(refETS, hx("FE 07 00 80 C2 0B 88 08 00")),
			want: ParseError{Offset: offOptional + len(refETS), Type: TLVTypeOrg, OUI: OUIIEEE8021, Sub: SubtypePFC, Err: ErrInvalidLength}},
		{name: "CEE sub-TLV past the TLV", b: lldpdu(hx("FE 0A 00 1B 21 02  02 0A 00 00 00 00")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrTruncated},
			message: "lldp: TLV Org 00-1b-21/2 at offset 20: truncated: CEE sub-TLV at offset 26: type 1 length 10 but 4 bytes left"},
		{name: "CEE sub-TLV header cut off", b: lldpdu(hx("FE 11 00 1B 21 02  02 0A 00 00 00 00 00 03 00 00 00 02  06")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrTruncated},
			message: "lldp: TLV Org 00-1b-21/2 at offset 20: truncated: CEE sub-TLV at offset 38: header cut off"},
		{name: "CEE PG length 16", b: lldpdu(hx("FE 16 00 1B 21 02  04 10 00 00 C0 00 00 00 11 1F 19 4B 00 00 00 00 00 00")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength},
			message: "lldp: TLV Org 00-1b-21/2 at offset 20: invalid length: CEE sub-TLV at offset 26: type 2 length 16, want 17"},
		{name: "CEE control length 9", b: lldpdu(hx("FE 0F 00 1B 21 02  02 09 00 00 00 00 00 03 00 00 00")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength}},
		{name: "CEE PFC length 5", b: lldpdu(hx("FE 0B 00 1B 21 02  06 05 00 00 C0 00 08")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength}},
		{name: "CEE APP length 9", b: lldpdu(hx("FE 0F 00 1B 21 02  08 09 00 00 80 00 89 06 00 1B 21")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength}},
		{name: "CEE APP length 3", b: lldpdu(hx("FE 09 00 1B 21 02  08 03 00 00 80")),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength}},
		{name: "CEE second PG length 16", b: lldpdu(cat(hx("FE 35"), refCEE[2:37], hx("04 10"), make([]byte, 16))),
			want: ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: OUICEE, Sub: SubtypeCEE, Err: ErrInvalidLength}},
		{name: "End with a value", b: cat(tlvChassis, tlvPort, tlvTTL, hx("00 01 00")),
			want:    ParseError{Offset: offOptional, Type: TLVTypeEnd, Err: ErrInvalidLength},
			message: "lldp: TLV End at offset 20: invalid length: 1, want 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// An error inside an optional TLV discards that TLV only
			// (802.1AB 9.2.7.7.2): the LLDPDU parses. Framing errors
			// (a TLV running past the LLDPDU; truncated, except inside
			// a CEE TLV) and mandatory TLV errors still reject it.
			framing := tt.want.Err == ErrTruncated && tt.want.OUI != OUICEE
			if tt.want.Type >= TLVTypePortDescription && tt.want.Err != ErrMandatory && !framing {
				checkDiscarded(t, tt.b, tt.want, tt.message)
				return
			}
			du, err := Parse(tt.b)
			if !errors.Is(err, tt.want.Err) {
				t.Fatalf("Parse error = %v, want %v", err, tt.want.Err)
			}
			if du != nil {
				t.Errorf("Parse returned a DU with the error: %+v", du)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			if pe.Err != tt.want.Err {
				t.Errorf("ParseError.Err = %#v, want the sentinel %v itself", pe.Err, tt.want.Err)
			}
			if diff := cmp.Diff(tt.want, *pe, cmpErrors, cmpopts.IgnoreFields(ParseError{}, "Detail")); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if pe.Detail == "" {
				t.Errorf("ParseError.Detail is empty: %v", err)
			}
			if tt.message != "" && err.Error() != tt.message {
				t.Errorf("Error():\n got %s\nwant %s", err, tt.message)
			}

			// UnmarshalBinary fails the same way and leaves the DU alone.
			old := baseDU(refPFCWant)
			old.Findings = old.Validate()
			d := *old
			if err2 := d.UnmarshalBinary(tt.b); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("UnmarshalBinary error = %v, want %v", err2, err)
			}
			if diff := cmp.Diff(old, &d); diff != "" {
				t.Errorf("UnmarshalBinary changed the DU on error (-want +got):\n%s", diff)
			}

			// PeekMSAP checks the first three TLVs as Parse does: it
			// returns the same error for them, and succeeds when the
			// problem lies after the TTL.
			_, _, _, perr := PeekMSAP(tt.b)
			if perr == nil {
				if pe.Offset < offOptional {
					t.Errorf("PeekMSAP accepted an LLDPDU whose mandatory TLVs Parse rejects: %v", err)
				}
			} else {
				var ppe *ParseError
				if !errors.As(perr, &ppe) {
					t.Fatalf("PeekMSAP error %T is not a *ParseError", perr)
				}
				if diff := cmp.Diff(*pe, *ppe, cmpErrors); diff != "" {
					t.Errorf("PeekMSAP error differs from Parse's (-Parse +PeekMSAP):\n%s", diff)
				}
			}
		})
	}
}

// Decoding keeps no state: a bad frame in a sequence does not disturb
// the frames after it, whether each gets a fresh DU (Parse) or one DU is
// reused (UnmarshalBinary).
func TestParseSequence(t *testing.T) {
	cee := lldpdu(refCEE)
	frames := []struct {
		b    []byte
		want *DU // nil: the frame is bad
	}{
		{typicalLLDPDU, typicalDU},
		{cat(tlvChassis, tlvPort, tlvTTL, hx("FE 07 00 80 C2 0B 88")), nil}, // PFC TLV past the end
		{cee, baseDU(refCEEWant)},
		{cat(tlvChassis, tlvPort), nil},
		{cat(tlvChassis, tlvPort, tlvTTL, hx("FE 0A 00 1B")), nil}, // CEE TLV past the end
		{lldpdu(), baseDU()},
		{typicalLLDPDU, typicalDU},
	}
	var reused DU
	last := &DU{}
	for i, f := range frames {
		got, err := Parse(f.b)
		uerr := reused.UnmarshalBinary(f.b)
		if f.want == nil {
			if err == nil || uerr == nil {
				t.Errorf("frame %d: Parse error %v, UnmarshalBinary error %v; want errors", i, err, uerr)
			}
			if diff := cmp.Diff(last, &reused); diff != "" {
				t.Errorf("frame %d: reused DU changed by a bad frame (-want +got):\n%s", i, diff)
			}
			continue
		}
		if err != nil || uerr != nil {
			t.Fatalf("frame %d: Parse error %v, UnmarshalBinary error %v", i, err, uerr)
		}
		if diff := cmp.Diff(f.want, got, cmpopts.IgnoreFields(DU{}, "Findings")); diff != "" {
			t.Errorf("frame %d: Parse (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(got, &reused); diff != "" {
			t.Errorf("frame %d: reused DU differs from Parse (-Parse +reused):\n%s", i, diff)
		}
		last = got
	}
}

func TestPeekMSAP(t *testing.T) {
	tests := []struct {
		name          string
		b             []byte
		chassis, port []byte
		ttl           uint16
	}{
		{"typical", typicalLLDPDU, tlvChassis[2:], tlvPort[2:], 120},
		{"mandatory only, no End", cat(tlvChassis, tlvPort, tlvTTL), tlvChassis[2:], tlvPort[2:], 120},
		// Only the MSAP is looked at: a bad TLV later does not matter.
		{"bad TLV later", lldpdu(hx("FE 07 00 80 C2 0B 88 08 00")), tlvChassis[2:], tlvPort[2:], 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chassis, port, ttl, err := PeekMSAP(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(chassis, tt.chassis) || !bytes.Equal(port, tt.port) || ttl != tt.ttl {
				t.Errorf("PeekMSAP = %x, %x, %d; want %x, %x, %d", chassis, port, ttl, tt.chassis, tt.port, tt.ttl)
			}
			// The IDs alias b, as documented.
			if &chassis[0] != &tt.b[2] {
				t.Errorf("chassis ID does not alias the LLDPDU")
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		du   *DU
	}{
		{"no chassis ID", &DU{PortID: PortID{PortIDSubtypeInterfaceName, []byte("swp1")}}},
		{"no port ID", &DU{ChassisID: ChassisID{ChassisIDSubtypeLocallyAssigned, []byte("x")}}},
		{"chassis ID of 256 bytes", &DU{ChassisID: ChassisID{ChassisIDSubtypeLocallyAssigned, make([]byte, 256)},
			PortID: PortID{PortIDSubtypeInterfaceName, []byte("swp1")}}},
		{"port ID of 256 bytes", &DU{ChassisID: ChassisID{ChassisIDSubtypeLocallyAssigned, []byte("x")},
			PortID: PortID{PortIDSubtypeInterfaceName, make([]byte, 256)}}},
		{"bad optional TLV", baseDU(refPFCWant, &PFC{Cap: 16})},
		{"optional TTL", baseDU(&RawTLV{T: TLVTypeTTL, Value: hx("00 00")})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := hx("AA BB")
			got, err := tt.du.AppendBinary(prefix)
			checkErr(t, err, ErrInvalidValue)
			if diff := cmp.Diff(prefix, got); diff != "" {
				t.Errorf("AppendBinary changed b on error (-want +got):\n%s", diff)
			}
			if _, err := tt.du.MarshalBinary(); !errors.Is(err, ErrInvalidValue) {
				t.Errorf("MarshalBinary error = %v, want %v", err, ErrInvalidValue)
			}
		})
	}
}
