// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
)

// withCounters is firstReceipt's interface and peer with the given
// samples of eth0's lossless counters, one a second from 2 s on.
func withCounters(t testing.TB, samples ...engine.CountersSampled) engine.Snapshot {
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3))
	for i, ev := range samples {
		ev.Interface, ev.Interval = "eth0", time.Second
		s.counters(float64(2+i), ev)
	}
	return s.snap()
}

// plainLines strips the styles of lines and the spaces that end them.
func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		w      int
		top    float64
		want   string
	}{
		{"no history", nil, 5, 0, "     "},
		{"all zero", []float64{0, 0, 0}, 5, 0, "  ▁▁▁"},
		{"single sample", []float64{4}, 5, 4, "    █"},
		{"single zero sample", []float64{0}, 3, 0, "  ▁"},
		{"ramp", []float64{0, 1, 2, 3, 4, 5, 6}, 7, 6, "▁▃▄▅▆▇█"},
		{"tiny is not zero", []float64{0, 0.01}, 2, 100, "▁▂"},
		{"shared top", []float64{1, 2}, 2, 4, "▄▅"},
		{"newest kept", []float64{9, 0, 6}, 2, 6, "▁█"},
		{"above top", []float64{12}, 1, 6, "█"},
		{"negative and NaN are zero", []float64{-1, math.NaN()}, 2, 1, "▁▁"},
		{"zero width", []float64{1}, 0, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, sparkline(tt.values, tt.w, tt.top, UnicodeSymbols().Spark)); diff != "" {
				t.Errorf("sparkline(%v, %d, %g) (-want +got):\n%s", tt.values, tt.w, tt.top, diff)
			}
		})
	}
}

func TestBuckets(t *testing.T) {
	spike := make([]float64, 60)
	spike[30] = 7
	wantSpike := make([]float64, 24)
	wantSpike[12] = 7
	tests := []struct {
		name    string
		samples []float64
		w       int
		want    []float64
	}{
		{"none", nil, 5, nil},
		{"fit", []float64{1, 2, 3}, 5, []float64{1, 2, 3}},
		{"exact", []float64{1, 2, 3}, 3, []float64{1, 2, 3}},
		{"pairs by their largest", []float64{1, 5, 2, 0, 3, 3}, 3, []float64{5, 2, 3}},
		{"a one-second spike survives", spike, 24, wantSpike},
		{"zero width", []float64{1}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, buckets(tt.samples, tt.w)); diff != "" {
				t.Errorf("buckets (-want +got):\n%s", diff)
			}
		})
	}
}

// The PFC pane's pause column: the sampled per-priority totals, "—" where
// a count is unknown or nothing was sampled; compact, rx+tx.
func TestPFCPauseColumn(t *testing.T) {
	halfKnown := losslessSample(60)
	halfKnown.PFC.Priorities[3].TxPause = lossless.Reading{}
	noPFC := losslessSample(60)
	noPFC.PFC = nil
	dashes := []string{"—", "—", "—", "—", "—", "—", "—", "—"}
	tests := []struct {
		name string
		snap func(testing.TB) engine.Snapshot
		w, h int
		want []string
	}{
		{"counters", losslessSnap, 120, 40, []string{"0/0", "0/0", "0/0", "120/40", "0/0", "0/0", "0/0", "0/0"}},
		{"counters compact", losslessSnap, 80, 24, []string{"0", "0", "0", "160", "0", "0", "0", "0"}},
		{"no counters", firstReceipt, 120, 40, dashes},
		{"no counters compact", firstReceipt, 80, 24, dashes},
		{"no pause source", func(t testing.TB) engine.Snapshot { return withCounters(t, noPFC) }, 120, 40, dashes},
		{"tx unknown", func(t testing.TB) engine.Snapshot { return withCounters(t, halfKnown) }, 120, 40,
			[]string{"0/0", "0/0", "0/0", "120/—", "0/0", "0/0", "0/0", "0/0"}},
		{"tx unknown compact", func(t testing.TB) engine.Snapshot { return withCounters(t, halfKnown) }, 80, 24,
			[]string{"0", "0", "0", "120", "0", "0", "0", "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.snap(t)
			vs := testState(s, 0)
			r := newRenderer(s, &vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), tt.w, tt.h)
			w := pfcWideWidth
			if r.mode == modeCompact {
				w = tt.w // the compact table takes the screen's width
			}
			body := plainLines(r.pfcContent(w).body)
			var got []string
			if r.mode == modeCompact {
				f := strings.Fields(body[3]) // Local, Remote, Oper, Pauses
				if f[0] != "Pauses" || f[len(f)-1] != "rx+tx" {
					t.Fatalf("pauses line %q", body[3])
				}
				got = f[1 : len(f)-1]
			} else {
				for _, l := range body[:8] {
					got = append(got, strings.TrimSpace(string([]rune(l)[len("Prio    Local Remote Oper "):])))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pause cells (-want +got):\n%s", diff)
			}
		})
	}
}

