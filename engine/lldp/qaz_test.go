// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// 802.1Qaz TLVs of testbed/record-fixtures.sh (ETS_CFG, ETS_RECO, PFC_34
// and APP_FULL) and what they decode to.
var (
	lldpdETS     = hx(`FE 19 00 80 C2 09  00  00 01 02 00  28 32 0A 00 00 00 00 00  02 02 02 00 00 00 00 00`)
	lldpdETSWant = &ETS{MaxTCs: 8, PrioTC: [8]uint8{3: 1, 5: 2},
		Bandwidth: [8]uint8{40, 50, 10}, TSA: [8]TSA{TSAETS, TSAETS, TSAETS}}
	lldpdReco     = hx(`FE 19 00 80 C2 0A  00  00 01 10 20  1E 46 00 00 00 00 00 00  02 02 00 00 00 00 00 00`)
	lldpdRecoWant = &ETS{Recommendation: true, PrioTC: [8]uint8{3: 1, 4: 1, 6: 2},
		Bandwidth: [8]uint8{30, 70}, TSA: [8]TSA{TSAETS, TSAETS}}
	lldpdPFC     = hx("FE 06 00 80 C2 0B 08 18")
	lldpdPFCWant = &PFC{Cap: 8, Enabled: 0x18}
	lldpdApp     = hx("FE 17 00 80 C2 0C 00  61 89 06  63 12 B7  82 0C BC  44 11 44  65 00 1A  A5 00 2E")
	lldpdAppWant = &AppPriority{Entries: []AppEntry{
		{Priority: 3, Selector: AppSelEthertype, Protocol: 0x8906},
		{Priority: 3, Selector: AppSelUDP, Protocol: 4791},
		{Priority: 4, Selector: AppSelTCP, Protocol: 3260},
		{Priority: 2, Selector: AppSelPort, Protocol: 4420},
		{Priority: 3, Selector: AppSelDSCP, Protocol: 26},
		{Priority: 5, Selector: AppSelDSCP, Protocol: 46},
	}}
)

func TestETS(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "reference 2.1", b: refETS, want: refETSWant},
		{name: "lldpd configuration", b: lldpdETS, want: lldpdETSWant},
		{name: "willing, CBS, 3 TCs",
			b:    hx("FE 19 00 80 C2 09  C3  00 00 12 22  32 32 00 00 00 00 00 00  02 02 00 00 00 00 00 00"),
			want: &ETS{Willing: true, CBS: true, MaxTCs: 3, PrioTC: [8]uint8{0, 0, 0, 0, 1, 2, 2, 2}, Bandwidth: [8]uint8{50, 50}, TSA: [8]TSA{TSAETS, TSAETS}}},
		{name: "max TCs 0 means 8",
			b:    hx("FE 19 00 80 C2 09  40  00 00 00 00  64 00 00 00 00 00 00 00  02 00 00 00 00 00 00 00"),
			want: &ETS{CBS: true, MaxTCs: 8, Bandwidth: [8]uint8{100}, TSA: [8]TSA{TSAETS}}},
		{name: "max TCs 1",
			b:    hx("FE 19 00 80 C2 09  01  00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00"),
			want: &ETS{MaxTCs: 1}},
		{name: "nibble order ascending",
			b: hx("FE 19 00 80 C2 09  00  01 23 45 67  0C 0C 0C 0C 0C 0C 0C 10  02 02 02 02 02 02 02 02"),
			want: &ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}, Bandwidth: [8]uint8{12, 12, 12, 12, 12, 12, 12, 16},
				TSA: [8]TSA{TSAETS, TSAETS, TSAETS, TSAETS, TSAETS, TSAETS, TSAETS, TSAETS}}},
		{name: "nibble order descending",
			b:    hx("FE 19 00 80 C2 09  00  76 54 32 10  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00"),
			want: &ETS{MaxTCs: 8, PrioTC: [8]uint8{7, 6, 5, 4, 3, 2, 1, 0}}},
		{name: "reserved TC numbers 8 to 15 kept",
			b:    hx("FE 19 00 80 C2 09  00  89 AB CD EF  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00"),
			want: &ETS{MaxTCs: 8, PrioTC: [8]uint8{8, 9, 10, 11, 12, 13, 14, 15}}},
		{name: "every TSA",
			b:    hx("FE 19 00 80 C2 09  00  00 00 00 00  00 00 64 00 00 00 00 00  00 01 02 FF 03 80 FE 00"),
			want: &ETS{MaxTCs: 8, Bandwidth: [8]uint8{2: 100}, TSA: [8]TSA{TSAStrict, TSACBS, TSAETS, TSAVendor, 3, 128, 254, TSAStrict}}},
		{name: "reserved bits 5-3 dropped",
			b:       hx("FE 19 00 80 C2 09  B8  00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00"),
			want:    &ETS{Willing: true, MaxTCs: 8},
			encoded: hx("FE 19 00 80 C2 09  80  00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00")},
		{name: "recommendation (lldpd)", b: lldpdReco, want: lldpdRecoWant},
		{name: "recommendation byte 4 reserved",
			b:       hx("FE 19 00 80 C2 0A  FF  00 00 00 10  32 32 00 00 00 00 00 00  02 02 00 00 00 00 00 00"),
			want:    &ETS{Recommendation: true, PrioTC: [8]uint8{6: 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]TSA{TSAETS, TSAETS}},
			encoded: hx("FE 19 00 80 C2 0A  00  00 00 00 10  32 32 00 00 00 00 00 00  02 02 00 00 00 00 00 00")},
	})
}

