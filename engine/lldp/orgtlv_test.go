// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The basic IEEE 802.1 (IEEE Std 802.1Q-2018, D.2) and IEEE 802.3 (IEEE
// Std 802.3-2018, 79.3) TLVs the tests share, laid out as the standards
// define them, and what they decode to. Every one re-encodes byte for
// byte: reserved bits are kept.
var (
	// 802.3 TLVs of testbed/record-fixtures.sh: lldpd's defaults on a veth.
	lldpdLinkAgg     = hx("FE 09 00 12 0F 03  01  00 00 00 00")
	lldpdLinkAggWant = &LinkAggregation{OUI: OUIIEEE8023, Status: 0x01}
	lldpdMACPHY      = hx("FE 09 00 12 0F 01  00  80 00  00 36")
	lldpdMACPHYWant  = &MACPHYStatus{Advertised: 0x8000, MAUType: 54}

	vlanName32   = bytes.Repeat([]byte("v"), 32)
	powerBTExt   = hx("51 01 2C 01 2C  00 10 00 20 00 30 00 40  A5 5A  0E  03 E8  05  00 00 0A")
	basicOrgTLVs = []optionalTLVTest{
		{name: "PVID 100", b: hx("FE 06 00 80 C2 01  00 64"), want: &PortVLANID{PVID: 100}},
		{name: "PVID none", b: hx("FE 06 00 80 C2 01  00 00"), want: &PortVLANID{}},
		{name: "PVID 4095", b: hx("FE 06 00 80 C2 01  0F FF"), want: &PortVLANID{PVID: 4095}},
		{name: "PPVID supported and enabled", b: hx("FE 07 00 80 C2 02  06  00 2A"), want: &ProtocolVLANID{Flags: 0x06, PPVID: 42}},
		{name: "PPVID reserved bits kept", b: hx("FE 07 00 80 C2 02  F9  0F FF"), want: &ProtocolVLANID{Flags: 0xf9, PPVID: 4095}},
		{name: "VLAN name", b: cat(hx("FE 0E 00 80 C2 03  00 64  07"), []byte("storage")), want: &VLANName{VID: 100, Name: []byte("storage")}},
		{name: "VLAN name empty", b: hx("FE 07 00 80 C2 03  0F FF  00"), want: &VLANName{VID: 4095}},
		{name: "VLAN name of 32 bytes", b: cat(hx("FE 27 00 80 C2 03  0F FE  20"), vlanName32), want: &VLANName{VID: 4094, Name: vlanName32}},
		{name: "VLAN name hostile bytes kept as sent", b: cat(hx("FE 10 00 80 C2 03  00 07  09"), []byte("\x1b[31mred\xff")),
			want: &VLANName{VID: 7, Name: []byte("\x1b[31mred\xff")}},
		{name: "protocol identity LLDP", b: hx("FE 07 00 80 C2 04  02  88 CC"), want: &ProtocolIdentity{Identity: hx("88 CC")}},
		{name: "protocol identity EAPOL", b: hx("FE 08 00 80 C2 04  03  88 8E 01"), want: &ProtocolIdentity{Identity: hx("88 8E 01")}},
		{name: "protocol identity empty", b: hx("FE 05 00 80 C2 04  00"), want: &ProtocolIdentity{}},
		{name: "link aggregation 802.1", b: hx("FE 09 00 80 C2 07  0F  00 00 00 2A"), want: &LinkAggregation{OUI: OUIIEEE8021, Status: 0x0f, PortID: 42}},
		{name: "link aggregation 802.1 reserved bits kept", b: hx("FE 09 00 80 C2 07  F5  FF FF FF FF"),
			want: &LinkAggregation{OUI: OUIIEEE8021, Status: 0xf5, PortID: 0xffffffff}},
		{name: "congestion notification", b: hx("FE 06 00 80 C2 08  18 08"), want: &CongestionNotification{CNPV: 0x18, Ready: 0x08}},
		{name: "congestion notification every CNPV, none ready", b: hx("FE 06 00 80 C2 08  FF 00"), want: &CongestionNotification{CNPV: 0xff}},
		{name: "MAC/PHY lldpd", b: lldpdMACPHY, want: lldpdMACPHYWant},
		{name: "MAC/PHY autoneg 100/1000", b: hx("FE 09 00 12 0F 01  03  6C 01  00 10"), want: &MACPHYStatus{Autoneg: 0x03, Advertised: 0x6c01, MAUType: 16}},
		{name: "MAC/PHY reserved bits kept", b: hx("FE 09 00 12 0F 01  FC  FF FF  00 1E"), want: &MACPHYStatus{Autoneg: 0xfc, Advertised: 0xffff, MAUType: 30}},
		{name: "power via MDI basic", b: hx("FE 07 00 12 0F 02  0F 01 04"), want: &PowerViaMDI{Support: 0x0f, PowerPair: 1, PowerClass: 4}},
		{name: "power via MDI 802.3at", b: hx("FE 0C 00 12 0F 02  07 01 05  51 00 FF 00 FF"),
			want: &PowerViaMDI{Support: 0x07, PowerPair: 1, PowerClass: 5, Extension: hx("51 00 FF 00 FF")}},
		{name: "power via MDI 802.3bt", b: cat(hx("FE 1D 00 12 0F 02  0D 02 05"), powerBTExt),
			want: &PowerViaMDI{Support: 0x0d, PowerPair: 2, PowerClass: 5, Extension: powerBTExt}},
		{name: "link aggregation 802.3 lldpd", b: lldpdLinkAgg, want: lldpdLinkAggWant},
		{name: "link aggregation 802.3", b: hx("FE 09 00 12 0F 03  03  00 00 00 07"), want: &LinkAggregation{OUI: OUIIEEE8023, Status: 0x03, PortID: 7}},
		{name: "max frame size 9216", b: hx("FE 06 00 12 0F 04  24 00"), want: &MaxFrameSize{Size: 9216}},
		{name: "max frame size 1518", b: hx("FE 06 00 12 0F 04  05 EE"), want: &MaxFrameSize{Size: 1518}},
	}
)

