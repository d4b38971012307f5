// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// tlvBytes encodes TLVs for a hand-built LLDPDU.
func tlvBytes(t *testing.T, tlvs ...TLV) []byte {
	t.Helper()
	var b []byte
	for _, x := range tlvs {
		var err error
		if b, err = AppendTLV(b, x); err != nil {
			t.Fatalf("AppendTLV(%T): %v", x, err)
		}
	}
	return b
}

// goodETS returns a valid ETS Configuration: 8 TCs, prio 3 -> TC1, 50/50.
func goodETS() *ETS {
	return &ETS{MaxTCs: 8, PrioTC: [8]uint8{3: 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]TSA{TSAETS, TSAETS}}
}

func goodCEE() *CEE {
	return &CEE{
		Control: &CEEControl{SeqNo: 1},
		PG:      &CEEPG{CEEFeature: CEEFeature{Enable: true}, PGID: [8]uint8{3: 1, 7: 15}, Bandwidth: [8]uint8{60, 40}, NumTCs: 8},
	}
}

func TestDiagnostics(t *testing.T) {
	ets := func(f func(e *ETS)) *ETS { e := goodETS(); f(e); return e }
	reco := func(f func(e *ETS)) *ETS {
		e := goodETS()
		e.Recommendation, e.MaxTCs = true, 0
		f(e)
		return e
	}
	cee := func(f func(c *CEE)) *CEE { c := goodCEE(); f(c); return c }
	app := func(entries ...AppEntry) *AppPriority { return &AppPriority{Entries: entries} }

	type d = Finding // Message is not compared here
	tests := []struct {
		name string
		tlvs []TLV
		want []Finding
	}{
		{name: "none", tlvs: nil},
		{name: "valid IEEE", tlvs: []TLV{goodETS(), reco(func(*ETS) {}), refPFCWant,
			app(AppEntry{3, AppSelUDP, 4791}, AppEntry{3, AppSelDSCP, 63}, AppEntry{0, AppSelEthertype, 0}, AppEntry{1, AppSelEthertype, 0x600})}},
		{name: "valid CEE", tlvs: []TLV{goodCEE()}},
		{name: "ETS bandwidth sum 90", tlvs: []TLV{ets(func(e *ETS) { e.Bandwidth = [8]uint8{40, 50} })},
			want: []d{{Code: CodeETSBandwidthSum, Level: LevelError, Feature: "ets"}}},
		{name: "ETS bandwidth sum 0 without ETS TC", tlvs: []TLV{ets(func(e *ETS) { e.Bandwidth, e.TSA = [8]uint8{}, [8]TSA{} })}},
		{name: "ETS bandwidth sum 0 with ETS TC", tlvs: []TLV{ets(func(e *ETS) { e.Bandwidth = [8]uint8{} })},
			want: []d{{Code: CodeETSBandwidthSum, Level: LevelError, Feature: "ets"}}},
		{name: "ETS bandwidth over 100", tlvs: []TLV{ets(func(e *ETS) { e.Bandwidth = [8]uint8{150, 0}; e.TSA[1] = TSAStrict })},
			want: []d{
				{Code: CodeETSBandwidthRange, Level: LevelError, Feature: "ets"},
				{Code: CodeETSBandwidthSum, Level: LevelError, Feature: "ets"},
			}},
		{name: "bandwidth on strict TC", tlvs: []TLV{ets(func(e *ETS) { e.TSA[1] = TSAStrict })},
			want: []d{{Code: CodeETSBandwidthNonETS, Level: LevelWarning, Feature: "ets"}}},
		{name: "bandwidth on vendor and CBS TCs", tlvs: []TLV{ets(func(e *ETS) { e.Bandwidth = [8]uint8{50, 30, 20}; e.TSA = [8]TSA{TSAETS, TSAVendor, TSACBS} })},
			want: []d{
				{Code: CodeETSBandwidthNonETS, Level: LevelWarning, Feature: "ets"},
				{Code: CodeETSBandwidthNonETS, Level: LevelWarning, Feature: "ets"},
			}},
		{name: "priority to TC 3 with 3 TCs", tlvs: []TLV{ets(func(e *ETS) { e.MaxTCs = 3; e.PrioTC[7] = 3 })},
			want: []d{{Code: CodeETSPrioTCRange, Level: LevelWarning, Feature: "ets"}}},
		{name: "priority to TC 2 with 3 TCs", tlvs: []TLV{ets(func(e *ETS) { e.MaxTCs = 3; e.PrioTC[7] = 2 })}},
		// One finding per problem, however many priorities.
		{name: "priority to TC 8 with 8 TCs", tlvs: []TLV{ets(func(e *ETS) { e.PrioTC[0], e.PrioTC[1] = 8, 15 })},
			want: []d{{Code: CodeETSPrioTCRange, Level: LevelWarning, Feature: "ets"}}},
		{name: "reserved TSA 3", tlvs: []TLV{ets(func(e *ETS) { e.TSA[5] = 3 })},
			want: []d{{Code: CodeETSTSAReserved, Level: LevelError, Feature: "ets"}}},
		{name: "reserved TSA 254 with bandwidth", tlvs: []TLV{ets(func(e *ETS) { e.TSA[1] = 254 })},
			want: []d{
				{Code: CodeETSTSAReserved, Level: LevelError, Feature: "ets"},
				{Code: CodeETSBandwidthNonETS, Level: LevelWarning, Feature: "ets"},
			}},
		{name: "recommendation problems", tlvs: []TLV{reco(func(e *ETS) { e.Bandwidth[0] = 10; e.TSA[2] = 7; e.PrioTC[4] = 9 })},
			want: []d{
				{Code: CodeETSTSAReserved, Level: LevelError, Feature: "ets_reco"},
				{Code: CodeETSBandwidthSum, Level: LevelError, Feature: "ets_reco"},
				{Code: CodeETSPrioTCRange, Level: LevelWarning, Feature: "ets_reco"},
			}},
		{name: "PFC enabled on more priorities than cap", tlvs: []TLV{&PFC{Cap: 2, Enabled: 0x07}},
			want: []d{{Code: CodePFCCapExceeded, Level: LevelError, Feature: "pfc"}}},
		{name: "PFC enabled on as many priorities as cap", tlvs: []TLV{&PFC{Cap: 3, Enabled: 0x07}}},
		{name: "PFC cap 9", tlvs: []TLV{&PFC{Cap: 9, Enabled: 0x08}},
			want: []d{{Code: CodePFCCapRange, Level: LevelError, Feature: "pfc"}}},
		{name: "APP selectors 0, 6 and 7", tlvs: []TLV{app(AppEntry{3, 0, 1}, AppEntry{3, 6, 1}, AppEntry{3, 7, 1})},
			want: []d{
				{Code: CodeAppSelector, Level: LevelError, Feature: "app"},
				{Code: CodeAppSelector, Level: LevelError, Feature: "app"},
				{Code: CodeAppSelector, Level: LevelError, Feature: "app"},
			}},
		{name: "DSCP 64", tlvs: []TLV{app(AppEntry{3, AppSelDSCP, 63}, AppEntry{3, AppSelDSCP, 64})},
			want: []d{{Code: CodeAppDSCPRange, Level: LevelError, Feature: "app"}}},
		{name: "EtherType 0x5ff", tlvs: []TLV{app(AppEntry{3, AppSelEthertype, 0x5ff}, AppEntry{3, AppSelEthertype, 1})},
			want: []d{
				{Code: CodeAppEthertypeRange, Level: LevelError, Feature: "app"},
				{Code: CodeAppEthertypeRange, Level: LevelError, Feature: "app"},
			}},
		{name: "duplicate APP entry", tlvs: []TLV{app(AppEntry{3, AppSelUDP, 4791}, AppEntry{4, AppSelUDP, 4791}, AppEntry{3, AppSelUDP, 4791})},
			want: []d{{Code: CodeAppDuplicate, Level: LevelWarning, Feature: "app"}}},
		{name: "duplicate ETS: the second is not validated", tlvs: []TLV{goodETS(), ets(func(e *ETS) { e.TSA[7] = 9 })},
			want: []d{{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "lldp"}}},
		{name: "duplicate ETS: the first is", tlvs: []TLV{ets(func(e *ETS) { e.TSA[7] = 9 }), goodETS()},
			want: []d{
				{Code: CodeETSTSAReserved, Level: LevelError, Feature: "ets"},
				{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "lldp"},
			}},
		{name: "ETS and recommendation are not duplicates", tlvs: []TLV{goodETS(), reco(func(*ETS) {})}},
		{name: "duplicate recommendation, PFC and APP", tlvs: []TLV{
			reco(func(*ETS) {}), refPFCWant, app(), reco(func(*ETS) {}), &PFC{Cap: 1, Enabled: 0xff}, app(AppEntry{3, 0, 1}),
		},
			want: []d{
				{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "lldp"},
				{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "lldp"},
				{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "lldp"},
			}},
		{name: "duplicate CEE", tlvs: []TLV{goodCEE(), cee(func(c *CEE) { c.Control = nil })},
			want: []d{{Code: CodeDuplicateTLV, Level: LevelError, Feature: "cee"}}},
		{name: "IEEE and CEE", tlvs: []TLV{goodCEE(), refPFCWant},
			want: []d{{Code: CodeDialectBoth, Level: LevelWarning, Feature: "lldp"}}},
		{name: "CIN", tlvs: []TLV{&RawTLV{T: TLVTypeOrg, Value: cinTLV[2:]}},
			want: []d{{Code: CodeCINLegacy, Level: LevelInfo, Feature: "cee"}}},
		{name: "CIN and IEEE", tlvs: []TLV{goodETS(), &RawTLV{T: TLVTypeOrg, Value: cinTLV[2:]}},
			want: []d{
				{Code: CodeCINLegacy, Level: LevelInfo, Feature: "cee"},
				{Code: CodeDialectBoth, Level: LevelWarning, Feature: "lldp"},
			}},
		{name: "CEE PG sum 90", tlvs: []TLV{cee(func(c *CEE) { c.PG.Bandwidth = [8]uint8{50, 40} })},
			want: []d{{Code: CodeCEEPGBandwidthSum, Level: LevelError, Feature: "ets"}}},
		{name: "CEE reserved PGIDs 8 and 14", tlvs: []TLV{cee(func(c *CEE) { c.PG.PGID[0], c.PG.PGID[1] = 8, 14 })},
			want: []d{
				{Code: CodeCEEPGIDReserved, Level: LevelError, Feature: "ets"},
				{Code: CodeCEEPGIDReserved, Level: LevelError, Feature: "ets"},
			}},
		{name: "CEE without Control", tlvs: []TLV{cee(func(c *CEE) { c.Control = nil })},
			want: []d{{Code: CodeCEEControlMissing, Level: LevelError, Feature: "cee"}}},
		{name: "CEE repeated sub-TLV", tlvs: []TLV{cee(func(c *CEE) { c.Other = []CEESubTLV{{Type: 5}, {Type: 2, Value: make([]byte, 17)}} })},
			want: []d{{Code: CodeDuplicateTLV, Level: LevelWarning, Feature: "cee"}}},
		{name: "reference 4.5 CEE", tlvs: []TLV{refCEEWant}},
		{name: "Juniper CEE", tlvs: []TLV{juniperCEEWant}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du := mustParse(t, lldpdu(tlvBytes(t, tt.tlvs...)))
			if diff := cmp.Diff(tt.want, du.Findings, cmpopts.IgnoreFields(Finding{}, "Message"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Findings (-want +got):\n%s", diff)
			}
			for _, g := range du.Findings {
				if g.Message == "" {
					t.Errorf("%s has no message", g.Code)
				}
			}
			// Validate of the DU built by hand finds what Parse recorded.
			if diff := cmp.Diff(du.Findings, baseDU(tt.tlvs...).Validate()); diff != "" {
				t.Errorf("Validate differs from Parse (-Parse +Validate):\n%s", diff)
			}
		})
	}
}

