// SPDX-License-Identifier: Apache-2.0

// Package rdmastat reads the hardware counters of RDMA device ports (the
// RoCE congestion counters among them: np_cnp_sent, rp_cnp_handled,
// np_ecn_marked_roce_packets, out_of_buffer, and mlx5's optional
// cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts) over RDMA netlink, as
// iproute2's `rdma statistic show link DEV/PORT` and `rdma statistic mode
// supported link DEV/PORT` do. Port.Sample maps what it read onto the
// engine's facts (lossless.OptionalCounters).
//
// # Messages
//
// Everything travels on a NETLINK_RDMA (20) socket, to the device
// interface client RDMA_NL_NLDEV (5) of ib_core; a message type is
// RDMA_NL_GET_TYPE(client, op) = client<<10 + op, and the attributes
// follow the netlink header directly (no family header). Sources:
// include/uapi/rdma/rdma_netlink.h for the numbers,
// drivers/infiniband/core/nldev.c for the replies,
// drivers/infiniband/core/netlink.c for the dispatch, and iproute2
// rdma/stat.c and rdma/utils.c for how the rdma tool asks. Three requests
// are used, all read-only:
//
//	request                          flags            attributes             reply
//	RDMA_NLDEV_CMD_GET (0x1401)      REQUEST|DUMP     none                   per device: DEV_INDEX, DEV_NAME, PORT_INDEX (= number of ports), ...
//	RDMA_NLDEV_CMD_STAT_GET (0x1411) REQUEST          DEV_INDEX, PORT_INDEX  HWCOUNTERS { HWCOUNTER_ENTRY { ENTRY_NAME, ENTRY_VALUE u64 } ... }
//	..._STAT_GET_STATUS (0x1418)     REQUEST          DEV_INDEX, PORT_INDEX  HWCOUNTERS { HWCOUNTER_ENTRY { ENTRY_NAME, HWCOUNTER_INDEX u32 [, HWCOUNTER_DYNAMIC u8] } ... }
//
// NLM_F_ACK is not set: the kernel would acknowledge a successful request
// with a second message after the reply (rdma_nl_rcv_skb).
//
// # Optional counters
//
// A driver may mark counters optional (IB_STAT_FLAG_OPTIONAL,
// include/rdma/ib_verbs.h); mlx5 does so for its flow-counter ("op")
// counters, cc_rx_ce_pkts, cc_rx_cnp_pkts and cc_tx_cnp_pkts (the CNP
// ones only where the NIC's flow tables can match the BTH opcode) and, in
// recent kernels, rdma_{tx,rx}_{packets,bytes}
// (drivers/infiniband/hw/mlx5/counters.c mlx5_ib_fill_counters), and
// starts them disabled (do_alloc_stats). STAT_GET leaves a disabled counter out
// altogether (stat_get_doit_default_counter skips is_disabled bits), so
// from STAT_GET alone a disabled counter and a counter the hardware lacks
// look the same. STAT_GET_STATUS lists every counter of the port and adds
// HWCOUNTER_DYNAMIC to the optional ones only, holding
// !test_bit(i, is_disabled): 1 enabled, 0 disabled
// (nldev_stat_get_counter_status_doit). A Port merges both: a disabled
// optional counter has a nil Value, and Port.EnableCommand gives the rdma
// command that would enable it. That command lists the enabled optional
// counters too, because `rdma statistic set link DEV/PORT
// optional-counters LIST` replaces the enabled set (iproute2 sends the
// listed indexes; nldev_stat_set_counter_dynamic_doit disables every
// optional counter not listed). dcbtop never enables counters: this
// package has no request that changes anything.
//
// STAT_GET_STATUS came with optional counters in Linux 5.16; older kernels
// answer EINVAL (rdma_nl_rcv_msg refuses an op at or beyond their
// RDMA_NLDEV_NUM_OPS). Port then has StatusKnown false and a reason in
// StatusWhy, and its Counters are STAT_GET's alone.
//
// # Malformed replies
//
// No input panics, and nothing missing turns into a zero. Unknown
// attributes (RDMA_NLDEV_ATTR_PAD, added before a u64 on architectures
// without efficient unaligned access, included) are ignored, and nests are
// read with or without NLA_F_NESTED. Within the table of counters, an
// entry without a name, or whose name is longer than 64 bytes or holds a
// byte that is not printable ASCII (or is a space or comma), is left out;
// a value that is not 8 bytes leaves that counter's Value nil; each such
// entry gets a line in Port.Skipped. Broken attribute framing, a device or
// port index that is not a u32, or a reply for another device or port
// fails the request with an error matching ErrMalformed.
//
// # Errors
//
// Failures are *Error values with one-line messages that fit after
// "dcbtop: ". Dial on a kernel without ib_core fails with EPROTONOSUPPORT,
// matched by ErrNoRDMA. The kernel answers EINVAL (not ENODEV) for a
// device index or port it does not know; the Client looks names up in a
// RDMA_NLDEV_CMD_GET dump it keeps, dumps again on a miss or an EINVAL,
// and then reports an unknown device or port (matching os.ErrNotExist)
// by name and number.
//
// # Privileges and namespaces
//
// The three requests need no privilege (their nldev_cb_table entries lack
// RDMA_NL_ADMIN_PERM). Dial opens its socket in the network namespace of
// the calling thread; which devices it sees there depends on the RDMA
// subsystem's netns mode (`rdma system set netns shared|exclusive`).
//
// # Why not vishvananda/netlink
//
// github.com/vishvananda/netlink (v1.3.1), used elsewhere in dcbtop, has
// RdmaPortStatisticList for STAT_GET, but it opens its own sockets, so it
// cannot be driven by an nltest fake and its requests cannot be checked
// byte for byte, and it has no RDMA_NLDEV_CMD_STAT_GET_STATUS, without
// which a disabled optional counter cannot be told from a missing one. This package uses
// github.com/mdlayher/netlink, as capture/dcbnl does.
//
// Linux only: on other systems Dial and every Client method return an
// error.
package rdmastat
