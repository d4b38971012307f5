// SPDX-License-Identifier: Apache-2.0

package qos

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// Rates are read as iproute2's dcb maxrate and tc read bits per second,
// into struct ieee_maxrate's kbit/s; the byte units they also take, and
// a number without a unit, are refused with why.
func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    uint64
		wantErr string
	}{
		{"0", 0, ""},
		{"unlimited", 0, ""},
		{"10gbit", 10_000_000, ""},
		{"10G", 10_000_000, ""},
		{"25Gbit/s", 25_000_000, ""},
		{"2.5gbit", 2_500_000, ""},
		{"500mbit", 500_000, ""},
		{"64kbit", 64, ""},
		{"1tbit", 1_000_000_000, ""},
		{"8000bit", 8, ""},
		{"1500bit", 0, "not a whole number of kbit/s"},
		{"10", 0, "give a unit"},
		{"10gbps", 0, "bytes per second"},
		{"10GB", 0, "unknown unit"},
		{"gbit", 0, "want a rate"},
		{"1.2.3gbit", 0, "is not a number"},
		{"", 0, "give a unit"},
		{"99999999999999999999tbit", 0, "too large"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseRate(%q) = %d, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRate(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
			// What rateArg writes reads back the same.
			if back, err := ParseRate(rateArg(got)); err != nil || back != got {
				t.Errorf("rateArg(%d) = %q reads back %d, %v", got, rateArg(got), back, err)
			}
		})
	}
}

// --maxrate takes dcb maxrate's TC:RATE pairs, and all.
func TestParseMaxRate(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []TCRate
		wantErr string
	}{
		{"0:10gbit,3:25gbit", []TCRate{{0, 10_000_000}, {3, 25_000_000}}, ""},
		{"7:0", []TCRate{{7, 0}}, ""},
		{"all:1gbit", []TCRate{{0, 1e6}, {1, 1e6}, {2, 1e6}, {3, 1e6}, {4, 1e6}, {5, 1e6}, {6, 1e6}, {7, 1e6}}, ""},
		{"8:1gbit", nil, "the traffic class is 0-7"},
		{"3=25gbit", nil, "want TC:RATE"},
		{"3:25", nil, "TC 3: \"25\": give a unit"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMaxRate(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRateWords(t *testing.T) {
	for kbps, want := range map[uint64]string{0: "unlimited", 64: "64 kbit/s", 100_000: "100 Mbit/s", 1_500_000: "1.5 Gbit/s", 25_000_000: "25 Gbit/s", 2_000_000_000: "2 Tbit/s"} {
		if got := RateWords(kbps); got != want {
			t.Errorf("RateWords(%d) = %q, want %q", kbps, got, want)
		}
	}
}

// A DCBX mode is host or lld-managed, with one version at most, in JSON
// as on the command line.
func TestDCBXMode(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    DCBXMode
		wantErr string
	}{
		{"host", DCBXMode{Agent: DCBXHost}, ""},
		{"lld-managed", DCBXMode{Agent: DCBXLLDManaged}, ""},
		{"Host,CEE", DCBXMode{Agent: DCBXHost, Version: "cee"}, ""},
		{"firmware", DCBXMode{}, "want host or lld-managed"},
		{"host,ieee,cee", DCBXMode{}, "the version is ieee or cee"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			var c Change
			err := json.Unmarshal([]byte(`{"dcbx_mode": "`+tt.in+`"}`), &c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.DCBXMode == nil {
				t.Fatalf("%v %v", c.DCBXMode, err)
			}
			if diff := cmp.Diff(tt.want, *c.DCBXMode); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			b, _ := json.Marshal(c.DCBXMode)
			if want := `"` + strings.ToLower(tt.in) + `"`; string(b) != want {
				t.Errorf("marshalled %s, want %s", b, want)
			}
		})
	}
	for b, want := range map[uint8]struct {
		m    DCBXMode
		both bool
	}{
		0x09: {DCBXMode{DCBXHost, "ieee"}, false},
		0x0d: {DCBXMode{DCBXHost, ""}, true},
		0x0a: {DCBXMode{DCBXLLDManaged, "ieee"}, false},
		0x0c: {DCBXMode{DCBXLLDManaged, ""}, true}, // mlx5's firmware mode: HOST clear
		0x05: {DCBXMode{DCBXHost, "cee"}, false},
	} {
		m, both := DCBXModeOf(b)
		if m != want.m || both != want.both {
			t.Errorf("DCBXModeOf(%#02x) = %v, %v; want %v, %v", b, m, both, want.m, want.both)
		}
	}
}

// knobsEngine has eth0 read from DCB netlink in host mode with rate
// limits (TC0 1 Gbit/s) on 8 TCs, and eth1 with neither a DCBX mode nor
// rate limits reported.
func knobsEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New(engine.Config{NameFixes: NameFixes})
	params := &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}}, PFC: &dcb.PFC{Cap: 8}}
	e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Mode: "host agent, IEEE", Params: params})
	e.Apply(engine.LocalChanged{Interface: "eth1", At: t0, Source: engine.SourceDCBNL, Params: params})
	for _, name := range []string{"eth0", "eth1"} {
		q := &lossless.PortQoSSample{Trust: []string{"pcp"}, TrustDerived: true, Source: "dcbnl IEEE_GET"}
		if name == "eth0" {
			q.MaxRateKbps = &[8]uint64{0: 1_000_000}
		}
		e.Apply(engine.CountersSampled{Interface: name, At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}, QoS: q})
	}
	return e
}

