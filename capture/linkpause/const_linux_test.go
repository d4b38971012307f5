// SPDX-License-Identifier: Apache-2.0

//go:build linux

package linkpause

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestConstants pins every number to golang.org/x/sys/unix where it has
// one, and to the kernel headers' values (checked by hand against
// include/uapi/linux/ethtool_netlink_generated.h and
// linux/genetlink.h) where it has not.
func TestConstants(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"GENL_ID_CTRL", genlIDCtrl, unix.GENL_ID_CTRL},
		{"GENL_HDRLEN", genlHdrLen, unix.GENL_HDRLEN},
		{"CTRL_CMD_NEWFAMILY", ctrlCmdNewFamily, unix.CTRL_CMD_NEWFAMILY},
		{"CTRL_CMD_GETFAMILY", ctrlCmdGetFamily, unix.CTRL_CMD_GETFAMILY},
		{"CTRL_ATTR_FAMILY_ID", ctrlAttrFamilyID, unix.CTRL_ATTR_FAMILY_ID},
		{"CTRL_ATTR_FAMILY_NAME", ctrlAttrFamilyName, unix.CTRL_ATTR_FAMILY_NAME},
		{"ETHTOOL_GENL_VERSION", ethtoolGenlVersion, unix.ETHTOOL_GENL_VERSION},
		{"ETHTOOL_MSG_PAUSE_GET", ethtoolMsgPauseGet, unix.ETHTOOL_MSG_PAUSE_GET},
		{"ETHTOOL_MSG_PAUSE_GET_REPLY", ethtoolMsgPauseGetReply, unix.ETHTOOL_MSG_PAUSE_GET_REPLY},
		{"ETHTOOL_FLAG_STATS", ethtoolFlagStats, unix.ETHTOOL_FLAG_STATS},
		{"ETHTOOL_A_HEADER_DEV_INDEX", ethtoolAHeaderDevIndex, unix.ETHTOOL_A_HEADER_DEV_INDEX},
		{"ETHTOOL_A_HEADER_DEV_NAME", ethtoolAHeaderDevName, unix.ETHTOOL_A_HEADER_DEV_NAME},
		{"ETHTOOL_A_HEADER_FLAGS", ethtoolAHeaderFlags, unix.ETHTOOL_A_HEADER_FLAGS},
		{"ETHTOOL_A_PAUSE_HEADER", ethtoolAPauseHeader, unix.ETHTOOL_A_PAUSE_HEADER},
		{"ETHTOOL_A_PAUSE_AUTONEG", ethtoolAPauseAutoneg, unix.ETHTOOL_A_PAUSE_AUTONEG},
		{"ETHTOOL_A_PAUSE_RX", ethtoolAPauseRX, unix.ETHTOOL_A_PAUSE_RX},
		{"ETHTOOL_A_PAUSE_TX", ethtoolAPauseTX, unix.ETHTOOL_A_PAUSE_TX},
		{"ETHTOOL_A_PAUSE_STATS", ethtoolAPauseStats, unix.ETHTOOL_A_PAUSE_STATS},
		{"ETHTOOL_A_PAUSE_STATS_SRC", ethtoolAPauseStatsSrc, 6}, // not in x/sys/unix
		{"ETHTOOL_A_PAUSE_STAT_PAD", ethtoolAPauseStatPad, unix.ETHTOOL_A_PAUSE_STAT_PAD},
		{"ETHTOOL_A_PAUSE_STAT_TX_FRAMES", ethtoolAPauseStatTxFrames, unix.ETHTOOL_A_PAUSE_STAT_TX_FRAMES},
		{"ETHTOOL_A_PAUSE_STAT_RX_FRAMES", ethtoolAPauseStatRxFrames, unix.ETHTOOL_A_PAUSE_STAT_RX_FRAMES},
		{"NLA_HDRLEN", nlaHdrLen, unix.NLA_HDRLEN},
		{"NLA_ALIGNTO", nlaAlignTo, unix.NLA_ALIGNTO},
		{"NLA_F_NESTED", nlaFNested, unix.NLA_F_NESTED},
		{"NLA_TYPE_MASK", nlaTypeMask, 0xffff &^ (unix.NLA_F_NESTED | unix.NLA_F_NET_BYTEORDER)},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if ethtoolGenlName != unix.ETHTOOL_GENL_NAME {
		t.Errorf("ETHTOOL_GENL_NAME = %q, want %q", ethtoolGenlName, unix.ETHTOOL_GENL_NAME)
	}
}
