// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
)

// fakeEthtool answers as a driver would; it records the interfaces asked
// about.
type fakeEthtool struct {
	driver    string
	driverErr error
	stats     map[string]uint64
	statsErr  error
	calls     []string
}

func (f *fakeEthtool) DriverName(ifname string) (string, error) {
	f.calls = append(f.calls, ifname)
	return f.driver, f.driverErr
}

func (f *fakeEthtool) Stats(ifname string) (map[string]uint64, error) {
	f.calls = append(f.calls, ifname)
	return f.stats, f.statsErr
}

// fakeDCB answers IEEE_GET with an ieee_pfc of these counters.
type fakeDCB struct {
	req, ind [8]uint64
	err      error
}

func (f *fakeDCB) IEEE(string) (*dcbnl.IEEE, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &dcbnl.IEEE{PFC: &dcbnl.PFC{Requests: f.req, Indications: f.ind}}, nil
}

// mlx5Stats is `ethtool -S` of an mlx5 port with PFC enabled on the
// priorities in prios (mlx5 lists per-priority pause statistics only for
// those): pauses received 100+p, sent 200+p, durations 1000+p and 2000+p.
func mlx5Stats(prios uint8) map[string]uint64 {
	m := map[string]uint64{
		"rx_packets": 123456, "rx_bytes": 98765432, "tx_packets": 65432, "tx_bytes": 45678901,
		"rx_vport_rdma_unicast_packets": 1000, "tx_vport_rdma_unicast_packets": 2000,
		"rx_pause_ctrl_phy": 0, "tx_pause_ctrl_phy": 0, "rx_discards_phy": 0, "rx_out_of_buffer": 0,
		"tx_pause_storm_warning_events": 3, "tx_pause_storm_error_events": 1, "module_unplug": 0,
	}
	for p := range 8 {
		m[fmt.Sprintf("rx_prio%d_bytes", p)] = 0
		m[fmt.Sprintf("rx_prio%d_packets", p)] = 0
		m[fmt.Sprintf("tx_prio%d_bytes", p)] = 0
		m[fmt.Sprintf("tx_prio%d_packets", p)] = 0
		if prios&(1<<p) == 0 {
			continue
		}
		m[fmt.Sprintf("rx_prio%d_pause", p)] = uint64(100 + p)
		m[fmt.Sprintf("rx_prio%d_pause_duration", p)] = uint64(1000 + p)
		m[fmt.Sprintf("tx_prio%d_pause", p)] = uint64(200 + p)
		m[fmt.Sprintf("tx_prio%d_pause_duration", p)] = uint64(2000 + p)
		m[fmt.Sprintf("rx_prio%d_pause_transition", p)] = uint64(p)
	}
	return m
}

// iceStats is `ethtool -S` of an E810 port (ice): XOFF received 300+p,
// sent 400+p.
func iceStats() map[string]uint64 {
	m := map[string]uint64{
		"rx_unicast": 5000, "tx_unicast": 4000, "rx_bytes.nic": 7000000, "tx_bytes.nic": 6000000,
		"link_xon_rx.nic": 0, "link_xoff_rx.nic": 0, "link_xon_tx.nic": 0, "link_xoff_tx.nic": 0,
		"tx_queue_0_packets": 4000, "rx_queue_0_packets": 5000,
	}
	for p := range 8 {
		m[fmt.Sprintf("rx_priority_%d_xon.nic", p)] = uint64(10 + p)
		m[fmt.Sprintf("rx_priority_%d_xoff.nic", p)] = uint64(300 + p)
		m[fmt.Sprintf("tx_priority_%d_xon.nic", p)] = uint64(20 + p)
		m[fmt.Sprintf("tx_priority_%d_xoff.nic", p)] = uint64(400 + p)
	}
	return m
}

