// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/lossless/losslesstest"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

func reading(v uint64, src string) lossless.Reading { return lossless.Reading{Value: v, Source: src} }

// mlxSample is losslesstest.MLX as the engine takes it.
func mlxSample(at time.Time, n uint64) CountersSampled {
	return CountersSampled(losslesstest.MLX(at, n))
}

func u(v uint64) *uint64 { return &v }

// TestLosslessSnapshot checks the NDK set, the masks and the sources of
// one sample, and that a missing counter is null, never 0.
func TestLosslessSnapshot(t *testing.T) {
	e := New(Config{})
	if in, _ := e.Interface("eth0"); in.Counters != nil {
		t.Fatal("counters before any sample")
	}
	e.Apply(mlxSample(t0, 0))
	in, _ := e.Interface("eth0")
	c := in.Counters
	if c == nil || len(c.RDMA) != 1 {
		t.Fatalf("counters %+v", c)
	}
	r := c.RDMA[0]
	want := lossless.NDKValues{Connect: u(12), Accept: u(3), ConnectFailure: u(0), RDMAInOctets: u(4000),
		RDMAOutOctets: u(8000), RDMAInFrames: u(10), RDMAOutFrames: u(20)}
	if diff := cmp.Diff(want, r.NDK); diff != "" {
		t.Errorf("NDK (-want +got):\n%s", diff)
	}
	// Bits 3 (ConnectionError), 4 (ActiveConnection), 5-24 (reserved) and
	// 25 (CQError) missing; 0-2 derived from connection-manager messages.
	if r.MissingCounterMask != 67108856 || r.DerivedCounterMask != 7 {
		t.Errorf("masks missing %d derived %d, want 67108856 and 7", r.MissingCounterMask, r.DerivedCounterMask)
	}
	if got := r.Sources["rdma_in_octets"]; got != "ports/1/counters/port_rcv_data x4" {
		t.Errorf("source of rdma_in_octets %q", got)
	}
	if _, ok := r.Sources["connection_error"]; ok {
		t.Error("a missing counter has a source")
	}
	if len(r.Rates) != 0 || c.PFC.Priorities[3].RxPauseRate != nil {
		t.Errorf("rates after one sample: %v", r.Rates)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"connection_error":null`, `"active_connection":null`, `"cq_error":null`, `"connect":12`,
		`"rdma_in_octets":4000`, `"missing_counter_mask":67108856`, `"derived_counter_mask":7`, `"source":"ethtool"`,
		`"rx_pause_duration_us":0`, `"tx_pause_duration_us":null`, `"rx_pause_rate":null`, `"ecn":null`, `"error":null`,
		`"rx_pause":"rx_prio{p}_pause"`, `"np_cnp_sent":5`, `"storm_error_events":0`, `"out_of_buffer":null`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON lacks %s: %s", s, b)
		}
	}
}

// TestLosslessRates checks rates between samples, and that a counter
// going down is a reset: the new value counted since, never negative.
func TestLosslessRates(t *testing.T) {
	e := New(Config{})
	e.Apply(mlxSample(t0, 0))
	s := mlxSample(t0.Add(2*time.Second), 1)
	s.PFC.Priorities[3].RxPause.Value = 300
	e.Apply(s)
	reset := mlxSample(t0.Add(3*time.Second), 0) // traffic counters reset (driver reload)
	reset.PFC.Priorities[3].RxPause.Value = 50
	in := e.Snapshot().Interfaces[0]
	r := in.Counters.RDMA[0].Rates
	if diff := cmp.Diff(map[string]float64{"connect": 0, "accept": 0, "connect_failure": 0, "rdma_in_octets": 2000,
		"rdma_out_octets": 4000, "rdma_in_frames": 5, "rdma_out_frames": 10, "np_cnp_sent": 0, "rp_cnp_handled": 0,
		"rp_cnp_ignored": 0, "np_ecn_marked_roce_packets": 0, "out_of_sequence": 0}, r); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	if got := *in.Counters.PFC.Priorities[3].RxPauseRate; got != 150 {
		t.Errorf("rx pause rate %v, want 150", got)
	}
	e.Apply(reset)
	in = e.Snapshot().Interfaces[0]
	r = in.Counters.RDMA[0].Rates
	if r["rdma_in_octets"] != 4000 || r["rdma_in_frames"] != 10 {
		t.Errorf("after a reset: rates %v, want the new values per second", r)
	}
	if got := *in.Counters.PFC.Priorities[3].RxPauseRate; got != 50 {
		t.Errorf("rx pause rate after reset %v, want 50", got)
	}
	h := in.Counters.PauseHistory[3]
	if diff := cmp.Diff([]float64{150, 50}, h); diff != "" {
		t.Errorf("priority 3 history (-want +got):\n%s", diff)
	}
}

// TestPauseHistoryWindow checks that the history keeps the last 60 s of
// samples, oldest first.
func TestPauseHistoryWindow(t *testing.T) {
	e := New(Config{})
	for i := range 100 {
		s := mlxSample(t0.Add(time.Duration(i)*time.Second), 0)
		s.PFC.Priorities[0].TxPause.Value = uint64(i * i)
		e.Apply(s)
	}
	h := e.Snapshot().Interfaces[0].Counters.PauseHistory[0]
	if len(h) != 60 || h[59] != 99*99-98*98 || h[0] != 40*40-39*39 {
		t.Errorf("history of %d entries, first %v last %v", len(h), h[0], h[len(h)-1])
	}
	for i := range 8 {
		if len(e.Snapshot().Interfaces[0].Counters.PauseHistory[i]) != 60 {
			t.Errorf("priority %d history length differs", i)
		}
	}
}

// TestTrafficHistory: per priority, the summed rx+tx bytes per second
// and the share of each interval paused, oldest first; 0 where a driver
// has no such counter.
func TestTrafficHistory(t *testing.T) {
	e := New(Config{})
	for i := range 4 {
		s := mlxSample(t0.Add(time.Duration(i)*time.Second), 0)
		pp := &s.PFC.Priorities[3]
		pp.RxBytes = reading(uint64(1000*i), "rx_prio3_bytes")
		pp.TxBytes = reading(uint64(500*i*i), "tx_prio3_bytes")
		pp.RxPauseDuration = reading(uint64(250000*i), "rx_prio3_pause_duration")
		e.Apply(s)
	}
	c := e.Snapshot().Interfaces[0].Counters
	if diff := cmp.Diff([]float64{1500, 2500, 3500}, c.TrafficHistory[3]); diff != "" {
		t.Errorf("priority 3 traffic (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.25, 0.25, 0.25}, c.PausedHistory[3]); diff != "" {
		t.Errorf("priority 3 paused (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 0, 0}, c.TrafficHistory[4]); diff != "" {
		t.Errorf("priority 4 without byte counters (-want +got):\n%s", diff)
	}
	if len(c.PauseHistory[3]) != 3 || len(c.PausedHistory[7]) != 3 {
		t.Errorf("series lengths %d %d", len(c.PauseHistory[3]), len(c.PausedHistory[7]))
	}
}

// TestLosslessDiagnostics checks each lossless diagnostic fires on the
// data that supports it and stays quiet otherwise.
func TestLosslessDiagnostics(t *testing.T) {
	roceOn3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	tests := []struct {
		name   string
		local  *dcb.Params
		second func(s *CountersSampled)
		want   []diag.Code
	}{
		{"quiet", roceOn3, func(s *CountersSampled) { s.PFC.Priorities[3].RxPause.Value = 5 }, nil},
		{"pfc never paused RDMA traffic", roceOn3, func(s *CountersSampled) {}, []diag.Code{diag.CodePFCNoPauses}},
		{"storm by rate", roceOn3, func(s *CountersSampled) { s.PFC.Priorities[3].TxPause.Value = 5000 }, []diag.Code{diag.CodePauseStorm}},
		// A jump of about 2^64 (a small negative number read as
		// unsigned) is no traffic: no rate, no storm (issue 35).
		{"jump no link can make", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.PFC.Priorities[3].TxPause.Value = 1<<64 - 3
		}, nil},
		{"storm guard counters moving", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.PFC.StormError = reading(1, "tx_pause_storm_error_events")
		}, []diag.Code{diag.CodePauseStorm}},
		{"pauses without pfc", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.PFC.Priorities[1].RxPause.Value = 7
		}, []diag.Code{diag.CodePauseWithoutPFC}},
		{"cnps ignored", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.RDMA[0].Congestion[lossless.CNPIgnored].Value = 4
		}, []diag.Code{diag.CodeCNPWithoutECN}},
		{"cnps with ecn disabled", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.RDMA[0].Congestion[lossless.CNPHandled].Value = 40
			s.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3}
		}, []diag.Code{diag.CodeCNPWithoutECN}},
		{"lossy fabric", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.RDMA[0].Congestion[lossless.OutOfSequence].Value = 30
		}, []diag.Code{diag.CodeLossyFabric}},
		{"read error", roceOn3, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value = 5
			s.Errors = []lossless.SourceError{{Source: "sysfs", Err: "ports/1/counters/port_rcv_data: not a number"}}
		}, []diag.Code{diag.CodeCountersError}},
		{"no operational pfc: no pfc rules", nil, func(s *CountersSampled) { s.PFC.Priorities[1].RxPause.Value = 7 }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			if tt.local != nil {
				e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: tt.local})
			}
			e.Apply(mlxSample(t0, 0))
			s := mlxSample(t0.Add(time.Second), 1)
			tt.second(&s)
			e.Apply(s)
			var got []diag.Code
			for _, d := range e.Snapshot().Interfaces[0].Diagnostics {
				switch d.Code {
				case diag.CodePauseStorm, diag.CodePauseWithoutPFC, diag.CodePFCNoPauses, diag.CodeCNPWithoutECN, diag.CodeLossyFabric, diag.CodeCountersError:
					got = append(got, d.Code)
					if d.Action == "" {
						t.Errorf("%s has no action", d.Code)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCountersErrorSources: the failures of the counter sources stay
// apart up to the counters-error diagnostic, which names each failing
// source; the snapshot's counters error joins their messages.
func TestCountersErrorSources(t *testing.T) {
	for _, tt := range []struct {
		name      string
		errs      []lossless.SourceError
		wantMsg   string // "": no counters-error
		wantError *string
	}{
		{"none", nil, "", nil},
		{"one source", []lossless.SourceError{{Source: "sysfs", Err: "ports/1/counters/port_rcv_data: not a number"}},
			"reading lossless counters: sysfs: ports/1/counters/port_rcv_data: not a number",
			new("ports/1/counters/port_rcv_data: not a number")},
		{"two sources", []lossless.SourceError{{Source: "rdma", Err: "finding the RDMA ports of eth0: class/infiniband: permission denied"},
			{Source: "linkpause", Err: "eth0: permission denied reading pause settings"}},
			"reading lossless counters: rdma: finding the RDMA ports of eth0: class/infiniband: permission denied; linkpause: eth0: permission denied reading pause settings",
			new("finding the RDMA ports of eth0: class/infiniband: permission denied; eth0: permission denied reading pause settings")},
		{"no source: the sample as a whole", []lossless.SourceError{{Err: `invalid interface name "../x"`}},
			`reading lossless counters: invalid interface name "../x"`, new(`invalid interface name "../x"`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			s := mlxSample(t0, 0)
			s.Errors = tt.errs
			e.Apply(s)
			in := e.Snapshot().Interfaces[0]
			var msgs []string
			for _, d := range in.Diagnostics {
				if d.Code == diag.CodeCountersError {
					msgs = append(msgs, d.Message)
				}
			}
			var want []string
			if tt.wantMsg != "" {
				want = []string{tt.wantMsg}
			}
			if diff := cmp.Diff(want, msgs); diff != "" {
				t.Errorf("counters-error messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantError, in.Counters.Error); diff != "" {
				t.Errorf("counters error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLosslessNoSources checks an interface without RDMA or pause sources:
// rdma [] and a pfc object with a null source and null counts.
func TestLosslessNoSources(t *testing.T) {
	e := New(Config{})
	e.Apply(CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}})
	c := e.Snapshot().Interfaces[0].Counters
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"rdma":[]`) || !strings.Contains(s, `"pfc":{"source":null`) || strings.Contains(s, `"rx_pause":0`) {
		t.Errorf("JSON %s", s)
	}
	if len(c.PFC.Priorities) != 8 {
		t.Errorf("%d priorities", len(c.PFC.Priorities))
	}
}