// A few complete messages, as an operator reads them.
func TestDiagnosticMessages(t *testing.T) {
	e := goodETS()
	e.MaxTCs, e.PrioTC[7], e.Bandwidth[2], e.TSA[3] = 4, 5, 20, 3
	b := lldpdu(tlvBytes(t, e,
		&PFC{Cap: 1, Enabled: 0x18},
		&AppPriority{Entries: []AppEntry{{3, AppSelDSCP, 64}, {3, AppSelEthertype, 0x88}, {2, 6, 1}}},
		&CEE{PG: &CEEPG{PGID: [8]uint8{9}, Bandwidth: [8]uint8{7: 100}}}))
	du := mustParse(t, b)
	want := []Finding{
		{Code: CodeETSBandwidthNonETS, Level: LevelWarning, Feature: "ets", Message: "TC2 has 20% bandwidth but TSA strict ignores it"},
		{Code: CodeETSTSAReserved, Level: LevelError, Feature: "ets", Message: "TC3 uses reserved TSA 3"},
		{Code: CodeETSBandwidthSum, Level: LevelError, Feature: "ets", Message: "TC bandwidths sum to 120%, want 100%"},
		{Code: CodeETSPrioTCRange, Level: LevelWarning, Feature: "ets", Message: "priority 7 maps to TC5, but Max TCs is 4 (TC0-TC3)"},
		{Code: CodePFCCapExceeded, Level: LevelError, Feature: "pfc", Message: "2 priorities have PFC enabled but the capability is 1"},
		{Code: CodeAppDSCPRange, Level: LevelError, Feature: "app", Message: "entry 1: DSCP 64 is over 63"},
		{Code: CodeAppEthertypeRange, Level: LevelError, Feature: "app", Message: "entry 2: EtherType 0x0088 is below 0x0600"},
		{Code: CodeAppSelector, Level: LevelError, Feature: "app", Message: "entry 3 uses reserved selector 6"},
		{Code: CodeCEEControlMissing, Level: LevelError, Feature: "cee", Message: "CEE TLV has no Control sub-TLV"},
		{Code: CodeCEEPGIDReserved, Level: LevelError, Feature: "ets", Message: "priority 0 uses reserved PGID 9"},
		{Code: CodeDialectBoth, Level: LevelWarning, Feature: "lldp", Message: "LLDPDU carries both IEEE 802.1Qaz and CEE DCBX TLVs; IEEE is used"},
	}
	if diff := cmp.Diff(want, du.Findings); diff != "" {
		t.Errorf("Findings (-want +got):\n%s", diff)
	}
}

