// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json"
	"fmt"
	"slices"
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

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }

// roceSample is losslesstest.RoCE as the engine takes it.
func roceSample(at time.Time) CountersSampled { return CountersSampled(losslesstest.RoCE(at)) }

// TestRoCEDiagnostics: each RoCE path diagnostic fires on the data it
// exists for and stays silent otherwise.
func TestRoCEDiagnostics(t *testing.T) {
	roce3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{
		{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	dscpOn0 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 0}}}
	for _, tt := range []struct {
		name  string
		local *dcb.Params
		edit  func(s *CountersSampled)
		want  []diag.Code
	}{
		{"healthy", roce3, func(*CountersSampled) {}, nil},
		{"no routable RoCE v2 GID", roce3, func(s *CountersSampled) {
			s.RoCE[0].GIDs, s.RoCE[0].RoutableV2 = s.RoCE[0].GIDs[:2], nil
			s.RoCE[0].RoutableV2Why = sp("only link-local RoCE v2 GIDs (fe80::)")
		}, []diag.Code{diag.CodeRoCEGIDNotV2}},
		{"InfiniBand port: no GID rule", roce3, func(s *CountersSampled) {
			s.RoCE[0].LinkLayer, s.RoCE[0].RoutableV2, s.RoCE[0].RoutableV2Why = sp("InfiniBand"), nil, sp("no RoCE v2 GID")
		}, nil},
		{"GID table unknown: silent", roce3, func(s *CountersSampled) { s.RoCE[0].RoutableV2 = nil }, nil},
		{"default ToS on a lossy priority", dscpOn0, func(*CountersSampled) {}, []diag.Code{diag.CodeRoCEToSNotLossless}},
		{"default ToS unknown: silent", dscpOn0, func(s *CountersSampled) { s.RoCE[0].DefaultToS = nil }, nil},
		// ToS 104: DSCP 26 without ECT; 107: DSCP 26 with CE set
		// (54a24de called the ToS hop ok whatever its ECN field).
		{"default ToS Not-ECT", roce3, func(s *CountersSampled) {
			s.RoCE[0].DefaultToS = &lossless.RoCEToS{ToS: 104, DSCP: 26, ECN: 0, Source: "default_roce_tos"}
		}, []diag.Code{diag.CodeRoCEToSECN}},
		{"default ToS CE", roce3, func(s *CountersSampled) {
			s.RoCE[0].DefaultToS = &lossless.RoCEToS{ToS: 107, DSCP: 26, ECN: 3, Source: "default_roce_tos"}
		}, []diag.Code{diag.CodeRoCEToSECN}},
		// The table maps no DSCP: DSCP 26 lands on the default priority
		// 0, where PFC is off (54a24de was silent).
		{"DSCP not mapped: the default priority, lossy", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, func(*CountersSampled) {}, []diag.Code{diag.CodeRoCEToSNotLossless}},
		{"DSCP not mapped, PFC on the default priority: silent", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1}}, func(*CountersSampled) {}, nil},
		{"link pause beside PFC", roce3, func(s *CountersSampled) { s.LinkPause.RX = bp(true) }, []diag.Code{diag.CodeLinkPauseWithPFC}},
		{"link pause without PFC: no link pause rule (RoCE is lossy anyway)", &dcb.Params{PFC: &dcb.PFC{Cap: 8}}, func(s *CountersSampled) { s.LinkPause.TX = bp(true) }, []diag.Code{diag.CodeRoCEToSNotLossless}},
		{"link pause unknown (veth): silent", roce3, func(s *CountersSampled) {
			s.LinkPause = &lossless.LinkPauseSample{Source: "ethtool netlink PAUSE_GET", Unknown: sp("driver has no pause operations")}
		}, nil},
		{"no operational parameters: only the GID rule", nil, func(s *CountersSampled) {
			s.LinkPause.RX = bp(true)
			s.RoCE[0].RoutableV2, s.RoCE[0].RoutableV2Why = nil, sp("no GID in the table")
		}, []diag.Code{diag.CodeRoCEGIDNotV2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			if tt.local != nil {
				e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: tt.local})
			}
			s := roceSample(t0)
			tt.edit(&s)
			e.Apply(s)
			wantCodes(t, e, tt.want, diag.CodeRoCEGIDNotV2, diag.CodeRoCEToSNotLossless, diag.CodeLinkPauseWithPFC, diag.CodeRoCEToSECN)
		})
	}
}

