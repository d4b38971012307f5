// SPDX-License-Identifier: Apache-2.0

package qos

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/lossless/losslesstest"
)

// t0 is the time of the fixtures.
var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// qosEngine is an engine whose eth0 has the kernel's PFC on 3 with DSCP
// 26 → 3, trusts PCP only (a trust table the kernel reports), PFC delay 0
// and priority 3 on buffer 1 of 130944 bytes.
func qosEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New(engine.Config{NameFixes: NameFixes})
	e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Mode: "host agent, IEEE",
		Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}})
	d, ethernet := uint16(0), "Ethernet"
	e.Apply(engine.CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		RoCE: []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1, LinkLayer: &ethernet}},
		QoS: &lossless.PortQoSSample{Trust: []string{"pcp"}, PFCDelay: &d, Source: "dcbnl IEEE_GET",
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288}}})
	return e
}

// PreviewQoS judges the changed facts by the same rules, changing
// nothing: trusting DSCP clears trust-pcp-with-dscp-map, a PFC delay
// clears pfc-no-headroom; what the kernel or the rules refuse is refused
// before any write.
func TestPreviewQoS(t *testing.T) {
	codes := func(in engine.Interface) []diag.Code {
		var out []diag.Code
		for _, d := range in.Diagnostics {
			if d.Code == diag.CodeTrustMismatch || d.Code == diag.CodePFCNoHeadroom || d.Code == diag.CodeRoCEToSECN {
				out = append(out, d.Code)
			}
		}
		return out
	}
	delay := uint16(7)
	for _, tt := range []struct {
		name       string
		change     Change
		wantBefore []diag.Code
		wantAfter  []diag.Code
		wantLines  []string
		wantErr    string
	}{
		{"trust dscp, pcp", Change{Trust: []string{"dscp", "pcp"}}, []diag.Code{diag.CodePFCNoHeadroom, diag.CodeTrustMismatch},
			[]diag.Code{diag.CodePFCNoHeadroom}, []string{"trust pcp → dscp, pcp"}, ""},
		{"PFC delay 7", Change{PFCDelay: &delay}, nil, []diag.Code{diag.CodeTrustMismatch}, []string{"PFC delay 0 → 7"}, ""},
		{"both", Change{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay}, nil, nil, []string{"trust pcp → dscp, pcp", "PFC delay 0 → 7"}, ""},
		{"DSCP 46 → 5 added, 26 kept", Change{DSCP: []DSCPPriority{{46, 5}}}, nil, []diag.Code{diag.CodePFCNoHeadroom, diag.CodeTrustMismatch},
			[]string{"DSCP 46: none → priority 5"}, ""},
		{"ToS with ECN Not-ECT", Change{RoCEToS: []RoCEToSChange{{"mlx5_0", 1, 104}}}, nil,
			[]diag.Code{diag.CodeRoCEToSECN, diag.CodePFCNoHeadroom, diag.CodeTrustMismatch}, []string{"mlx5_0 port 1 rdma_cm default ToS unknown → 104 (DSCP 26, Not-ECT)"}, ""},
		{"unknown selector", Change{Trust: []string{"dscp", "vlan"}}, nil, nil, nil, `trust: unknown selector "vlan"`},
		{"selector twice", Change{Trust: []string{"dscp", "dscp"}}, nil, nil, nil, "trust: dscp given twice"},
		{"DSCP 64", Change{DSCP: []DSCPPriority{{64, 3}}}, nil, nil, nil, "dscp 64: a DSCP value is 0-63"},
		{"buffer 8", Change{Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{8}, SizeBytes: [8]uint32{1000}}}, nil, nil, nil, "buffer: priority 0 on buffer 8"},
		{"buffers beyond the total", Change{Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{400000, 400000}}}, nil, nil, nil,
			"buffer: sizes sum to 800000 bytes, more than the NIC's 524288"},
		{"PFC priority on an empty buffer", Change{Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 2}, SizeBytes: [8]uint32{130944, 130944}}}, nil, nil, nil,
			"buffer: PFC priority 3 on buffer 2 of size 0"},
		{"not an RDMA port", Change{RoCEToS: []RoCEToSChange{{"mlx5_1", 1, 106}}}, nil, nil, nil, "roce tos: mlx5_1 port 1 is not an RDMA port of eth0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := qosEngine(t)
			pv, err := PreviewOf(e, "eth0", tt.change)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantBefore == nil {
				tt.wantBefore = []diag.Code{diag.CodePFCNoHeadroom, diag.CodeTrustMismatch}
			}
			if diff := cmp.Diff(tt.wantBefore, codes(pv.Before)); diff != "" {
				t.Errorf("before (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAfter, codes(pv.After)); diff != "" {
				t.Errorf("after (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLines, pv.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			// Nothing changed in the engine.
			now, _ := e.Interface("eth0")
			if diff := cmp.Diff(pv.Before.Diagnostics, now.Diagnostics); diff != "" {
				t.Errorf("the preview changed the engine (-before +now):\n%s", diff)
			}
		})
	}
}