// bnxtStats is `ethtool -S` of a BCM57508 port (bnxt_en): PFC frames
// received 700+p, sent 800+p, paused 7000+p and 8000+p us, bytes
// 90000+p and 91000+p.
func bnxtStats() map[string]uint64 {
	m := map[string]uint64{"rx_total_frames": 1000, "tx_total_frames": 2000, "rx_pause_frames": 0, "tx_pause_frames": 0,
		"rx_pfc_frames": 0, "tx_pfc_frames": 0, "continuous_roce_pause_events": 0, "resume_roce_pause_events": 0}
	for p := range 8 {
		m[fmt.Sprintf("rx_pfc_ena_frames_pri%d", p)] = uint64(700 + p)
		m[fmt.Sprintf("tx_pfc_ena_frames_pri%d", p)] = uint64(800 + p)
		m[fmt.Sprintf("pfc_pri%d_rx_duration_us", p)] = uint64(7000 + p)
		m[fmt.Sprintf("pfc_pri%d_rx_transitions", p)] = uint64(p)
		m[fmt.Sprintf("pfc_pri%d_tx_duration_us", p)] = uint64(8000 + p)
		m[fmt.Sprintf("pfc_pri%d_tx_transitions", p)] = uint64(p)
		m[fmt.Sprintf("rx_bytes_cos%d", p)] = 1
		m[fmt.Sprintf("rx_bytes_pri%d", p)] = uint64(90000 + p)
		m[fmt.Sprintf("rx_packets_pri%d", p)] = 9
		m[fmt.Sprintf("tx_bytes_pri%d", p)] = uint64(91000 + p)
		m[fmt.Sprintf("tx_packets_pri%d", p)] = 9
	}
	return m
}

// i40eStats is `ethtool -S` of an X710 port (i40e): XOFF received 500+p,
// sent 600+p; old is the older kernels' spelling.
func i40eStats(old bool) map[string]uint64 {
	m := map[string]uint64{
		"rx_packets": 100, "tx_packets": 200, "port.rx_bytes": 300000, "port.tx_bytes": 400000,
		"port.link_xon_rx": 0, "port.link_xoff_rx": 0, "port.link_xon_tx": 0, "port.link_xoff_tx": 0,
	}
	rx, tx := "_rx", "_tx"
	if old {
		rx, tx = "", ""
	}
	for p := range 8 {
		m[fmt.Sprintf("port.tx_priority_%d_xon%s", p, tx)] = uint64(30 + p)
		m[fmt.Sprintf("port.tx_priority_%d_xoff%s", p, tx)] = uint64(600 + p)
		m[fmt.Sprintf("port.rx_priority_%d_xon%s", p, rx)] = uint64(40 + p)
		m[fmt.Sprintf("port.rx_priority_%d_xoff%s", p, rx)] = uint64(500 + p)
		m[fmt.Sprintf("port.rx_priority_%d_xon_2_xoff", p)] = 0
	}
	return m
}

// vethStats is `ethtool -S` of a veth (as TestVethKernel reads it): no
// pause counters at all.
func vethStats() map[string]uint64 {
	return map[string]uint64{"peer_ifindex": 5, "rx_queue_0_xdp_packets": 0, "rx_queue_0_xdp_bytes": 0,
		"rx_queue_0_drops": 0, "rx_queue_0_xdp_redirect": 0, "rx_queue_0_xdp_drops": 0, "rx_queue_0_xdp_tx": 0,
		"rx_queue_0_xdp_tx_errors": 0, "tx_queue_0_xdp_xmit": 0, "tx_queue_0_xdp_xmit_errors": 0}
}

// pfcWant builds a PFCSample: fill sets each priority.
func pfcWant(src lossless.PFCSource, fill func(p int, pp *lossless.PrioPauseSample)) *lossless.PFCSample {
	s := &lossless.PFCSample{Source: src}
	for p := range s.Priorities {
		fill(p, &s.Priorities[p])
	}
	return s
}

func f(pat string, p int) string { return fmt.Sprintf(pat, p) }

// mlx5Want is mlx5Stats(prios) as sampled from ethtool.
func mlx5Want(prios uint8) *lossless.PFCSample {
	s := pfcWant(lossless.PFCSourceEthtool, func(p int, pp *lossless.PrioPauseSample) {
		if prios&(1<<p) == 0 {
			return
		}
		u := uint64(p)
		*pp = lossless.PrioPauseSample{RxPause: rd(100+u, f("rx_prio%d_pause", p)), TxPause: rd(200+u, f("tx_prio%d_pause", p)),
			RxPauseDuration: rd(1000+u, f("rx_prio%d_pause_duration", p)), TxPauseDuration: rd(2000+u, f("tx_prio%d_pause_duration", p)),
			RxPauseTransitions: rd(u, f("rx_prio%d_pause_transition", p))}
	})
	s.StormWarning, s.StormError = rd(3, "tx_pause_storm_warning_events"), rd(1, "tx_pause_storm_error_events")
	withMLX5Bytes(s)
	return s
}

