// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dcbtop/dcbtop/engine/lossless"
)

// Ethtool gives an interface's driver name and driver statistics (the
// ETHTOOL_GDRVINFO and ETHTOOL_GSTATS ioctls: `ethtool -i` and `ethtool
// -S`).
type Ethtool interface {
	DriverName(ifname string) (string, error)
	Stats(ifname string) (map[string]uint64, error)
}

// A StormTimeoutReader is an Ethtool that also reads the driver's PFC
// storm prevention timeout in ms (the ETHTOOL_GTUNABLE ioctl of
// ETHTOOL_PFC_PREVENTION_TOUT, capture/tunable): the system's, a
// recording's. An error (most drivers have no such tunable) leaves the
// timeout unknown.
type StormTimeoutReader interface {
	PFCStormTimeout(ifname string) (uint16, error)
}

// StormTimeoutSource is the Source of the storm prevention timeout's
// Reading.
const StormTimeoutSource = "ETHTOOL_GTUNABLE pfc-prevention-tout"

// An EthtoolCloser is an Ethtool holding a resource (a socket) that Close
// releases.
type EthtoolCloser interface {
	Ethtool
	Close()
}

// A pfcTable names a driver's per-priority pause statistics: fmt patterns
// with the priority as %d, alternatives by preference ("" when the driver
// has no such statistic).
type pfcTable struct {
	driver string
	// rx and tx count pause (XOFF) frames received and sent.
	rx, tx []string
	// rxDuration and txDuration are the time paused, in microseconds.
	rxDuration, txDuration string
	// stormWarning and stormError count the pause-storm guard's events.
	stormWarning, stormError string
	// rxBytes and txBytes are the priority's traffic in bytes.
	rxBytes, txBytes string
	// rxTransitions counts the pauses received that started.
	rxTransitions string
	// linkRx and linkTx count IEEE 802.3 Annex 31B (link-wide) PAUSE
	// frames received and sent; linkRxDuration is the time paused by
	// them, in microseconds, where the driver counts it.
	linkRx, linkTx, linkRxDuration string
}

// pfcTables are the drivers whose per-priority pause statistics dcbtop
// knows, in the order they are tried when the driver's name is unknown.
var pfcTables = []pfcTable{
	{
		driver:       "mlx5_core",
		rx:           []string{"rx_prio%d_pause"},
		tx:           []string{"tx_prio%d_pause"},
		rxDuration:   "rx_prio%d_pause_duration",
		txDuration:   "tx_prio%d_pause_duration",
		stormWarning: "tx_pause_storm_warning_events",
		stormError:   "tx_pause_storm_error_events",
		// drivers/net/ethernet/mellanox/mlx5/core/en_stats.c
		// pport_per_prio_traffic_stats_desc.
		rxBytes: "rx_prio%d_bytes",
		txBytes: "tx_prio%d_bytes",
		// pport_per_prio_pfc_stats_desc.
		rxTransitions: "rx_prio%d_pause_transition",
		// pport_802_3_stats_desc: a_pause_mac_ctrl_frames_received and
		// _transmitted (IEEE 802.3 30.3.4.3, 30.3.4.2); the "global"
		// pause time, listed while link-wide PAUSE is on
		// (mlx5e_query_global_pause_combined).
		linkRx:         "rx_pause_ctrl_phy",
		linkTx:         "tx_pause_ctrl_phy",
		linkRxDuration: "rx_global_pause_duration",
	},
	{
		// Broadcom NetXtreme-C/E (bnxt_en, the netdev under bnxt_re):
		// drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c,
		// bnxt_port_stats_arr (rx/tx_pfc_ena_frames_pri%d: PFC frames
		// with the priority's enable bit), BNXT_RX/TX_STATS_EXT_PFC_ENTRY
		// (pfc_pri%d_rx/tx_duration_us) and BNXT_RX/TX_STATS_PRI_ENTRY
		// (rx/tx_bytes_pri%d, listed while the firmware's priority-to-
		// queue map is valid).
		driver:        "bnxt_en",
		rx:            []string{"rx_pfc_ena_frames_pri%d"},
		tx:            []string{"tx_pfc_ena_frames_pri%d"},
		rxDuration:    "pfc_pri%d_rx_duration_us",
		txDuration:    "pfc_pri%d_tx_duration_us",
		rxBytes:       "rx_bytes_pri%d",
		txBytes:       "tx_bytes_pri%d",
		rxTransitions: "pfc_pri%d_rx_transitions",
		// bnxt_port_stats_arr: rx_pause_frames, tx_pause_frames (the
		// port's 802.3x PAUSE frames; PFC frames are rx/tx_pfc_frames).
		linkRx: "rx_pause_frames",
		linkTx: "tx_pause_frames",
	},
	{
		// ice counts XOFF frames (the pauses) and XON frames apart
		// (drivers/net/ethernet/intel/ice/ice_ethtool.c
		// ice_get_strings: rx/tx_priority_%u_xoff.nic); it has no
		// per-priority byte or pause-time statistics.
		driver: "ice",
		rx:     []string{"rx_priority_%d_xoff.nic"},
		tx:     []string{"tx_priority_%d_xoff.nic"},
		// ice_gstrings_pf_stats: link_xoff_rx.nic, link_xoff_tx.nic.
		linkRx: "link_xoff_rx.nic",
		linkTx: "link_xoff_tx.nic",
	},
	{
		// Older i40e had no _rx/_tx suffix.
		driver: "i40e",
		rx:     []string{"port.rx_priority_%d_xoff_rx", "port.rx_priority_%d_xoff"},
		tx:     []string{"port.tx_priority_%d_xoff_tx", "port.tx_priority_%d_xoff"},
		// i40e_gstrings_stats: port.link_xoff_rx, port.link_xoff_tx.
		linkRx: "port.link_xoff_rx",
		linkTx: "port.link_xoff_tx",
	},
}

