// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"github.com/dcbtop/dcbtop/engine/check"

	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.prom from the collector's output")

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

var (
	hostMAC = lldp.MAC{0x02, 0, 0, 0, 0, 0x01}
	leafA   = lldp.MAC{0x02, 0, 0, 0, 0, 0x0a}
	leafB   = lldp.MAC{0x02, 0, 0, 0, 0, 0x0b}

	// The switch's side of a RoCE setup: priority 3 lossless on TC1.
	swETS  = &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}}
	swReco = &lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}}
	swPFC  = &lldp.PFC{Cap: 8, Enabled: 1 << 3}
	swApp  = &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelUDP, Protocol: 4791}}}
	roce   = dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}
)

// frame builds a nearest-bridge LLDP frame from src with port ID "swp1".
func frame(t testing.TB, src lldp.MAC, ttl uint16, tlvs ...lldp.TLV) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs:      append([]lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: "leaf"}}, tlvs...),
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rx(iface string, s float64, data []byte) engine.Event {
	return engine.FrameReceived{Interface: iface, At: at(s), Data: data}
}

func link(iface string, idx int) engine.Event {
	return engine.LinkChanged{Interface: iface, At: at(0), Ifindex: idx, MAC: hostMAC, Up: true}
}

// localParams is a host configured for RoCE on priority 3, Willing as
// given, PFC on the priorities in pfc.
func localParams(willing bool, pfc dcb.PrioSet) *dcb.Params {
	return &dcb.Params{
		ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50},
			TSA: [8]lldp.TSA{2, 2, 0, 0, 0, 0, 0, 0}},
		PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc},
		App: []dcb.App{roce},
	}
}

// withDSCP26 adds the APP entry DSCP 26 -> priority 3 (what an mlx5
// port's table holds: its driver applies only DSCP entries).
func withDSCP26(p *dcb.Params) *dcb.Params {
	p.App = append(p.App, dcb.App{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3})
	return p
}

// losslessSample is an mlx5 RoCE port's counters at second s: step n
// adds traffic, CNPs and pauses on priority 3.
func losslessSample(iface string, s float64, n uint64) engine.CountersSampled {
	r := func(v uint64, src string) lossless.Reading { return lossless.Reading{Value: v, Source: src} }
	port := lossless.RDMAPortSample{Device: "mlx5_0", Port: 1}
	port.NDK[lossless.NDKConnect] = lossless.Reading{Value: 12, Source: "infiniband_cm/mlx5_0/1/cm_tx_msgs/rtu", Derived: true}
	port.NDK[lossless.NDKAccept] = lossless.Reading{Value: 3, Source: "infiniband_cm/mlx5_0/1/cm_rx_msgs/rtu", Derived: true}
	port.NDK[lossless.NDKRDMAInOctets] = r(4000+4000*n, "ports/1/counters/port_rcv_data x4")
	port.NDK[lossless.NDKRDMAOutOctets] = r(8000+8000*n, "ports/1/counters/port_xmit_data x4")
	port.NDK[lossless.NDKRDMAInFrames] = r(10+10*n, "ports/1/counters/port_rcv_packets")
	port.NDK[lossless.NDKRDMAOutFrames] = r(20+20*n, "ports/1/counters/port_xmit_packets")
	port.Congestion[lossless.CNPSent] = r(5+n, "ports/1/hw_counters/np_cnp_sent")
	port.Congestion[lossless.OutOfSequence] = r(0, "ports/1/hw_counters/out_of_sequence")
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool, StormWarning: r(0, "tx_pause_storm_warning_events")}
	for p := range pfc.Priorities {
		pfc.Priorities[p].RxPause = r(0, fmt.Sprintf("rx_prio%d_pause", p))
		pfc.Priorities[p].TxPause = r(0, fmt.Sprintf("tx_prio%d_pause", p))
	}
	pfc.Priorities[3].RxPause.Value = 120 + 10*n
	pfc.Priorities[3].TxPause.Value = 40
	pfc.Priorities[3].RxPauseDuration = r(2500000, "rx_prio3_pause_duration")
	pfc.Priorities[3].RxBytes = r(2000000*n, "rx_prio3_bytes")
	pfc.Priorities[3].TxBytes = r(1500000*n, "tx_prio3_bytes")
	// DCQCN on priority 3, CNPs marked DSCP 48 on priority 6.
	cnpDSCP, cnpPrio := uint8(48), uint8(6)
	ecn := &lossless.ECNSample{Source: "class/net/" + iface + "/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3, CNPDSCP: &cnpDSCP, CNPPriority: &cnpPrio}
	// Its RoCE identity: a routable RoCE v2 GID at index 3, rdma_cm's
	// default ToS 106 (DSCP 26); link-wide PAUSE off.
	eth, three, off, zero := "Ethernet", 3, false, uint64(0)
	roce := lossless.RoCEPortSample{Device: "mlx5_0", Port: 1, LinkLayer: &eth, RoutableV2: &three, Problems: []string{},
		DefaultToS: &lossless.RoCEToS{ToS: 106, DSCP: 26, ECN: 2, Source: "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"}}
	lp := &lossless.LinkPauseSample{RX: &off, TX: &off, RxFrames: &zero, TxFrames: &zero, Source: "ethtool netlink PAUSE_GET"}
	// The port trusts DSCP (mlx5 with DSCP entries in its table).
	qos := &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, TrustDerived: true, Source: "dcbnl IEEE_GET"}
	return engine.CountersSampled{Interface: iface, At: at(s), Interval: time.Second, RDMA: []lossless.RDMAPortSample{port}, PFC: pfc,
		RoCE: []lossless.RoCEPortSample{roce}, LinkPause: lp, ECN: ecn, QoS: qos, Driver: "mlx5_core"}
}