// withMLX5Bytes adds mlx5Stats' per-priority traffic (every priority, 0
// bytes) to s, as the table's extras read it whatever the counts' source.
func withMLX5Bytes(s *lossless.PFCSample) {
	for p := range s.Priorities {
		s.Priorities[p].RxBytes, s.Priorities[p].TxBytes = rd(0, f("rx_prio%d_bytes", p)), rd(0, f("tx_prio%d_bytes", p))
	}
}

func dcbWant(req, ind [8]uint64) *lossless.PFCSample {
	return pfcWant(lossless.PFCSourceDCBNL, func(p int, pp *lossless.PrioPauseSample) {
		pp.RxPause = rd(ind[p], f("dcbnl ieee_pfc.indications[%d]", p))
		pp.TxPause = rd(req[p], f("dcbnl ieee_pfc.requests[%d]", p))
	})
}

// TestPFC checks where the per-priority pause counters come from: the
// driver tables, dcbnl when it has counts, durations and storm counters
// from ethtool whatever the counts' source, and nothing invented.
func TestPFC(t *testing.T) {
	eopnotsupp := syscall.EOPNOTSUPP
	var (
		dcbReq = [8]uint64{3: 70, 4: 1}
		dcbInd = [8]uint64{3: 80}
	)
	iceWant := pfcWant(lossless.PFCSourceEthtool, func(p int, pp *lossless.PrioPauseSample) {
		pp.RxPause, pp.TxPause = rd(uint64(300+p), f("rx_priority_%d_xoff.nic", p)), rd(uint64(400+p), f("tx_priority_%d_xoff.nic", p))
	})
	bnxtWant := pfcWant(lossless.PFCSourceEthtool, func(p int, pp *lossless.PrioPauseSample) {
		u := uint64(p)
		*pp = lossless.PrioPauseSample{RxPause: rd(700+u, f("rx_pfc_ena_frames_pri%d", p)), TxPause: rd(800+u, f("tx_pfc_ena_frames_pri%d", p)),
			RxPauseDuration: rd(7000+u, f("pfc_pri%d_rx_duration_us", p)), TxPauseDuration: rd(8000+u, f("pfc_pri%d_tx_duration_us", p)),
			RxBytes: rd(90000+u, f("rx_bytes_pri%d", p)), TxBytes: rd(91000+u, f("tx_bytes_pri%d", p)),
			RxPauseTransitions: rd(u, f("pfc_pri%d_rx_transitions", p))}
	})
	i40eWant := pfcWant(lossless.PFCSourceEthtool, func(p int, pp *lossless.PrioPauseSample) {
		pp.RxPause = rd(uint64(500+p), f("port.rx_priority_%d_xoff_rx", p))
		pp.TxPause = rd(uint64(600+p), f("port.tx_priority_%d_xoff_tx", p))
	})
	i40eOldWant := pfcWant(lossless.PFCSourceEthtool, func(p int, pp *lossless.PrioPauseSample) {
		pp.RxPause = rd(uint64(500+p), f("port.rx_priority_%d_xoff", p))
		pp.TxPause = rd(uint64(600+p), f("port.tx_priority_%d_xoff", p))
	})
	dcbWithDurations := dcbWant(dcbReq, dcbInd)
	dcbWithDurations.Priorities[3].RxPauseDuration = rd(1003, "rx_prio3_pause_duration")
	dcbWithDurations.Priorities[3].TxPauseDuration = rd(2003, "tx_prio3_pause_duration")
	dcbWithDurations.Priorities[3].RxPauseTransitions = rd(3, "rx_prio3_pause_transition")
	dcbWithDurations.StormWarning, dcbWithDurations.StormError = rd(3, "tx_pause_storm_warning_events"), rd(1, "tx_pause_storm_error_events")
	withMLX5Bytes(dcbWithDurations)
	dcbZerosStorm := dcbWant([8]uint64{}, [8]uint64{})
	dcbZerosStorm.StormWarning, dcbZerosStorm.StormError = rd(3, "tx_pause_storm_warning_events"), rd(1, "tx_pause_storm_error_events")
	withMLX5Bytes(dcbZerosStorm)

	tests := []struct {
		name    string
		ethtool *fakeEthtool // nil: none
		dcb     *fakeDCB     // nil: none
		want    *lossless.PFCSample
	}{
		{"mlx5, PFC on every priority", &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(0xff)}, nil, mlx5Want(0xff)},
		{"mlx5, PFC on priority 3", &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, nil, mlx5Want(1 << 3)},
		{"ice", &fakeEthtool{driver: "ice", stats: iceStats()}, nil, iceWant},
		{"bnxt_en", &fakeEthtool{driver: "bnxt_en", stats: bnxtStats()}, nil, bnxtWant},
		{"no driver name, bnxt_en keys", &fakeEthtool{driverErr: eopnotsupp, stats: bnxtStats()}, nil, bnxtWant},
		{"i40e", &fakeEthtool{driver: "i40e", stats: i40eStats(false)}, nil, i40eWant},
		{"i40e, older spelling", &fakeEthtool{driver: "i40e", stats: i40eStats(true)}, nil, i40eOldWant},
		{"unknown driver name, mlx5 keys", &fakeEthtool{driver: "mlx5e_rep", stats: mlx5Stats(1 << 3)}, nil, mlx5Want(1 << 3)},
		{"no driver name, i40e keys", &fakeEthtool{driverErr: eopnotsupp, stats: i40eStats(true)}, nil, i40eOldWant},
		{"no driver name, ice keys", &fakeEthtool{driverErr: eopnotsupp, stats: iceStats()}, nil, iceWant},
		{"dcbnl counts preferred, ethtool durations and storms kept",
			&fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, &fakeDCB{req: dcbReq, ind: dcbInd}, dcbWithDurations},
		{"dcbnl counts, ethtool failing", &fakeEthtool{statsErr: eopnotsupp, driverErr: eopnotsupp},
			&fakeDCB{req: dcbReq, ind: dcbInd}, dcbWant(dcbReq, dcbInd)},
		{"dcbnl zeros, no table: dcbnl zeros", &fakeEthtool{driver: "veth", stats: vethStats()}, &fakeDCB{}, dcbWant([8]uint64{}, [8]uint64{})},
		{"dcbnl zeros, no ethtool: dcbnl zeros", nil, &fakeDCB{}, dcbWant([8]uint64{}, [8]uint64{})},
		{"dcbnl zeros, a table: ethtool", &fakeEthtool{driver: "ice", stats: iceStats()}, &fakeDCB{}, iceWant},
		{"dcbnl zeros, mlx5 without PFC: dcbnl zeros, storms from ethtool",
			&fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(0)}, &fakeDCB{}, dcbZerosStorm},
		{"dcbnl failing, a table", &fakeEthtool{driver: "ice", stats: iceStats()}, &fakeDCB{err: errors.New("no dcb")}, iceWant},
		{"dcbnl failing, veth", &fakeEthtool{driver: "veth", stats: vethStats()}, &fakeDCB{err: errors.New("no dcb")}, nil},
		{"ethtool EOPNOTSUPP (lo)", &fakeEthtool{driverErr: eopnotsupp, statsErr: eopnotsupp}, nil, nil},
		{"no statistics", &fakeEthtool{driver: "dummy", stats: map[string]uint64{}}, nil, nil},
		{"mlx5 without PFC, no dcbnl", &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(0)}, nil, nil},
		{"known driver, another driver's keys", &fakeEthtool{driver: "ice", stats: mlx5Stats(0xff)}, nil, nil},
		{"no sources", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := counters.Config{SysfsRoot: filepath.Join(fixtures, "nordma")}
			if tt.ethtool != nil {
				cfg.Ethtool = tt.ethtool
			}
			if tt.dcb != nil {
				cfg.DCB = tt.dcb
			}
			got := counters.New(cfg).Sample("eth0", t0, time.Second)
			if diff := cmp.Diff(tt.want, got.PFC); diff != "" {
				t.Errorf("PFC (-want +got):\n%s", diff)
			}
			if len(got.Errors) != 0 {
				t.Errorf("Errors %q: a source that fails is no error", got.Errors)
			}
		})
	}
}

