// SPDX-License-Identifier: Apache-2.0

package dcbnl

// The numbers of the DCB netlink interface, from the kernel UAPI header
// linux/dcbnl.h (include/uapi/linux/dcbnl.h), with the C names. Each one is
// defined once here; const_test.go pins every value and, where the header is
// installed, cross-checks it against the header's enums and defines.
// golang.org/x/sys/unix has RTM_GETDCB, RTM_SETDCB and RTNLGRP_DCB, but none
// of these.

// Netlink message types and the multicast group (linux/rtnetlink.h).
const (
	RTM_GETDCB  = 78 // request or reply of a GET command
	RTM_SETDCB  = 79 // request or reply of a SET command; also every notification
	RTNLGRP_DCB = 23 // multicast group of DCB notifications (dcbnl_notify)
)

// Commands (enum dcbnl_commands), carried in struct dcbmsg's cmd byte. Only
// the IEEE and DCBX commands and CEE_GET are used by this package; the rest
// are defined so that Notification.Cmd can be named.
const (
	DCB_CMD_UNDEFINED    = 0
	DCB_CMD_GSTATE       = 1
	DCB_CMD_SSTATE       = 2
	DCB_CMD_PGTX_GCFG    = 3
	DCB_CMD_PGTX_SCFG    = 4
	DCB_CMD_PGRX_GCFG    = 5
	DCB_CMD_PGRX_SCFG    = 6
	DCB_CMD_PFC_GCFG     = 7
	DCB_CMD_PFC_SCFG     = 8
	DCB_CMD_SET_ALL      = 9 // CEE: apply; followed by a CEE notification
	DCB_CMD_GPERM_HWADDR = 10
	DCB_CMD_GCAP         = 11
	DCB_CMD_GNUMTCS      = 12
	DCB_CMD_SNUMTCS      = 13
	DCB_CMD_PFC_GSTATE   = 14
	DCB_CMD_PFC_SSTATE   = 15
	DCB_CMD_BCN_GCFG     = 16
	DCB_CMD_BCN_SCFG     = 17
	DCB_CMD_GAPP         = 18
	DCB_CMD_SAPP         = 19 // CEE: set an APP entry; followed by a CEE notification
	DCB_CMD_IEEE_SET     = 20
	DCB_CMD_IEEE_GET     = 21
	DCB_CMD_GDCBX        = 22
	DCB_CMD_SDCBX        = 23
	DCB_CMD_GFEATCFG     = 24
	DCB_CMD_SFEATCFG     = 25
	DCB_CMD_CEE_GET      = 26
	DCB_CMD_IEEE_DEL     = 27
	DCB_CMD_MAX          = 27
)

// Top-level attributes (enum dcbnl_attrs).
const (
	DCB_ATTR_UNDEFINED   = 0
	DCB_ATTR_IFNAME      = 1 // NUL-terminated string, at most 15 bytes before the NUL
	DCB_ATTR_STATE       = 2
	DCB_ATTR_PFC_STATE   = 3
	DCB_ATTR_PFC_CFG     = 4
	DCB_ATTR_NUM_TC      = 5
	DCB_ATTR_PG_CFG      = 6
	DCB_ATTR_SET_ALL     = 7
	DCB_ATTR_PERM_HWADDR = 8
	DCB_ATTR_CAP         = 9
	DCB_ATTR_NUMTCS      = 10
	DCB_ATTR_BCN         = 11
	DCB_ATTR_APP         = 12 // CEE APP entry nest (enum dcbnl_app_attrs inside)
	DCB_ATTR_IEEE        = 13 // nest (enum ieee_attrs); in SET/DEL replies a u8 status
	DCB_ATTR_DCBX        = 14 // u8, DCB_CAP_DCBX_* bits
	DCB_ATTR_FEATCFG     = 15
	DCB_ATTR_CEE         = 16 // nest (enum cee_attrs)
	DCB_ATTR_MAX         = 16
)

