// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cinTLV is a legacy CIN DCBX TLV (OUI 00-1B-21, subtype 1) with a Control
// sub-TLV; dcbtop keeps it raw.
var cinTLV = hx("FE 10 00 1B 21 01  02 0A 00 00 00 00 00 01 00 00 00 00")

// n5kCEE is a hand-built CEE TLV with its sub-TLVs in the order Control,
// PFC, APP, PG (as some switches send them).
var n5kCEE = hx(`FE 37 00 1B 21 02
	02 0A 00 00 00 00 00 01 00 00 00 01
	06 06 00 00 80 00 08 08
	08 0A 00 00 80 00 89 06 00 1B 21 08
	04 11 00 00 80 00 00 01 00 00 32 32 00 00 00 00 00 00 02`)

func TestCEE(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "reference 4.5", b: refCEE, want: refCEEWant},
		{name: "Juniper QFX3500", b: juniperCEE, want: juniperCEEWant},
		{name: "sub-TLV order Control, PFC, APP, PG", b: n5kCEE,
			want: &CEE{
				Control: &CEEControl{SeqNo: 1, AckNo: 1},
				PG: &CEEPG{CEEFeature: CEEFeature{Enable: true}, PGID: [8]uint8{3: 1},
					Bandwidth: [8]uint8{50, 50}, NumTCs: 2},
				PFC: &CEEPFC{CEEFeature: CEEFeature{Enable: true}, Enabled: 0x08, NumTCs: 8},
				App: &CEEApp{CEEFeature: CEEFeature{Enable: true},
					Entries: []CEEAppEntry{{Protocol: 0x8906, Selector: 0, PriorityMap: 0x08}}},
			},
			encoded: hx(`FE 37 00 1B 21 02
				02 0A 00 00 00 00 00 01 00 00 00 01
				04 11 00 00 80 00 00 01 00 00 32 32 00 00 00 00 00 00 02
				06 06 00 00 80 00 08 08
				08 0A 00 00 80 00 89 06 00 1B 21 08`)},
		{name: "no sub-TLVs", b: hx("FE 04 00 1B 21 02"), want: &CEE{}},
		{name: "control only, versions set", b: hx("FE 10 00 1B 21 02  02 0A 01 02 FF FF FF FF 00 00 00 00"),
			want: &CEE{Control: &CEEControl{OperVersion: 1, MaxVersion: 2, SeqNo: 0xffffffff}}},
		{name: "APP without entries", b: hx("FE 0A 00 1B 21 02  08 04 00 00 80 00"),
			want: &CEE{App: &CEEApp{CEEFeature: CEEFeature{Enable: true}}}},
		{name: "feature versions and subtype",
			b:    hx("FE 0C 00 1B 21 02  06 06 01 02 E0 05 FF 03"),
			want: &CEE{PFC: &CEEPFC{CEEFeature: CEEFeature{OperVersion: 1, MaxVersion: 2, Enable: true, Willing: true, Error: true, Subtype: 5}, Enabled: 0xff, NumTCs: 3}}},
		{name: "every PGID nibble",
			b: hx("FE 17 00 1B 21 02  04 11 00 00 00 00  01 23 45 67  0C 0C 0C 0C 0C 0C 0C 10 08"),
			want: &CEE{PG: &CEEPG{PGID: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7},
				Bandwidth: [8]uint8{12, 12, 12, 12, 12, 12, 12, 16}, NumTCs: 8}}},
		{name: "reserved flag bits and app OUI bits dropped",
			b: hx("FE 10 00 1B 21 02  08 0A 00 00 9F 00  89 06 FD FF FF 08"),
			want: &CEE{App: &CEEApp{CEEFeature: CEEFeature{Enable: true},
				Entries: []CEEAppEntry{{Protocol: 0x8906, Selector: 1, PriorityMap: 0x08}}}},
			encoded: hx("FE 10 00 1B 21 02  08 0A 00 00 80 00  89 06 01 1B 21 08")},
		{name: "APP selectors 2 and 3",
			b: hx("FE 16 00 1B 21 02  08 10 00 00 80 00  00 01 02 1B 21 01  FF FF 03 1B 21 80"),
			want: &CEE{App: &CEEApp{CEEFeature: CEEFeature{Enable: true}, Entries: []CEEAppEntry{
				{Protocol: 1, Selector: 2, PriorityMap: 0x01}, {Protocol: 0xffff, Selector: 3, PriorityMap: 0x80}}}}},
		{name: "unknown sub-TLVs kept in order",
			b:    hx("FE 0F 00 1B 21 02  0A 02 AA BB  00 00  FE 03 01 02 03"),
			want: &CEE{Other: []CEESubTLV{{Type: 5, Value: hx("AA BB")}, {Type: 0}, {Type: 127, Value: hx("01 02 03")}}}},
		{name: "repeated sub-TLVs: the first is used",
			b: hx(`FE 2C 00 1B 21 02
				06 06 00 00 80 00 08 08
				02 0A 00 00 00 00 00 01 00 00 00 00
				06 06 00 00 80 00 10 08
				02 0A 00 00 00 00 00 09 00 00 00 00`),
			want: &CEE{
				Control: &CEEControl{SeqNo: 1},
				PFC:     &CEEPFC{CEEFeature: CEEFeature{Enable: true}, Enabled: 0x08, NumTCs: 8},
				Other: []CEESubTLV{
					{Type: 3, Value: hx("00 00 80 00 10 08")},
					{Type: 1, Value: hx("00 00 00 00 00 09 00 00 00 00")},
				},
			},
			encoded: hx(`FE 2C 00 1B 21 02
				02 0A 00 00 00 00 00 01 00 00 00 00
				06 06 00 00 80 00 08 08
				06 06 00 00 80 00 10 08
				02 0A 00 00 00 00 00 09 00 00 00 00`)},
		{name: "legacy CIN kept raw", b: cinTLV, want: &RawTLV{T: TLVTypeOrg, Value: cinTLV[2:]}},
	})
}