// TestPrioTCRangeMessage: one ets-prio-tc-range per ETS TLV, listing the
// priorities per TC (a Juniper QFX3500 maps every priority to TC7 with
// Max TCs 3 and got eight errors).
func TestPrioTCRangeMessage(t *testing.T) {
	tests := []struct {
		name   string
		prioTC [8]uint8
		maxTCs uint8
		want   string // "" for no finding
	}{
		{"QFX3500", [8]uint8{7, 7, 7, 7, 7, 7, 7, 7}, 3, "priorities 0-7 map to TC7, but Max TCs is 3 (TC0-TC2)"},
		{"two TCs", [8]uint8{7, 7, 7, 7, 0, 4, 0, 0}, 3, "priorities 0-3 map to TC7, priority 5 to TC4, but Max TCs is 3 (TC0-TC2)"},
		{"scattered", [8]uint8{5, 0, 5, 0, 0, 5, 0, 0}, 4, "priorities 0,2,5 map to TC5, but Max TCs is 4 (TC0-TC3)"},
		{"one", [8]uint8{0, 0, 0, 0, 0, 0, 0, 3}, 3, "priority 7 maps to TC3, but Max TCs is 3 (TC0-TC2)"},
		{"pair", [8]uint8{0, 0, 0, 4, 4, 0, 0, 0}, 4, "priorities 3,4 map to TC4, but Max TCs is 4 (TC0-TC3)"},
		{"max TCs 0 means 8", [8]uint8{7, 7, 7, 7, 7, 7, 7, 7}, 0, ""},
		{"valid", [8]uint8{0, 1, 2, 2, 1, 0, 0, 0}, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &ETS{MaxTCs: tt.maxTCs, PrioTC: tt.prioTC, Bandwidth: [8]uint8{100}, TSA: [8]TSA{TSAETS, TSAStrict, TSAStrict, TSAStrict, TSAStrict, TSAStrict, TSAStrict, TSAStrict}}
			var got []Finding
			for _, d := range e.Validate() {
				if d.Code == CodeETSPrioTCRange {
					got = append(got, d)
				}
			}
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("findings %+v, want none", got)
			case tt.want != "" && (len(got) != 1 || got[0].Message != tt.want || got[0].Level != LevelWarning):
				t.Errorf("findings %+v, want one warning: %q", got, tt.want)
			}
		})
	}
}