// A scenario is a table of engine events whose final snapshot is exported.
type scenario struct {
	name string
	cfg  engine.Config
	evs  func(t testing.TB) []engine.Event
	// sources is how the counter sources fared (WithCounterSources;
	// nil: not exported).
	sources []CounterSource
}

func scenarios() []scenario {
	return []scenario{
		{name: "ieee-willing", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{
				link("eth0", 2),
				// The kernel (dcbnl) runs ETS other than the recommendation
				// the willing host should have adopted: ets-mismatch.
				engine.LocalChanged{Interface: "eth0", At: at(0), Source: "dcbnl", Willing: true, Params: localParams(true, 0)},
				rx("eth0", 1, frame(t, leafA, 120, swETS, swReco, swPFC, swApp)),
				rx("eth0", 31, frame(t, leafA, 120, swETS, swReco, swPFC, swApp)),
				engine.Tick{At: at(41)},
			}
		}},
		{name: "neither-willing", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{
				link("eth0", 2),
				engine.LocalChanged{Interface: "eth0", At: at(0), Source: "dcbnl", Willing: false, Params: localParams(false, 1<<4),
					Mode: "host agent, IEEE"},
				rx("eth0", 1, frame(t, leafA, 120, swETS, swPFC, swApp)),
			}
		}},
		{name: "multi-peer", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{
				rx("eth0", 0, frame(t, leafA, 10, swETS, swPFC)),
				rx("eth0", 2, frame(t, leafB, 10, swETS, swPFC)),
				engine.Tick{At: at(3)},
			}
		}},
		{name: "expired", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{
				engine.FrameReceived{Interface: "eth0", At: at(0), Outgoing: true,
					Data: frame(t, hostMAC, 120, &lldp.ETS{MaxTCs: 8, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}}, &lldp.PFC{Cap: 8, Enabled: 1 << 3})},
				rx("eth0", 1, frame(t, leafA, 4, swETS, swPFC)),
				engine.Tick{At: at(10)},
			}
		}},
		{name: "no-local", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{rx("pcap0", 0, frame(t, leafA, 120, swETS, swReco, swPFC, swApp)), engine.Tick{At: at(1.5)}}
		}},
		{name: "lossless", evs: func(t testing.TB) []engine.Event {
			return []engine.Event{
				link("eth0", 2),
				engine.LocalChanged{Interface: "eth0", At: at(0), Source: "dcbnl", Willing: false, Params: withDSCP26(localParams(false, 1<<3))},
				losslessSample("eth0", 1, 0),
				losslessSample("eth0", 2, 1),
			}
		}, sources: []CounterSource{
			{Name: "sysfs", Success: true, Duration: 1500 * time.Microsecond},
			{Name: "dcbnl", Success: true, Duration: 250 * time.Microsecond},
			{Name: "ethtool", Success: true, Duration: 750 * time.Microsecond},
			{Name: "rdma", Success: false, Duration: 2 * time.Millisecond},
			{Name: "rdmastat", Success: true, Duration: 100 * time.Microsecond},
			{Name: "linkpause", Success: true, Duration: 50 * time.Microsecond},
		}},
		{name: "two-interfaces", evs: func(t testing.TB) []engine.Event {
			good := frame(t, leafA, 120, swETS, swPFC, swApp)
			cee := &lldp.CEE{Control: &lldp.CEEControl{SeqNo: 1},
				PG:  &lldp.CEEPG{CEEFeature: lldp.CEEFeature{Enable: true}, PGID: [8]uint8{0, 0, 0, 1, 0, 0, 0, 15}, Bandwidth: [8]uint8{40, 60}, NumTCs: 8},
				PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true, Error: true}, Enabled: 1 << 3, NumTCs: 8}}
			return []engine.Event{
				link("eth0", 2), link("eth1", 3),
				engine.LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: false, Params: localParams(false, 1<<3)},
				engine.LocalChanged{Interface: "eth1", At: at(0), Source: "dcbnl", Willing: true, Params: localParams(true, 1<<3)},
				rx("eth0", 1, good[:20]), // malformed
				rx("eth0", 1, good),
				rx("eth0", 2, good),
				rx("eth1", 1, frame(t, leafB, 120, cee)),
				engine.CaptureStatus{Interface: "eth0", At: at(2), KernelDrops: 5, Sent: 7},
			}
		}},
	}
}