func TestDialect(t *testing.T) {
	tests := []struct {
		name   string
		b      []byte
		want   Dialect
		hasCIN bool
	}{
		{"plain LLDP", lldpdu(hx("0A 03 73 77 31")), DialectNone, false},
		{"802.1 PVID is not DCBX", lldpdu(hx("FE 06 00 80 C2 01 00 32")), DialectNone, false},
		{"ETS", lldpdu(refETS), DialectIEEE, false},
		{"ETS recommendation", lldpdu(lldpdReco), DialectIEEE, false},
		{"PFC", lldpdu(refPFC), DialectIEEE, false},
		{"APP", lldpdu(hx("FE 05 00 80 C2 0C 00")), DialectIEEE, false},
		{"CEE", lldpdu(refCEE), DialectCEE, false},
		{"CIN", lldpdu(cinTLV), DialectCIN, true},
		{"CEE and CIN", lldpdu(refCEE, cinTLV), DialectCEE, true},
		{"CEE OUI, subtype 3", lldpdu(hx("FE 06 00 1B 21 03 AA BB")), DialectNone, false},
		{"CEE and IEEE", lldpdu(refCEE, refPFC), DialectIEEE, false},
		{"CIN and IEEE", lldpdu(refETS, cinTLV), DialectIEEE, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du := mustParse(t, tt.b)
			if got := du.Dialect(); got != tt.want {
				t.Errorf("Dialect() = %v, want %v", got, tt.want)
			}
			if got := du.HasCIN(); got != tt.hasCIN {
				t.Errorf("HasCIN() = %v, want %v", got, tt.hasCIN)
			}
		})
	}
}

// The accessors return the first TLV of each kind, or nil.
func TestAccessors(t *testing.T) {
	app := hx("FE 08 00 80 C2 0C 00 63 12 B7")
	tests := []struct {
		name string
		b    []byte
		ets  *ETS
		reco *ETS
		pfc  *PFC
		app  *AppPriority
		cee  *CEE
	}{
		{name: "none", b: lldpdu()},
		{name: "reco before config", b: lldpdu(lldpdReco, refETS), ets: refETSWant, reco: lldpdRecoWant},
		{name: "first of two ETS", b: lldpdu(lldpdETS, refETS), ets: lldpdETSWant},
		{name: "first of two PFC", b: lldpdu(refPFC, lldpdPFC), pfc: refPFCWant},
		{name: "first of two APP", b: lldpdu(app, hx("FE 05 00 80 C2 0C 00")),
			app: &AppPriority{Entries: []AppEntry{{Priority: 3, Selector: AppSelUDP, Protocol: 4791}}}},
		{name: "first of two CEE", b: lldpdu(refCEE, juniperCEE), cee: refCEEWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du := mustParse(t, tt.b)
			if diff := cmp.Diff(tt.ets, du.ETS()); diff != "" {
				t.Errorf("ETS() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.reco, du.ETSReco()); diff != "" {
				t.Errorf("ETSReco() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pfc, du.PFC()); diff != "" {
				t.Errorf("PFC() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.app, du.App()); diff != "" {
				t.Errorf("App() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.cee, du.CEE()); diff != "" {
				t.Errorf("CEE() (-want +got):\n%s", diff)
			}
		})
	}
}