// Rate limits and the DCBX mode are checked against what the driver
// reports, previewed with what they change (the firmware-dcbx
// diagnostic for a firmware agent), and undone by the command Args
// renders.
func TestPreviewKnobs(t *testing.T) {
	lld := DCBXMode{Agent: DCBXLLDManaged}
	for _, tt := range []struct {
		name      string
		iface     string
		change    Change
		wantLines []string
		wantRates *[8]uint64
		wantDiag  bool // firmware-dcbx after
		wantErr   string
		wantArgs  []string
	}{
		{"maxrate TC3 25 Gbit/s", "eth0", Change{MaxRate: []TCRate{{3, 25_000_000}}}, []string{"maxrate TC3 unlimited → 25 Gbit/s"},
			&[8]uint64{1_000_000, 0, 0, 25_000_000}, false, "", []string{"--maxrate", "3:25gbit"}},
		{"maxrate TC0 unlimited", "eth0", Change{MaxRate: []TCRate{{0, 0}}}, []string{"maxrate TC0 1 Gbit/s → unlimited"},
			&[8]uint64{}, false, "", []string{"--maxrate", "0:0"}},
		{"DCBX to the firmware", "eth0", Change{DCBXMode: &lld}, []string{"DCBX mode host agent, IEEE → firmware-managed (LLD_MANAGED)"},
			&[8]uint64{1_000_000}, true, "", []string{"--dcbx-mode", "lld-managed"}},
		{"maxrate TC given twice", "eth0", Change{MaxRate: []TCRate{{3, 1}, {3, 2}}}, nil, nil, false, "maxrate: TC 3 given twice", nil},
		{"maxrate TC 8", "eth0", Change{MaxRate: []TCRate{{8, 1}}}, nil, nil, false, "maxrate: TC 8: traffic classes are 0-7", nil},
		{"no rate limits reported", "eth1", Change{MaxRate: []TCRate{{1, 1000}}}, nil, nil, false, "the driver reports no rate limits", nil},
		{"no DCBX mode reported", "eth1", Change{DCBXMode: &lld}, nil, nil, false, "the driver reports no DCBX mode", nil},
		{"a DCBX mode of neither agent", "eth0", Change{DCBXMode: &DCBXMode{Agent: "static"}}, nil, nil, false, "want host or lld-managed", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := knobsEngine(t)
			pv, err := PreviewOf(e, tt.iface, tt.change)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantLines, pv.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if got := pv.After.Counters.QoS.MaxRateKbps; got == nil || *got != *tt.wantRates {
				t.Errorf("rates after %v, want %v", got, *tt.wantRates)
			}
			_, before := pv.Before.Diagnostic(diag.CodeFirmwareDCBX)
			_, after := pv.After.Diagnostic(diag.CodeFirmwareDCBX)
			if before || after != tt.wantDiag {
				t.Errorf("firmware-dcbx before %v after %v, want after %v", before, after, tt.wantDiag)
			}
			if tt.wantDiag && !strings.Contains(strings.Join(pv.Changes(), "\n"), "+ firmware-dcbx") {
				t.Errorf("the verdicts' changes do not say firmware-dcbx: %q", pv.Changes())
			}
			if diff := cmp.Diff(tt.wantArgs, tt.change.Args()); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			now, _ := e.Interface(tt.iface)
			if now.FirmwareManaged || now.Counters.QoS.MaxRateKbps == nil && tt.iface == "eth0" || (*now.Counters.QoS.MaxRateKbps)[3] != 0 {
				t.Errorf("the preview changed the engine: %+v", now.Counters.QoS)
			}
		})
	}
}

