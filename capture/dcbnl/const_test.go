// SPDX-License-Identifier: Apache-2.0

package dcbnl

import (
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// constants lists every constant of const.go by its C name, with the value
// linux/dcbnl.h (or linux/rtnetlink.h) gives it.
var constants = []struct {
	name       string
	got, want  int
	recentOnly bool // absent from headers before Linux 6.3/6.4
}{
	{"RTM_GETDCB", RTM_GETDCB, 78, false},
	{"RTM_SETDCB", RTM_SETDCB, 79, false},
	{"RTNLGRP_DCB", RTNLGRP_DCB, 23, false},

	{"DCB_CMD_UNDEFINED", DCB_CMD_UNDEFINED, 0, false},
	{"DCB_CMD_GSTATE", DCB_CMD_GSTATE, 1, false},
	{"DCB_CMD_SSTATE", DCB_CMD_SSTATE, 2, false},
	{"DCB_CMD_PGTX_GCFG", DCB_CMD_PGTX_GCFG, 3, false},
	{"DCB_CMD_PGTX_SCFG", DCB_CMD_PGTX_SCFG, 4, false},
	{"DCB_CMD_PGRX_GCFG", DCB_CMD_PGRX_GCFG, 5, false},
	{"DCB_CMD_PGRX_SCFG", DCB_CMD_PGRX_SCFG, 6, false},
	{"DCB_CMD_PFC_GCFG", DCB_CMD_PFC_GCFG, 7, false},
	{"DCB_CMD_PFC_SCFG", DCB_CMD_PFC_SCFG, 8, false},
	{"DCB_CMD_SET_ALL", DCB_CMD_SET_ALL, 9, false},
	{"DCB_CMD_GPERM_HWADDR", DCB_CMD_GPERM_HWADDR, 10, false},
	{"DCB_CMD_GCAP", DCB_CMD_GCAP, 11, false},
	{"DCB_CMD_GNUMTCS", DCB_CMD_GNUMTCS, 12, false},
	{"DCB_CMD_SNUMTCS", DCB_CMD_SNUMTCS, 13, false},
	{"DCB_CMD_PFC_GSTATE", DCB_CMD_PFC_GSTATE, 14, false},
	{"DCB_CMD_PFC_SSTATE", DCB_CMD_PFC_SSTATE, 15, false},
	{"DCB_CMD_BCN_GCFG", DCB_CMD_BCN_GCFG, 16, false},
	{"DCB_CMD_BCN_SCFG", DCB_CMD_BCN_SCFG, 17, false},
	{"DCB_CMD_GAPP", DCB_CMD_GAPP, 18, false},
	{"DCB_CMD_SAPP", DCB_CMD_SAPP, 19, false},
	{"DCB_CMD_IEEE_SET", DCB_CMD_IEEE_SET, 20, false},
	{"DCB_CMD_IEEE_GET", DCB_CMD_IEEE_GET, 21, false},
	{"DCB_CMD_GDCBX", DCB_CMD_GDCBX, 22, false},
	{"DCB_CMD_SDCBX", DCB_CMD_SDCBX, 23, false},
	{"DCB_CMD_GFEATCFG", DCB_CMD_GFEATCFG, 24, false},
	{"DCB_CMD_SFEATCFG", DCB_CMD_SFEATCFG, 25, false},
	{"DCB_CMD_CEE_GET", DCB_CMD_CEE_GET, 26, false},
	{"DCB_CMD_IEEE_DEL", DCB_CMD_IEEE_DEL, 27, false},
	{"DCB_CMD_MAX", DCB_CMD_MAX, 27, false},

	{"DCB_ATTR_UNDEFINED", DCB_ATTR_UNDEFINED, 0, false},
	{"DCB_ATTR_IFNAME", DCB_ATTR_IFNAME, 1, false},
	{"DCB_ATTR_STATE", DCB_ATTR_STATE, 2, false},
	{"DCB_ATTR_PFC_STATE", DCB_ATTR_PFC_STATE, 3, false},
	{"DCB_ATTR_PFC_CFG", DCB_ATTR_PFC_CFG, 4, false},
	{"DCB_ATTR_NUM_TC", DCB_ATTR_NUM_TC, 5, false},
	{"DCB_ATTR_PG_CFG", DCB_ATTR_PG_CFG, 6, false},
	{"DCB_ATTR_SET_ALL", DCB_ATTR_SET_ALL, 7, false},
	{"DCB_ATTR_PERM_HWADDR", DCB_ATTR_PERM_HWADDR, 8, false},
	{"DCB_ATTR_CAP", DCB_ATTR_CAP, 9, false},
	{"DCB_ATTR_NUMTCS", DCB_ATTR_NUMTCS, 10, false},
	{"DCB_ATTR_BCN", DCB_ATTR_BCN, 11, false},
	{"DCB_ATTR_APP", DCB_ATTR_APP, 12, false},
	{"DCB_ATTR_IEEE", DCB_ATTR_IEEE, 13, false},
	{"DCB_ATTR_DCBX", DCB_ATTR_DCBX, 14, false},
	{"DCB_ATTR_FEATCFG", DCB_ATTR_FEATCFG, 15, false},
	{"DCB_ATTR_CEE", DCB_ATTR_CEE, 16, false},
	{"DCB_ATTR_MAX", DCB_ATTR_MAX, 16, false},

	{"DCB_ATTR_IEEE_UNSPEC", DCB_ATTR_IEEE_UNSPEC, 0, false},
	{"DCB_ATTR_IEEE_ETS", DCB_ATTR_IEEE_ETS, 1, false},
	{"DCB_ATTR_IEEE_PFC", DCB_ATTR_IEEE_PFC, 2, false},
	{"DCB_ATTR_IEEE_APP_TABLE", DCB_ATTR_IEEE_APP_TABLE, 3, false},
	{"DCB_ATTR_IEEE_PEER_ETS", DCB_ATTR_IEEE_PEER_ETS, 4, false},
	{"DCB_ATTR_IEEE_PEER_PFC", DCB_ATTR_IEEE_PEER_PFC, 5, false},
	{"DCB_ATTR_IEEE_PEER_APP", DCB_ATTR_IEEE_PEER_APP, 6, false},
	{"DCB_ATTR_IEEE_MAXRATE", DCB_ATTR_IEEE_MAXRATE, 7, false},
	{"DCB_ATTR_IEEE_QCN", DCB_ATTR_IEEE_QCN, 8, false},
	{"DCB_ATTR_IEEE_QCN_STATS", DCB_ATTR_IEEE_QCN_STATS, 9, false},
	{"DCB_ATTR_DCB_BUFFER", DCB_ATTR_DCB_BUFFER, 10, false},
	{"DCB_ATTR_DCB_APP_TRUST_TABLE", DCB_ATTR_DCB_APP_TRUST_TABLE, 11, true},
	{"DCB_ATTR_DCB_REWR_TABLE", DCB_ATTR_DCB_REWR_TABLE, 12, true},
	{"DCB_ATTR_IEEE_APP_UNSPEC", DCB_ATTR_IEEE_APP_UNSPEC, 0, false},
	{"DCB_ATTR_IEEE_APP", DCB_ATTR_IEEE_APP, 1, false},
	{"DCB_ATTR_DCB_APP", DCB_ATTR_DCB_APP, 2, true},

	{"DCB_ATTR_CEE_UNSPEC", DCB_ATTR_CEE_UNSPEC, 0, false},
	{"DCB_ATTR_CEE_PEER_PG", DCB_ATTR_CEE_PEER_PG, 1, false},
	{"DCB_ATTR_CEE_PEER_PFC", DCB_ATTR_CEE_PEER_PFC, 2, false},
	{"DCB_ATTR_CEE_PEER_APP_TABLE", DCB_ATTR_CEE_PEER_APP_TABLE, 3, false},
	{"DCB_ATTR_CEE_TX_PG", DCB_ATTR_CEE_TX_PG, 4, false},
	{"DCB_ATTR_CEE_RX_PG", DCB_ATTR_CEE_RX_PG, 5, false},
	{"DCB_ATTR_CEE_PFC", DCB_ATTR_CEE_PFC, 6, false},
	{"DCB_ATTR_CEE_APP_TABLE", DCB_ATTR_CEE_APP_TABLE, 7, false},
	{"DCB_ATTR_CEE_FEAT", DCB_ATTR_CEE_FEAT, 8, false},
	{"DCB_ATTR_CEE_PEER_APP_UNSPEC", DCB_ATTR_CEE_PEER_APP_UNSPEC, 0, false},
	{"DCB_ATTR_CEE_PEER_APP_INFO", DCB_ATTR_CEE_PEER_APP_INFO, 1, false},
	{"DCB_ATTR_CEE_PEER_APP", DCB_ATTR_CEE_PEER_APP, 2, false},
	{"DCB_ATTR_CEE_APP_UNSPEC", DCB_ATTR_CEE_APP_UNSPEC, 0, false},
	{"DCB_ATTR_CEE_APP", DCB_ATTR_CEE_APP, 1, false},
	{"DCB_APP_ATTR_UNDEFINED", DCB_APP_ATTR_UNDEFINED, 0, false},
	{"DCB_APP_ATTR_IDTYPE", DCB_APP_ATTR_IDTYPE, 1, false},
	{"DCB_APP_ATTR_ID", DCB_APP_ATTR_ID, 2, false},
	{"DCB_APP_ATTR_PRIORITY", DCB_APP_ATTR_PRIORITY, 3, false},
	{"DCB_PFC_UP_ATTR_UNDEFINED", DCB_PFC_UP_ATTR_UNDEFINED, 0, false},
	{"DCB_PFC_UP_ATTR_0", DCB_PFC_UP_ATTR_0, 1, false},
	{"DCB_PFC_UP_ATTR_7", DCB_PFC_UP_ATTR_7, 8, false},
	{"DCB_PFC_UP_ATTR_ALL", DCB_PFC_UP_ATTR_ALL, 9, false},
	{"DCB_PG_ATTR_UNDEFINED", DCB_PG_ATTR_UNDEFINED, 0, false},
	{"DCB_PG_ATTR_TC_0", DCB_PG_ATTR_TC_0, 1, false},
	{"DCB_PG_ATTR_TC_7", DCB_PG_ATTR_TC_7, 8, false},
	{"DCB_PG_ATTR_TC_MAX", DCB_PG_ATTR_TC_MAX, 9, false},
	{"DCB_PG_ATTR_TC_ALL", DCB_PG_ATTR_TC_ALL, 10, false},
	{"DCB_PG_ATTR_BW_ID_0", DCB_PG_ATTR_BW_ID_0, 11, false},
	{"DCB_PG_ATTR_BW_ID_7", DCB_PG_ATTR_BW_ID_7, 18, false},
	{"DCB_PG_ATTR_BW_ID_MAX", DCB_PG_ATTR_BW_ID_MAX, 19, false},
	{"DCB_PG_ATTR_BW_ID_ALL", DCB_PG_ATTR_BW_ID_ALL, 20, false},
	{"DCB_TC_ATTR_PARAM_UNDEFINED", DCB_TC_ATTR_PARAM_UNDEFINED, 0, false},
	{"DCB_TC_ATTR_PARAM_PGID", DCB_TC_ATTR_PARAM_PGID, 1, false},
	{"DCB_TC_ATTR_PARAM_UP_MAPPING", DCB_TC_ATTR_PARAM_UP_MAPPING, 2, false},
	{"DCB_TC_ATTR_PARAM_STRICT_PRIO", DCB_TC_ATTR_PARAM_STRICT_PRIO, 3, false},
	{"DCB_TC_ATTR_PARAM_BW_PCT", DCB_TC_ATTR_PARAM_BW_PCT, 4, false},
	{"DCB_TC_ATTR_PARAM_ALL", DCB_TC_ATTR_PARAM_ALL, 5, false},
	{"DCB_FEATCFG_ATTR_UNDEFINED", DCB_FEATCFG_ATTR_UNDEFINED, 0, false},
	{"DCB_FEATCFG_ATTR_ALL", DCB_FEATCFG_ATTR_ALL, 1, false},
	{"DCB_FEATCFG_ATTR_PG", DCB_FEATCFG_ATTR_PG, 2, false},
	{"DCB_FEATCFG_ATTR_PFC", DCB_FEATCFG_ATTR_PFC, 3, false},
	{"DCB_FEATCFG_ATTR_APP", DCB_FEATCFG_ATTR_APP, 4, false},
	{"DCB_FEATCFG_ERROR", DCB_FEATCFG_ERROR, 0x01, false},
	{"DCB_FEATCFG_ENABLE", DCB_FEATCFG_ENABLE, 0x02, false},
	{"DCB_FEATCFG_WILLING", DCB_FEATCFG_WILLING, 0x04, false},
	{"DCB_FEATCFG_ADVERTISE", DCB_FEATCFG_ADVERTISE, 0x08, false},
	{"DCB_ATTR_VALUE_UNDEFINED", DCB_ATTR_VALUE_UNDEFINED, 0xff, false},

	{"DCB_CAP_DCBX_HOST", DCB_CAP_DCBX_HOST, 0x01, false},
	{"DCB_CAP_DCBX_LLD_MANAGED", DCB_CAP_DCBX_LLD_MANAGED, 0x02, false},
	{"DCB_CAP_DCBX_VER_CEE", DCB_CAP_DCBX_VER_CEE, 0x04, false},
	{"DCB_CAP_DCBX_VER_IEEE", DCB_CAP_DCBX_VER_IEEE, 0x08, false},
	{"DCB_CAP_DCBX_STATIC", DCB_CAP_DCBX_STATIC, 0x10, false},

	{"IEEE_8021QAZ_MAX_TCS", IEEE_8021QAZ_MAX_TCS, 8, false},
	{"IEEE_8021QAZ_TSA_STRICT", IEEE_8021QAZ_TSA_STRICT, 0, false},
	{"IEEE_8021QAZ_TSA_CB_SHAPER", IEEE_8021QAZ_TSA_CB_SHAPER, 1, false},
	{"IEEE_8021QAZ_TSA_ETS", IEEE_8021QAZ_TSA_ETS, 2, false},
	{"IEEE_8021QAZ_TSA_VENDOR", IEEE_8021QAZ_TSA_VENDOR, 255, false},
	{"IEEE_8021QAZ_APP_SEL_ETHERTYPE", IEEE_8021QAZ_APP_SEL_ETHERTYPE, 1, false},
	{"IEEE_8021QAZ_APP_SEL_STREAM", IEEE_8021QAZ_APP_SEL_STREAM, 2, false},
	{"IEEE_8021QAZ_APP_SEL_DGRAM", IEEE_8021QAZ_APP_SEL_DGRAM, 3, false},
	{"IEEE_8021QAZ_APP_SEL_ANY", IEEE_8021QAZ_APP_SEL_ANY, 4, false},
	{"IEEE_8021QAZ_APP_SEL_DSCP", IEEE_8021QAZ_APP_SEL_DSCP, 5, false},
	{"DCB_APP_SEL_PCP", DCB_APP_SEL_PCP, 255, true},
	{"DCB_APP_IDTYPE_ETHTYPE", DCB_APP_IDTYPE_ETHTYPE, 0, false},
	{"DCB_APP_IDTYPE_PORTNUM", DCB_APP_IDTYPE_PORTNUM, 1, false},
}

// headerConstants returns constants for nlfixture, each with the header
// that defines it: linux/rtnetlink.h for the message types and the
// multicast group, linux/dcbnl.h for the rest.
func headerConstants() []nlfixture.Constant {
	var out []nlfixture.Constant
	for _, c := range constants {
		header := "linux/dcbnl.h"
		if strings.HasPrefix(c.name, "RTM_") || strings.HasPrefix(c.name, "RTNLGRP_") {
			header = "linux/rtnetlink.h"
		}
		out = append(out, nlfixture.Constant{Name: c.name, Got: c.got, Want: c.want, Header: header, Recent: c.recentOnly})
	}
	return out
}

// TestConstants pins every constant of const.go.
func TestConstants(t *testing.T) {
	nlfixture.CheckConstants(t, headerConstants())
	modes := map[Mode]int{ModeHost: 0x01, ModeLLDManaged: 0x02, ModeCEE: 0x04, ModeIEEE: 0x08, ModeStatic: 0x10}
	for m, want := range modes {
		if int(m) != want {
			t.Errorf("Mode %s = %#x, want %#x", m, uint8(m), want)
		}
	}
}

// TestHeaderConstants cross-checks the constants against the installed
// linux/dcbnl.h and linux/rtnetlink.h (package linux-libc-dev). Constants
// added after the installed header (recentOnly) may be missing from it;
// any other missing name fails.
func TestHeaderConstants(t *testing.T) {
	nlfixture.CheckHeaders(t, headerConstants())
}