// The RoCE identity and link pause reach the snapshot as sampled, null
// where unknown, and a sample that changes nothing of them does not count
// as a change; a copy is kept (the sample's slices are the caller's).
func TestRoCESnapshot(t *testing.T) {
	e := New(Config{})
	s := roceSample(t0)
	e.Apply(s)
	s.RoCE[0].GIDs[0].Index = 99 // the caller reuses its sample
	c := e.Snapshot().Interfaces[0].Counters
	if len(c.RoCE) != 1 || c.RoCE[0].GIDs[0].Index != 0 || *c.RoCE[0].RoutableV2 != 3 || c.LinkPause == nil || *c.LinkPause.RX {
		t.Fatalf("counters %+v", c)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"roce":[{"device":"mlx5_0","port":1,"link_layer":"Ethernet","gids":[{"index":0,"gid":"fe80::268a:7ff:fe11:2233","ipv4":null,"type":"RoCE v1","netdev":"eth0"}`,
		`"routable_v2_gid":3,"routable_v2_why":null,"default_tos":{"tos":106,"dscp":26,"ecn":2,"source":"kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"},"default_mode":"RoCE v2","problems":[],"optional_counters":null}]`,
		`"link_pause":{"autoneg":false,"rx":false,"tx":false,"rx_frames":0,"tx_frames":0,"rx_pause_duration_us":null,"source":"ethtool netlink PAUSE_GET","frames_source":"","unknown":null}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("counters JSON lacks %s:\n%s", want, b)
		}
	}
	none := CountersSampled{Interface: "eth1", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}}
	e.Apply(none)
	for _, in := range e.Snapshot().Interfaces {
		if in.Name == "eth1" && (in.Counters.RoCE == nil || len(in.Counters.RoCE) != 0 || in.Counters.LinkPause != nil) {
			t.Errorf("nothing sampled: roce %v, link pause %v; want [] and null", in.Counters.RoCE, in.Counters.LinkPause)
		}
	}
}

// TestQoSDiagnostics: pfc-no-headroom and trust-pcp-with-dscp-map fire on
// the data they exist for and stay silent otherwise.
func TestQoSDiagnostics(t *testing.T) {
	dscpMap := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	noDSCP := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	delay := func(d uint16) *uint16 { return &d }
	good := func() *lossless.PortQoSSample {
		return &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: delay(7), Source: "dcbnl IEEE_GET",
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288}}
	}
	for _, tt := range []struct {
		name  string
		local *dcb.Params
		edit  func(q *lossless.PortQoSSample) *lossless.PortQoSSample
		want  []diag.Code
	}{
		{"healthy", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { return q }, nil},
		{"nothing reported", dscpMap, func(*lossless.PortQoSSample) *lossless.PortQoSSample { return nil }, nil},
		{"PFC priority on an empty buffer", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { q.Buffer.SizeBytes[1] = 0; return q },
			[]diag.Code{diag.CodePFCNoHeadroom}},
		{"PFC delay 0 on a NIC with buffers", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { q.PFCDelay = delay(0); return q },
			[]diag.Code{diag.CodePFCNoHeadroom}},
		{"PFC delay 0, no buffers reported: silent", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample {
			q.PFCDelay, q.Buffer = delay(0), nil
			return q
		}, nil},
		{"DSCP map, trust PCP", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { q.Trust = []string{"pcp"}; return q },
			[]diag.Code{diag.CodeTrustMismatch}},
		{"trust DSCP, no DSCP map", noDSCP, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { return q }, []diag.Code{diag.CodeTrustMismatch}},
		{"derived trust: silent", noDSCP, func(q *lossless.PortQoSSample) *lossless.PortQoSSample {
			q.Trust, q.TrustDerived = []string{"pcp"}, true
			return q
		}, nil},
		{"trust unknown: silent", dscpMap, func(q *lossless.PortQoSSample) *lossless.PortQoSSample { q.Trust = nil; return q }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: tt.local})
			s := CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}, QoS: tt.edit(good())}
			e.Apply(s)
			wantCodes(t, e, tt.want, diag.CodePFCNoHeadroom, diag.CodeTrustMismatch)
			if q := e.Snapshot().Interfaces[0].Counters.QoS; (q == nil) != (s.QoS == nil) {
				t.Errorf("snapshot qos %+v", q)
			}
		})
	}
}