// TestNeverPausedPerPriority: where the driver counts each priority's
// traffic, a PFC priority that carried traffic but never paused is named
// on its own, also while another PFC priority pauses (54a24de said
// nothing unless every RoCE priority stood unpaused).
func TestNeverPausedPerPriority(t *testing.T) {
	local := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1<<4}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	sample := func(at time.Time, n uint64, pauses3 uint64) CountersSampled {
		s := mlxSample(at, n)
		for _, p := range []int{3, 4} {
			s.PFC.Priorities[p].TxBytes = reading(1000000*n, fmt.Sprintf("tx_prio%d_bytes", p))
			s.PFC.Priorities[p].RxBytes = reading(0, fmt.Sprintf("rx_prio%d_bytes", p))
		}
		s.PFC.Priorities[3].RxPause.Value = pauses3
		return s
	}
	for _, tt := range []struct {
		name    string
		pauses3 uint64
		want    string
	}{
		{"3 paused, 4 never", 400, "PFC priority 4 carried traffic in the last interval but no pause frame has ever been sent or received there, while PFC priority 3 has paused"},
		{"neither paused", 0, "PFC priority 3,4 carried traffic in the last interval but no pause frame has ever been sent or received there"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: local})
			e.Apply(sample(t0, 1, 0))
			e.Apply(sample(t0.Add(time.Second), 2, tt.pauses3))
			in, _ := e.Interface("eth0")
			if d, ok := in.Diagnostic(diag.CodePFCNoPauses); !ok || d.Message != tt.want || d.Severity != diag.SeverityInfo {
				t.Errorf("got %+v (%v), want %q", d, ok, tt.want)
			}
		})
	}
}