// The screen's f hands DCBX to the host where the firmware runs it and
// the driver takes DCB_CMD_SDCBX for it (mlx5), not on ice and i40e,
// whose ethtool private flag does it instead; the fix, previewed, clears
// firmware-dcbx.
func TestFirmwareDCBXFix(t *testing.T) {
	for _, tt := range []struct {
		driver string
		fix    bool
	}{{"mlx5_core", true}, {"", true}, {"ice", false}, {"i40e", false}} {
		t.Run(tt.driver, func(t *testing.T) {
			e := engine.New(engine.Config{NameFixes: NameFixes})
			e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true,
				Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}})
			e.Apply(engine.CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}, Driver: tt.driver,
				QoS: &lossless.PortQoSSample{Trust: []string{"pcp"}, TrustDerived: true}})
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodeFirmwareDCBX)
			if !ok {
				t.Fatalf("no firmware-dcbx: %+v", in.Diagnostics)
			}
			var got []Fix
			for _, f := range Fixes(in) {
				if f.Code == diag.CodeFirmwareDCBX {
					got = append(got, f)
				}
			}
			if len(got) > 0 != tt.fix || HasFix(&in) != tt.fix || strings.Contains(d.Action, "f on dcbtop's screen") != tt.fix {
				t.Fatalf("fixes %+v, HasFix %v, action %q; want a fix: %v", got, HasFix(&in), d.Action, tt.fix)
			}
			if !tt.fix {
				return
			}
			if diff := cmp.Diff(&DCBXMode{Agent: DCBXHost}, got[0].Change.DCBXMode); diff != "" {
				t.Errorf("fix (-want +got):\n%s", diff)
			}
			pv, err := PreviewOf(e, "eth0", got[0].Change)
			if err != nil {
				t.Fatal(err)
			}
			if _, still := pv.After.Diagnostic(diag.CodeFirmwareDCBX); still || pv.After.FirmwareManaged {
				t.Errorf("the fix leaves firmware-dcbx: %+v", pv.After.Diagnostics)
			}
			if diff := cmp.Diff([]string{"DCBX mode firmware-managed (LLD_MANAGED), IEEE → host agent"}, pv.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// --pfc-storm-timeout takes ms, off or auto, as the u16 of
// ETHTOOL_PFC_PREVENTION_TOUT holds them.
func TestParseStormTimeout(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    uint16
		wantErr bool
	}{{"100", 100, false}, {"250ms", 250, false}, {"off", 0, false}, {"0", 0, false}, {"AUTO", 0xffff, false},
		{"65535", 0, true}, {"70000", 0, true}, {"-1", 0, true}, {"1s", 0, true}, {"", 0, true}} {
		got, err := ParseStormTimeout(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseStormTimeout(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil {
			if back, err := ParseStormTimeout(stormTimeoutArg(got)); err != nil || back != got {
				t.Errorf("stormTimeoutArg(%d) = %q reads back %d, %v", got, stormTimeoutArg(got), back, err)
			}
		}
	}
}

// A storm timeout is checked against the driver's tunable (none: refused
// in one line) and mlx5's range, previewed beside the storm counters.
func TestPreviewStormTimeout(t *testing.T) {
	u := func(v uint16) *uint16 { return &v }
	for _, tt := range []struct {
		name      string
		driver    string
		tunable   bool
		ms        uint16
		wantLines []string
		wantErr   string
	}{
		{"100 → 300 ms on mlx5", "mlx5_core", true, 300, []string{"PFC storm prevention timeout 100 ms → 300 ms"}, ""},
		{"off", "mlx5_core", true, 0, []string{"PFC storm prevention timeout 100 ms → off"}, ""},
		{"auto", "mlx5_core", true, 0xffff, []string{"PFC storm prevention timeout 100 ms → auto"}, ""},
		{"below mlx5's range", "mlx5_core", true, 50, nil, "mlx5 takes 80-8000 ms, off or auto (mlx5e_set_pfc_prevention_tout), not 50"},
		{"another driver's range is its own", "dcbtest", true, 50, []string{"PFC storm prevention timeout 100 ms → 50 ms"}, ""},
		{"no tunable", "ice", false, 100, nil, "the driver has no PFC storm prevention timeout (no ethtool tunable pfc-prevention-tout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(engine.Config{})
			e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}})
			pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool}
			if tt.tunable {
				pfc.StormTimeout = lossless.Reading{Value: 100, Source: "ETHTOOL_GTUNABLE pfc-prevention-tout"}
			}
			e.Apply(engine.CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}, Driver: tt.driver, PFC: pfc})
			c := Change{PFCStormTimeout: u(tt.ms)}
			pv, err := PreviewOf(e, "eth0", c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantLines, pv.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if got := pv.After.Counters.PFC.StormPreventionTimeoutMs; got == nil || *got != uint64(tt.ms) {
				t.Errorf("after %v, want %d", got, tt.ms)
			}
			if now, _ := e.Interface("eth0"); *now.Counters.PFC.StormPreventionTimeoutMs != 100 {
				t.Error("the preview changed the engine")
			}
			if args := c.Args(); len(args) != 2 || args[0] != "--pfc-storm-timeout" {
				t.Errorf("args %q", args)
			}
		})
	}
}