// What the Lossless pane says when there is nothing, or not everything,
// to show.
func TestLosslessMessages(t *testing.T) {
	ecn := &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3}
	tests := []struct {
		name     string
		snap     func(testing.TB) engine.Snapshot
		sub      string
		want     []string
		wantFrom int // compare the body from this line on
	}{
		{name: "nil counters", snap: firstReceipt,
			want: []string{"no counters sampled (replay, or sampling off)"}},
		{name: "nothing provides anything", snap: func(t testing.TB) engine.Snapshot {
			return withCounters(t, engine.CountersSampled{})
		}, sub: "no pause counters · every 1s",
			want: []string{"no per-priority pause counters (driver exposes none)", "no RDMA device on this interface"}},
		{name: "a source failed", snap: func(t testing.TB) engine.Snapshot {
			return withCounters(t, engine.CountersSampled{Errors: []lossless.SourceError{{Source: "sysfs", Err: "ethtool -S eth0: operation not permitted"}}, ECN: ecn})
		}, sub: "no pause counters · every 1s",
			want: []string{"⚠ ethtool -S eth0: operation not permitted", "no per-priority pause counters (driver exposes none)",
				"no RDMA device on this interface", "ECN notification point on 3 · reaction point on none (class/net/eth0/ecn)"}},
		{name: "upstream mlx5 debugfs: no enables, the CNP's marking", snap: func(t testing.TB) engine.Snapshot {
			dscp, prio := uint8(48), uint8(6)
			return withCounters(t, engine.CountersSampled{ECN: &lossless.ECNSample{Source: "kernel/debug/mlx5/0000:3b:00.0/cc_params", EnablesUnknown: true,
				CNPDSCP: &dscp, CNPPriority: &prio, Hint: "mlxconfig -d 0000:3b:00.0 q ROCE_CC_PRIO_MASK_P1"}})
		}, sub: "no pause counters · every 1s",
			want: []string{"no per-priority pause counters (driver exposes none)", "no RDMA device on this interface",
				"ECN enables not exposed · CNP DSCP 48 · CNP priority 6 (kernel/debug/mlx5/0000:3b:00.0/cc_params) · mlxconfig -d 0000:3b:00.0 q ROCE_CC_PRIO_MASK_P1"}},
		{name: "no DCQCN source: why and the command", snap: func(t testing.TB) engine.Snapshot {
			return withCounters(t, engine.CountersSampled{ECN: &lossless.ECNSample{EnablesUnknown: true, Why: "debugfs is not mounted", Hint: "mlxconfig -d 0000:3b:00.0 q CNP_DSCP_P1"}})
		}, sub: "no pause counters · every 1s",
			want: []string{"no per-priority pause counters (driver exposes none)", "no RDMA device on this interface",
				"ECN settings unknown: debugfs is not mounted · mlxconfig -d 0000:3b:00.0 q CNP_DSCP_P1"}},
		{name: "pauses without RDMA", snap: func(t testing.TB) engine.Snapshot {
			s := losslessSample(60)
			s.RDMA = nil
			return withCounters(t, s)
		}, sub: "pauses from ethtool · every 1s", wantFrom: 10, want: []string{
			"no RDMA device on this interface", "ECN notification point on 3 · reaction point on 3 (class/net/eth0/ecn)"}},
		{name: "RDMA without PFC or ECN", snap: func(t testing.TB) engine.Snapshot {
			s := losslessSample(60)
			s.PFC, s.ECN = nil, nil
			return withCounters(t, s)
		}, sub: "no pause counters · every 1s", want: []string{
			"no per-priority pause counters (driver exposes none)",
			"NDK mlx5_0/1 · missing 0x3FFFFF8 · derived 0x7",
			"  connect                12≈       n/a   cq_error              n/a",
			"  accept                  3≈       n/a   rdma_in_octets       4.0k        n/a",
			"  connect_failure         0≈       n/a   rdma_out_octets      8.0k        n/a",
			"  connection_error      n/a              rdma_in_frames         10        n/a",
			"  active_connection     n/a              rdma_out_frames        20        n/a",
			"CNP/ECN mlx5_0/1",
			"  np_cnp_sent                      5        n/a   np_ecn_marked_roce_packets       9        n/a",
			"  rp_cnp_handled                   2        n/a   out_of_sequence                  0        n/a",
			"  rp_cnp_ignored                   0        n/a   out_of_buffer                    0        n/a",
			"ECN settings unknown",
			"≈ derived: approximates the NDK counter · n/a no source · mask bit N = NDK counter N",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.snap(t)
			vs := testState(s, 0)
			r := newRenderer(s, &vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 100, 30)
			c := r.losslessContent(100)
			if c.sub != tt.sub {
				t.Errorf("sub-title %q, want %q", c.sub, tt.sub)
			}
			body := plainLines(c.body)
			if tt.wantFrom > len(body) {
				t.Fatalf("%d lines:\n%s", len(body), strings.Join(body, "\n"))
			}
			if diff := cmp.Diff(tt.want, body[tt.wantFrom:]); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

// The pause table: PFC from the operational parameters, totals, rates
// ("n/a" before a second sample), durations, and the minute's sparkline.
func TestLosslessPauseTable(t *testing.T) {
	first := losslessSample(60)
	first.PFC.Priorities[5].RxPauseDuration, first.PFC.Priorities[5].TxPauseDuration = lossless.Reading{}, lossless.Reading{}
	first.PFC.StormError = lossless.Reading{Value: 2, Source: "tx_pause_storm_error_events"}
	tests := []struct {
		name string
		snap func(testing.TB) engine.Snapshot
		want [][]string // the fields of the table's lines, header included, and the storm line
	}{
		{"a minute", losslessSnap, [][]string{
			{"Prio", "PFC", "rx", "tx", "rx/s", "tx/s", "rx+tx/s", "60s,", "peak", "11", "paused", "rx/tx"},
			{"0", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"1", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"2", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			// 60 s in 24 cells, 2.5 s a cell: the bursts at 20-29 s (11/s),
			// 45-49 s (6/s), 50-52 s (4/s) and the last 4 s (2/s).
			{"3", "●", "120", "40", "2.0", "0", "▁▁▁▁▁▁▁█████▁▁▁▁▁▅▅▅▄▁▃▃", "2.5ms/800µs"},
			{"4", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"5", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"6", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"7", "·", "0", "0", "0", "0", strings.Repeat("▁", 24), "0µs/0µs"},
			{"pause", "storm", "guard", "events:", "warning", "0", "·", "error", "0", "·", "timeout", "100", "ms"},
		}},
		{"one sample, no operational PFC", func(t testing.TB) engine.Snapshot {
			return newScenario(t).link(0, "eth0", macLocal0).counters(1, first).snap()
		}, [][]string{
			{"Prio", "PFC", "rx", "tx", "rx/s", "tx/s", "rx+tx/s", "60s", "paused", "rx/tx"},
			{"0", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"1", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"2", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"3", "—", "120", "40", "n/a", "n/a", "2.5ms/800µs"},
			{"4", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"5", "—", "0", "0", "n/a", "n/a", "n/a"},
			{"6", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"7", "—", "0", "0", "n/a", "n/a", "0µs/0µs"},
			{"⚠", "pause", "storm", "guard", "events:", "warning", "0", "·", "error", "2", "·", "timeout", "100", "ms"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.snap(t)
			vs := testState(s, 0)
			r := newRenderer(s, &vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 80, 24)
			body := plainLines(r.losslessContent(80).body)
			var got [][]string
			for _, l := range body[:10] {
				got = append(got, strings.Fields(l))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("table (-want +got):\n%s", diff)
			}
		})
	}
}

// Device names, error text and sources reach the terminal sanitized.
func TestLosslessHostileStrings(t *testing.T) {
	evil := "\x1b[2J\x1b]0;owned\a\u202e\x9b31m\x7f"
	ev := losslessSample(60)
	ev.RDMA[0].Device = "mlx5" + evil + "_0"
	ev.PFC.Source = lossless.PFCSource("eth" + evil + "tool")
	ev.ECN.Source = "class/net/eth0/ecn" + evil
	ev.Errors = []lossless.SourceError{{Source: "sysfs", Err: "read " + evil + ": permission denied"}}
	s := withCounters(t, ev)
	for _, st := range []Styles{DefaultStyles(true), NoColorStyles()} {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
			vs := testState(s, 0)
			vs.focus = paneLossless
			vs.scroll[paneLossless] = 8 // the RDMA lines, at 80x24
			out := render(s, vs, &st, ptr(DefaultKeyMap()), size[0], size[1])
			checkFrame(t, out, size[0], size[1])
			rest := sgr.ReplaceAllString(out, "")
			for _, bad := range []string{"\x1b", "\a", "\x9b", "\u202e", "\x7f"} {
				if strings.Contains(rest, bad) {
					t.Fatalf("%dx%d: screen contains %q:\n%s", size[0], size[1], bad, rest)
				}
			}
			for _, want := range []string{"eth\ufffd[2J\ufffd]0;owned", "mlx5\ufffd[2J", "read \ufffd[2J"} {
				if size[0] >= 120 && !strings.Contains(rest, want) {
					t.Errorf("%dx%d: no %q on screen:\n%s", size[0], size[1], want, rest)
				}
			}
		}
	}
}

// LLDP neighbour events are a kind of their own in the log (NEIGH, the
// peer's name where the flags go), and the filter finds them by it.
func TestLogNeighborEvents(t *testing.T) {
	s := &scenario{t: t, e: engine.New(engine.Config{NeighborEvents: true, Judge: check.Judge})}
	snap := s.link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(40, 60, 1<<3)).snap()
	h := newHarness(t, snap, nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.wantScreen("NEIGH  peer-new      leaf1", "REMOTE first-receipt")
	h.press("/")
	for _, r := range "status:neigh" {
		h.press(string(r))
	}
	h.press("enter")
	h.wantScreen("NEIGH  peer-new      leaf1")
	h.wantNotScreen("REMOTE first-receipt")
}

// The peers' details of a port whose peer is gone still name it: when and
// why it went, its last LLDPDU and what it last sent (issue 25, item 19).
func TestLostPeerDetail(t *testing.T) {
	h := newHarness(t, expired(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 48})
	h.wantScreen("last peer leaf1")
	h.m.vs.focus = panePeers
	h.press("enter")
	h.wantScreen("leaf1 · gone", "(ttl-expired,", "TLVs of its last LLDPDU", "DCBX parameters it last sent")
}

// The hops after an unknown priority are unknown for that one reason:
// one line says it, not one per hop.
func TestPathLinesFoldUnknown(t *testing.T) {
	v := "RoCE v2"
	p := lossless.RoCEPath{Device: "mlx5_0", Port: 1, Hops: []lossless.PathHop{
		{Hop: lossless.HopGID, Value: &v, Verdict: lossless.PathOK},
		{Hop: lossless.HopPriority, Verdict: lossless.PathUnknown, Reason: "where the NIC puts RoCE traffic is unknown"},
	}}
	for _, h := range []lossless.RoCEHop{lossless.HopTC, lossless.HopPFC, lossless.HopBuffer, lossless.HopETS, lossless.HopPauses, lossless.HopECN} {
		p.Hops = append(p.Hops, lossless.PathHop{Hop: h, Verdict: lossless.PathUnknown, Reason: "the priority is unknown"})
	}
	r := testRenderer(losslessSnap(t), nil, 160, 48)
	got := ansi.Strip(strings.Join(r.pathLines(p, 150), "\n"))
	if strings.Count(got, "the priority is unknown") != 1 || !strings.Contains(got, "tc, pfc, buffer, ets, pauses, ecn · the priority is unknown") {
		t.Errorf("path lines:\n%s", got)
	}
}