// Fixes proposes a fix for each diagnostic dcbtop can write one for,
// and each fix, previewed, clears its diagnostic.
func TestQoSFixes(t *testing.T) {
	e := qosEngine(t)
	in, _ := e.Interface("eth0")
	fixes := Fixes(in)
	delay := uint16(7)
	want := []Fix{
		{Code: diag.CodePFCNoHeadroom, Change: Change{PFCDelay: &delay}},
		{Code: diag.CodeTrustMismatch, Change: Change{Trust: []string{"dscp", "pcp"}}},
	}
	if diff := cmp.Diff(want, fixes, cmpopts.IgnoreFields(Fix{}, "Why")); diff != "" {
		t.Fatalf("fixes (-want +got):\n%s", diff)
	}
	for _, f := range fixes {
		pv, err := PreviewOf(e, "eth0", f.Change)
		if err != nil {
			t.Fatal(err)
		}
		if _, still := pv.After.Diagnostic(f.Code); still {
			t.Errorf("%s: the fix leaves it (%s)", f.Code, f.Why)
		}
	}
	// Trust DSCP with no DSCP entry: map the RoCE traffic's DSCP.
	e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Mode: "host agent, IEEE",
		Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{}}})
	d := uint16(7)
	e.Apply(engine.CountersSampled{Interface: "eth0", At: t0.Add(time.Second), Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		QoS: &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &d}})
	in, _ = e.Interface("eth0")
	if diff := cmp.Diff([]Fix{{Code: diag.CodeTrustMismatch, Change: Change{DSCP: []DSCPPriority{{DSCP: 26, Priority: 3}}}}},
		Fixes(in), cmpopts.IgnoreFields(Fix{}, "Why")); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
}

// HasFix agrees with Fixes.
func TestHasQoSFix(t *testing.T) {
	e := qosEngine(t)
	in, _ := e.Interface("eth0")
	if !HasFix(&in) || len(Fixes(in)) == 0 {
		t.Error("fixes expected")
	}
	in.Diagnostics = nil
	if HasFix(&in) || len(Fixes(in)) != 0 {
		t.Error("no diagnostic: no fix")
	}
}

// A diagnostic names the screen's f only where f has a fix for it (and
// never in a replay, where nothing is written): roce-tos-not-lossless
// with a DSCP the APP table maps to a PFC priority has one (that DSCP);
// without one it names the commands alone. At 7737732 every such
// diagnostic said "(f on dcbtop's screen …)", and f then answered "no
// diagnostic here has a fix dcbtop can write".
func TestFixNamedOnlyWhereItExists(t *testing.T) {
	for _, tt := range []struct {
		name   string
		app    []dcb.App
		replay bool
		f      bool
	}{
		{"a DSCP on a PFC priority to move the ToS to", []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 0}, {Selector: lldp.AppSelDSCP, Protocol: 24, Priority: 3}}, false, true},
		{"no DSCP maps to a PFC priority", []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 0}}, false, false},
		{"a replay", []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 0}, {Selector: lldp.AppSelDSCP, Protocol: 24, Priority: 3}}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(engine.Config{Replay: tt.replay, NameFixes: NameFixes})
			e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: tt.app}})
			e.Apply(engine.CountersSampled(losslesstest.MLX(t0, 0)))
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodeRoCEToSNotLossless)
			if !ok {
				t.Fatalf("no roce-tos-not-lossless: %+v", in.Diagnostics)
			}
			if named := strings.Contains(d.Action, "f on dcbtop's screen"); named != tt.f {
				t.Errorf("action %q names f: %v, want %v", d.Action, named, tt.f)
			}
			if has := len(Fixes(in)) > 0; has != tt.f && !tt.replay {
				t.Errorf("Fixes %v, but f named %v", Fixes(in), tt.f)
			}
		})
	}
}
