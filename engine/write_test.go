// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestWriteResultWords pins the one rendering of a write's result:
// Lines (what dcbtop apply prints after the interface name), String (the
// screen's message) and the error alone, for each outcome and each kind
// of WriteError.
func TestWriteResultWords(t *testing.T) {
	kernel := func(r WriteResult) WriteResult { r.Interface, r.Target = "eth0", WriteKernel; return r }
	werr := func(e WriteError) *WriteError { e.Interface = "eth0"; return &e }
	ets, pfc, app := FeatureETS, FeaturePFC, FeatureApp
	willingNote := WriteNote{Kind: NoteETSWillingOnly, Willing: true}
	tests := []struct {
		name string
		in   WriteResult
		want words
	}{
		{"written and read back", kernel(WriteResult{Written: []Feature{ets, pfc}, Unchanged: []Feature{app}}),
			words{Lines: []string{"applied through dcbnl and read back: ETS, PFC; APP unchanged (not rewritten)"},
				String: "applied through dcbnl and read back: ETS, PFC; APP unchanged (not rewritten)"}},
		{"nothing to write", kernel(WriteResult{Unchanged: []Feature{pfc}}),
			words{Lines: []string{"nothing to change: the driver already has these parameters (nothing rewritten)"},
				String: "nothing to change: the driver already has these parameters (nothing rewritten)"}},
		{"willing note", kernel(WriteResult{Written: []Feature{ets}, Notes: []WriteNote{willingNote}}),
			words{Lines: []string{"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on",
				"applied through dcbnl and read back: ETS"},
				String: "PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on; applied through dcbnl and read back: ETS"}},
		{"willing already so", kernel(WriteResult{Unchanged: []Feature{ets}, Notes: []WriteNote{{Kind: NoteETSWillingOnly, Already: true}}}),
			words{Lines: []string{"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing already off",
				"nothing to change: the driver already has these parameters (nothing rewritten)"},
				String: "PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing already off; nothing to change: the driver already has these parameters (nothing rewritten)"}},
		{"agent", WriteResult{Interface: "h0", Target: WriteAgent, Written: []Feature{pfc, FeatureWilling}},
			words{Lines: []string{"applied to dcbtop's agent: PFC, willing"}, String: "applied to dcbtop's agent: PFC, willing"}},
		{"agent, nothing changed", WriteResult{Interface: "h0", Target: WriteAgent},
			words{Lines: []string{"nothing changed: dcbtop's agent already advertises these parameters"},
				String: "nothing changed: dcbtop's agent already advertises these parameters"}},

		{"no-dcb", kernel(WriteResult{Err: werr(WriteError{Kind: WriteNoDCB, Op: "read DCB parameters (IEEE_GET)"})}),
			failed("no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i eth0 to be the DCBX agent")},
		{"no-interface", kernel(WriteResult{Err: werr(WriteError{Kind: WriteNoInterface, Detail: "no such interface (available: eth1, lo)"})}),
			failed("no such interface (available: eth1, lo)")},
		{"no-interface, nothing listed", kernel(WriteResult{Err: werr(WriteError{Kind: WriteNoInterface})}),
			failed("no such interface")},
		{"permission", kernel(WriteResult{Err: werr(WriteError{Kind: WritePermission, Op: "set PFC (IEEE_SET)", Feature: pfc})}),
			failed("set PFC (IEEE_SET): permission denied (needs CAP_NET_ADMIN: run as root)")},
		{"read-failed", kernel(WriteResult{Err: werr(WriteError{Kind: WriteReadFailed, Op: "read DCB parameters (IEEE_GET)", Detail: "IEEE_GET eth0: device or resource busy"})}),
			failed("read DCB parameters (IEEE_GET): IEEE_GET eth0: device or resource busy")},
		{"firmware-managed", kernel(WriteResult{Err: werr(WriteError{Kind: WriteFirmwareManaged})}),
			failed("the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first " +
				"(ice: ethtool --set-priv-flags eth0 fw-lldp-agent off; i40e: ethtool --set-priv-flags eth0 disable-fw-lldp on; mlx5: dcbtop apply -i eth0 --dcbx-mode host), or configure the switch")},
		{"invalid-params", kernel(WriteResult{Err: werr(WriteError{Kind: WriteInvalidParams, Detail: "ets: bandwidths sum to 90 %"})}),
			failed("invalid parameters, nothing sent: ets: bandwidths sum to 90 %")},
		{"rejected", kernel(WriteResult{Err: werr(WriteError{Kind: WriteRejected, Feature: ets, NotAttempted: []Feature{pfc}, Detail: "driver rejected IEEE_SET on eth0: numerical result out of range"})}),
			failed("ETS failed: driver rejected IEEE_SET on eth0: numerical result out of range; PFC not attempted")},
		{"partial", kernel(WriteResult{Written: []Feature{ets}, Err: werr(WriteError{Kind: WritePartial, Feature: pfc, Written: []Feature{ets},
			NotAttempted: []Feature{app}, Detail: "driver rejected IEEE_SET on eth0: invalid argument"})}),
			failed("ETS applied; PFC failed: driver rejected IEEE_SET on eth0: invalid argument; APP not attempted")},
		{"read-back-failed", kernel(WriteResult{Written: []Feature{ets, pfc}, Err: werr(WriteError{Kind: WriteReadBackFailed, Written: []Feature{ets, pfc}, Detail: "IEEE_GET eth0: input/output error"})}),
			failed("ETS, PFC applied, but reading them back failed: IEEE_GET eth0: input/output error")},
		{"read-back-mismatch", kernel(WriteResult{Written: []Feature{ets, pfc, app}, Err: werr(WriteError{Kind: WriteReadBackMismatch, Written: []Feature{ets, pfc, app},
			Mismatches: []Mismatch{
				{Feature: ets, Fields: []FieldDiff{{Field: "tc_bandwidth", Got: "50/50/0/0/0/0/0/0", Want: "40/60/0/0/0/0/0/0"}, {Field: "willing", Got: "off", Want: "on"}}},
				{Feature: pfc, Absent: true},
				{Feature: app, Missing: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}, Unexpected: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 46, Priority: 5}}},
			}})}),
			failed("driver accepted ETS but reports different values: tc_bandwidth 50/50/0/0/0/0/0/0, want 40/60/0/0/0/0/0/0; willing off, want on; " +
				"driver accepted PFC but reports different values: no PFC reported; " +
				"driver accepted APP but reports different values: missing udp-port 4791 priority 3; unexpected dscp 46 priority 5")},
		{"a failure after a note", kernel(WriteResult{Written: []Feature{ets}, Notes: []WriteNote{willingNote},
			Err: werr(WriteError{Kind: WriteReadBackMismatch, Written: []Feature{ets}, Mismatches: []Mismatch{{Feature: ets, Fields: []FieldDiff{{Field: "willing", Got: "off", Want: "on"}}}}})}),
			words{Lines: []string{"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on"},
				String: "PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on; driver accepted ETS but reports different values: willing off, want on",
				Err:    "driver accepted ETS but reports different values: willing off, want on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := words{Lines: tt.in.Lines(), String: tt.in.String()}
			if tt.in.Err != nil {
				got.Err = tt.in.Err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Failure is the whole line and wraps the typed error.
			err := tt.in.Failure()
			if (err == nil) != (tt.in.Err == nil) {
				t.Fatalf("Failure() = %v with Err %v", err, tt.in.Err)
			}
			if err != nil {
				var we *WriteError
				if err.Error() != tt.want.String || !errors.As(err, &we) || we != tt.in.Err {
					t.Errorf("Failure() = %q (as WriteError: %v), want %q wrapping Err", err, we, tt.want.String)
				}
			}
		})
	}
}