// TestTrafficDiagnostics: pfc-stall and rdma-on-lossy-priority, from the
// per-priority traffic and pause time of the last interval.
func TestTrafficDiagnostics(t *testing.T) {
	roce3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	// sample is mlxSample with per-priority bytes (priority 3 and 0
	// sending tx3 and tx0 bytes so far), priority 3 paused for pausedUs.
	sample := func(at time.Time, n, tx3, tx0, pausedUs uint64) CountersSampled {
		s := mlxSample(at, n)
		for p := range s.PFC.Priorities {
			s.PFC.Priorities[p].RxBytes = reading(0, fmt.Sprintf("rx_prio%d_bytes", p))
			s.PFC.Priorities[p].TxBytes = reading(0, fmt.Sprintf("tx_prio%d_bytes", p))
		}
		s.PFC.Priorities[3].TxBytes.Value, s.PFC.Priorities[0].TxBytes.Value = tx3, tx0
		s.PFC.Priorities[3].RxPause.Value = 5 * n // pausing, not a storm
		s.PFC.Priorities[3].RxPauseDuration.Value = pausedUs
		return s
	}
	for _, tt := range []struct {
		name          string
		first, second CountersSampled
		want          []diag.Code
	}{
		{"healthy: RDMA on priority 3", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 900000, 600, 10000), nil},
		{"stall: paused the whole second, nothing sent", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 1000, 600, 995000), []diag.Code{diag.CodePFCStall}},
		{"paused 99% but sending: no stall", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 2000, 600, 995000), nil},
		{"RDMA on priority 0, none on 3", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 1000, 800000, 0), []diag.Code{diag.CodeRDMAOnLossy}},
		// RDMA sends 8,000 B/s; priority 3 carried 2,000 of them: the
		// rest went on priority 0 (54a24de spoke only when every PFC
		// priority stood idle).
		{"three quarters of RDMA on priority 0", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 3000, 800000, 0), []diag.Code{diag.CodeRDMAOnLossy}},
		{"a twentieth missing: within the counts' difference", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 8600, 800000, 0), nil},
		{"missing, but the lossy priorities carried less: no claim", sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 3000, 2500, 0), nil},
		{"no RDMA traffic: silent", sample(t0, 1, 1000, 500, 0), sample(t0.Add(time.Second), 1, 1000, 800000, 0), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: roce3})
			e.Apply(tt.first)
			e.Apply(tt.second)
			wantCodes(t, e, tt.want, diag.CodePFCStall, diag.CodeRDMAOnLossy)
		})
	}
	// No priority has PFC: every RDMA byte is lossy, with or without the
	// per-priority counters (byteps#179: "no PFC on any priority").
	noPFC := &dcb.Params{PFC: &dcb.PFC{Cap: 8}}
	for _, perPrio := range []bool{true, false} {
		e := New(Config{})
		e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: noPFC})
		first, second := sample(t0, 0, 1000, 500, 0), sample(t0.Add(time.Second), 1, 1000, 800000, 0)
		if !perPrio {
			first.PFC, second.PFC = nil, nil
		}
		e.Apply(first)
		e.Apply(second)
		in, _ := e.Interface("eth0")
		if d, ok := in.Diagnostic(diag.CodeRDMAOnLossy); !ok || d.Severity != diag.SeverityError || !strings.Contains(d.Message, "no priority has PFC in force") {
			t.Errorf("no PFC at all (per-priority counters %v): %+v, want rdma-on-lossy-priority", perPrio, d)
		}
	}
	// The message says which priorities and what share.
	e0 := New(Config{})
	e0.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: roce3})
	e0.Apply(sample(t0, 0, 1000, 500, 0))
	e0.Apply(sample(t0.Add(time.Second), 1, 3000, 800000, 0))
	in, _ := e0.Interface("eth0")
	if d, _ := in.Diagnostic(diag.CodeRDMAOnLossy); d.Message != "RDMA sent 8.0 kB/s while PFC priority 3 carried 2.0 kB/s: at least 75% of RDMA's sent bytes travel without PFC, on priority 0 (800 kB/s)" {
		t.Errorf("message %q", d.Message)
	}
	// The snapshot carries the bytes, their rates and the paused share.
	e := New(Config{})
	e.Apply(sample(t0, 0, 1000, 500, 0))
	e.Apply(sample(t0.Add(time.Second), 1, 3000, 500, 250000))
	pp := e.Snapshot().Interfaces[0].Counters.PFC.Priorities[3]
	if pp.TxBytes == nil || *pp.TxBytes != 3000 || pp.TxBytesRate == nil || *pp.TxBytesRate != 2000 || pp.PausedFraction == nil || *pp.PausedFraction != 0.25 {
		t.Errorf("priority 3: tx %v at %v/s, paused %v; want 3000, 2000/s, 0.25", pp.TxBytes, pp.TxBytesRate, pp.PausedFraction)
	}
}

// TestRoCEPath: the path of a RoCE port's traffic, hop by hop, from the
// snapshot's facts: all ok on a ready host, and each broken hop with its
// verdict (the worst wins), unknown where a fact is missing, never ok.
// noPeer stands for "no peer frame" in TestRoCEPath.
var noPeer = &lldp.PFC{}