// build applies a scenario to a real engine, feeding every indication to
// the Collector as the wiring does, and returns the Collector serving the
// final snapshot.
func build(t testing.TB, sc scenario) (*Collector, engine.Snapshot) {
	t.Helper()
	cfg := sc.cfg
	cfg.Judge = check.Judge // the one evaluation, as engine/host sets it
	e := engine.New(cfg)
	var snap engine.Snapshot
	opts := []Option{WithBuildInfo("v1.2.3", "abc1234")}
	if sc.sources != nil {
		opts = append(opts, WithCounterSources(func() []CounterSource { return sc.sources }))
	}
	c := New(func() engine.Snapshot { return snap }, opts...)
	for _, ev := range sc.evs(t) {
		c.Observe(e.Apply(ev))
	}
	snap = e.Snapshot()
	return c, snap
}

// descNames returns the names of the metrics c describes.
func descNames(t testing.TB, c prometheus.Collector) []string {
	t.Helper()
	ch := make(chan *prometheus.Desc, 100)
	c.Describe(ch)
	close(ch)
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	var out []string
	for d := range ch {
		m := re.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// snapshotNames are the metrics compared with the golden files: all but
// dcbtop_build_info, whose goversion label depends on the toolchain.
func snapshotNames(t testing.TB, c prometheus.Collector) []string {
	return slices.DeleteFunc(descNames(t, c), func(n string) bool { return n == "dcbtop_build_info" })
}

// TestCollectGolden compares the whole exposition of each scenario with
// testdata/<scenario>.prom (rewritten with -update; review every diff).
func TestCollectGolden(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			c, _ := build(t, sc)
			names := snapshotNames(t, c)
			path := filepath.Join("testdata", sc.name+".prom")
			if *update {
				b, err := testutil.CollectAndFormat(c, expfmt.TypeTextPlain, names...)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			defer f.Close()
			if err := testutil.CollectAndCompare(c, f, names...); err != nil {
				t.Error(err)
			}
		})
	}
}

// gathered collects c once and indexes the samples by metric name and
// labels (as name{k="v",...} with labels sorted).
func gathered(t testing.TB, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var l []string
			for _, lp := range m.GetLabel() {
				l = append(l, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			v := m.GetGauge().GetValue()
			if mf.GetType() == dto.MetricType_COUNTER {
				v = m.GetCounter().GetValue()
			}
			out[mf.GetName()+"{"+strings.Join(l, ",")+"}"] = v
		}
	}
	return out
}