func TestETSEncodeOnly(t *testing.T) {
	tests := []struct {
		name string
		ets  *ETS
		want []byte
	}{
		// A zero MaxTCs is sent as 0, which means 8.
		{"zero max TCs", &ETS{}, hx("FE 19 00 80 C2 09  00  00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00")},
		// The recommendation has no flags; set ones are not sent.
		{"recommendation ignores flags", &ETS{Recommendation: true, Willing: true, CBS: true, MaxTCs: 3},
			hx("FE 19 00 80 C2 0A  00  00 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.ets.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MarshalBinary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPFC(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "reference 2.3", b: refPFC, want: refPFCWant},
		{name: "lldpd prio 3 and 4", b: lldpdPFC, want: lldpdPFCWant},
		{name: "willing, MBC, cap 4", b: hx("FE 06 00 80 C2 0B C4 29"), want: &PFC{Willing: true, MBC: true, Cap: 4, Enabled: 0x29}},
		{name: "cap 15 and all priorities", b: hx("FE 06 00 80 C2 0B 0F FF"), want: &PFC{Cap: 15, Enabled: 0xff}},
		{name: "off", b: hx("FE 06 00 80 C2 0B 00 00"), want: &PFC{}},
		{name: "reserved bits 5-4 dropped", b: hx("FE 06 00 80 C2 0B 38 01"), want: &PFC{Cap: 8, Enabled: 0x01},
			encoded: hx("FE 06 00 80 C2 0B 08 01")},
	})
}

func TestPFCPriorities(t *testing.T) {
	tests := []struct {
		enabled uint8
		want    []uint8
	}{
		{0x00, []uint8{}},
		{0x08, []uint8{3}},
		{0x18, []uint8{3, 4}},
		{0x81, []uint8{0, 7}},
		{0xff, []uint8{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(hexByte(tt.enabled), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, (&PFC{Enabled: tt.enabled}).Priorities()); diff != "" {
				t.Errorf("Priorities() (-want +got):\n%s", diff)
			}
		})
	}
}

func hexByte(b uint8) string { return hexBytes([]byte{b}) }

func TestAppPriority(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "every selector (lldpd)", b: lldpdApp, want: lldpdAppWant},
		{name: "RoCEv2 (reference 2.4)", b: hx("FE 08 00 80 C2 0C 00  63 12 B7"),
			want: &AppPriority{Entries: []AppEntry{{Priority: 3, Selector: AppSelUDP, Protocol: 4791}}}},
		{name: "no entries", b: hx("FE 05 00 80 C2 0C 00"), want: &AppPriority{}},
		{name: "default priority, priority 7", b: hx("FE 08 00 80 C2 0C 00  E1 00 00"),
			want: &AppPriority{Entries: []AppEntry{{Priority: 7, Selector: AppSelEthertype, Protocol: 0}}}},
		{name: "reserved selectors kept", b: hx("FE 0E 00 80 C2 0C 00  00 00 01  06 00 02  07 FF FF"),
			want: &AppPriority{Entries: []AppEntry{{Selector: 0, Protocol: 1}, {Selector: 6, Protocol: 2}, {Selector: 7, Protocol: 0xffff}}}},
		{name: "reserved byte and bits dropped", b: hx("FE 08 00 80 C2 0C FF  7B 12 B7"),
			want:    &AppPriority{Entries: []AppEntry{{Priority: 3, Selector: AppSelUDP, Protocol: 4791}}},
			encoded: hx("FE 08 00 80 C2 0C 00  63 12 B7")},
	})
}