// Attributes inside DCB_ATTR_IEEE (enum ieee_attrs).
const (
	DCB_ATTR_IEEE_UNSPEC         = 0
	DCB_ATTR_IEEE_ETS            = 1  // struct ieee_ets
	DCB_ATTR_IEEE_PFC            = 2  // struct ieee_pfc
	DCB_ATTR_IEEE_APP_TABLE      = 3  // nest of enum ieee_attrs_app
	DCB_ATTR_IEEE_PEER_ETS       = 4  // struct ieee_ets
	DCB_ATTR_IEEE_PEER_PFC       = 5  // struct ieee_pfc
	DCB_ATTR_IEEE_PEER_APP       = 6  // nest of DCB_ATTR_IEEE_APP
	DCB_ATTR_IEEE_MAXRATE        = 7  // struct ieee_maxrate
	DCB_ATTR_IEEE_QCN            = 8  // struct ieee_qcn (not decoded)
	DCB_ATTR_IEEE_QCN_STATS      = 9  // struct ieee_qcn_stats (not decoded)
	DCB_ATTR_DCB_BUFFER          = 10 // struct dcbnl_buffer
	DCB_ATTR_DCB_APP_TRUST_TABLE = 11 // nest of u8 selectors (Linux 6.2+)
	DCB_ATTR_DCB_REWR_TABLE      = 12 // nest of struct dcb_app (Linux 6.3+: net-next commit 622f1b2fae2e, January 2023)
	DCB_ATTR_IEEE_APP_UNSPEC     = 0  // enum ieee_attrs_app: what the kernel uses for selectors it does not know
	DCB_ATTR_IEEE_APP            = 1  // struct dcb_app with an IEEE selector (1-5)
	DCB_ATTR_DCB_APP             = 2  // struct dcb_app with selector DCB_APP_SEL_PCP (Linux 6.2+)
)

// Attributes inside DCB_ATTR_CEE (enum cee_attrs) and its nests.
const (
	DCB_ATTR_CEE_UNSPEC         = 0
	DCB_ATTR_CEE_PEER_PG        = 1 // struct cee_pg
	DCB_ATTR_CEE_PEER_PFC       = 2 // struct cee_pfc
	DCB_ATTR_CEE_PEER_APP_TABLE = 3 // nest of enum peer_app_attr
	DCB_ATTR_CEE_TX_PG          = 4 // nest of enum dcbnl_pg_attrs
	DCB_ATTR_CEE_RX_PG          = 5 // nest of enum dcbnl_pg_attrs
	DCB_ATTR_CEE_PFC            = 6 // nest of enum dcbnl_pfc_up_attrs
	DCB_ATTR_CEE_APP_TABLE      = 7 // nest of DCB_ATTR_APP nests
	DCB_ATTR_CEE_FEAT           = 8 // nest of enum dcbnl_featcfg_attrs

	DCB_ATTR_CEE_PEER_APP_UNSPEC = 0
	DCB_ATTR_CEE_PEER_APP_INFO   = 1 // struct dcb_peer_app_info
	DCB_ATTR_CEE_PEER_APP        = 2 // struct dcb_app

	DCB_ATTR_CEE_APP_UNSPEC = 0
	DCB_ATTR_CEE_APP        = 1 // enum cee_attrs_app; unused by dcbnl_cee_fill, which nests DCB_ATTR_APP

	DCB_APP_ATTR_UNDEFINED = 0
	DCB_APP_ATTR_IDTYPE    = 1 // u8, DCB_APP_IDTYPE_*
	DCB_APP_ATTR_ID        = 2 // u16, host byte order
	DCB_APP_ATTR_PRIORITY  = 3 // u8, a priority bitmap for CEE entries

	DCB_PFC_UP_ATTR_UNDEFINED = 0
	DCB_PFC_UP_ATTR_0         = 1 // .. DCB_PFC_UP_ATTR_7 = 8, one u8 per priority
	DCB_PFC_UP_ATTR_7         = 8
	DCB_PFC_UP_ATTR_ALL       = 9

	DCB_PG_ATTR_UNDEFINED = 0
	DCB_PG_ATTR_TC_0      = 1 // .. DCB_PG_ATTR_TC_7 = 8, one nest per traffic class
	DCB_PG_ATTR_TC_7      = 8
	DCB_PG_ATTR_TC_MAX    = 9
	DCB_PG_ATTR_TC_ALL    = 10
	DCB_PG_ATTR_BW_ID_0   = 11 // .. DCB_PG_ATTR_BW_ID_7 = 18, one u8 per priority group
	DCB_PG_ATTR_BW_ID_7   = 18
	DCB_PG_ATTR_BW_ID_MAX = 19
	DCB_PG_ATTR_BW_ID_ALL = 20

	DCB_TC_ATTR_PARAM_UNDEFINED   = 0
	DCB_TC_ATTR_PARAM_PGID        = 1
	DCB_TC_ATTR_PARAM_UP_MAPPING  = 2
	DCB_TC_ATTR_PARAM_STRICT_PRIO = 3
	DCB_TC_ATTR_PARAM_BW_PCT      = 4
	DCB_TC_ATTR_PARAM_ALL         = 5

	DCB_FEATCFG_ATTR_UNDEFINED = 0
	DCB_FEATCFG_ATTR_ALL       = 1
	DCB_FEATCFG_ATTR_PG        = 2
	DCB_FEATCFG_ATTR_PFC       = 3
	DCB_FEATCFG_ATTR_APP       = 4

	DCB_FEATCFG_ERROR     = 0x01 // error in feature resolution
	DCB_FEATCFG_ENABLE    = 0x02
	DCB_FEATCFG_WILLING   = 0x04
	DCB_FEATCFG_ADVERTISE = 0x08

	DCB_ATTR_VALUE_UNDEFINED = 0xff // what dcbnl_cee_fill reports for a value the driver left unset
)