// TestPFCInEngine checks that dcbnl's and ethtool's per-priority Sources
// come out of the engine as patterns.
func TestPFCInEngine(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  counters.Config
		want map[string]string
	}{
		{"dcbnl with ethtool durations", counters.Config{
			Ethtool: &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, DCB: &fakeDCB{req: [8]uint64{3: 1}}},
			map[string]string{"rx_pause": "dcbnl ieee_pfc.indications[{p}]", "tx_pause": "dcbnl ieee_pfc.requests[{p}]",
				"rx_pause_duration_us": "rx_prio{p}_pause_duration", "tx_pause_duration_us": "tx_prio{p}_pause_duration",
				"storm_warning_events": "tx_pause_storm_warning_events", "storm_error_events": "tx_pause_storm_error_events",
				"rx_bytes": "rx_prio{p}_bytes", "tx_bytes": "tx_prio{p}_bytes", "rx_pause_transitions": "rx_prio{p}_pause_transition"}},
		{"i40e", counters.Config{Ethtool: &fakeEthtool{driver: "i40e", stats: i40eStats(false)}},
			map[string]string{"rx_pause": "port.rx_priority_{p}_xoff_rx", "tx_pause": "port.tx_priority_{p}_xoff_tx"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.SysfsRoot = filepath.Join(fixtures, "nordma")
			e := engine.New(engine.Config{})
			e.Step(counters.New(tt.cfg).Sample("eth0", t0, time.Second))
			c := e.Snapshot().Interfaces[0].Counters
			if diff := cmp.Diff(tt.want, c.PFC.Sources); diff != "" {
				t.Errorf("PFC sources (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEthtoolVirtualDriver: a software interface (veth, bridge, ...) has
// no pause statistics: its statistics are not dumped at all.
func TestEthtoolVirtualDriver(t *testing.T) {
	for _, d := range []string{"veth", "bridge", "vxlan"} {
		et := &statsCounter{fakeEthtool: fakeEthtool{driver: d, stats: mlx5Stats(1 << 3)}}
		s := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: et})
		if ev := s.Sample("v0", time.Unix(0, 0), time.Second); ev.PFC != nil || et.stats != 0 {
			t.Errorf("%s: PFC %+v, %d statistics dumps; want none", d, ev.PFC, et.stats)
		}
	}
	et := &statsCounter{fakeEthtool: fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}}
	if ev := counters.New(counters.Config{SysfsRoot: t.TempDir(), Ethtool: et}).Sample("p0", time.Unix(0, 0), time.Second); ev.PFC == nil || et.stats != 1 {
		t.Errorf("mlx5_core: PFC %+v, %d dumps; want the pauses, one dump", ev.PFC, et.stats)
	}
}

// statsCounter counts the statistics dumps asked of a fakeEthtool.
type statsCounter struct {
	fakeEthtool
	stats int
}

func (s *statsCounter) Stats(ifname string) (map[string]uint64, error) {
	s.stats++
	return s.fakeEthtool.Stats(ifname)
}

// stormEthtool is a fakeEthtool whose driver has the PFC storm prevention
// timeout (a counters.StormTimeoutReader), or answers err for it.
type stormEthtool struct {
	fakeEthtool
	ms  uint16
	err error
}

func (f *stormEthtool) PFCStormTimeout(string) (uint16, error) { return f.ms, f.err }

// The storm guard's timeout (ETHTOOL_GTUNABLE) comes beside the storm
// counters where the Ethtool reads it and the driver has it; a driver
// without it (EOPNOTSUPP) leaves it unknown, no error of the sample.
func TestStormTimeout(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    counters.Ethtool
		want lossless.Reading
	}{
		{"mlx5 with the tunable", &stormEthtool{fakeEthtool: fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, ms: 100},
			lossless.Reading{Value: 100, Source: counters.StormTimeoutSource}},
		{"off", &stormEthtool{fakeEthtool: fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}}, lossless.Reading{Value: 0, Source: counters.StormTimeoutSource}},
		{"no tunable", &stormEthtool{fakeEthtool: fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, err: syscall.EOPNOTSUPP}, lossless.Reading{}},
		{"an Ethtool that reads none", &fakeEthtool{driver: "mlx5_core", stats: mlx5Stats(1 << 3)}, lossless.Reading{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := counters.New(counters.Config{SysfsRoot: filepath.Join(fixtures, "nordma"), Ethtool: tt.e}).Sample("eth0", t0, time.Second)
			if got.PFC == nil || len(got.Errors) != 0 {
				t.Fatalf("PFC %v, errors %q", got.PFC, got.Errors)
			}
			if diff := cmp.Diff(tt.want, got.PFC.StormTimeout); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