func TestRoCEPath(t *testing.T) {
	ready := func() *dcb.Params {
		return &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS}},
			PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3},
			App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}, {Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	}
	sample := func(edit func(s *CountersSampled)) CountersSampled {
		s := mlxSample(t0, 0)
		delay := uint16(7)
		s.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay, Source: "dcbnl IEEE_GET",
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}}}
		s.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}
		if edit != nil {
			edit(&s)
		}
		return s
	}
	verdicts := func(p lossless.RoCEPath) string {
		var b []string
		for _, h := range p.Hops {
			b = append(b, string(h.Hop)+"="+string(h.Verdict))
		}
		return strings.Join(b, " ") + " worst=" + string(p.Worst)
	}
	for _, tt := range []struct {
		name  string
		local func() *dcb.Params
		s     CountersSampled
		want  string
		peer  *lldp.PFC // what the peer advertises; nil: pfc3; noPeer: no frame
		// oneSample applies s alone (no rates); edit1 edits the sample a
		// second before.
		oneSample bool
		edit1     func(s *CountersSampled)
	}{
		{"ready", ready, sample(nil),
			"gid=ok tos=ok trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=ok ecn=ok worst=ok", nil, false, nil},
		{"default ToS Not-ECT: the ToS hop warns", ready, sample(func(s *CountersSampled) {
			s.RoCE[0].DefaultToS = &lossless.RoCEToS{ToS: 104, DSCP: 26, ECN: 0, Source: "default_roce_tos"}
		}), "gid=ok tos=warning trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=ok ecn=ok worst=warning", nil, false, nil},
		{"default ToS CE: the ToS hop fails", ready, sample(func(s *CountersSampled) {
			s.RoCE[0].DefaultToS = &lossless.RoCEToS{ToS: 107, DSCP: 26, ECN: 3, Source: "default_roce_tos"}
		}), "gid=ok tos=error trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=ok ecn=ok worst=error", nil, false, nil},
		{"PFC off on the RoCE priority", func() *dcb.Params { p := ready(); p.PFC.Enabled = 1 << 4; return p }, sample(nil),
			"gid=ok tos=error trust=ok priority=error tc=ok pfc=error buffer=ok ets=ok pauses=ok ecn=ok worst=error", nil, false, nil},
		// No ToS, no routable GID (so no telling whether the traffic is
		// tagged), the trust unknown: where RoCE lands is unknown. 54a24de
		// took the UDP 4791 entry, which mlx5 never applies, and said ok.
		{"no routable GID, no ToS, trust unknown: the priority unknown", ready, sample(func(s *CountersSampled) {
			s.RoCE[0].RoutableV2, s.RoCE[0].RoutableV2Why, s.RoCE[0].DefaultToS = nil, sp("only link-local GIDs"), nil
			s.QoS.Trust = nil
		}), "gid=warning tos=unknown trust=unknown priority=unknown tc=unknown pfc=unknown buffer=unknown ets=unknown pauses=unknown ecn=unknown worst=warning", nil, false, nil},
		{"empty buffer, 0% ETS, ECN off", ready, sample(func(s *CountersSampled) {
			s.QoS.Buffer.SizeBytes[1] = 0
			s.ECN.ReactionPoint = 0
		}), "gid=ok tos=ok trust=ok priority=ok tc=ok pfc=ok buffer=error ets=ok pauses=ok ecn=warning worst=error", nil, false, nil},
		{"no APP table, DSCP trusted: the default priority 0, lossy", func() *dcb.Params { p := ready(); p.App = nil; return p }, sample(nil),
			"gid=ok tos=error trust=warning priority=error tc=ok pfc=error buffer=ok ets=ok pauses=ok ecn=warning worst=error", nil, false, nil},
		{"the peer has PFC off on the RoCE priority", ready, sample(nil),
			"gid=ok tos=ok trust=ok priority=ok tc=ok pfc=error buffer=ok ets=ok pauses=ok ecn=ok worst=error", &lldp.PFC{Cap: 8, Enabled: 1 << 4}, false, nil},
		{"no peer: the switch's side unknown", ready, sample(nil),
			"gid=ok tos=ok trust=ok priority=ok tc=ok pfc=unknown buffer=ok ets=ok pauses=ok ecn=ok worst=unknown", noPeer, false, nil},
		// One sample: no rate, so no storm can be ruled out (7737732: ok).
		{"one sample: the pauses unknown", ready, sample(nil),
			"gid=ok tos=ok trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=unknown ecn=ok worst=unknown", nil, true, nil},
		// Paused 40% of the interval by the peer: lossless and slow, not ok
		// (7737732: "pauses ✓ ... paused 40.0%").
		{"the peer pausing this host 40% of the time", ready, sample(func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value, s.PFC.Priorities[3].RxPauseDuration.Value = 300, 400000
		}), "gid=ok tos=ok trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=warning ecn=ok worst=warning", nil, false, func(s *CountersSampled) {
			s.PFC.Priorities[3].RxPause.Value, s.PFC.Priorities[3].RxPauseDuration.Value = 0, 0
		}},
		// This host pausing the peer 40% of the time: the other way round.
		{"this host pausing the peer 40% of the time", ready, sample(func(s *CountersSampled) {
			s.PFC.Priorities[3].TxPause.Value = 300
			s.PFC.Priorities[3].TxPauseDuration = lossless.Reading{Value: 400000, Source: "tx_prio3_pause_duration"}
		}), "gid=ok tos=ok trust=ok priority=ok tc=ok pfc=ok buffer=ok ets=ok pauses=warning ecn=ok worst=warning", nil, false, func(s *CountersSampled) {
			s.PFC.Priorities[3].TxPauseDuration = lossless.Reading{Value: 0, Source: "tx_prio3_pause_duration"}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: tt.local()})
			switch tt.peer {
			case nil:
				e.Apply(FrameReceived{Interface: "eth0", At: t0, Data: frame(t, highMAC, 120, etsA, pfc3, app2)})
			case noPeer:
			default:
				e.Apply(FrameReceived{Interface: "eth0", At: t0, Data: frame(t, highMAC, 120, etsA, tt.peer, app2)})
			}
			// A sample a second before: the pause rates are known.
			first := tt.s
			first.At = t0.Add(-time.Second)
			if tt.edit1 != nil {
				first.PFC = clonePFC(first.PFC)
				tt.edit1(&first)
			}
			if !tt.oneSample {
				e.Apply(first)
			}
			e.Apply(tt.s)
			paths := e.Snapshot().Interfaces[0].Counters.RoCEPaths
			if len(paths) != 1 {
				t.Fatalf("paths %+v", paths)
			}
			if got := verdicts(paths[0]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			for i, h := range paths[0].Hops {
				if i >= len(lossless.RoCEHops) || h.Hop != lossless.RoCEHops[i] {
					t.Errorf("hop %d is %s, want RoCEHops' order", i, h.Hop)
				}
				if h.Reason == "" || (h.Verdict == lossless.PathOK && h.Value == nil) {
					t.Errorf("hop %s: %+v", h.Hop, h)
				}
			}
		})
	}
	e := New(Config{})
	e.Apply(CountersSampled{Interface: "eth0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}})
	if p := e.Snapshot().Interfaces[0].Counters.RoCEPaths; p == nil || len(p) != 0 {
		t.Errorf("no RoCE port: paths %v, want []", p)
	}
}

// wantCodes checks which of codes eth0's diagnostics carry (in order),
// and that each has an action and a well-formed message.
func wantCodes(t *testing.T, e *Engine, want []diag.Code, codes ...diag.Code) {
	t.Helper()
	var got []diag.Code
	for _, d := range e.Snapshot().Interfaces[0].Diagnostics {
		if slices.Contains(codes, d.Code) {
			got = append(got, d.Code)
			if d.Action == "" || strings.Contains(d.Message, "%!") {
				t.Errorf("%s: action %q, message %q", d.Code, d.Action, d.Message)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// cnpsHandled makes a sample's rp_cnp_handled n more.
func cnpsHandled(n uint64) func(*CountersSampled) {
	return func(s *CountersSampled) { s.RDMA[0].Congestion[lossless.CNPHandled].Value += n }
}

// sendOnly and receiveOnly make sample i's RDMA one-way: the other
// direction's octets stand still.
func sendOnly(i uint64) func(*CountersSampled) {
	return func(s *CountersSampled) { s.RDMA[0].NDK[lossless.NDKRDMAInOctets].Value = 4000 }
}

func receiveOnly(i uint64) func(*CountersSampled) {
	return func(s *CountersSampled) { s.RDMA[0].NDK[lossless.NDKRDMAOutOctets].Value = 8000 }
}

// txPauses makes priority 3's sent pauses n.
func txPauses(n uint64) func(*CountersSampled) {
	return func(s *CountersSampled) { s.PFC.Priorities[3].TxPause.Value = n }
}

// TestECNDiagnostics: cnp-priority-lossy and ecn-never-marked fire on the
// data they exist for and stay silent otherwise; settings whose enables
// are unknown (upstream mlx5 debugfs) never count as ECN off.
func TestECNDiagnostics(t *testing.T) {
	u8 := func(v uint8) *uint8 { return &v }
	// ETS: priority 3 on TC 1 (ets), 6 on TC 2 (strict), the rest TC 0.
	local := func() *dcb.Params {
		return &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 0, 0, 2}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict}},
			PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3},
			App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 48, Priority: 6}}}
	}
	// sample is mlxSample n with the ECN settings e, trust (nil: none
	// reported), priority 3 paused rx3 times and ECN marks and
	// out_of_buffer as given.
	sample := func(n uint64, e *lossless.ECNSample, trust []string, rx3, marked, oob uint64, edit ...func(*CountersSampled)) CountersSampled {
		s := mlxSample(t0.Add(time.Duration(n)*time.Second), n)
		defer func() {
			for _, f := range edit {
				f(&s)
			}
		}()
		s.ECN = e
		if trust != nil {
			s.QoS = &lossless.PortQoSSample{Trust: trust, Source: "dcbnl IEEE_GET"}
		}
		s.PFC.Priorities[3].RxPause.Value = rx3
		s.RDMA[0].Congestion[lossless.ECNMarked].Value = marked
		s.RDMA[0].Congestion[lossless.OutOfBuffer] = reading(oob, "ports/1/hw_counters/out_of_buffer")
		return s
	}
	vendor := func(dscp, prio uint8) *lossless.ECNSample {
		return &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3, CNPDSCP: u8(dscp), CNPPriority: u8(prio)}
	}
	fromPacket := true
	for _, tt := range []struct {
		name          string
		first, second CountersSampled
		want          []diag.Code
	}{
		{"CNPs on strict priority 6", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 0, 9, 0), nil},
		{"CNPs on lossless priority 3", sample(0, vendor(26, 3), nil, 0, 9, 0), sample(1, vendor(26, 3), nil, 0, 9, 0), nil},
		{"CNPs on priority 0: lossy", sample(0, vendor(48, 0), nil, 0, 9, 0), sample(1, vendor(48, 0), nil, 0, 9, 0), []diag.Code{diag.CodeCNPPriorityLossy}},
		{"priority 0 but DSCP 48 trusted, mapped to 6", sample(0, vendor(48, 0), []string{"dscp", "pcp"}, 0, 9, 0), sample(1, vendor(48, 0), []string{"dscp", "pcp"}, 0, 9, 0), nil},
		{"DSCP 10 trusted, not mapped: the 802.1p priority 0", sample(0, vendor(10, 0), []string{"dscp", "pcp"}, 0, 9, 0), sample(1, vendor(10, 0), []string{"dscp", "pcp"}, 0, 9, 0), []diag.Code{diag.CodeCNPPriorityLossy}},
		{"CNP takes the packet's priority", sample(0, &lossless.ECNSample{Source: "kernel/debug/mlx5/x/cc_params", EnablesUnknown: true, CNPPriority: u8(0), CNPPriorityFromPacket: &fromPacket}, nil, 0, 9, 0),
			sample(1, &lossless.ECNSample{Source: "kernel/debug/mlx5/x/cc_params", EnablesUnknown: true, CNPPriority: u8(0), CNPPriorityFromPacket: &fromPacket}, nil, 0, 9, 0), nil},
		{"CNP marking unknown", sample(0, &lossless.ECNSample{EnablesUnknown: true, Why: "nothing readable"}, nil, 0, 9, 0), sample(1, &lossless.ECNSample{EnablesUnknown: true, Why: "nothing readable"}, nil, 0, 9, 0), nil},
		{"pauses received, marks flat", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 40, 9, 0), []diag.Code{diag.CodeECNNeverMarked}},
		{"out_of_buffer rising, marks flat", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 0, 9, 7), []diag.Code{diag.CodeECNNeverMarked}},
		// This host sends and receives: the marks of what it receives say
		// nothing of what it sends, whose marks arrive at the far end and
		// come back as CNPs (7737732 judged the sender by the marks it
		// received).
		{"pauses received, marks arriving, no CNP back: the sender's end", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 40, 30, 0), []diag.Code{diag.CodeECNNeverMarked}},
		{"pauses received, CNPs handled: the sender's signal came", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 40, 30, 0, cnpsHandled(40)), nil},
		// A host that only sends: marks never arrive here; CNPs do.
		{"a sender only, paused, CNPs handled, marks flat", sample(0, vendor(48, 6), nil, 0, 9, 0, sendOnly(0)), sample(1, vendor(48, 6), nil, 40, 9, 0, sendOnly(1), cnpsHandled(40)), nil},
		{"a receiver only, pausing the peer, marks flat", sample(0, vendor(48, 6), nil, 0, 9, 0, receiveOnly(0)), sample(1, vendor(48, 6), nil, 0, 9, 0, receiveOnly(1), txPauses(30)), []diag.Code{diag.CodeECNNeverMarked}},
		{"quiet, marks flat", sample(0, vendor(48, 6), nil, 0, 9, 0), sample(1, vendor(48, 6), nil, 0, 9, 0), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: local()})
			e.Apply(tt.first)
			e.Apply(tt.second)
			wantCodes(t, e, tt.want, diag.CodeCNPPriorityLossy, diag.CodeECNNeverMarked, diag.CodeCNPWithoutECN)
		})
	}
}

