// SPDX-License-Identifier: Apache-2.0

// Package counters samples an interface's lossless-Ethernet counters on
// Linux and returns them as the engine's event, engine.CountersSampled:
// its RDMA device ports' NDK and congestion (DCQCN) counters and RoCE
// identity, its per-priority PFC pause counters, its link-wide PAUSE,
// how its NIC classifies and buffers received traffic, and the host's
// ECN (DCQCN) settings. It only reads and maps; the engine computes
// rates, masks and diagnostics. A counter nothing provides is left
// without a Source (null in the snapshot, never 0).
//
// # Sources
//
// Every source implements Source: its name, and the sampling of an
// interface into the sample (lossless.Sample), the sources before it
// having filled theirs. A Sampler (Compose; New for a host's sources,
// Open to dial them on this host) runs every source, in order, for each
// sample, keeps the failure of each under its name (the sample's Errors:
// the counters-error diagnostic names each failing source) and how each
// fared in every interface's last sample (Status: the metrics'
// dcbtop_counter_source_success and _duration_seconds). New's sources,
// in order:
//
//	name       reads                                                  from
//	sysfs      RDMA ports' NDK and congestion counters, ECN settings  files under the sysfs root (below)
//	dcbnl      PFC frame counts (ieee_pfc), the NIC's QoS             DCB netlink IEEE_GET, once an interface a sample
//	ethtool    driver name, its pause statistics, link PAUSE frames,  ETHTOOL_GDRVINFO, ETHTOOL_GSTATS,
//	           the PFC storm prevention timeout                       ETHTOOL_GTUNABLE
//	rdma       RoCE identity of the RDMA ports (GIDs, rdma_cm)        capture/rdma
//	rdmastat   the RoCE ports' optional counters                      RDMA netlink (capture/rdmastat)
//	linkpause  link-wide PAUSE settings and statistics                ethtool netlink (capture/linkpause)
//
// The order matters where a source completes another's: ethtool ranks its
// PFC counts against dcbnl's (PFC pause counters, below), rdmastat reads
// the ports rdma found, linkpause completes its statistics with the
// driver's frame counters ethtool found. Only sysfs and rdma fail a
// sample: ethtool and dcbnl failing is the rule on most interfaces (lo,
// a veth), an interface linkpause does not find is none, and an RDMA
// port whose optional counters cannot be read says why on the port.
//
// Files are read under a sysfs root, "/sys" unless Config.SysfsRoot (the
// command takes it from DCBTOP_SYSFS_ROOT, EnvSysfsRoot) says otherwise,
// and every path in a Source or an error is relative to it. Counter files
// hold a decimal number, optionally followed by a newline; anything else
// is not a number. A file that is missing is a counter without a source;
// one that exists but cannot be read or parsed is treated as missing and
// named in the sysfs source's error, one line for the sample (at most
// eight named).
//
// # RDMA ports
//
// The RDMA device ports of interface IF (rdma.BoundPorts) are those whose
// GID table names it (class/infiniband/DEV/ports/P/gid_attrs/ndevs/N
// holding IF; soft-RoCE rxe and devices on the auxiliary bus, as mlx5_ib
// and irdma are in current kernels, have no other link), and every port
// of a device listed in class/net/IF/device/infiniband/ whose GID table
// names no netdev at all (InfiniBand, or a kernel without gid_attrs). A
// GID entry that cannot be read is an unused one: the kernel answers
// EINVAL for those.
//
// For each port, under class/infiniband/DEV/ports/P/ (Sources relative to
// class/infiniband/DEV/, "ports/1/counters/port_rcv_data x4"):
//
//	NDK counter     first of                                      driver
//	RDMAInOctets    counters/port_rcv_data x4 (4-octet units)     mlx5 and other IB verbs devices
//	                hw_counters/ip4InOctets+ip6InOctets           irdma (E810, X722)
//	RDMAOutOctets   counters/port_xmit_data x4, ip4OutOctets+ip6OutOctets
//	RDMAInFrames    counters/port_rcv_packets, ip4InPkts+ip6InPkts
//	RDMAOutFrames   counters/port_xmit_packets, ip4OutPkts+ip6OutPkts
//
// mlx5's rdma_rx_bytes, rdma_tx_bytes, rdma_rx_packets and rdma_tx_packets
// are optional counters (IB_STAT_FLAG_OPTIONAL): the kernel never lists
// them in sysfs hw_counters (drivers/infiniband/core/sysfs.c), only over
// RDMA netlink once enabled; they are not read here.
//
// A sum uses the files that exist (one alone when the other is missing);
// multiplication and sums saturate at 2^64-1 instead of wrapping. What
// each device counts as RDMA octets (with or without the Ethernet, IP and
// UDP headers, which NDK's layer-2 definition includes) is its own
// choice.
//
// The connection counters are approximated (Derived) from the
// connection-manager MAD counters, in the port's directory since Linux
// 5.14, class/infiniband/DEV/ports/P/ (Sources
// "infiniband/DEV/ports/P/..."), under class/infiniband_cm/DEV/P/ before
// (Sources "infiniband_cm/DEV/P/..."):
//
//	Connect          cm_tx_msgs/rtu                 RTUs sent: connections this host established
//	Accept           cm_rx_msgs/rtu                 RTUs received: connections this host accepted
//	ConnectFailure   cm_rx_msgs/rej+cm_tx_msgs/rej  REJs either way
//
// They count only connections set up through the InfiniBand connection
// manager (ib_cm, which rdma_cm uses); queue pairs connected out of band
// (addresses exchanged over TCP, as many MPI and collective libraries do)
// and unreliable-datagram traffic are not counted, and a REJ may answer a
// stale request rather than a failed connect. ConnectionError,
// ActiveConnection and CQError have no Linux counter and are never set.
//
// The congestion counters come from hw_counters/: mlx5's np_cnp_sent,
// rp_cnp_handled, rp_cnp_ignored, np_ecn_marked_roce_packets,
// out_of_sequence and out_of_buffer, else irdma's cnpSent, cnpHandled,
// cnpIgnored and RxECNMrkd (irdma has no equivalent of the last two),
// and Soft-RoCE's out_of_seq_request for out_of_sequence. Soft-RoCE
// (rxe) ports count packets (hw_counters rcvd_pkts and sent_pkts: the
// RDMA frames in and out) but no octets.
//
// # PFC pause counters
//
// Per-priority pause frame counts come from DCB netlink's ieee_pfc
// (Config.DCB; requests are frames sent, TxPause, and indications frames
// received, RxPause; Sources "dcbnl ieee_pfc.indications[3]") when it has
// any count that is not zero, otherwise from the driver's ethtool
// statistics (Config.Ethtool) when a table below reads them, otherwise
// from dcbnl when it answered at all (its zeros are then all there is).
// Pause durations and pause-storm counters come from ethtool whenever the
// driver has them, whichever source has the counts. The table is chosen
// by the driver's name, or, when it is unknown or cannot be read, as the
// first table whose rx statistic of some priority exists:
//
//	driver     rx (received)                    tx (sent)                        extras
//	mlx5_core  rx_prio{p}_pause                 tx_prio{p}_pause                 rx|tx_prio{p}_pause_duration (µs),
//	                                                                             tx_pause_storm_warning|error_events,
//	                                                                             rx|tx_prio{p}_bytes, rx_prio{p}_pause_transition
//	bnxt_en    rx_pfc_ena_frames_pri{p}         tx_pfc_ena_frames_pri{p}         pfc_pri{p}_rx|tx_duration_us (µs),
//	                                                                             rx|tx_bytes_pri{p}, pfc_pri{p}_rx_transitions
//	ice        rx_priority_{p}_xoff.nic         tx_priority_{p}_xoff.nic         -
//	i40e       port.rx_priority_{p}_xoff_rx     port.tx_priority_{p}_xoff_tx     -
//	           (older kernels: port.rx_priority_{p}_xoff, likewise tx)
//
// mlx5 lists per-priority pause statistics only for priorities with PFC
// enabled; the others have no source. bnxt_en lists its per-priority
// bytes only while the firmware's priority-to-queue map is valid. ice and
// i40e have no per-priority traffic or pause-time statistics; they count
// XOFF frames, which are the pauses. PFC is nil when neither source has
// anything. A failure of either source (EOPNOTSUPP on lo, no dcbnl_ops on
// a veth) is no error of the sample: most interfaces have neither. The
// dcbnl source reads first and the ethtool source ranks its own counts
// against dcbnl's in the sample; the QoS of the sample (kernel.QoSFromIEEE)
// comes from the same IEEE_GET reply as dcbnl's counts.
//
// # ECN
//
// The host's DCQCN settings come from capture/ecn: the vendor driver's
// class/net/IF/ecn/roce_np|roce_rp tree (per-priority enables, the CNP's
// DSCP and priority), else upstream mlx5's debugfs
// kernel/debug/mlx5/PCI/cc_params (the CNP's marking, no enables). The
// enables count only when all sixteen files were read. ECN is nil on an
// interface with neither source and no RDMA device; with an RDMA device it
// is a sample whose Why and Hint say why nothing is known and which
// command would tell (mlxconfig for mlx5).
package counters
