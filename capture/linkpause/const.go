// SPDX-License-Identifier: Apache-2.0

package linkpause

// The numbers this package sends and reads, with the kernel's names. Each is
// defined once here, by value, so that the decoder builds and can be fuzzed
// on any system; const_linux_test.go pins every one against
// golang.org/x/sys/unix where it has it. Checked against Linux's
// include/uapi/linux/ethtool_netlink_generated.h (ethtool_netlink.h in
// older trees), include/uapi/linux/genetlink.h, net/ethtool/netlink.c,
// net/ethtool/pause.c and net/netlink/genetlink.c.

// Generic netlink controller (linux/genetlink.h).
const (
	genlIDCtrl         = 0x10 // GENL_ID_CTRL: the controller's netlink message type
	genlHdrLen         = 4    // GENL_HDRLEN: struct genlmsghdr {u8 cmd, u8 version, u16 reserved}
	ctrlCmdNewFamily   = 1    // CTRL_CMD_NEWFAMILY: the reply to CTRL_CMD_GETFAMILY
	ctrlCmdGetFamily   = 3    // CTRL_CMD_GETFAMILY
	ctrlAttrFamilyID   = 1    // CTRL_ATTR_FAMILY_ID: u16
	ctrlAttrFamilyName = 2    // CTRL_ATTR_FAMILY_NAME: NUL-terminated string
	ctrlVersion        = 1    // genlmsghdr.version of controller requests (the kernel ignores it)
)

// The ethtool generic netlink family (Linux 5.6+).
const (
	ethtoolGenlName    = "ethtool" // ETHTOOL_GENL_NAME, ETHTOOL_FAMILY_NAME
	ethtoolGenlVersion = 1         // ETHTOOL_GENL_VERSION, ETHTOOL_FAMILY_VERSION

	ethtoolMsgPauseGet      = 21 // ETHTOOL_MSG_PAUSE_GET (user to kernel)
	ethtoolMsgPauseGetReply = 22 // ETHTOOL_MSG_PAUSE_GET_REPLY (kernel to user)

	// ETHTOOL_FLAG_STATS (Linux 5.10+) in ETHTOOL_A_HEADER_FLAGS asks for
	// statistics. Kernels 5.6 to 5.9 refuse it with EOPNOTSUPP
	// ("unrecognized request flags").
	ethtoolFlagStats = 1 << 2
)

// Attributes of the request and reply header (nest ETHTOOL_A_PAUSE_HEADER).
const (
	ethtoolAHeaderDevIndex = 1 // ETHTOOL_A_HEADER_DEV_INDEX: u32
	ethtoolAHeaderDevName  = 2 // ETHTOOL_A_HEADER_DEV_NAME: NUL-terminated string
	ethtoolAHeaderFlags    = 3 // ETHTOOL_A_HEADER_FLAGS: u32, ETHTOOL_FLAG_*
)

// Attributes of PAUSE_GET and its reply. pause_fill_reply puts AUTONEG, RX
// and TX as u8 0 or 1 (!! of struct ethtool_pauseparam's u32 fields); with
// ETHTOOL_FLAG_STATS it adds the STATS nest (preceded by STATS_SRC, u32, in
// kernels that know MAC merge statistics), which holds each counter the
// driver set: a counter left at ETHTOOL_STAT_NOT_SET, or every one when the
// driver has no get_pause_stats, is left out.
const (
	ethtoolAPauseHeader   = 1 // ETHTOOL_A_PAUSE_HEADER: nest of ETHTOOL_A_HEADER_*
	ethtoolAPauseAutoneg  = 2 // ETHTOOL_A_PAUSE_AUTONEG: u8
	ethtoolAPauseRX       = 3 // ETHTOOL_A_PAUSE_RX: u8
	ethtoolAPauseTX       = 4 // ETHTOOL_A_PAUSE_TX: u8
	ethtoolAPauseStats    = 5 // ETHTOOL_A_PAUSE_STATS: nest of ETHTOOL_A_PAUSE_STAT_*
	ethtoolAPauseStatsSrc = 6 // ETHTOOL_A_PAUSE_STATS_SRC: u32 (newer kernels; not in x/sys/unix); skipped
)

// Attributes inside ETHTOOL_A_PAUSE_STATS. The counters are put with
// nla_put_u64_64bit, which may precede one with a PAD attribute (no
// payload) to align it.
const (
	ethtoolAPauseStatPad      = 1 // ETHTOOL_A_PAUSE_STAT_PAD: alignment, skipped
	ethtoolAPauseStatTxFrames = 2 // ETHTOOL_A_PAUSE_STAT_TX_FRAMES: u64, PAUSE frames sent
	ethtoolAPauseStatRxFrames = 3 // ETHTOOL_A_PAUSE_STAT_RX_FRAMES: u64, PAUSE frames received
)

// Netlink attribute header (linux/netlink.h).
const (
	nlaHdrLen   = 4      // struct nlattr {u16 nla_len, u16 nla_type}
	nlaAlignTo  = 4      // NLA_ALIGNTO
	nlaFNested  = 0x8000 // NLA_F_NESTED
	nlaTypeMask = 0x3fff // NLA_TYPE_MASK: nla_type without NLA_F_NESTED and NLA_F_NET_BYTEORDER
)
