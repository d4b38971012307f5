// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import "github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"

// Fixtures: replies and requests written out byte by byte to the kernel's
// layouts (linux/dcbnl.h, net/dcb/dcbnl.c), never produced by this
// package's encoder. Multi-byte values are little-endian: the tests that use
// them skip on big-endian hosts (nlfixture.RequireLittleEndian).

// etsBytes is struct ieee_ets (59 bytes): a willing host with an ETS
// configuration and a different recommendation.
var etsBytes = []byte{
	0x01,                      // willing
	0x08,                      // ets_cap
	0x00,                      // cbs
	10, 40, 0, 50, 0, 0, 0, 0, // tc_tx_bw   @3
	10, 40, 0, 50, 0, 0, 0, 0, // tc_rx_bw   @11
	2, 2, 0, 2, 2, 2, 2, 2, // tc_tsa     @19: ETS, ETS, strict, ETS...
	0, 1, 2, 3, 0, 0, 0, 0, // prio_tc    @27
	20, 30, 0, 50, 0, 0, 0, 0, // tc_reco_bw @35
	2, 2, 0, 2, 2, 2, 2, 2, // tc_reco_tsa @43
	0, 1, 2, 3, 1, 1, 1, 1, // reco_prio_tc @51
}

// etsWant is etsBytes decoded.
var etsWant = ETS{
	Willing: true, ETSCap: 8,
	TCTxBW:     [8]uint8{10, 40, 0, 50},
	TCRxBW:     [8]uint8{10, 40, 0, 50},
	TCTSA:      [8]uint8{2, 2, 0, 2, 2, 2, 2, 2},
	PrioTC:     [8]uint8{0, 1, 2, 3},
	TCRecoBW:   [8]uint8{20, 30, 0, 50},
	TCRecoTSA:  [8]uint8{2, 2, 0, 2, 2, 2, 2, 2},
	RecoPrioTC: [8]uint8{0, 1, 2, 3, 1, 1, 1, 1},
}

// peerETSBytes is struct ieee_ets of a peer that is not willing, with CBS.
var peerETSBytes = []byte{
	0x00, 0x08, 0x01, // willing 0, ets_cap 8, cbs 1
	25, 75, 0, 0, 0, 0, 0, 0, // tc_tx_bw
	0, 0, 0, 0, 0, 0, 0, 0, // tc_rx_bw
	2, 2, 2, 2, 2, 2, 2, 2, // tc_tsa
	0, 0, 0, 1, 0, 0, 0, 0, // prio_tc
	0, 0, 0, 0, 0, 0, 0, 0, // tc_reco_bw
	0, 0, 0, 0, 0, 0, 0, 0, // tc_reco_tsa
	0, 0, 0, 0, 0, 0, 0, 0, // reco_prio_tc
}

var peerETSWant = ETS{
	ETSCap: 8, CBS: true,
	TCTxBW: [8]uint8{25, 75},
	TCTSA:  [8]uint8{2, 2, 2, 2, 2, 2, 2, 2},
	PrioTC: [8]uint8{0, 0, 0, 1},
}

// pfcBytes is struct ieee_pfc (136 bytes) with padding, a delay, and PFC
// frame counters on priority 3.
var pfcBytes = []byte{
	0x08,       // pfc_cap      @0
	0x08,       // pfc_en       @1: priority 3
	0x00,       // mbc          @2
	0x00,       // padding      @3
	0x64, 0x00, // delay = 100  @4 (u16 host order)
	0x00, 0x00, // padding      @6
	// requests[8] @8, u64 host order
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0xe8, 0x03, 0, 0, 0, 0, 0, 0, // requests[3] = 1000
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	// indications[8] @72
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0x02, 0, 0, 0, 0x01, 0, 0, 0, // indications[3] = 0x1_0000_0002
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // indications[7] = max u64
}

var pfcWant = PFC{
	Cap: 8, Enabled: 0x08, Delay: 100,
	Requests:    [8]uint64{3: 1000},
	Indications: [8]uint64{3: 0x1_0000_0002, 7: ^uint64(0)},
}

// peerPFCBytes is struct ieee_pfc of a peer with PFC on priorities 3 and 4.
var peerPFCBytes = nlfixture.Cat([]byte{
	0x08, 0x18, 0x00, 0x00, // pfc_cap 8, pfc_en 0x18, mbc 0, pad
	0x00, 0x00, 0x00, 0x00, // delay 0, pad
}, make([]byte, 128)) // requests and indications: zero