// The 802.1Qaz TLV types also decode on their own with UnmarshalBinary.
func TestQazUnmarshalBinary(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		tlv     interface{ UnmarshalBinary([]byte) error }
		want    any
		err     error
		message string // the complete error message, when checked
	}{
		{name: "ETS", b: refETS, tlv: &ETS{}, want: refETSWant},
		{name: "ETS recommendation", b: lldpdReco, tlv: &ETS{}, want: lldpdRecoWant},
		{name: "PFC", b: refPFC, tlv: &PFC{}, want: refPFCWant},
		{name: "APP", b: hx("FE 08 00 80 C2 0C 00 63 12 B7"), tlv: &AppPriority{},
			want: &AppPriority{Entries: []AppEntry{{Priority: 3, Selector: AppSelUDP, Protocol: 4791}}}},
		{name: "empty", b: nil, tlv: &ETS{}, err: ErrTruncated},
		{name: "header only", b: hx("FE 19"), tlv: &ETS{}, err: ErrTruncated,
			message: "lldp: TLV Org at offset 0: truncated: length 25 but 0 bytes left"},
		{name: "value cut", b: refETS[:20], tlv: &ETS{}, err: ErrTruncated},
		{name: "ETS length 24", b: cat(hx("FE 18"), refETS[2:26]), tlv: &ETS{}, err: ErrInvalidLength,
			message: "lldp: TLV Org 00-80-c2/9 at offset 0: invalid length: 24, want 25"},
		{name: "ETS length 26", b: cat(hx("FE 1A"), refETS[2:], hx("00")), tlv: &ETS{}, err: ErrInvalidLength},
		{name: "bytes after the TLV", b: cat(refETS, hx("00 00")), tlv: &ETS{}, err: ErrInvalidLength,
			message: "lldp: TLV Org 00-80-c2/9 at offset 0: invalid length: 2 bytes after the TLV"},
		{name: "PFC length 7", b: hx("FE 07 00 80 C2 0B 88 08 00"), tlv: &PFC{}, err: ErrInvalidLength},
		{name: "APP length 7", b: hx("FE 07 00 80 C2 0C 00 63 12"), tlv: &AppPriority{}, err: ErrInvalidLength},
		{name: "not organizationally specific", b: hx("0A 03 73 77 31"), tlv: &ETS{}, err: ErrInvalidValue},
		{name: "org shorter than 4", b: hx("FE 03 00 80 C2"), tlv: &ETS{}, err: ErrInvalidValue},
		{name: "CEE OUI", b: hx("FE 06 00 1B 21 0B 88 08"), tlv: &PFC{}, err: ErrInvalidValue,
			message: "lldp: TLV Org 00-1b-21/11 at offset 0: invalid value: OUI 00-1b-21 is not IEEE 802.1"},
		{name: "PFC into ETS", b: refPFC, tlv: &ETS{}, err: ErrInvalidValue},
		{name: "ETS into PFC", b: refETS, tlv: &PFC{}, err: ErrInvalidValue},
		{name: "ETS into APP", b: refETS, tlv: &AppPriority{}, err: ErrInvalidValue,
			message: "lldp: TLV Org 00-80-c2/9 at offset 0: invalid value: subtype 9 is not APP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.tlv.UnmarshalBinary(tt.b)
			if tt.message != "" && (err == nil || err.Error() != tt.message) {
				t.Errorf("error message:\n got %v\nwant %s", err, tt.message)
			}
			if !checkErr(t, err, tt.err) {
				return
			}
			if diff := cmp.Diff(tt.want, tt.tlv); diff != "" {
				t.Errorf("UnmarshalBinary (-want +got):\n%s", diff)
			}
		})
	}
}