// DSCP rewrites are checked against the rewrite table the kernel reports
// (none before Linux 6.3: one line), previewed, and rendered as the
// flags that write them.
func TestPreviewRewrite(t *testing.T) {
	for _, tt := range []struct {
		name      string
		table     []lossless.RewriteEntry // nil: the kernel has none
		change    Change
		wantLines []string
		wantAfter []lossless.RewriteEntry
		wantErr   string
		wantArgs  []string
	}{
		{"3 → 26 replaces 3 → 24", []lossless.RewriteEntry{{Selector: "dscp", Priority: 3, Protocol: 24}, {Selector: "pcp", Priority: 5, Protocol: 5}}, Change{RewriteDSCP: []PrioDSCP{{3, 26}}},
			[]string{"DSCP rewrite of priority 3: DSCP 24 → DSCP 26"}, []lossless.RewriteEntry{{Selector: "pcp", Priority: 5, Protocol: 5}, {Selector: "dscp", Priority: 3, Protocol: 26}}, "",
			[]string{"--rewr-dscp", "3:26"}},
		{"a new one, one deleted", []lossless.RewriteEntry{{Selector: "dscp", Priority: 5, Protocol: 46}}, Change{RewriteDSCP: []PrioDSCP{{3, 26}}, RewriteDSCPDelete: DSCPList{5}},
			[]string{"DSCP rewrite of priority 3: none → DSCP 26", "DSCP rewrite of priority 5: DSCP 46 → none"}, []lossless.RewriteEntry{{Selector: "dscp", Priority: 3, Protocol: 26}}, "",
			[]string{"--rewr-dscp", "3:26", "--rewr-dscp-delete", "5"}},
		{"a kernel before 6.3", nil, Change{RewriteDSCP: []PrioDSCP{{3, 26}}}, nil, nil,
			"the kernel has no APP rewrite table (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3): rewrite entries cannot be set here", nil},
		{"DSCP 64", []lossless.RewriteEntry{}, Change{RewriteDSCP: []PrioDSCP{{3, 64}}}, nil, nil, "rewrite: priority 3: DSCP 64 is not 0-63", nil},
		{"priority 8", []lossless.RewriteEntry{}, Change{RewriteDSCP: []PrioDSCP{{8, 26}}}, nil, nil, "rewrite: priority 8 is not 0-7", nil},
		{"set and deleted", []lossless.RewriteEntry{}, Change{RewriteDSCP: []PrioDSCP{{3, 26}}, RewriteDSCPDelete: DSCPList{3}}, nil, nil, "deleted and set", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(engine.Config{})
			e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}})
			e.Apply(engine.CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
				QoS: &lossless.PortQoSSample{Trust: []string{"pcp"}, TrustDerived: true, Rewrite: tt.table}})
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
			if diff := cmp.Diff(tt.wantLines, pv.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAfter, pv.After.Counters.QoS.Rewrite); diff != "" {
				t.Errorf("after (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantArgs, tt.change.Args()); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if now, _ := e.Interface("eth0"); !cmp.Equal(tt.table, now.Counters.QoS.Rewrite) {
				t.Errorf("the preview changed the engine: %v", now.Counters.QoS.Rewrite)
			}
		})
	}
}

func TestParsePriorities(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []uint8
		wantErr bool
	}{{"3", []uint8{3}, false}, {"3,5", []uint8{3, 5}, false}, {"0, 7", []uint8{0, 7}, false},
		{"8", nil, true}, {"", nil, true}, {"3,", nil, true}, {"x", nil, true}, {"-1", nil, true}} {
		got, err := ParsePriorities(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParsePriorities(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePriorities(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