var peerPFCWant = PFC{Cap: 8, Enabled: 0x18}

// App entries (struct dcb_app: selector, priority, u16 protocol host order).
var (
	appFCoE = []byte{0x01, 0x03, 0x06, 0x89} // EtherType 0x8906 → priority 3
	appRoCE = []byte{0x03, 0x03, 0xb7, 0x12} // UDP port 4791 → priority 3
	appDSCP = []byte{0x05, 0x03, 0x1a, 0x00} // DSCP 26 → priority 3
)

var (
	appFCoEWant = App{Selector: IEEE_8021QAZ_APP_SEL_ETHERTYPE, Priority: 3, Protocol: 0x8906}
	appRoCEWant = App{Selector: IEEE_8021QAZ_APP_SEL_DGRAM, Priority: 3, Protocol: 4791}
	appDSCPWant = App{Selector: IEEE_8021QAZ_APP_SEL_DSCP, Priority: 3, Protocol: 26}
)

// maxrateBytes is struct ieee_maxrate: 8 × u64 kbit/s.
var maxrateBytes = nlfixture.Cat(
	[]byte{0x40, 0x42, 0x0f, 0, 0, 0, 0, 0}, // TC0: 1000000 kbit/s
	make([]byte, 6*8),                       // TC1-TC6: unlimited
	[]byte{0x10, 0x27, 0, 0, 0, 0, 0, 0},    // TC7: 10000 kbit/s
)

// ifnameEth0 is DCB_ATTR_IFNAME "eth0": length 9 (4 + "eth0\0"), padded to 12.
var ifnameEth0 = []byte{0x09, 0x00, 0x01, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00}

// replyIEEEFull is an IEEE_GET reply (after the netlink header) from a
// driver with every op: the order is dcbnl_ieee_fill's.
var replyIEEEFull = nlfixture.Cat(
	[]byte{0x00, 21, 0x00, 0x00}, // struct dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET
	ifnameEth0,
	[]byte{0x08, 0x02, 0x0d, 0x00}, // DCB_ATTR_IEEE, len 520, no NLA_F_NESTED
	[]byte{0x3f, 0x00, 0x01, 0x00}, // DCB_ATTR_IEEE_ETS, len 63
	etsBytes, []byte{0x00},         // padding to 64
	[]byte{0x44, 0x00, 0x07, 0x00}, // DCB_ATTR_IEEE_MAXRATE, len 68
	maxrateBytes,
	[]byte{0x8c, 0x00, 0x02, 0x00}, // DCB_ATTR_IEEE_PFC, len 140
	pfcBytes,
	[]byte{0x1c, 0x00, 0x03, 0x00},          // DCB_ATTR_IEEE_APP_TABLE, len 28
	[]byte{0x08, 0x00, 0x01, 0x00}, appFCoE, // DCB_ATTR_IEEE_APP
	[]byte{0x08, 0x00, 0x01, 0x00}, appRoCE,
	[]byte{0x08, 0x00, 0x01, 0x00}, appDSCP,
	[]byte{0x3f, 0x00, 0x04, 0x00}, // DCB_ATTR_IEEE_PEER_ETS, len 63
	peerETSBytes, []byte{0x00},
	[]byte{0x8c, 0x00, 0x05, 0x00}, // DCB_ATTR_IEEE_PEER_PFC, len 140
	peerPFCBytes,
	[]byte{0x0c, 0x00, 0x06, 0x00}, // DCB_ATTR_IEEE_PEER_APP, len 12
	[]byte{0x08, 0x00, 0x01, 0x00}, appFCoE,
	[]byte{0x05, 0x00, 0x0e, 0x00, 0x0a, 0x00, 0x00, 0x00}, // DCB_ATTR_DCBX = LLD_MANAGED|VER_IEEE
)

var replyIEEEFullWant = IEEE{
	ETS: &etsWant, PFC: &pfcWant,
	App:     []App{appFCoEWant, appRoCEWant, appDSCPWant},
	PeerETS: &peerETSWant, PeerPFC: &peerPFCWant,
	PeerApp: []App{appFCoEWant},
	MaxRate: &[8]uint64{0: 1000000, 7: 10000},
	DCBX:    new(ModeLLDManaged | ModeIEEE),
}