// TestLinkPauseFrames: 802.3x PAUSE frames counted on a port that runs
// PFC or carries RDMA are a finding, from ethtool netlink's statistics or
// the driver's (mlx5 rx_pause_ctrl_phy); an error where the pause time
// says a tenth of the interval stood paused; silent where the PFC
// counters moved as much (the driver counting PFC frames too), where
// nothing flows, or on a port with neither PFC nor RDMA. 54a24de read no
// driver statistic for link pause.
func TestLinkPauseFrames(t *testing.T) {
	pfc3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	noPFC := &dcb.Params{PFC: &dcb.PFC{Cap: 8}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	// sample: the driver's link pause frames and pause time (µs); n
	// steps the RDMA traffic (0: none since the first).
	sample := func(at time.Time, n, rx, pausedUs, pfcRx uint64) CountersSampled {
		s := mlxSample(at, n)
		s.LinkPause = &lossless.LinkPauseSample{RxFrames: u(rx), TxFrames: u(0), RxPauseUs: u(pausedUs), Source: "ethtool -S",
			FramesSource: "ethtool -S rx_pause_ctrl_phy, tx_pause_ctrl_phy, rx_global_pause_duration"}
		s.PFC.Priorities[3].RxPause.Value = pfcRx
		return s
	}
	t1 := t0.Add(time.Second)
	for _, tt := range []struct {
		name          string
		local         *dcb.Params
		first, second CountersSampled
		want          diag.Severity // 0xff none
	}{
		{"PFC on, link pauses flow", pfc3, sample(t0, 0, 100, 0, 0), sample(t1, 1, 600, 20000, 0), diag.SeverityWarning},
		{"a fifth of the time paused", pfc3, sample(t0, 0, 100, 0, 0), sample(t1, 1, 600, 200000, 0), diag.SeverityError},
		{"no PFC, RDMA flows", noPFC, sample(t0, 0, 100, 0, 0), sample(t1, 1, 600, 0, 0), diag.SeverityWarning},
		{"no PFC, no RDMA: silent", noPFC, sample(t0, 1, 100, 0, 0), sample(t1, 1, 600, 0, 0), 0xff},
		{"nothing flows: silent", pfc3, sample(t0, 0, 100, 0, 0), sample(t1, 1, 100, 0, 0), 0xff},
		{"as many PFC frames: silent", pfc3, sample(t0, 0, 100, 0, 0), sample(t1, 1, 600, 0, 500), 0xff},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: tt.local})
			e.Apply(tt.first)
			e.Apply(tt.second)
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodeLinkPauseFrames)
			if tt.want == 0xff {
				if ok {
					t.Fatalf("got %+v", d)
				}
				return
			}
			if !ok || d.Severity != tt.want || !strings.Contains(d.Message, "500/s received") || !strings.Contains(d.Message, "rx_pause_ctrl_phy") {
				t.Fatalf("got %+v (%v), want %s", d, ok, tt.want)
			}
		})
	}
}

