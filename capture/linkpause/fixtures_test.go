// SPDX-License-Identifier: Apache-2.0

package linkpause

import "github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"

// Fixtures: requests and replies written out byte by byte to the kernel's
// layouts (net/ethtool/netlink.c ethnl_fill_reply_header, net/ethtool/pause.c
// pause_fill_reply and pause_put_stats, net/netlink/genetlink.c
// ctrl_fill_info), never produced by this package's encoder. Netlink is in
// host byte order and these are little-endian: the tests that use them skip
// on big-endian hosts (nlfixture.RequireLittleEndian).

// testFamily is the "ethtool" family ID the fake kernel hands out (IDs are
// dynamic; 0x14 is one a real kernel might give).
const testFamily = 0x14

// reqGetFamily is CTRL_CMD_GETFAMILY for "ethtool".
var reqGetFamily = []byte{
	0x03, 0x01, 0x00, 0x00, // genlmsghdr: cmd CTRL_CMD_GETFAMILY, version 1
	0x0c, 0x00, 0x02, 0x00, // len 12, CTRL_ATTR_FAMILY_NAME
	'e', 't', 'h', 't', 'o', 'o', 'l', 0x00,
}

// replyFamily is the controller's CTRL_CMD_NEWFAMILY answer, as
// ctrl_fill_info orders it (name, ID, version, hdrsize, maxattr; the ops
// and multicast group nests are left out: they are skipped anyway).
var replyFamily = []byte{
	0x01, 0x02, 0x00, 0x00, // genlmsghdr: cmd CTRL_CMD_NEWFAMILY, version 2 (the controller's)
	0x0c, 0x00, 0x02, 0x00, 'e', 't', 'h', 't', 'o', 'o', 'l', 0x00, // CTRL_ATTR_FAMILY_NAME
	0x06, 0x00, 0x01, 0x00, testFamily, 0x00, 0x00, 0x00, // CTRL_ATTR_FAMILY_ID u16 + 2 pad
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, // CTRL_ATTR_VERSION 1
	0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, // CTRL_ATTR_HDRSIZE 0
	0x08, 0x00, 0x05, 0x00, 0x06, 0x00, 0x00, 0x00, // CTRL_ATTR_MAXATTR
}

// reqPauseStats is ETHTOOL_MSG_PAUSE_GET for eth0 with ETHTOOL_FLAG_STATS.
var reqPauseStats = []byte{
	0x15, 0x01, 0x00, 0x00, // genlmsghdr: cmd 21 ETHTOOL_MSG_PAUSE_GET, version 1
	0x18, 0x00, 0x01, 0x80, // len 24, ETHTOOL_A_PAUSE_HEADER | NLA_F_NESTED
	0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00, // ETHTOOL_A_HEADER_DEV_NAME "eth0" + 3 pad
	0x08, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, // ETHTOOL_A_HEADER_FLAGS = ETHTOOL_FLAG_STATS
}

// reqPausePlain is the same request without flags (the retry for kernels
// 5.6 to 5.9).
var reqPausePlain = []byte{
	0x15, 0x01, 0x00, 0x00,
	0x10, 0x00, 0x01, 0x80, // len 16
	0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00,
}

// Pieces of replies.
var (
	genlPauseReply = []byte{0x16, 0x01, 0x00, 0x00} // cmd 22 ETHTOOL_MSG_PAUSE_GET_REPLY, version 1
	replyHeader    = []byte{
		0x18, 0x00, 0x01, 0x80, // len 24, ETHTOOL_A_PAUSE_HEADER | NLA_F_NESTED
		0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, // ETHTOOL_A_HEADER_DEV_INDEX 2
		0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00, // ETHTOOL_A_HEADER_DEV_NAME
	}
	autonegOn = []byte{0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00} // ETHTOOL_A_PAUSE_AUTONEG 1 + 3 pad
	rxOn      = []byte{0x05, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00} // ETHTOOL_A_PAUSE_RX 1
	txOff     = []byte{0x05, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00} // ETHTOOL_A_PAUSE_TX 0
	statsSrc  = []byte{0x08, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00} // ETHTOOL_A_PAUSE_STATS_SRC aggregate
	statsBoth = []byte{
		0x1c, 0x00, 0x05, 0x80, // len 28, ETHTOOL_A_PAUSE_STATS | NLA_F_NESTED
		0x0c, 0x00, 0x02, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0, // ETHTOOL_A_PAUSE_STAT_TX_FRAMES 5
		0x0c, 0x00, 0x03, 0x00, 0x02, 0, 0, 0, 0x01, 0, 0, 0, // ETHTOOL_A_PAUSE_STAT_RX_FRAMES 0x1_0000_0002
	}
	statsEmpty = []byte{0x04, 0x00, 0x05, 0x80} // ETHTOOL_A_PAUSE_STATS with nothing in it
)

// replyStats is what Linux 6.x sends for a driver with both pause ops:
// autoneg on, rx on, tx off, 5 frames sent and 2^32+2 received.
var replyStats = nlfixture.Cat(genlPauseReply, replyHeader, autonegOn, rxOn, txOff, statsSrc, statsBoth)

// replyNoStatsOp is the reply for a driver without get_pause_stats: the
// nest is there, empty.
var replyNoStatsOp = nlfixture.Cat(genlPauseReply, replyHeader, autonegOn, rxOn, txOff, statsSrc, statsEmpty)

// replyPlain is a reply to a request without ETHTOOL_FLAG_STATS (Linux 5.6
// to 5.9): settings only.
var replyPlain = nlfixture.Cat(genlPauseReply, replyHeader, autonegOn, rxOn, txOff)

// replyPadded is replyStats as an architecture without efficient
// unaligned access gets it, a PAD before each u64, and with attributes
// from the future: a top-level attribute 9 and a counter 4 (as
// ETHTOOL_A_PAUSE_STAT_TX_PAUSE_STORM_EVENTS was proposed), both skipped;
// only tx frames this time.
var replyPadded = nlfixture.Cat(genlPauseReply, replyHeader, autonegOn, rxOn, txOff, statsSrc,
	[]byte{
		0x24, 0x00, 0x05, 0x80, // len 36, ETHTOOL_A_PAUSE_STATS
		0x04, 0x00, 0x01, 0x00, // ETHTOOL_A_PAUSE_STAT_PAD
		0x0c, 0x00, 0x02, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, // TX_FRAMES 7
		0x04, 0x00, 0x01, 0x00, // PAD
		0x0c, 0x00, 0x04, 0x00, 0x63, 0, 0, 0, 0, 0, 0, 0, // counter 4: unknown, skipped
	},
	[]byte{0x08, 0x00, 0x09, 0x00, 0xde, 0xad, 0xbe, 0xef}, // attribute 9: unknown, skipped
)