// TestCollectSemantics states, per scenario, the values an operator
// relies on, independently of the golden files.
func TestCollectSemantics(t *testing.T) {
	type want map[string]float64
	tests := map[string]struct {
		present want
		absent  []string
	}{
		"ieee-willing": {
			present: want{
				`dcbtop_interface_up{interface="eth0"}`:                                  1,
				`dcbtop_willing{interface="eth0"}`:                                       1,
				`dcbtop_local_source{interface="eth0",source="dcbnl"}`:                   1,
				`dcbtop_remote_valid{interface="eth0"}`:                                  1,
				`dcbtop_dcbx_dialect{dialect="ieee",interface="eth0"}`:                   1,
				`dcbtop_peers{interface="eth0"}`:                                         1,
				`dcbtop_remote_peer_ttl_remaining_seconds{interface="eth0"}`:             110,
				`dcbtop_peers_ttl_remaining_min_seconds{interface="eth0"}`:               110,
				`dcbtop_multi_peer{interface="eth0"}`:                                    0,
				`dcbtop_ets_tc_bandwidth_percent{interface="eth0",side="remote",tc="1"}`: 50,
				// Willing: the recommendation is in force.
				`dcbtop_ets_tc_bandwidth_percent{interface="eth0",side="operational",tc="1"}`:                                  70,
				`dcbtop_ets_priority_tc{interface="eth0",priority="3",side="operational"}`:                                     1,
				`dcbtop_ets_tc_tsa_info{interface="eth0",side="local",tc="2",tsa="strict"}`:                                    1,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="local"}`:                                               0,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="remote"}`:                                              1,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="operational"}`:                                         1,
				`dcbtop_app_entries{interface="eth0",side="operational"}`:                                                      1,
				`dcbtop_dcbx_feature_mismatch{feature="ets",interface="eth0"}`:                                                 1,
				`dcbtop_dcbx_feature_mismatch{feature="pfc",interface="eth0"}`:                                                 0,
				`dcbtop_diagnostic{code="ets-mismatch",interface="eth0",severity="warning"}`:                                   1,
				`dcbtop_diagnostics{interface="eth0",severity="warning"}`:                                                      1,
				`dcbtop_diagnostics{interface="eth0",severity="error"}`:                                                        0,
				`dcbtop_frames_total{direction="in",interface="eth0"}`:                                                         2,
				`dcbtop_lldpdus_unchanged_total{interface="eth0"}`:                                                             1,
				`dcbtop_indications_total{interface="eth0",reason="first-receipt",status="QOS_REMOTE_PARAMETERS_CHANGE"}`:      1,
				`dcbtop_indications_total{interface="eth0",reason="local-change",status="QOS_LOCAL_PARAMETERS_CHANGE"}`:        1,
				`dcbtop_indications_total{interface="eth0",reason="ttl-expired",status="QOS_REMOTE_PARAMETERS_CHANGE"}`:        0,
				`dcbtop_indications_total{interface="eth0",reason="first-receipt",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"}`: 1,
				`dcbtop_build_info{goversion="` + runtime.Version() + `",revision="abc1234",version="v1.2.3"}`:                 1,
			},
			absent: []string{
				`dcbtop_remote_invalid_reason{interface="eth0",reason="ttl-expired"}`,
				`dcbtop_multi_peer_hold_down_remaining_seconds{interface="eth0"}`,
			},
		},
		"lossless": {
			present: want{
				`dcbtop_rdma_connections_established_total{device="mlx5_0",direction="out",interface="eth0",port="1"}`: 12,
				`dcbtop_rdma_connections_established_total{device="mlx5_0",direction="in",interface="eth0",port="1"}`:  3,
				`dcbtop_rdma_bytes_total{device="mlx5_0",direction="in",interface="eth0",port="1"}`:                    8000,
				`dcbtop_rdma_frames_total{device="mlx5_0",direction="out",interface="eth0",port="1"}`:                  40,
				`dcbtop_rdma_cnp_sent_total{device="mlx5_0",interface="eth0",port="1"}`:                                6,
				`dcbtop_rdma_out_of_sequence_packets_total{device="mlx5_0",interface="eth0",port="1"}`:                 0,
				`dcbtop_pfc_pause_frames_total{direction="rx",interface="eth0",priority="3"}`:                          130,
				`dcbtop_pfc_pause_frames_total{direction="tx",interface="eth0",priority="3"}`:                          40,
				`dcbtop_pfc_pause_frames_total{direction="rx",interface="eth0",priority="0"}`:                          0,
				`dcbtop_pfc_pause_duration_seconds_total{direction="rx",interface="eth0",priority="3"}`:                2.5,
				`dcbtop_pfc_pause_storm_events_total{interface="eth0",level="warning"}`:                                0,
				// How each counter source fared (node_exporter's
				// node_scrape_collector_success and _duration_seconds).
				`dcbtop_counter_source_success{source="sysfs"}`:          1,
				`dcbtop_counter_source_success{source="rdma"}`:           0,
				`dcbtop_counter_source_duration_seconds{source="sysfs"}`: 0.0015,
				`dcbtop_counter_source_duration_seconds{source="rdma"}`:  0.002,
			},
			// Counters without a source have no series, never a 0.
			absent: []string{
				`dcbtop_rdma_connect_failures_total{device="mlx5_0",interface="eth0",port="1"}`,
				`dcbtop_rdma_connection_errors_total{device="mlx5_0",interface="eth0",port="1"}`,
				`dcbtop_rdma_active_connections{device="mlx5_0",interface="eth0",port="1"}`,
				`dcbtop_rdma_cq_errors_total{device="mlx5_0",interface="eth0",port="1"}`,
				`dcbtop_rdma_cnp_handled_total{device="mlx5_0",interface="eth0",port="1"}`,
				`dcbtop_pfc_pause_duration_seconds_total{direction="tx",interface="eth0",priority="3"}`,
				`dcbtop_pfc_pause_storm_events_total{interface="eth0",level="error"}`,
			},
		},
		"neither-willing": {
			present: want{
				`dcbtop_willing{interface="eth0"}`:                                                                  0,
				`dcbtop_local_source{interface="eth0",source="dcbnl"}`:                                              1,
				`dcbtop_dcbx_feature_mismatch{feature="pfc",interface="eth0"}`:                                      1,
				`dcbtop_dcbx_feature_mismatch{feature="ets",interface="eth0"}`:                                      0,
				`dcbtop_diagnostic{code="neither-willing-mismatch",interface="eth0",severity="error"}`:              1,
				`dcbtop_pfc_enabled{interface="eth0",priority="4",side="operational"}`:                              1,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="operational"}`:                              0,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="remote"}`:                                   1,
				`dcbtop_indications_total{interface="eth0",reason="changed",status="QOS_REMOTE_PARAMETERS_CHANGE"}`: 0,
			},
		},
		"multi-peer": {
			present: want{
				`dcbtop_multi_peer{interface="eth0"}`:                                                                     1,
				`dcbtop_multi_peer_hold_down_remaining_seconds{interface="eth0"}`:                                         9,
				`dcbtop_remote_valid{interface="eth0"}`:                                                                   0,
				`dcbtop_remote_invalid_reason{interface="eth0",reason="multi-peer"}`:                                      1,
				`dcbtop_peers{interface="eth0"}`:                                                                          2,
				`dcbtop_peers_ttl_remaining_min_seconds{interface="eth0"}`:                                                7,
				`dcbtop_dcbx_dialect{dialect="none",interface="eth0"}`:                                                    1,
				`dcbtop_local_source{interface="eth0",source="none"}`:                                                     1,
				`dcbtop_diagnostic{code="multi-peer",interface="eth0",severity="error"}`:                                  1,
				`dcbtop_indications_total{interface="eth0",reason="multi-peer",status="QOS_REMOTE_PARAMETERS_CHANGE"}`:    1,
				`dcbtop_indications_total{interface="eth0",reason="first-receipt",status="QOS_REMOTE_PARAMETERS_CHANGE"}`: 1,
			},
			absent: []string{
				`dcbtop_willing{interface="eth0"}`,
				`dcbtop_remote_peer_ttl_remaining_seconds{interface="eth0"}`,
				`dcbtop_dcbx_feature_mismatch{feature="pfc",interface="eth0"}`,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="remote"}`,
				`dcbtop_interface_up{interface="eth0"}`,
			},
		},
		"expired": {
			present: want{
				`dcbtop_local_source{interface="eth0",source="observed"}`:                                               1,
				`dcbtop_willing{interface="eth0"}`:                                                                      0,
				`dcbtop_remote_valid{interface="eth0"}`:                                                                 0,
				`dcbtop_remote_invalid_reason{interface="eth0",reason="ttl-expired"}`:                                   1,
				`dcbtop_peers{interface="eth0"}`:                                                                        0,
				`dcbtop_frames_total{direction="out",interface="eth0"}`:                                                 1,
				`dcbtop_pfc_enabled{interface="eth0",priority="3",side="operational"}`:                                  1,
				`dcbtop_indications_total{interface="eth0",reason="ttl-expired",status="QOS_REMOTE_PARAMETERS_CHANGE"}`: 1,
			},
			absent: []string{
				`dcbtop_peers_ttl_remaining_min_seconds{interface="eth0"}`,
				`dcbtop_remote_peer_ttl_remaining_seconds{interface="eth0"}`,
				`dcbtop_ets_tc_bandwidth_percent{interface="eth0",side="remote",tc="0"}`,
				`dcbtop_dcbx_feature_mismatch{feature="ets",interface="eth0"}`,
			},
		},
		"no-local": {
			present: want{
				`dcbtop_local_source{interface="pcap0",source="none"}`:                                                   1,
				`dcbtop_remote_valid{interface="pcap0"}`:                                                                 1,
				`dcbtop_remote_peer_ttl_remaining_seconds{interface="pcap0"}`:                                            118.5,
				`dcbtop_diagnostic{code="local-unknown",interface="pcap0",severity="info"}`:                              1,
				`dcbtop_ets_tc_bandwidth_percent{interface="pcap0",side="remote",tc="0"}`:                                50,
				`dcbtop_app_entries{interface="pcap0",side="remote"}`:                                                    1,
				`dcbtop_indications_total{interface="pcap0",reason="local-change",status="QOS_LOCAL_PARAMETERS_CHANGE"}`: 0,
			},
			absent: []string{
				`dcbtop_willing{interface="pcap0"}`,
				`dcbtop_interface_up{interface="pcap0"}`,
				`dcbtop_ets_tc_bandwidth_percent{interface="pcap0",side="local",tc="0"}`,
				`dcbtop_ets_tc_bandwidth_percent{interface="pcap0",side="operational",tc="0"}`,
				`dcbtop_dcbx_feature_mismatch{feature="ets",interface="pcap0"}`,
			},
		},
		"two-interfaces": {
			present: want{
				`dcbtop_dcbx_dialect{dialect="ieee",interface="eth0"}`:                                                    1,
				`dcbtop_dcbx_dialect{dialect="cee",interface="eth1"}`:                                                     1,
				`dcbtop_lldpdus_malformed_total{interface="eth0"}`:                                                        1,
				`dcbtop_lldpdus_malformed_total{interface="eth1"}`:                                                        0,
				`dcbtop_frames_total{direction="in",interface="eth0"}`:                                                    3,
				`dcbtop_frames_total{direction="sent",interface="eth0"}`:                                                  7,
				`dcbtop_kernel_drops_total{interface="eth0"}`:                                                             5,
				`dcbtop_diagnostic{code="lldpdu-malformed",interface="eth0",severity="warning"}`:                          1,
				`dcbtop_diagnostic{code="cee-peer-error",interface="eth1",severity="warning"}`:                            1,
				`dcbtop_ets_priority_tc{interface="eth1",priority="7",side="remote"}`:                                     15,
				`dcbtop_ets_tc_bandwidth_percent{interface="eth1",side="operational",tc="1"}`:                             60,
				`dcbtop_dcbx_feature_mismatch{feature="pfc",interface="eth1"}`:                                            0,
				`dcbtop_indications_total{interface="eth1",reason="first-receipt",status="QOS_REMOTE_PARAMETERS_CHANGE"}`: 1,
			},
		},
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			tt, ok := tests[sc.name]
			if !ok {
				t.Fatal("no expectations for this scenario")
			}
			c, _ := build(t, sc)
			got := gathered(t, c)
			for k, v := range tt.present {
				if g, ok := got[k]; !ok {
					t.Errorf("%s missing", k)
				} else if g != v {
					t.Errorf("%s = %v, want %v", k, g, v)
				}
			}
			for _, k := range tt.absent {
				if v, ok := got[k]; ok {
					t.Errorf("%s = %v, want absent", k, v)
				}
			}
		})
	}
}

// TestIndicationsMonotonic checks that dcbtop_indications_total keeps
// counting after the engine's bounded log has wrapped.
func TestIndicationsMonotonic(t *testing.T) {
	e := engine.New(engine.Config{LogSize: 2})
	var snap engine.Snapshot
	c := New(func() engine.Snapshot { return snap })
	c.Observe(e.Apply(rx("eth0", 0, frame(t, leafA, 120, swETS))))
	for i := range 10 {
		ets := *swETS
		ets.Bandwidth = [8]uint8{uint8(10 + i), uint8(90 - i)}
		c.Observe(e.Apply(rx("eth0", float64(1+i), frame(t, leafA, 120, &ets))))
	}
	snap = e.Snapshot()
	if n := len(snap.Indications); n != 2 {
		t.Fatalf("log holds %d, want 2 (the test needs a wrapped log)", n)
	}
	expected := `
# HELP dcbtop_indications_total NDIS-style QoS parameter change indications issued since dcbtop started, by status and reason; a rising rate of remote ttl-expired or multi-peer indications means an unstable DCBX peer.
# TYPE dcbtop_indications_total counter
dcbtop_indications_total{interface="eth0",reason="changed",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="changed",status="QOS_REMOTE_PARAMETERS_CHANGE"} 10
dcbtop_indications_total{interface="eth0",reason="first-receipt",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="first-receipt",status="QOS_REMOTE_PARAMETERS_CHANGE"} 1
dcbtop_indications_total{interface="eth0",reason="link-down",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="link-down",status="QOS_REMOTE_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="local-change",status="QOS_LOCAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="local-change",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="multi-peer",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="multi-peer",status="QOS_REMOTE_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="shutdown",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="shutdown",status="QOS_REMOTE_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="ttl-expired",status="QOS_OPERATIONAL_PARAMETERS_CHANGE"} 0
dcbtop_indications_total{interface="eth0",reason="ttl-expired",status="QOS_REMOTE_PARAMETERS_CHANGE"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(expected), "dcbtop_indications_total"); err != nil {
		t.Error(err)
	}
}

