// SPDX-License-Identifier: Apache-2.0

package diag

import (
	"encoding/json"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/google/go-cmp/cmp"
)

// Severity appears in JSON: String and MarshalText give its text,
// UnmarshalText reads it back and rejects anything else.
func TestSeverityText(t *testing.T) {
	for _, tt := range []struct {
		s    Severity
		text string
	}{{SeverityInfo, "info"}, {SeverityWarning, "warning"}, {SeverityError, "error"}} {
		b, err := tt.s.MarshalText()
		if err != nil || string(b) != tt.text || tt.s.String() != tt.text {
			t.Errorf("MarshalText() = %q, %v; String() = %q; want %q", b, err, tt.s.String(), tt.text)
		}
		var got Severity
		if err := got.UnmarshalText([]byte(tt.text)); err != nil || got != tt.s {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tt.text, got, err, tt.s)
		}
	}
	for _, bad := range []string{"", "fatal", "Error"} {
		var got Severity
		if err := got.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) = %v, want an error", bad, got)
		}
	}
}

// The JSON of a Diagnostic, as the snapshot and the schema have it.
func TestDiagnosticJSON(t *testing.T) {
	for _, tt := range []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Code: CodePFCMismatch, Severity: SeverityError, Feature: "pfc", Message: "m", Action: "a"},
			`{"code":"pfc-mismatch","severity":"error","feature":"pfc","message":"m","action":"a"}`},
		{Diagnostic{Code: CodeTooManyInterfaces, Severity: SeverityInfo, Message: "m"},
			`{"code":"too-many-interfaces","severity":"info","message":"m"}`},
	} {
		b, err := json.Marshal(tt.d)
		if err != nil || string(b) != tt.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.d, b, err, tt.want)
		}
		var back Diagnostic
		if err := json.Unmarshal(b, &back); err != nil || back != tt.d {
			t.Errorf("json.Unmarshal(%s) = %+v, %v; want %+v", b, back, err, tt.d)
		}
	}
}

// The codec's findings become diagnostics in one place: the code keeps its
// text, the level becomes the severity, the engine adds the action.
func TestDiagnosticOf(t *testing.T) {
	prioTCAction := "the sender maps priorities to traffic classes beyond the number it supports: fix the switch's ETS/CoS mapping or its TC count; until then the receiving hardware decides where those priorities go"
	discardAction := "the peer sends a malformed TLV: check its software version; this TLV's parameters are ignored until it sends a valid one"
	tests := []struct {
		f    lldp.Finding
		want Diagnostic
	}{
		{lldp.Finding{Code: lldp.CodeETSBandwidthSum, Level: lldp.LevelError, Feature: "ets", Message: "m"},
			Diagnostic{Code: CodeETSBandwidthSum, Severity: SeverityError, Feature: "ets", Message: "m",
				Action: "fix the sender's ETS bandwidth table so that the ETS classes share 100% (on the switch: its ETS/QoS configuration; on this host: dcbtop apply)"}},
		{lldp.Finding{Code: lldp.CodeDialectBoth, Level: lldp.LevelWarning, Feature: "lldp", Message: "m"},
			Diagnostic{Code: CodeDialectBoth, Severity: SeverityWarning, Feature: "lldp", Message: "m"}},
		{lldp.Finding{Code: lldp.CodeCINLegacy, Level: lldp.LevelInfo, Feature: "cee", Message: "m"},
			Diagnostic{Code: CodeCINLegacy, Severity: SeverityInfo, Feature: "cee", Message: "m"}},
		{lldp.Finding{Code: lldp.CodeETSPrioTCRange, Level: lldp.LevelWarning, Feature: "ets_reco", Message: "m"},
			Diagnostic{Code: CodeETSPrioTCRange, Severity: SeverityWarning, Feature: "ets_reco", Message: "m", Action: prioTCAction}},
		{lldp.Finding{Code: lldp.CodeTLVDiscarded, Level: lldp.LevelWarning, Feature: "pfc", Message: "m"},
			Diagnostic{Code: CodeTLVDiscarded, Severity: SeverityWarning, Feature: "pfc", Message: "m", Action: discardAction}},
		{lldp.Finding{Code: "future-code", Level: 9, Message: "m"},
			Diagnostic{Code: "future-code", Severity: SeverityInfo, Message: "m"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, FromFinding(tt.f)); diff != "" {
			t.Errorf("FromFinding(%+v) (-want +got):\n%s", tt.f, diff)
		}
	}
	// Every code of the codec is an engine code of the same text, with a
	// rule.
	for c, l := range map[Code]lldp.Code{
		CodeETSBandwidthSum: lldp.CodeETSBandwidthSum, CodeETSBandwidthRange: lldp.CodeETSBandwidthRange,
		CodeETSBandwidthNonETS: lldp.CodeETSBandwidthNonETS, CodeETSPrioTCRange: lldp.CodeETSPrioTCRange,
		CodeETSTSAReserved: lldp.CodeETSTSAReserved, CodePFCCapRange: lldp.CodePFCCapRange,
		CodePFCCapExceeded: lldp.CodePFCCapExceeded, CodeAppSelector: lldp.CodeAppSelector,
		CodeAppDSCPRange: lldp.CodeAppDSCPRange, CodeAppEthertypeRange: lldp.CodeAppEthertypeRange,
		CodeAppDuplicate: lldp.CodeAppDuplicate, CodeDuplicateTLV: lldp.CodeDuplicateTLV,
		CodeDialectBoth: lldp.CodeDialectBoth, CodeCEEPGBandwidthSum: lldp.CodeCEEPGBandwidthSum,
		CodeCEEPGIDReserved: lldp.CodeCEEPGIDReserved, CodeCEEControlMissing: lldp.CodeCEEControlMissing,
		CodeCINLegacy: lldp.CodeCINLegacy, CodeTLVDiscarded: lldp.CodeTLVDiscarded,
	} {
		if string(c) != string(l) || Rule(c) == "" {
			t.Errorf("engine code %q for codec code %q (rule %q)", c, l, Rule(c))
		}
	}
}