// words is what a WriteResult says.
type words struct {
	Lines  []string
	String string
	Err    string
}

// failed is what a result with no note says when its write failed with
// msg.
func failed(msg string) words { return words{String: msg, Err: msg} }

// TestWriteNames pins the names of the typed values.
func TestWriteNames(t *testing.T) {
	var kinds []string
	for k := WriteNoDCB; k <= WriteReadBackMismatch; k++ {
		kinds = append(kinds, k.String())
	}
	want := []string{"no-dcb", "no-interface", "permission", "read-failed", "firmware-managed", "invalid-params",
		"rejected", "partial", "read-back-failed", "read-back-mismatch"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	var features []string
	for f := FeatureETS; f <= FeatureWilling; f++ {
		features = append(features, f.String())
	}
	if diff := cmp.Diff([]string{"ETS", "ETS reco", "PFC", "APP", "willing"}, features); diff != "" {
		t.Errorf("features (-want +got):\n%s", diff)
	}
	if WriteKernel.String() != "dcbnl" || WriteAgent.String() != "dcbtop's agent" {
		t.Errorf("targets %q, %q", WriteKernel, WriteAgent)
	}
}

// TestWriteResultLocalChanged: the state read back is the engine's local
// change, from the driver with its DCBX mode, or from dcbtop's agent;
// nothing when it could not be read back.
func TestWriteResultLocalChanged(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &dcb.Params{PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 0x18}}
	tests := []struct {
		name string
		in   WriteResult
		want LocalChanged
		ok   bool
	}{
		{"kernel", WriteResult{Interface: "eth0", Target: WriteKernel, Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true,
			After: LocalState{Willing: true, Params: p}},
			LocalChanged{Interface: "eth0", At: at, Source: SourceDCBNL, Willing: true, Params: p, Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true}, true},
		{"agent", WriteResult{Interface: "h0", Target: WriteAgent, After: LocalState{Params: p}},
			LocalChanged{Interface: "h0", At: at, Source: SourceAgent, Params: p}, true},
		{"not read back", WriteResult{Interface: "eth0", Target: WriteKernel, Before: LocalState{Params: p}}, LocalChanged{}, false},
	}
	for _, tt := range tests {
		got, ok := tt.in.LocalChanged(at)
		if ok != tt.ok {
			t.Errorf("%s: ok %v", tt.name, ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if ok && got.Params == tt.in.After.Params {
			t.Errorf("%s: the event shares the result's parameters", tt.name)
		}
	}
}

// TestFirmwareRefusal: where the NIC firmware runs DCBX, a write of ETS,
// its recommendation, PFC or Willing is refused, an APP-only write is not;
// without the firmware nothing is.
func TestFirmwareRefusal(t *testing.T) {
	on := true
	app := &dcb.Params{App: []dcb.App{{Selector: 5, Protocol: 26, Priority: 3}}}
	for _, tt := range []struct {
		name     string
		firmware bool
		p        *dcb.Params
		willing  *bool
		refused  bool
	}{
		{"ETS", true, &dcb.Params{ETS: &dcb.ETS{}}, nil, true},
		{"ETS recommendation", true, &dcb.Params{ETSReco: &dcb.ETSReco{}}, nil, true},
		{"PFC", true, &dcb.Params{PFC: &dcb.PFC{}}, nil, true},
		{"Willing", true, nil, &on, true},
		{"APP only", true, app, nil, false},
		{"nothing", true, nil, nil, false},
		{"no firmware", false, &dcb.Params{ETS: &dcb.ETS{}, PFC: &dcb.PFC{}}, &on, false},
	} {
		err := FirmwareRefusal("eth0", tt.firmware, tt.p, tt.willing)
		if (err != nil) != tt.refused || err != nil && (err.Kind != WriteFirmwareManaged || err.Interface != "eth0") {
			t.Errorf("%s: %v, want refused %v", tt.name, err, tt.refused)
		}
	}
}