// TestIndicationsRenamed: after a rename, the counts go on under the new
// name and no series of the old one is left (issue 44: 7737732 kept the
// old name's series for as long as dcbtop ran).
func TestIndicationsRenamed(t *testing.T) {
	e := engine.New(engine.Config{})
	var snap engine.Snapshot
	c := New(func() engine.Snapshot { return snap })
	c.Observe(e.Apply(rx("eth0", 0, frame(t, leafA, 120, swETS))))
	c.Observe([]engine.Indication{{Interface: "eth1", Status: engine.StatusRemote, Reason: engine.ReasonChanged}})
	c.Rename("eth0", "eth1")
	c.Observe([]engine.Indication{{Interface: "eth1", Status: engine.StatusRemote, Reason: engine.ReasonChanged}})
	got := map[string]float64{}
	for k, v := range gathered(t, c) {
		if strings.HasPrefix(k, "dcbtop_indications_total") && v > 0 {
			got[k] = v
		}
		if strings.Contains(k, `interface="eth0"`) {
			t.Errorf("a series of the old name: %s %v", k, v)
		}
	}
	want := map[string]float64{
		`dcbtop_indications_total{interface="eth1",reason="changed",status="QOS_REMOTE_PARAMETERS_CHANGE"}`:       2,
		`dcbtop_indications_total{interface="eth1",reason="first-receipt",status="QOS_REMOTE_PARAMETERS_CHANGE"}`: 1,
	}
	for k := range got {
		if strings.Contains(k, "QOS_OPERATIONAL") {
			delete(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications after the rename (-want +got):\n%s", diff)
	}
}

// TestLint runs promlint over every scenario's exposition.
func TestLint(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			c, _ := build(t, sc)
			problems, err := testutil.CollectAndLint(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("%s: %s", p.Metric, p.Text)
			}
		})
	}
}