// replyIEEEMinimal is an IEEE_GET reply from a driver with only
// ieee_getets and ieee_getpfc and without getdcbx: ETS, PFC, APP_TABLE.
var replyIEEEMinimal = nlfixture.Cat(
	[]byte{0x00, 21, 0x00, 0x00}, // struct dcbmsg
	ifnameEth0,
	[]byte{0xe4, 0x00, 0x0d, 0x00},                         // DCB_ATTR_IEEE, len 228
	[]byte{0x3f, 0x00, 0x01, 0x00}, etsBytes, []byte{0x00}, // ETS
	[]byte{0x8c, 0x00, 0x02, 0x00}, pfcBytes, // PFC
	[]byte{0x14, 0x00, 0x03, 0x00}, // APP_TABLE, len 20
	[]byte{0x08, 0x00, 0x01, 0x00}, appDSCP,
	[]byte{0x08, 0x00, 0x01, 0x00}, appRoCE,
)

var replyIEEEMinimalWant = IEEE{
	ETS: &etsWant, PFC: &pfcWant,
	App: []App{appDSCPWant, appRoCEWant},
}

// replyIEEEFlagged is replyIEEEMinimal's content with NLA_F_NESTED set on
// the nests, an empty APP table, an APP trust table (nla_nest_start, so
// flagged, in dcbnl_getapptrust), an ETS one byte longer than struct
// ieee_ets (a newer kernel), and an unknown attribute to skip.
var replyIEEEFlagged = nlfixture.Cat(
	[]byte{0x00, 21, 0x00, 0x00},
	ifnameEth0,
	[]byte{0xe8, 0x00, 0x0d, 0x80},                         // DCB_ATTR_IEEE|NLA_F_NESTED, len 232
	[]byte{0x40, 0x00, 0x01, 0x00}, etsBytes, []byte{0x77}, // ETS, len 64: one extra byte
	[]byte{0x8c, 0x00, 0x02, 0x00}, pfcBytes,
	[]byte{0x04, 0x00, 0x03, 0x80},                         // APP_TABLE|NLA_F_NESTED, empty
	[]byte{0x0c, 0x00, 0x0b, 0x80},                         // DCB_ATTR_DCB_APP_TRUST_TABLE|NLA_F_NESTED, len 12
	[]byte{0x05, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00}, // IEEE_APP: selector 5 (DSCP)
	[]byte{0x08, 0x00, 0x3f, 0x00, 0xde, 0xad, 0xbe, 0xef}, // unknown attribute 63
	[]byte{0x05, 0x00, 0x0e, 0x00, 0x09, 0x00, 0x00, 0x00}, // DCBX = HOST|VER_IEEE
)

// replyIEEERewr is an IEEE_GET reply of a Linux 6.3+ kernel (its
// dcbnl_ieee_fill sends DCB_ATTR_DCB_REWR_TABLE, nla_nest_start so
// flagged, after the APP table): priority 3 rewritten to DSCP 26, priority
// 5 to PCP 5 (a DCB_ATTR_DCB_APP entry, dcbnl_app_attr_type_get).
var replyIEEERewr = nlfixture.Cat(
	[]byte{0x00, 21, 0x00, 0x00},
	ifnameEth0,
	[]byte{0xe8, 0x00, 0x0d, 0x00}, // DCB_ATTR_IEEE, len 232
	[]byte{0x3f, 0x00, 0x01, 0x00}, etsBytes, []byte{0x00},
	[]byte{0x8c, 0x00, 0x02, 0x00}, pfcBytes,
	[]byte{0x04, 0x00, 0x03, 0x00},                         // APP_TABLE, empty
	[]byte{0x14, 0x00, 0x0c, 0x80},                         // DCB_ATTR_DCB_REWR_TABLE|NLA_F_NESTED, len 20
	[]byte{0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00}, // IEEE_APP: DSCP 26 for priority 3
	[]byte{0x08, 0x00, 0x02, 0x00, 0xff, 0x05, 0x05, 0x00}, // DCB_APP: PCP 5 for priority 5
)