// basicOrgBytes returns the TLVs of basicOrgTLVs, in order.
func basicOrgBytes() [][]byte {
	out := make([][]byte, len(basicOrgTLVs))
	for i, tt := range basicOrgTLVs {
		out[i] = tt.b
	}
	return out
}

// basicOrgMalformed are basic 802.1 and 802.3 TLVs of a length their kind
// does not allow; Parse discards each (IEEE Std 802.1AB-2016, 9.2.7.7.2)
// as it does a PFC TLV of the wrong length.
var basicOrgMalformed = []struct {
	name    string
	b       []byte // the TLV
	detail  string // ParseError.Detail
	finding string // the tlv-discarded finding's TLV name
}{
	{"PVID length 5", hx("FE 05 00 80 C2 01  00"), "5, want 6", "Port VLAN ID TLV 00-80-c2/1"},
	{"PVID length 7", hx("FE 07 00 80 C2 01  00 64 00"), "7, want 6", "Port VLAN ID TLV 00-80-c2/1"},
	{"PPVID length 6", hx("FE 06 00 80 C2 02  06 00"), "6, want 7", "Port And Protocol VLAN ID TLV 00-80-c2/2"},
	{"PPVID length 8", hx("FE 08 00 80 C2 02  06 00 2A 00"), "8, want 7", "Port And Protocol VLAN ID TLV 00-80-c2/2"},
	{"VLAN name length 6", hx("FE 06 00 80 C2 03  00 64"), "6, want at least 7", "VLAN Name TLV 00-80-c2/3"},
	{"VLAN name length byte past the TLV", cat(hx("FE 0E 00 80 C2 03  00 64  08"), []byte("storage")),
		"VLAN name length 8 in a 14-byte TLV, want 0..32 filling it", "VLAN Name TLV 00-80-c2/3"},
	{"VLAN name length byte short of the TLV", cat(hx("FE 0E 00 80 C2 03  00 64  06"), []byte("storage")),
		"VLAN name length 6 in a 14-byte TLV, want 0..32 filling it", "VLAN Name TLV 00-80-c2/3"},
	{"VLAN name of 33 bytes", cat(hx("FE 28 00 80 C2 03  00 01  21"), bytes.Repeat([]byte("v"), 33)),
		"VLAN name length 33 in a 40-byte TLV, want 0..32 filling it", "VLAN Name TLV 00-80-c2/3"},
	{"protocol identity length 4", hx("FE 04 00 80 C2 04"), "4, want at least 5", "Protocol Identity TLV 00-80-c2/4"},
	{"protocol identity length byte past the TLV", hx("FE 07 00 80 C2 04  03  88 CC"),
		"protocol identity length 3 in a 7-byte TLV, want it to fill the TLV", "Protocol Identity TLV 00-80-c2/4"},
	{"protocol identity length byte short of the TLV", hx("FE 07 00 80 C2 04  01  88 CC"),
		"protocol identity length 1 in a 7-byte TLV, want it to fill the TLV", "Protocol Identity TLV 00-80-c2/4"},
	{"link aggregation 802.1 length 8", hx("FE 08 00 80 C2 07  01  00 00 00"), "8, want 9", "Link Aggregation TLV 00-80-c2/7"},
	{"link aggregation 802.1 length 10", hx("FE 0A 00 80 C2 07  01  00 00 00 00 00"), "10, want 9", "Link Aggregation TLV 00-80-c2/7"},
	{"congestion notification length 5", hx("FE 05 00 80 C2 08  18"), "5, want 6", "Congestion Notification TLV 00-80-c2/8"},
	{"congestion notification length 7", hx("FE 07 00 80 C2 08  18 08 00"), "7, want 6", "Congestion Notification TLV 00-80-c2/8"},
	{"MAC/PHY length 8", hx("FE 08 00 12 0F 01  03  6C 01  00"), "8, want 9", "MAC/PHY Configuration/Status TLV 00-12-0f/1"},
	{"MAC/PHY length 10", hx("FE 0A 00 12 0F 01  03  6C 01  00 10 00"), "10, want 9", "MAC/PHY Configuration/Status TLV 00-12-0f/1"},
	{"power via MDI length 6", hx("FE 06 00 12 0F 02  0F 01"), "6, want 7, 12 or 29", "Power via MDI TLV 00-12-0f/2"},
	{"power via MDI length 8", hx("FE 08 00 12 0F 02  0F 01 04 51"), "8, want 7, 12 or 29", "Power via MDI TLV 00-12-0f/2"},
	{"power via MDI length 13", hx("FE 0D 00 12 0F 02  07 01 05  51 00 FF 00 FF 00"), "13, want 7, 12 or 29", "Power via MDI TLV 00-12-0f/2"},
	{"power via MDI length 28", cat(hx("FE 1C 00 12 0F 02  0D 02 05"), powerBTExt[:21]), "28, want 7, 12 or 29", "Power via MDI TLV 00-12-0f/2"},
	{"link aggregation 802.3 length 4", hx("FE 04 00 12 0F 03"), "4, want 9", "Link Aggregation TLV 00-12-0f/3"},
	{"max frame size length 5", hx("FE 05 00 12 0F 04  24"), "5, want 6", "Maximum Frame Size TLV 00-12-0f/4"},
	{"max frame size length 7", hx("FE 07 00 12 0F 04  24 00 00"), "7, want 6", "Maximum Frame Size TLV 00-12-0f/4"},
}