// A pause storm says who pauses whom: pauses received are the peer
// pausing this host, pauses sent this host's NIC pausing the peer, and the
// NIC's storm guard (mlx5 tx_pause_storm_*_events) counts this host
// sending. At 7737732 both directions got the same words, and the guard
// was said to be "a receiver pausing this port".
func TestPauseStormDirection(t *testing.T) {
	roceOn3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	for _, tt := range []struct {
		name   string
		second func(s *CountersSampled)
		want   []string
	}{
		{"received", func(s *CountersSampled) { s.PFC.Priorities[3].RxPause.Value = 5000 },
			[]string{"the peer pauses this host on priority 3: up to 5000 pause frames/s received"}},
		{"sent", func(s *CountersSampled) { s.PFC.Priorities[3].TxPause.Value = 5000 },
			[]string{"this host pauses the peer on priority 3: up to 5000 pause frames/s sent"}},
		{"both", func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value, s.PFC.Priorities[3].TxPause.Value = 5000, 3000
		},
			[]string{"the peer pauses this host on priority 3", "this host pauses the peer on priority 3"}},
		{"the storm guard", func(s *CountersSampled) { s.PFC.StormWarning = reading(1, "tx_pause_storm_warning_events") },
			[]string{"this host's NIC has been sending pause frames for a long time"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: roceOn3})
			e.Apply(mlxSample(t0, 0))
			s := mlxSample(t0.Add(time.Second), 1)
			tt.second(&s)
			e.Apply(s)
			var got []string
			for _, d := range e.Snapshot().Interfaces[0].Diagnostics {
				if d.Code == diag.CodePauseStorm {
					got = append(got, d.Message)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("pause-storm diagnostics %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("diagnostic %q lacks %q", got[i], w)
				}
			}
		})
	}
}