var replyIEEERewrWant = IEEE{
	ETS: &etsWant, PFC: &pfcWant, App: []App{},
	Rewr: []App{{Selector: IEEE_8021QAZ_APP_SEL_DSCP, Priority: 3, Protocol: 26}, {Selector: DCB_APP_SEL_PCP, Priority: 5, Protocol: 5}},
}

var replyIEEEFlaggedWant = IEEE{
	ETS: &etsWant, PFC: &pfcWant,
	App:      []App{},
	AppTrust: []uint8{IEEE_8021QAZ_APP_SEL_DSCP},
	DCBX:     new(ModeHost | ModeIEEE),
}

// replyIEEEShortETS has a 58-byte ETS: one byte short of struct ieee_ets.
var replyIEEEShortETS = nlfixture.Cat(
	[]byte{0x00, 21, 0x00, 0x00},
	ifnameEth0,
	[]byte{0x44, 0x00, 0x0d, 0x00},    // DCB_ATTR_IEEE, len 68
	[]byte{0x3e, 0x00, 0x01, 0x00},    // DCB_ATTR_IEEE_ETS, len 62
	etsBytes[:58], []byte{0x00, 0x00}, // 58 bytes, padded to 60
)

// replyStatus returns the reply of a SET-type command: struct dcbmsg for
// cmd and the u8 attribute typ (DCB_ATTR_IEEE or DCB_ATTR_DCBX) = status.
func replyStatus(cmd uint8, typ uint8, status uint8) []byte {
	return []byte{
		0x00, cmd, 0x00, 0x00, // struct dcbmsg
		0x05, 0x00, typ, 0x00, status, 0x00, 0x00, 0x00, // u8 attribute, len 5, padded
	}
}

// replyCEE is a CEE_GET reply from a CEE driver with peer ops (the order
// of dcbnl_cee_fill): TX_PG with TC 0 and 7 and two groups set (a real
// driver sends all eight of each; missing ones must read as 0xff), PFC, the
// APP table as DCB_ATTR_APP nests, FEAT, PEER_PG, PEER_PFC, PEER_APP_TABLE,
// then DCBX.
var replyCEE = nlfixture.Cat(
	[]byte{0x00, 26, 0x00, 0x00}, // struct dcbmsg: DCB_CMD_CEE_GET
	ifnameEth0,
	[]byte{0xcc, 0x00, 0x10, 0x00},                         // DCB_ATTR_CEE, len 204
	[]byte{0x44, 0x00, 0x04, 0x00},                         // DCB_ATTR_CEE_TX_PG, len 68
	[]byte{0x24, 0x00, 0x01, 0x00},                         //   DCB_PG_ATTR_TC_0, len 36
	[]byte{0x05, 0x00, 0x01, 0x00, 0x00, 0, 0, 0},          //     PGID 0
	[]byte{0x05, 0x00, 0x02, 0x00, 0x01, 0, 0, 0},          //     UP_MAPPING 0x01
	[]byte{0x05, 0x00, 0x03, 0x00, 0x00, 0, 0, 0},          //     STRICT_PRIO 0
	[]byte{0x05, 0x00, 0x04, 0x00, 0x64, 0, 0, 0},          //     BW_PCT 100
	[]byte{0x0c, 0x00, 0x08, 0x00},                         //   DCB_PG_ATTR_TC_7, len 12
	[]byte{0x05, 0x00, 0x01, 0x00, 0x0f, 0, 0, 0},          //     PGID 15 (strict)
	[]byte{0x05, 0x00, 0x0b, 0x00, 0x19, 0, 0, 0},          //   DCB_PG_ATTR_BW_ID_0 = 25
	[]byte{0x05, 0x00, 0x0c, 0x00, 0x4b, 0, 0, 0},          //   DCB_PG_ATTR_BW_ID_1 = 75
	[]byte{0x14, 0x00, 0x06, 0x00},                         // DCB_ATTR_CEE_PFC, len 20
	[]byte{0x05, 0x00, 0x04, 0x00, 0x01, 0, 0, 0},          //   DCB_PFC_UP_ATTR_3 = 1
	[]byte{0x05, 0x00, 0x05, 0x00, 0x02, 0, 0, 0},          //   DCB_PFC_UP_ATTR_4 = 2
	[]byte{0x20, 0x00, 0x07, 0x00},                         // DCB_ATTR_CEE_APP_TABLE, len 32
	[]byte{0x1c, 0x00, 0x0c, 0x00},                         //   DCB_ATTR_APP, len 28
	[]byte{0x05, 0x00, 0x01, 0x00, 0x00, 0, 0, 0},          //     IDTYPE 0 (EtherType)
	[]byte{0x06, 0x00, 0x02, 0x00, 0x06, 0x89, 0, 0},       //     ID 0x8906 (u16 host order)
	[]byte{0x05, 0x00, 0x03, 0x00, 0x08, 0, 0, 0},          //     PRIORITY bitmap 0x08
	[]byte{0x1c, 0x00, 0x08, 0x00},                         // DCB_ATTR_CEE_FEAT, len 28
	[]byte{0x05, 0x00, 0x02, 0x00, 0x06, 0, 0, 0},          //   PG: ENABLE|WILLING
	[]byte{0x05, 0x00, 0x03, 0x00, 0x0b, 0, 0, 0},          //   PFC: ERROR|ENABLE|ADVERTISE
	[]byte{0x05, 0x00, 0x04, 0x00, 0x02, 0, 0, 0},          //   APP: ENABLE
	[]byte{0x18, 0x00, 0x01, 0x00},                         // DCB_ATTR_CEE_PEER_PG, len 24: struct cee_pg
	[]byte{0x01, 0x00, 0x01, 0x08},                         //   willing 1, error 0, pg_en 1, tcs_supported 8
	[]byte{25, 75, 0, 0, 0, 0, 0, 0},                       //   pg_bw
	[]byte{0, 0, 0, 0, 1, 1, 1, 7},                         //   prio_pg
	[]byte{0x08, 0x00, 0x02, 0x00},                         // DCB_ATTR_CEE_PEER_PFC, len 8: struct cee_pfc
	[]byte{0x01, 0x01, 0x08, 0x08},                         //   willing 1, error 1, pfc_en 0x08, tcs_supported 8
	[]byte{0x14, 0x00, 0x03, 0x00},                         // DCB_ATTR_CEE_PEER_APP_TABLE, len 20
	[]byte{0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00}, //   PEER_APP_INFO: willing 1, error 0
	[]byte{0x08, 0x00, 0x02, 0x00, 0x01, 0x08, 0xbc, 0x0c}, //   PEER_APP: selector 1, prio 0x08, port 3260
	[]byte{0x05, 0x00, 0x0e, 0x00, 0x05, 0x00, 0x00, 0x00}, // DCB_ATTR_DCBX = HOST|VER_CEE
)

