// SPDX-License-Identifier: Apache-2.0

package lossless

// A SourceName names one of the sources of the lossless counters: what
// capture/counters' registry reads, the name in a sample's SourceError,
// and the source label of dcbtop_counter_source_success (engine/metrics).
type SourceName string

// The counter sources, as docs/counters.md describes them.
const (
	SourceSysfs     SourceName = "sysfs"     // RDMA ports' NDK and congestion counters, ECN settings
	SourceDCBNL     SourceName = "dcbnl"     // DCB_CMD_IEEE_GET: ieee_pfc's counters, the NIC's QoS
	SourceEthtool   SourceName = "ethtool"   // the driver's statistics (ethtool -S), per-priority pauses
	SourceRDMA      SourceName = "rdma"      // the RoCE identity of the RDMA ports on the interface
	SourceRDMAStat  SourceName = "rdmastat"  // RDMA netlink's optional counters
	SourceLinkPause SourceName = "linkpause" // ethtool netlink's link-wide PAUSE
)

// SourceNames are every counter source, in the order a sample reads them
// (a source may complete what an earlier one read). capture/counters'
// registry holds exactly these, in this order (TestRegistry).
var SourceNames = []SourceName{SourceSysfs, SourceDCBNL, SourceEthtool, SourceRDMA, SourceRDMAStat, SourceLinkPause}