// TestNames checks the naming conventions promlint does not, for every
// described metric: the dcbtop_ prefix and snake case. (Counters and only
// counters ending in _total is promlint's, checked by TestLint.)
func TestNames(t *testing.T) {
	c := New(func() engine.Snapshot { return engine.Snapshot{} })
	snake := regexp.MustCompile(`^dcbtop_[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for _, n := range descNames(t, c) {
		if !snake.MatchString(n) {
			t.Errorf("%s: want dcbtop_ and snake case", n)
		}
	}
}

// boundedLabels are the allowed values of every label but interface (and
// build_info's, which are fixed per process).
func boundedLabels() map[string][]string {
	sev := []string{}
	for _, s := range severities {
		sev = append(sev, s.String())
	}
	st := []string{other}
	for _, s := range statuses {
		st = append(st, s.String())
	}
	rs := []string{other}
	for _, r := range reasons {
		rs = append(rs, string(r))
	}
	return map[string][]string{
		"side":      {sideLocal, sideRemote, sideOperational},
		"feature":   {"ets", "pfc", "app"},
		"state":     append(labelStrings(nicStates[:]), other),
		"tc":        digits[:],
		"priority":  digits[:],
		"tsa":       {"strict", "cbs", "ets", "vendor", "reserved"},
		"code":      append(labelStrings(diagnosticCodes()), other),
		"severity":  sev,
		"status":    st,
		"reason":    rs,
		"source":    append(append(labelStrings(localSources[:]), CounterSourceNames...), other),
		"dialect":   {"ieee", "cee", "cin", "none"},
		"direction": {"in", "out", "sent", "rx", "tx"},
		"level":     {"warning", "error"},
		"hop":       hops(),
		"check":     append(labelStrings(verdict.Names), other),
	}
}

// hops are the hop label's values.
func hops() []string {
	var out []string
	for _, h := range lossless.RoCEHops {
		out = append(out, string(h))
	}
	return out
}

// configLabels are the forms of dcbtop_config_info's labels: a hash, a
// priority list, a priority.
var configLabels = map[string]*regexp.Regexp{
	"config":        regexp.MustCompile(`^[0-9a-f]{16}$`),
	"pfc":           regexp.MustCompile(`^(|none|[0-7](,[0-7]){0,7})$`),
	"roce_priority": regexp.MustCompile(`^[0-7]?$`),
}

// hostile is a snapshot with values outside every bounded set.
func hostile() engine.Snapshot {
	r := engine.Reason("made-up")
	var peers []engine.Peer
	for i := range 20 { // a flood of made-up neighbours
		name := fmt.Sprintf("sw\x1b[2J%d", i)
		peers = append(peers, engine.Peer{ChassisID: fmt.Sprintf("local %d", i), PortID: "ifname \u202eswp1", SystemName: &name})
	}
	return engine.Snapshot{Interfaces: []engine.Interface{{
		Peers: peers,
		Name:  "eth9", LocalSource: "martian", OperState: "dormant", RemoteInvalidReason: &r,
		Dialect: lldp.Dialect(7),
		Local:   &dcb.Params{ETS: &dcb.ETS{PrioTC: [8]uint8{200}, TSA: [8]lldp.TSA{3, 254, 255}}},
		Diagnostics: []diag.Diagnostic{
			{Code: "brand-new-code", Severity: diag.SeverityError},
			{Code: "another-new-code", Severity: diag.SeverityError},
			{Code: diag.CodeDuplicateTLV, Severity: diag.Severity(9)},
		},
	}}}
}

// TestLabelsBounded checks that every label value of every scenario, and
// of a snapshot full of unexpected values, comes from a known set:
// interface and RDMA device names are the only open-ended labels.
func TestLabelsBounded(t *testing.T) {
	allowed := boundedLabels()
	check := func(t *testing.T, c *Collector) {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		perIface := map[string]int{}
		defer func() {
			for iface, n := range perIface {
				if n > maxPeerInfo {
					t.Errorf("dcbtop_peer_info: %d series on %s, want at most %d", n, iface, maxPeerInfo)
				}
			}
		}()
		for _, mf := range mfs {
			if mf.GetName() == "dcbtop_build_info" {
				continue
			}
			for _, m := range mf.GetMetric() {
				if mf.GetName() == "dcbtop_peer_info" {
					for _, lp := range m.GetLabel() {
						if lp.GetName() == "interface" {
							perIface[lp.GetValue()]++
						}
					}
				}
				for _, lp := range m.GetLabel() {
					switch lp.GetName() {
					case "interface", "device":
						// Open-ended, bounded by the host's interfaces and RDMA devices.
						continue
					case "port":
						if _, err := strconv.ParseUint(lp.GetValue(), 10, 8); err != nil {
							t.Errorf("%s: port=%q is not a port number", mf.GetName(), lp.GetValue())
						}
						continue
					case "chassis_id", "port_id", "port_description", "system_name":
						// From the wire, open-ended: bounded by series per
						// interface (below).
						continue
					case "config", "pfc", "roce_priority":
						if re := configLabels[lp.GetName()]; !re.MatchString(lp.GetValue()) {
							t.Errorf("%s: %s=%q does not match %s", mf.GetName(), lp.GetName(), lp.GetValue(), re)
						}
						continue
					}
					vals, ok := allowed[lp.GetName()]
					if !ok {
						t.Errorf("%s: label %q has no bounded set", mf.GetName(), lp.GetName())
					} else if !slices.Contains(vals, lp.GetValue()) {
						t.Errorf("%s: %s=%q is not in %v", mf.GetName(), lp.GetName(), lp.GetValue(), vals)
					}
				}
			}
		}
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			c, _ := build(t, sc)
			check(t, c)
		})
	}
	t.Run("hostile", func(t *testing.T) {
		c := New(hostile, WithCounterSources(func() []CounterSource {
			return []CounterSource{{Name: "made\x1b[2Jup", Success: true}}
		}))
		c.Observe([]engine.Indication{{Interface: "eth9", Status: engine.Status(42), Reason: "made-up"}})
		check(t, c)
		got := gathered(t, c)
		for _, k := range []string{
			`dcbtop_local_source{interface="eth9",source="other"}`,
			`dcbtop_remote_invalid_reason{interface="eth9",reason="other"}`,
			`dcbtop_dcbx_dialect{dialect="none",interface="eth9"}`,
			`dcbtop_diagnostic{code="other",interface="eth9",severity="error"}`,
			`dcbtop_ets_tc_tsa_info{interface="eth9",side="local",tc="0",tsa="reserved"}`,
			`dcbtop_ets_tc_tsa_info{interface="eth9",side="local",tc="2",tsa="vendor"}`,
			`dcbtop_indications_total{interface="eth9",reason="other",status="other"}`,
			`dcbtop_counter_source_success{source="other"}`,
		} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s missing", k)
			}
		}
		for k, v := range map[string]float64{
			`dcbtop_diagnostics{interface="eth9",severity="error"}`: 2,
			`dcbtop_diagnostics{interface="eth9",severity="info"}`:  1,
		} {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
	})
}

func labelStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// dcbtop_agent_dcbx_dialect says what dcbtop's agent speaks, while it is
// the local source.
func TestAgentDialectMetric(t *testing.T) {
	in := engine.Interface{Name: "eth0", LocalSource: engine.SourceAgent,
		AgentDCBX: &engine.AgentDCBXState{Dialect: lldp.DialectCEE, Control: &engine.AgentCEEControl{Seq: 1, Ack: 1}}}
	got := gathered(t, New(func() engine.Snapshot { return engine.Snapshot{Interfaces: []engine.Interface{in}} }))
	if v, ok := got[`dcbtop_agent_dcbx_dialect{dialect="cee",interface="eth0"}`]; !ok || v != 1 {
		t.Errorf("dcbtop_agent_dcbx_dialect for a CEE agent: %v %v", v, ok)
	}
	in.AgentDCBX = nil
	got = gathered(t, New(func() engine.Snapshot { return engine.Snapshot{Interfaces: []engine.Interface{in}} }))
	for k := range got {
		if strings.HasPrefix(k, "dcbtop_agent_dcbx_dialect") {
			t.Errorf("without an agent: %s", k)
		}
	}
}