// replyCEEWant is replyCEE decoded.
var replyCEEWant = func() CEE {
	u := uint8(DCB_ATTR_VALUE_UNDEFINED)
	pg := CEEPG{BWGroupPct: [8]uint8{25, 75, u, u, u, u, u, u}}
	for i := range pg.TC {
		pg.TC[i] = CEETC{u, u, u, u}
	}
	pg.TC[0] = CEETC{PGID: 0, UPMap: 0x01, StrictPrio: 0, BWPct: 100}
	pg.TC[7].PGID = 15
	return CEE{
		TxPG: &pg,
		PFC:  &[8]uint8{3: 1, 4: 2},
		App:  []App{{Selector: DCB_APP_IDTYPE_ETHTYPE, Priority: 0x08, Protocol: 0x8906}},
		Feat: &CEEFeat{
			PG:  new(FeatFlags(DCB_FEATCFG_ENABLE | DCB_FEATCFG_WILLING)),
			PFC: new(FeatFlags(DCB_FEATCFG_ERROR | DCB_FEATCFG_ENABLE | DCB_FEATCFG_ADVERTISE)),
			App: new(FeatFlags(DCB_FEATCFG_ENABLE)),
		},
		PeerPG: &CEEPeerPG{Willing: true, Enabled: true, TCsSupported: 8,
			PGBW: [8]uint8{25, 75}, PrioPG: [8]uint8{0, 0, 0, 0, 1, 1, 1, 7}},
		PeerPFC: &CEEPeerPFC{Willing: true, Error: true, Enabled: 0x08, TCsSupported: 8},
		PeerApp: &CEEPeerApp{
			Info: &PeerAppInfo{Willing: true},
			Apps: []App{{Selector: DCB_APP_IDTYPE_PORTNUM, Priority: 0x08, Protocol: 3260}},
		},
		DCBX: new(ModeHost | ModeCEE),
	}
}()