// clonePFC copies a PFC sample, to edit one of two samples that share it.
func clonePFC(p *lossless.PFCSample) *lossless.PFCSample {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// The path names the hop its facts blame: where the switch stopped
// advertising PFC on the priority RoCE's DSCP is mapped to (a willing
// host took that), the PFC hop, not the ToS hop that lands there; where
// rdma_cm's ToS is not mapped and lands on the default priority, the ToS
// hop. At 7737732 the overview blamed the ToS for a switch that dropped
// PFC.
func TestRoCEPathCause(t *testing.T) {
	local := &dcb.Params{ETS: &dcb.ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 1 << 3},
		App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	sample := func(tos uint8) CountersSampled {
		s := mlxSample(t0, 0)
		d := uint16(7)
		s.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &d, Source: "dcbnl IEEE_GET",
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}}}
		s.RoCE[0].DefaultToS = &lossless.RoCEToS{ToS: tos, DSCP: tos >> 2, ECN: tos & 3, Source: "default_roce_tos"}
		s.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1<<3 | 1, ReactionPoint: 1<<3 | 1}
		return s
	}
	for _, tt := range []struct {
		name  string
		peer  *lldp.PFC
		tos   uint8
		cause lossless.RoCEHop
	}{
		{"the switch dropped PFC on 3", &lldp.PFC{Cap: 8}, 106, lossless.HopPFC},
		{"ToS 0: the default priority 0", pfc3, 2, lossless.HopToS},
		{"healthy", pfc3, 106, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceAgent, Willing: true, Params: local})
			e.Apply(FrameReceived{Interface: "eth0", At: t0, Data: frame(t, highMAC, 120, etsA, tt.peer, app2)})
			first := sample(tt.tos)
			first.At = t0.Add(-time.Second)
			e.Apply(first)
			e.Apply(sample(tt.tos))
			p := e.Snapshot().Interfaces[0].Counters.RoCEPaths[0]
			if p.Cause != tt.cause {
				t.Errorf("cause %q, want %q (worst %s; hops %+v)", p.Cause, tt.cause, p.Worst, p.Hops)
			}
		})
	}
}