// Each basic TLV decodes inside an LLDPDU to its type and encodes back to
// the same bytes.
func TestBasicOrgTLVs(t *testing.T) {
	runOptionalTLVTests(t, basicOrgTLVs)
}

// A basic TLV of the wrong length is discarded with a tlv-discarded
// finding naming it, and the rest of the LLDPDU is used.
func TestBasicOrgTLVsMalformed(t *testing.T) {
	for _, tt := range basicOrgMalformed {
		t.Run(tt.name, func(t *testing.T) {
			oui, sub := OUI(tt.b[2:5]), tt.b[5]
			b := lldpdu(tt.b, refPFC)
			want := ParseError{Offset: offOptional, Type: TLVTypeOrg, OUI: oui, Sub: sub, Err: ErrInvalidLength}
			checkDiscarded(t, b, want, fmt.Sprintf("lldp: TLV Org %s/%d at offset %d: invalid length: %s", oui, sub, offOptional, tt.detail))
			du := mustParse(t, b)
			if diff := cmp.Diff([]TLV{refPFCWant}, du.TLVs); diff != "" {
				t.Errorf("the TLVs after the discarded one (-want +got):\n%s", diff)
			}
			wantFinding := Finding{Code: CodeTLVDiscarded, Level: LevelWarning, Feature: "lldp",
				Message: fmt.Sprintf("%s at offset %d discarded (invalid length: %s); the rest of the LLDPDU is used", tt.finding, offOptional, tt.detail)}
			if diff := cmp.Diff([]Finding{wantFinding}, du.Findings); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// Values a basic TLV cannot carry are not encoded, and the buffer is left
// as it was.
func TestBasicOrgMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		tlv  TLV
	}{
		{"VLAN name of 33 bytes", &VLANName{VID: 1, Name: bytes.Repeat([]byte("v"), 33)}},
		{"protocol identity of 256 bytes", &ProtocolIdentity{Identity: make([]byte, 256)}},
		{"link aggregation without OUI", &LinkAggregation{Status: 1}},
		{"link aggregation under the CEE OUI", &LinkAggregation{OUI: OUICEE}},
		{"power via MDI extension of 1 byte", &PowerViaMDI{Extension: []byte{1}}},
		{"power via MDI extension of 6 bytes", &PowerViaMDI{Extension: make([]byte, 6)}},
		{"power via MDI extension of 23 bytes", &PowerViaMDI{Extension: make([]byte, 23)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := hx("AA BB")
			got, err := AppendTLV(prefix, tt.tlv)
			checkErr(t, err, ErrInvalidValue)
			if diff := cmp.Diff(prefix, got); diff != "" {
				t.Errorf("AppendTLV changed b on error (-want +got):\n%s", diff)
			}
			if _, err := baseDU(tt.tlv).MarshalBinary(); !errors.Is(err, ErrInvalidValue) {
				t.Errorf("DU.MarshalBinary error = %v, want %v", err, ErrInvalidValue)
			}
		})
	}
}

// The accessors read the bits of the flag and status bytes as the
// standards number them (and tshark reads them: TestTshark).
func TestBasicOrgAccessors(t *testing.T) {
	ppvid := func(flags uint8) any {
		p := &ProtocolVLANID{Flags: flags}
		return [2]bool{p.Supported(), p.Enabled()}
	}
	agg := func(status uint8) any {
		l := &LinkAggregation{Status: status}
		return []any{l.Capable(), l.Enabled(), l.PortType()}
	}
	autoneg := func(b uint8) any {
		m := &MACPHYStatus{Autoneg: b}
		return [2]bool{m.AutonegSupported(), m.AutonegEnabled()}
	}
	power := func(support uint8) any {
		p := &PowerViaMDI{Support: support}
		return [4]bool{p.PSE(), p.PSESupported(), p.PSEEnabled(), p.PairsControl()}
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"PPVID supported, enabled", ppvid(0x06), [2]bool{true, true}},
		{"PPVID supported", ppvid(0x02), [2]bool{true, false}},
		{"PPVID reserved bits only", ppvid(0xf9), [2]bool{false, false}},
		{"link aggregation 0x0f", agg(0x0f), []any{true, true, uint8(3)}},
		{"link aggregation 0xf5", agg(0xf5), []any{true, false, uint8(1)}},
		{"link aggregation 0x08", agg(0x08), []any{false, false, uint8(2)}},
		{"link aggregation subtypes", []uint8{(&LinkAggregation{OUI: OUIIEEE8021}).Subtype(), (&LinkAggregation{OUI: OUIIEEE8023}).Subtype()}, []uint8{7, 3}},
		{"CNPV 3,4", (&CongestionNotification{CNPV: 0x18}).CNPVPriorities(), []uint8{3, 4}},
		{"ready none", (&CongestionNotification{CNPV: 0x18}).ReadyPriorities(), []uint8{}},
		{"ready all", (&CongestionNotification{Ready: 0xff}).ReadyPriorities(), []uint8{0, 1, 2, 3, 4, 5, 6, 7}},
		{"autoneg supported, enabled", autoneg(0x03), [2]bool{true, true}},
		{"autoneg reserved bits only", autoneg(0xfc), [2]bool{false, false}},
		{"power PSE, enabled, pairs control", power(0x0d), [4]bool{true, false, true, true}},
		{"power PD, supported", power(0xf2), [4]bool{false, true, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// basicOrgLen reports whether an information string v (OUI and subtype
// included) of a basic TLV has a length its kind allows, restated from
// IEEE Std 802.1Q-2018 D.2 and IEEE Std 802.3-2018 79.3 for FuzzBasicOrg;
// known is false for other OUIs and subtypes.
func basicOrgLen(v []byte) (valid, known bool) {
	n := len(v)
	oui, sub := OUI(v[:3]), v[3]
	switch {
	case oui == OUIIEEE8021 && (sub == 1 || sub == 8):
		return n == 6, true
	case oui == OUIIEEE8021 && sub == 2:
		return n == 7, true
	case oui == OUIIEEE8021 && sub == 3: // VID, name length 0..32, name
		return n >= 7 && v[6] <= 32 && n == 7+int(v[6]), true
	case oui == OUIIEEE8021 && sub == 4: // length, identity
		return n >= 5 && n == 5+int(v[4]), true
	case oui == OUIIEEE8021 && sub == 7, oui == OUIIEEE8023 && (sub == 1 || sub == 3):
		return n == 9, true
	case oui == OUIIEEE8023 && sub == 2: // basic, + 802.3at, + 802.3bt
		return n == 7 || n == 12 || n == 29, true
	case oui == OUIIEEE8023 && sub == 4:
		return n == 6, true
	}
	return false, false
}

// FuzzBasicOrg fuzzes the decoders of the basic IEEE 802.1 and 802.3
// TLVs; the input is an information string (OUI, subtype and the rest).
// For the OUIs and subtypes of those TLVs (others are left to FuzzParse),
// Parse keeps the TLV exactly when its length is one its kind allows
// (basicOrgLen) and otherwise discards it with an invalid-length
// *ParseError at its offset; a kept TLV is not a *RawTLV, re-encodes
// byte for byte (checkOrgTLV) and has a named, decoded view.
func FuzzBasicOrg(f *testing.F) {
	for _, tt := range basicOrgTLVs {
		f.Add(tt.b[2:])
	}
	for _, tt := range basicOrgMalformed {
		f.Add(tt.b[2:])
	}
	unmarshal := func(b []byte) (TLV, error) {
		du, err := Parse(lldpdu(b))
		if err != nil {
			return nil, err
		}
		if len(du.Discarded) > 0 {
			return nil, du.Discarded[0].Err
		}
		return du.TLVs[0], nil
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if len(v) < 4 || len(v) > maxValueLen {
			return
		}
		valid, known := basicOrgLen(v)
		if !known {
			return
		}
		b := orgTLV(OUI(v[:3]), v[3], v[4:])
		got, err := unmarshal(b)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset != offOptional || pe.OUI != OUI(v[:3]) || pe.Sub != v[3] || pe.Err != ErrInvalidLength {
				t.Fatalf("error %#v (%v), want an invalid-length ParseError at offset %d", pe, err, offOptional)
			}
			if valid {
				t.Fatalf("a TLV of a valid length (%d) discarded: %v", len(v), err)
			}
			return
		}
		if !valid {
			t.Fatalf("%T of a length its kind does not allow (%d) kept", got, len(v))
		}
		if _, raw := got.(*RawTLV); raw {
			t.Fatalf("decoded as %T", got)
		}
		checkOrgTLV(t, b, got, unmarshal)
		if m, _ := AppendTLV(nil, got); !bytes.Equal(m, b) {
			t.Fatalf("re-encoded\n got %x\nwant %x", m, b)
		}
		view := describeTLV(got)
		if view.Name != orgTLVName(OUI(v[:3]), v[3]) || view.OUI != OUI(v[:3]) || view.Subtype != v[3] || view.Undecoded != nil {
			t.Fatalf("view %+v", view)
		}
		for _, fld := range view.Fields {
			if fld.Label == "OUI" || fld.Label == "subtype" { // a raw TLV's view
				t.Fatalf("view %+v of an undecoded TLV", view)
			}
		}
	})
}