// tableFor returns the table of the named driver; when the name is
// unknown (or driverErr is set), the first table with a per-priority rx
// pause statistic in stats; nil when none fits.
func tableFor(driver string, driverErr error, stats map[string]uint64) *pfcTable {
	if driverErr == nil {
		for i := range pfcTables {
			if pfcTables[i].driver == driver {
				return &pfcTables[i]
			}
		}
	}
	for i := range pfcTables {
		for p := range 8 {
			if _, ok := pfcTables[i].lookup(stats, pfcTables[i].rx, p); ok {
				return &pfcTables[i]
			}
		}
	}
	return nil
}

// lookup returns the first of the patterns that names a statistic of
// priority p in stats, as a Reading whose Source is the statistic's name.
func (t *pfcTable) lookup(stats map[string]uint64, patterns []string, p int) (lossless.Reading, bool) {
	for _, pat := range patterns {
		if pat == "" {
			continue
		}
		key := fmt.Sprintf(pat, p)
		if v, ok := stats[key]; ok {
			return lossless.Reading{Value: v, Source: key}, true
		}
	}
	return lossless.Reading{}, false
}

// counts fills the per-priority pause counts from stats; false when stats
// have none.
func (t *pfcTable) counts(stats map[string]uint64, s *lossless.PFCSample) bool {
	found := false
	for p := range s.Priorities {
		pp := &s.Priorities[p]
		var ok bool
		if pp.RxPause, ok = t.lookup(stats, t.rx, p); ok {
			found = true
		}
		if pp.TxPause, ok = t.lookup(stats, t.tx, p); ok {
			found = true
		}
	}
	return found
}

// extras fills the pause durations and the storm counters from stats,
// where the driver has them.
func (t *pfcTable) extras(stats map[string]uint64, s *lossless.PFCSample) {
	for p := range s.Priorities {
		pp := &s.Priorities[p]
		pp.RxPauseDuration, _ = t.lookup(stats, []string{t.rxDuration}, p)
		pp.TxPauseDuration, _ = t.lookup(stats, []string{t.txDuration}, p)
		pp.RxBytes, _ = t.lookup(stats, []string{t.rxBytes}, p)
		pp.TxBytes, _ = t.lookup(stats, []string{t.txBytes}, p)
		pp.RxPauseTransitions, _ = t.lookup(stats, []string{t.rxTransitions}, p)
	}
	if v, ok := stats[t.stormWarning]; ok && t.stormWarning != "" {
		s.StormWarning = lossless.Reading{Value: v, Source: t.stormWarning}
	}
	if v, ok := stats[t.stormError]; ok && t.stormError != "" {
		s.StormError = lossless.Reading{Value: v, Source: t.stormError}
	}
}