// DCBX capability bits of DCB_ATTR_DCBX (DCB_CAP_DCBX_*); see Mode.
const (
	DCB_CAP_DCBX_HOST        = 0x01
	DCB_CAP_DCBX_LLD_MANAGED = 0x02
	DCB_CAP_DCBX_VER_CEE     = 0x04
	DCB_CAP_DCBX_VER_IEEE    = 0x08
	DCB_CAP_DCBX_STATIC      = 0x10
)

// IEEE 802.1Qaz values used in struct ieee_ets and struct dcb_app.
const (
	IEEE_8021QAZ_MAX_TCS       = 8
	IEEE_8021QAZ_TSA_STRICT    = 0
	IEEE_8021QAZ_TSA_CB_SHAPER = 1
	IEEE_8021QAZ_TSA_ETS       = 2
	IEEE_8021QAZ_TSA_VENDOR    = 255

	IEEE_8021QAZ_APP_SEL_ETHERTYPE = 1
	IEEE_8021QAZ_APP_SEL_STREAM    = 2 // TCP or SCTP port
	IEEE_8021QAZ_APP_SEL_DGRAM     = 3 // UDP or DCCP port
	IEEE_8021QAZ_APP_SEL_ANY       = 4 // TCP, SCTP, UDP or DCCP port
	IEEE_8021QAZ_APP_SEL_DSCP      = 5
	DCB_APP_SEL_PCP                = 255 // Linux 6.2+: PCP rewrite/trust entries (DCB_ATTR_DCB_APP)

	DCB_APP_IDTYPE_ETHTYPE = 0 // CEE selector: EtherType
	DCB_APP_IDTYPE_PORTNUM = 1 // CEE selector: TCP/UDP port
)

// Sizes of the C structures, in bytes. The kernel's policy treats the sizes
// of ETS, PFC and MAXRATE payloads as minimums; so does this package when
// decoding (longer payloads are accepted, shorter ones rejected).
const (
	SizeofDCBMsg      = 4   // struct dcbmsg: family, cmd, u16 pad
	SizeofIEEEETS     = 59  // struct ieee_ets: 3 + 7×8 bytes, no padding
	SizeofIEEEPFC     = 136 // struct ieee_pfc: u16 delay at 4, u64 arrays at 8 and 72
	SizeofIEEEMaxrate = 64  // struct ieee_maxrate: 8 × u64
	SizeofDCBApp      = 4   // struct dcb_app: selector, priority, u16 protocol at 2
	SizeofDCBBuffer   = 44  // struct dcbnl_buffer: prio2buffer[8], u32 buffer_size[8] at 8, u32 total_size at 40
	SizeofCEEPG       = 20  // struct cee_pg: willing, error, pg_en, tcs_supported, pg_bw[8] at 4, prio_pg[8] at 12
	SizeofCEEPFC      = 4   // struct cee_pfc: willing, error, pfc_en, tcs_supported
	SizeofPeerAppInfo = 2   // struct dcb_peer_app_info: willing, error
)