// TestHopsKnownBeforeJudged: no hop of a RoCE path is ok while an input
// it judges is unknown. From a ready port, each input is taken away in
// turn (as a driver without the counter or a peer without DCBX leaves
// it) and the path judged again (lossless.Paths): the hops that read it
// must then not be ok.
func TestHopsKnownBeforeJudged(t *testing.T) {
	local := &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3},
		App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}, {Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}
	ready := func(t *testing.T) Interface {
		e := New(Config{})
		e.Apply(LocalChanged{Interface: "eth0", At: t0, Source: SourceDCBNL, Params: local})
		e.Apply(FrameReceived{Interface: "eth0", At: t0, Data: frame(t, highMAC, 120, etsA, pfc3, app2)})
		for i := range 2 {
			s := mlxSample(t0.Add(time.Duration(i)*time.Second), uint64(i))
			d := uint16(7)
			s.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &d, Source: "dcbnl IEEE_GET",
				Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}}}
			s.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}
			e.Apply(s)
		}
		in, _ := e.Interface("eth0")
		return in
	}
	counters := func(f func(*lossless.Counters)) func(*Interface) {
		return func(in *Interface) {
			c := *in.Counters
			c.RoCE = slices.Clone(c.RoCE)
			c.PFC.Priorities = slices.Clone(c.PFC.Priorities)
			if c.QoS != nil {
				q := *c.QoS
				c.QoS = &q
			}
			f(&c)
			in.Counters = &c
		}
	}
	for _, tt := range []struct {
		input   string
		unknown func(*Interface)
		hops    []lossless.RoCEHop
	}{
		{"the GID table", counters(func(c *lossless.Counters) { c.RoCE[0].RoutableV2, c.RoCE[0].RoutableV2Why = nil, nil }), []lossless.RoCEHop{lossless.HopGID}},
		{"the trust", counters(func(c *lossless.Counters) { c.QoS.Trust = nil }), []lossless.RoCEHop{lossless.HopTrust}},
		{"DCB netlink's QoS", counters(func(c *lossless.Counters) { c.QoS = nil }), []lossless.RoCEHop{lossless.HopTrust, lossless.HopBuffer}},
		{"the buffer split", counters(func(c *lossless.Counters) { c.QoS.Buffer = nil }), []lossless.RoCEHop{lossless.HopBuffer}},
		{"the pause counters", counters(func(c *lossless.Counters) { c.PFC.Source = nil }), []lossless.RoCEHop{lossless.HopPauses}},
		{"the pause rates", counters(func(c *lossless.Counters) { c.PFC.Priorities[3].RxPauseRate = nil }), []lossless.RoCEHop{lossless.HopPauses}},
		{"the DCQCN settings", counters(func(c *lossless.Counters) { c.ECN = nil }), []lossless.RoCEHop{lossless.HopECN}},
		{"the ETS in force", func(in *Interface) { o := in.Operational.Clone(); o.ETS = nil; in.Operational = o }, []lossless.RoCEHop{lossless.HopTC, lossless.HopETS}},
		{"the PFC in force", func(in *Interface) { o := in.Operational.Clone(); o.PFC = nil; in.Operational = o }, []lossless.RoCEHop{lossless.HopPFC}},
		{"the peer's PFC", func(in *Interface) { r := in.Remote.Clone(); r.PFC = nil; in.Remote = r }, []lossless.RoCEHop{lossless.HopPFC}},
		{"a valid peer", func(in *Interface) { in.RemoteValid, in.Remote = false, nil }, []lossless.RoCEHop{lossless.HopPFC}},
	} {
		t.Run(tt.input, func(t *testing.T) {
			base := ready(t)
			for _, h := range base.Counters.RoCEPaths[0].Hops {
				if h.Verdict != lossless.PathOK {
					t.Fatalf("the ready port's %s hop is %s: %s", h.Hop, h.Verdict, h.Reason)
				}
			}
			in := ready(t)
			tt.unknown(&in)
			paths := lossless.Paths(in.LosslessPort(), in.Counters, in.Diagnostics)
			for _, h := range paths[0].Hops {
				if slices.Contains(tt.hops, h.Hop) && h.Verdict == lossless.PathOK {
					t.Errorf("%s unknown: the %s hop is ok (%s)", tt.input, h.Hop, h.Reason)
				}
			}
		})
	}
}