// linkPause returns the driver's link-wide PAUSE frame counters (and
// pause time) as a LinkPauseSample with frames only; nil when the table
// or the statistics have none. The settings come from ethtool netlink
// (capture/linkpause), whose frame statistics, where the kernel has
// them, are preferred to these.
func (t *pfcTable) linkPause(stats map[string]uint64) *lossless.LinkPauseSample {
	if t == nil || stats == nil {
		return nil
	}
	get := func(name string) *uint64 {
		if v, ok := stats[name]; ok && name != "" {
			return &v
		}
		return nil
	}
	l := &lossless.LinkPauseSample{RxFrames: get(t.linkRx), TxFrames: get(t.linkTx), RxPauseUs: get(t.linkRxDuration)}
	if l.RxFrames == nil && l.TxFrames == nil {
		return nil
	}
	l.Source = "ethtool -S"
	l.FramesSource = "ethtool -S " + t.linkRx + ", " + t.linkTx
	if l.RxPauseUs != nil {
		l.FramesSource += ", " + t.linkRxDuration
	}
	return l
}

// MergeLinkPause completes the link-wide PAUSE settings read from ethtool
// netlink with the driver's frame counters where netlink has no
// statistics (kernels before 5.10, the ioctl, drivers that do not fill
// them); either may be nil.
func MergeLinkPause(settings, driver *lossless.LinkPauseSample) *lossless.LinkPauseSample {
	switch {
	case driver == nil:
		return settings
	case settings == nil:
		return driver
	}
	out := *settings
	if out.RxFrames == nil && out.TxFrames == nil {
		out.RxFrames, out.TxFrames, out.FramesSource = driver.RxFrames, driver.TxFrames, driver.FramesSource
	}
	if out.RxPauseUs == nil && driver.RxPauseUs != nil {
		out.RxPauseUs = driver.RxPauseUs
		if out.FramesSource == "" {
			out.FramesSource = driver.FramesSource
		}
	}
	return &out
}

// A driverName is what ETHTOOL_GDRVINFO answered for an interface: its
// driver's name, or why there is none.
type driverName struct {
	name string
	err  error
}

// driver asks ifname's driver name once a sample.
func (src ethtoolSource) driver(ifname string) driverName {
	n, err := src.e.DriverName(ifname)
	return driverName{name: n, err: err}
}

// stats returns ifname's driver statistics and the table that reads
// them; nil stats when the driver has none for ifname (an errno, such as
// EOPNOTSUPP on lo, or no recorded file: no error of the sample), and the
// error of statistics that exist but cannot be read.
func (src ethtoolSource) stats(ifname string, drv driverName) (map[string]uint64, *pfcTable, error) {
	driver, derr := drv.name, drv.err
	if derr == nil && virtualDrivers[driver] {
		return nil, nil, nil // no pause statistics to read: skip the dump
	}
	stats, err := src.e.Stats(ifname)
	var errno syscall.Errno
	switch {
	case err != nil && !errors.As(err, &errno):
		return nil, nil, err // statistics that exist but cannot be read
	case err != nil || len(stats) == 0:
		return nil, nil, nil
	}
	return stats, tableFor(driver, derr, stats), nil
}

// virtualDrivers are software interfaces' drivers (ETHTOOL_GDRVINFO's
// driver name): they have no link to pause, so no pause statistics, and
// dumping their statistics (ETHTOOL_GSTATS, whose client allocates
// buffers for 32,768 names) at every probe cost a switch of 64 veth
// ports more CPU and memory than everything else. From
// drivers/net/veth.c (DRV_NAME "veth"), dummy.c ("dummy"),
// net/bridge/br_device.c ("bridge"), drivers/net/tun.c ("tun"),
// vxlan/vxlan_core.c ("vxlan"), geneve.c ("geneve"), macvlan.c
// ("macvlan"), ipvlan/ipvlan_main.c ("ipvlan"), vrf.c ("vrf").
var virtualDrivers = map[string]bool{
	"veth": true, "dummy": true, "bridge": true, "tun": true, "vxlan": true,
	"geneve": true, "macvlan": true, "ipvlan": true, "vrf": true,
}
