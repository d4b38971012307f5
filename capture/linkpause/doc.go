// SPDX-License-Identifier: Apache-2.0

// Package linkpause reads an interface's IEEE 802.3 Annex 31B (802.3x)
// link-wide PAUSE settings and PAUSE frame counters from Linux: what
// `ethtool -a` and `ethtool --include-statistics -a` show. Link-wide PAUSE
// left on beside PFC is a hop of "is my RoCE traffic lossless end to end?"
// that DCB netlink cannot see: the two are mutually exclusive
// (Documentation/networking/flow_control.rst, IEEE 802.1Q clause 36). The
// package only reads and reports; of the engine it knows only the sample
// it fills (lossless.LinkPauseSample, sample.go).
//
// # Messages
//
// A Client speaks generic netlink to the "ethtool" family (Linux 5.6+).
// It resolves the family's ID once with CTRL_CMD_GETFAMILY
// (net/netlink/genetlink.c; ENOENT when the kernel has no such family),
// then sends ETHTOOL_MSG_PAUSE_GET with an ETHTOOL_A_PAUSE_HEADER nest
// holding ETHTOOL_A_HEADER_DEV_NAME and ETHTOOL_A_HEADER_FLAGS =
// ETHTOOL_FLAG_STATS. The kernel (net/ethtool/netlink.c, pause.c) answers
// ETHTOOL_MSG_PAUSE_GET_REPLY with the header (DEV_INDEX, DEV_NAME),
// ETHTOOL_A_PAUSE_AUTONEG, _RX and _TX (u8 0 or 1), and, because stats were
// asked for, the ETHTOOL_A_PAUSE_STATS nest with the counters
// ETHTOOL_A_PAUSE_STAT_TX_FRAMES and _RX_FRAMES (u64) that the driver's
// get_pause_stats set, possibly preceded by ETHTOOL_A_PAUSE_STAT_PAD; newer
// kernels also send ETHTOOL_A_PAUSE_STATS_SRC. Attributes this package does
// not know are skipped. Numbers are from
// include/uapi/linux/ethtool_netlink_generated.h (ethtool_netlink.h in
// older trees) and linux/genetlink.h; see const.go.
//
// # What the kernel leaves out
//
// A driver without get_pauseparam makes the request fail with EOPNOTSUPP:
// Get then returns a Pause that is Unsupported, all settings Unknown, no
// error (veth, lo, bridges). A driver without get_pause_stats sends an
// empty statistics nest: the counters are nil, never 0. Linux 5.6 to 5.9
// refuse ETHTOOL_FLAG_STATS with EOPNOTSUPP too, so an EOPNOTSUPP is asked
// again without the flag before it is taken to mean "no pause operations".
// A kernel without the family (before 5.6, or CONFIG_ETHTOOL_NETLINK off)
// is read with the ETHTOOL_GPAUSEPARAM ioctl through
// github.com/safchain/ethtool: settings only. Pause.Reason says in one line
// why anything is missing.
//
// # Errors
//
// Failures are *Error values: use errors.Is with os.ErrNotExist (ENODEV, no
// such interface), os.ErrPermission (EPERM, EACCES) or ErrMalformed (a
// reply that cannot be decoded; none of its values is returned).
//
// # Network namespaces
//
// Dial opens its socket in the network namespace of the calling thread;
// interface names are looked up there. To read another namespace, call
// Dial on a goroutine locked to a thread that has entered it.
//
// Linux only: elsewhere every Client method returns an error.
package linkpause
