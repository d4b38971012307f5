// SPDX-License-Identifier: Apache-2.0

package dcbnl

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// An IEEE is the reply of DCB_CMD_IEEE_GET (or the payload of an IEEE
// notification) for one interface, as filled by dcbnl_ieee_fill in
// net/dcb/dcbnl.c. A field is nil when the kernel left its attribute out,
// which it does, silently, whenever the driver lacks the matching dcbnl_ops
// callback or the callback fails: nil means "not reported", never "empty".
type IEEE struct {
	// ETS is the local ETS configuration and recommendation
	// (DCB_ATTR_IEEE_ETS, from ieee_getets). In firmware-managed mode,
	// drivers such as i40e and ice report the configuration the firmware
	// put in force.
	ETS *ETS
	// PFC is the local PFC configuration with the per-priority PFC frame
	// counters (DCB_ATTR_IEEE_PFC, from ieee_getpfc).
	PFC *PFC
	// App is the kernel's application priority list for the port
	// (DCB_ATTR_IEEE_APP_TABLE): the software dcb_app_list, which holds
	// whatever was added by anyone, not just the local administrator. It
	// includes peer-learned entries that lldpad or a firmware-mode driver
	// (i40e, ice on a firmware LLDP MIB change) pushed into the kernel, CEE
	// entries added through DCB_CMD_SAPP (selector 0 or 1, Priority a
	// bitmap), and PCP entries (DCB_APP_SEL_PCP, Linux 6.2+). The kernel
	// always sends the table, so App is non-nil (possibly empty) in every
	// reply from a real kernel.
	App []App

	// PeerETS, PeerPFC and PeerApp are what the driver learned from the
	// link partner (DCB_ATTR_IEEE_PEER_*). They are present only when the
	// driver implements ieee_peer_getets, ieee_peer_getpfc, or
	// peer_getappinfo and peer_getapptable (qede, cxgb4, liquidio among
	// others; not mlx5, ice, i40e, ixgbe or bnxt_en). PeerApp is an empty,
	// non-nil slice when the driver implements the peer APP ops but knows
	// no entries.
	PeerETS *ETS
	PeerPFC *PFC
	PeerApp []App

	// MaxRate is the per-TC transmit rate limit in kbit/s
	// (DCB_ATTR_IEEE_MAXRATE, struct ieee_maxrate), when the driver has
	// ieee_getmaxrate; 0 means unlimited.
	MaxRate *[8]uint64
	// Buffer is the port buffer configuration (DCB_ATTR_DCB_BUFFER, struct
	// dcbnl_buffer), when the driver has dcbnl_getbuffer (mlx5).
	Buffer *Buffer
	// AppTrust lists, in order of precedence, the APP selectors the port
	// trusts for classifying received traffic
	// (DCB_ATTR_DCB_APP_TRUST_TABLE, Linux 6.2+, when the driver has
	// dcbnl_getapptrust), for example [IEEE_8021QAZ_APP_SEL_DSCP,
	// DCB_APP_SEL_PCP]. Nil when not reported.
	AppTrust []uint8

	// Rewr is the APP rewrite table (DCB_ATTR_DCB_REWR_TABLE): entries
	// whose Priority is the egress priority and Protocol the DSCP
	// (IEEE_8021QAZ_APP_SEL_DSCP) or PCP and DEI (DCB_APP_SEL_PCP, PCP +
	// 8×DEI) a frame of that priority is rewritten to. A kernel of Linux
	// 6.3 or later sends it in every reply (net/dcb/dcbnl.c
	// dcbnl_ieee_fill, the software dcb_rewr_list: non-nil, possibly
	// empty); it is nil from an older kernel, which has no rewrite table.
	Rewr []App

	// DCBX is the DCBX mode byte (the top-level DCB_ATTR_DCBX), present
	// when the driver has getdcbx: the same value DCB_CMD_GDCBX returns.
	DCBX *Mode
}

// An ETS is struct ieee_ets (linux/dcbnl.h): the IEEE 802.1Qaz ETS
// Configuration and Recommendation managed objects. It is 59 bytes of u8s
// with no padding (SizeofIEEEETS). Arrays are indexed by traffic class,
// except PrioTC and RecoPrioTC, which are indexed by priority.
type ETS struct {
	Willing    bool     // willing @0: the Willing bit of the ETS Configuration TLV
	ETSCap     uint8    // ets_cap @1: number of traffic classes supported
	CBS        bool     // cbs @2: credit-based shaper supported
	TCTxBW     [8]uint8 // tc_tx_bw @3: bandwidth percent per traffic class
	TCRxBW     [8]uint8 // tc_rx_bw @11: non-standard; lldpad and ice copy TCTxBW into it
	TCTSA      [8]uint8 // tc_tsa @19: IEEE_8021QAZ_TSA_* per traffic class
	PrioTC     [8]uint8 // prio_tc @27: priority → traffic class
	TCRecoBW   [8]uint8 // tc_reco_bw @35: ETS Recommendation bandwidth
	TCRecoTSA  [8]uint8 // tc_reco_tsa @43: ETS Recommendation TSA
	RecoPrioTC [8]uint8 // reco_prio_tc @51: ETS Recommendation priority → traffic class
}

// Offsets of the arrays in struct ieee_ets.
const (
	etsOffTxBW       = 3
	etsOffRxBW       = 11
	etsOffTSA        = 19
	etsOffPrioTC     = 27
	etsOffRecoBW     = 35
	etsOffRecoTSA    = 43
	etsOffRecoPrioTC = 51
)

// A PFC is struct ieee_pfc (linux/dcbnl.h): the IEEE 802.1Qbb PFC managed
// object plus per-priority PFC frame counters. It is 136 bytes on every
// Linux ABI (SizeofIEEEPFC): pfc_cap @0, pfc_en @1, mbc @2, one byte of
// padding, delay (u16) @4, two bytes of padding, requests[8] (u64) @8,
// indications[8] (u64) @72, all in host byte order. encoding/binary would
// give 133 bytes, so this package lays it out by hand.
//
// There is no willing field: the PFC Willing bit is not a kernel setting.
type PFC struct {
	Cap     uint8 // pfc_cap: number of priorities that can have PFC enabled at once
	Enabled uint8 // pfc_en: bit n set = PFC enabled on priority n
	MBC     uint8 // mbc: MACsec bypass capability
	// Delay is the allowance for round-trip propagation delay in bits;
	// mlx5 uses it as the cable length in metres (below 1000).
	Delay       uint16
	Requests    [8]uint64 // PFC frames sent, per priority
	Indications [8]uint64 // PFC frames received, per priority
}

// Offsets in struct ieee_pfc.
const (
	pfcOffDelay       = 4
	pfcOffRequests    = 8
	pfcOffIndications = 72
)

// An App is struct dcb_app (linux/dcbnl.h), 4 bytes: selector @0,
// priority @1, protocol @2. Protocol is a u16 in host byte order, unlike the
// network-order field of the LLDP Application Priority TLV.
//
// For IEEE entries Selector is one of IEEE_8021QAZ_APP_SEL_* and Priority is
// 0-7. Entries added through the CEE interface use DCB_APP_IDTYPE_* selectors
// and a priority bitmap; DCB_APP_SEL_PCP (255) entries (Linux 6.2+) map a
// PCP/DEI value to a priority.
type App struct {
	Selector uint8
	Priority uint8
	Protocol uint16
}

// A Buffer is struct dcbnl_buffer (linux/dcbnl.h), 44 bytes: the port
// receive-buffer split used for lossless traffic.
type Buffer struct {
	PrioBuffer [8]uint8  // prio2buffer @0: priority → buffer
	Size       [8]uint32 // buffer_size @8: bytes per buffer
	TotalSize  uint32    // total_size @40
}

// An IEEESet is what DCB_CMD_IEEE_SET sends: only the non-nil parts. ETS
// and PFC replace the driver's whole configuration of that feature, so read
// the current values first and change what is needed (as iproute2's dcb
// does). Apps are added to the APP table (an existing identical entry makes
// the kernel report EEXIST); remove entries with Client.DelApps.
//
// AppTrust replaces the port's trust table (DCB_ATTR_DCB_APP_TRUST_TABLE,
// Linux 6.2+): the selectors trusted for classifying received traffic,
// most trusted first, each at most once (dcbnl_ieee_set refuses a
// duplicate or an unknown selector with EINVAL, and a driver without
// dcbnl_setapptrust with EOPNOTSUPP). Buffer sets the port's receive
// buffer split (DCB_ATTR_DCB_BUFFER, Linux 4.18; prio2buffer below
// DCBX_MAX_BUFFERS, else EINVAL); a driver without dcbnl_setbuffer
// ignores it and reports success, so read back.
//
// MaxRate replaces the per-TC transmit rate limits (DCB_ATTR_IEEE_MAXRATE,
// struct ieee_maxrate: 8 × u64 in kbit/s, 0 unlimited; dcbnl_ieee_set
// hands it to the driver's ieee_setmaxrate after ETS and before PFC). A
// driver without ieee_setmaxrate ignores it and reports success; mlx5
// rounds to its units (100 Mbit/s below 25.5 Gbit/s, 1 Gbit/s above) and
// refuses more than 255 Gbit/s with EINVAL (en_dcbnl.c
// mlx5e_dcbnl_ieee_setmaxrate), so read back.
type IEEESet struct {
	ETS      *ETS
	PFC      *PFC
	Apps     []App
	AppTrust []uint8
	Buffer   *Buffer
	MaxRate  *[8]uint64
	// Rewr are APP rewrite entries to add (DCB_ATTR_DCB_REWR_TABLE,
	// Linux 6.3+; dcbnl_ieee_set adds them with the driver's
	// dcbnl_setrewr or the kernel's own dcb_setrewr, EEXIST for an entry
	// already there). A kernel without the table ignores the attribute
	// (it is past its DCB_ATTR_IEEE_MAX) and reports success: know that
	// it has one (IEEE.Rewr non-nil) before sending.
	Rewr []App
}

// A Mode is the DCBX mode byte of DCB_ATTR_DCBX: a set of DCB_CAP_DCBX_*
// bits (linux/dcbnl.h). A host-agent port has ModeHost; a port whose
// firmware runs DCBX has ModeLLDManaged, except on mlx5, which only clears
// ModeHost in firmware mode. ModeIEEE and ModeCEE are the DCBX versions the
// agent supports or uses; ModeStatic means no negotiation.
type Mode uint8

// The DCBX mode bits.
const (
	ModeHost       Mode = DCB_CAP_DCBX_HOST
	ModeLLDManaged Mode = DCB_CAP_DCBX_LLD_MANAGED
	ModeCEE        Mode = DCB_CAP_DCBX_VER_CEE
	ModeIEEE       Mode = DCB_CAP_DCBX_VER_IEEE
	ModeStatic     Mode = DCB_CAP_DCBX_STATIC
)

// Host reports whether DCB_CAP_DCBX_HOST is set: a host agent (lldpad,
// dcbtop) negotiates DCBX and programs the NIC through the set operations.
func (m Mode) Host() bool { return m&ModeHost != 0 }

// LLDManaged reports whether DCB_CAP_DCBX_LLD_MANAGED is set: an embedded
// agent (NIC firmware) negotiates DCBX; set operations only give it an
// initial configuration, and the host may never see LLDP frames.
func (m Mode) LLDManaged() bool { return m&ModeLLDManaged != 0 }

// CEE reports whether DCB_CAP_DCBX_VER_CEE is set.
func (m Mode) CEE() bool { return m&ModeCEE != 0 }

// IEEE reports whether DCB_CAP_DCBX_VER_IEEE is set.
func (m Mode) IEEE() bool { return m&ModeIEEE != 0 }

// Static reports whether DCB_CAP_DCBX_STATIC is set: no DCBX negotiation.
func (m Mode) Static() bool { return m&ModeStatic != 0 }

// String describes m in words, for example "host agent, IEEE",
// "firmware-managed (LLD_MANAGED), IEEE+CEE", "static", or
// "no host agent (HOST clear), IEEE+CEE" (mlx5 in firmware mode).
func (m Mode) String() string {
	var parts []string
	switch {
	case m.Host() && m.LLDManaged():
		parts = append(parts, "host agent and firmware-managed (HOST+LLD_MANAGED)")
	case m.Host():
		parts = append(parts, "host agent")
	case m.LLDManaged():
		parts = append(parts, "firmware-managed (LLD_MANAGED)")
	case m.IEEE() || m.CEE():
		parts = append(parts, "no host agent (HOST clear)")
	}
	switch {
	case m.IEEE() && m.CEE():
		parts = append(parts, "IEEE+CEE")
	case m.IEEE():
		parts = append(parts, "IEEE")
	case m.CEE():
		parts = append(parts, "CEE")
	}
	if m.Static() {
		parts = append(parts, "static")
	}
	if unknown := m &^ (ModeHost | ModeLLDManaged | ModeCEE | ModeIEEE | ModeStatic); unknown != 0 {
		parts = append(parts, fmt.Sprintf("unknown bits %#02x", uint8(unknown)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// A CEE is the reply of DCB_CMD_CEE_GET (or the payload of a CEE
// notification), as filled by dcbnl_cee_fill in net/dcb/dcbnl.c. As in
// IEEE, a nil field means the driver lacks the callback.
type CEE struct {
	// TxPG and RxPG are the local priority group configuration
	// (DCB_ATTR_CEE_TX_PG, DCB_ATTR_CEE_RX_PG), from the getpgtccfg and
	// getpgbwgcfg callbacks.
	TxPG *CEEPG
	RxPG *CEEPG
	// PFC is the local per-priority PFC setting (DCB_ATTR_CEE_PFC, one u8
	// per priority from getpfccfg): 0 is off; ixgbe and mlx4 report 1 (full),
	// 2 (Tx only) or 3 (Rx only) for on.
	PFC *[8]uint8
	// App is the kernel's APP list for the port (DCB_ATTR_CEE_APP_TABLE):
	// the same dcb_app_list as IEEE.App, so it holds IEEE entries too.
	App []App
	// Feat holds the per-feature flags (DCB_ATTR_CEE_FEAT, getfeatcfg).
	Feat *CEEFeat
	// PeerPG, PeerPFC and PeerApp are the link partner's CEE TLVs, when
	// the driver implements cee_peer_getpg, cee_peer_getpfc, or
	// peer_getappinfo and peer_getapptable.
	PeerPG  *CEEPeerPG
	PeerPFC *CEEPeerPFC
	PeerApp *CEEPeerApp
	// DCBX is the DCBX mode byte, when the driver has getdcbx.
	DCBX *Mode
}

// A CEEPG is one direction of the CEE priority group configuration
// (DCB_ATTR_CEE_TX_PG or DCB_ATTR_CEE_RX_PG, enum dcbnl_pg_attrs). A value
// the driver did not set, or an attribute missing from the nest, is
// DCB_ATTR_VALUE_UNDEFINED (0xff).
type CEEPG struct {
	TC [8]CEETC // DCB_PG_ATTR_TC_0..7
	// BWGroupPct is the share of link bandwidth per priority group, in
	// percent (DCB_PG_ATTR_BW_ID_0..7).
	BWGroupPct [8]uint8
}

// A CEETC is the configuration of one traffic class in a CEEPG (enum
// dcbnl_tc_attrs).
type CEETC struct {
	PGID       uint8 // DCB_TC_ATTR_PARAM_PGID: priority group; 15 = strict
	UPMap      uint8 // DCB_TC_ATTR_PARAM_UP_MAPPING: bitmap of user priorities
	StrictPrio uint8 // DCB_TC_ATTR_PARAM_STRICT_PRIO: driver-specific strict type
	BWPct      uint8 // DCB_TC_ATTR_PARAM_BW_PCT: percent of the group's bandwidth
}

// A CEEFeat is DCB_ATTR_CEE_FEAT: per-feature DCB_FEATCFG_* flags. A nil
// field means the driver's getfeatcfg failed for that feature.
type CEEFeat struct {
	PG  *FeatFlags // DCB_FEATCFG_ATTR_PG
	PFC *FeatFlags // DCB_FEATCFG_ATTR_PFC
	App *FeatFlags // DCB_FEATCFG_ATTR_APP
}

// FeatFlags are the DCB_FEATCFG_* flags of one CEE feature.
type FeatFlags uint8

// Error reports DCB_FEATCFG_ERROR: feature resolution failed.
func (f FeatFlags) Error() bool { return f&DCB_FEATCFG_ERROR != 0 }

// Enabled reports DCB_FEATCFG_ENABLE.
func (f FeatFlags) Enabled() bool { return f&DCB_FEATCFG_ENABLE != 0 }

// Willing reports DCB_FEATCFG_WILLING.
func (f FeatFlags) Willing() bool { return f&DCB_FEATCFG_WILLING != 0 }

// Advertise reports DCB_FEATCFG_ADVERTISE.
func (f FeatFlags) Advertise() bool { return f&DCB_FEATCFG_ADVERTISE != 0 }

// A CEEPeerPG is struct cee_pg (linux/dcbnl.h), 20 bytes: the peer's CEE
// Priority Groups TLV.
type CEEPeerPG struct {
	Willing      bool     // willing @0
	Error        bool     // error @1
	Enabled      bool     // pg_en @2
	TCsSupported uint8    // tcs_supported @3
	PGBW         [8]uint8 // pg_bw @4: percent per priority group
	PrioPG       [8]uint8 // prio_pg @12: priority → priority group
}

// A CEEPeerPFC is struct cee_pfc (linux/dcbnl.h), 4 bytes: the peer's CEE
// PFC TLV.
type CEEPeerPFC struct {
	Willing      bool  // willing @0
	Error        bool  // error @1
	Enabled      uint8 // pfc_en @2: bit n = priority n
	TCsSupported uint8 // tcs_supported @3
}

// A CEEPeerApp is DCB_ATTR_CEE_PEER_APP_TABLE: the peer's CEE Application
// TLV.
type CEEPeerApp struct {
	// Info is struct dcb_peer_app_info (2 bytes: willing, error), nil if
	// absent.
	Info *PeerAppInfo
	// Apps are the entries (DCB_ATTR_CEE_PEER_APP); Priority is a bitmap.
	Apps []App
}

// A PeerAppInfo is struct dcb_peer_app_info (linux/dcbnl.h).
type PeerAppInfo struct {
	Willing bool
	Error   bool
}

// A Notification is one message of the RTNLGRP_DCB multicast group, sent by
// dcbnl_notify in net/dcb/dcbnl.c after DCB_CMD_IEEE_SET and
// DCB_CMD_IEEE_DEL (even when they failed), after the CEE commands SAPP and
// SET_ALL, and by i40e and ice when their firmware agent changes the
// configuration. mlx5 sends none. Treat it as a hint and re-read the
// interface: the payload is a snapshot taken when it was sent.
type Notification struct {
	// Ifname is the interface (DCB_ATTR_IFNAME); empty when Overrun.
	Ifname string
	// Cmd is the command that caused the notification (struct dcbmsg's
	// cmd): DCB_CMD_IEEE_SET, DCB_CMD_IEEE_DEL, DCB_CMD_SAPP or
	// DCB_CMD_SET_ALL.
	Cmd uint8
	// IEEE is the decoded payload of an IEEE notification (the full
	// dcbnl_ieee_fill, like an IEEE_GET reply); nil otherwise.
	IEEE *IEEE
	// CEE is the decoded payload of a CEE notification (dcbnl_cee_fill);
	// nil otherwise.
	CEE *CEE
	// Err is set when the payload could not be decoded; Ifname and Cmd
	// are filled in when they could be.
	Err error
	// Overrun reports that notifications were lost (the socket's receive
	// buffer overflowed, ENOBUFS, or the kernel could not build one and
	// flagged the socket): re-read every interface of interest.
	Overrun bool
}

// MarshalBinary encodes e as the 59 bytes of struct ieee_ets.
func (e *ETS) MarshalBinary() ([]byte, error) {
	return e.appendTo(make([]byte, 0, SizeofIEEEETS)), nil
}

// appendTo appends the struct ieee_ets encoding of e to b.
func (e *ETS) appendTo(b []byte) []byte {
	b = append(b, boolByte(e.Willing), e.ETSCap, boolByte(e.CBS))
	for _, a := range [][8]uint8{e.TCTxBW, e.TCRxBW, e.TCTSA, e.PrioTC, e.TCRecoBW, e.TCRecoTSA, e.RecoPrioTC} {
		b = append(b, a[:]...)
	}
	return b
}

// UnmarshalBinary decodes struct ieee_ets from b. Bytes beyond the 59 of
// the structure are ignored (a newer kernel may append fields); a shorter b
// is an error wrapping ErrMalformed.
func (e *ETS) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofIEEEETS {
		return shortError("struct ieee_ets", SizeofIEEEETS, len(b))
	}
	*e = ETS{Willing: b[0] != 0, ETSCap: b[1], CBS: b[2] != 0}
	copy(e.TCTxBW[:], b[etsOffTxBW:])
	copy(e.TCRxBW[:], b[etsOffRxBW:])
	copy(e.TCTSA[:], b[etsOffTSA:])
	copy(e.PrioTC[:], b[etsOffPrioTC:])
	copy(e.TCRecoBW[:], b[etsOffRecoBW:])
	copy(e.TCRecoTSA[:], b[etsOffRecoTSA:])
	copy(e.RecoPrioTC[:], b[etsOffRecoPrioTC:])
	return nil
}

// MarshalBinary encodes p as the 136 bytes of struct ieee_pfc, padding
// included, in host byte order.
func (p *PFC) MarshalBinary() ([]byte, error) {
	return p.appendTo(make([]byte, 0, SizeofIEEEPFC)), nil
}

// appendTo appends the struct ieee_pfc encoding of p to b.
func (p *PFC) appendTo(b []byte) []byte {
	b = append(b, p.Cap, p.Enabled, p.MBC, 0) // one byte of padding before delay
	b = binary.NativeEndian.AppendUint16(b, p.Delay)
	b = append(b, 0, 0) // two bytes of padding: the u64 arrays are 8-aligned
	for _, v := range p.Requests {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	for _, v := range p.Indications {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	return b
}

// UnmarshalBinary decodes struct ieee_pfc from b, in host byte order. Extra
// bytes are ignored; a b shorter than 136 bytes is an error wrapping
// ErrMalformed.
func (p *PFC) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofIEEEPFC {
		return shortError("struct ieee_pfc", SizeofIEEEPFC, len(b))
	}
	*p = PFC{Cap: b[0], Enabled: b[1], MBC: b[2], Delay: binary.NativeEndian.Uint16(b[pfcOffDelay:])}
	for i := range p.Requests {
		p.Requests[i] = binary.NativeEndian.Uint64(b[pfcOffRequests+8*i:])
		p.Indications[i] = binary.NativeEndian.Uint64(b[pfcOffIndications+8*i:])
	}
	return nil
}

// MarshalBinary encodes a as the 4 bytes of struct dcb_app.
func (a App) MarshalBinary() ([]byte, error) {
	return a.appendTo(make([]byte, 0, SizeofDCBApp)), nil
}

// appendTo appends the struct dcb_app encoding of a to b.
func (a App) appendTo(b []byte) []byte {
	b = append(b, a.Selector, a.Priority)
	return binary.NativeEndian.AppendUint16(b, a.Protocol)
}

// UnmarshalBinary decodes struct dcb_app from b (host byte order). Extra
// bytes are ignored; fewer than 4 is an error wrapping ErrMalformed.
func (a *App) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofDCBApp {
		return shortError("struct dcb_app", SizeofDCBApp, len(b))
	}
	*a = App{Selector: b[0], Priority: b[1], Protocol: binary.NativeEndian.Uint16(b[2:])}
	return nil
}

// MarshalBinary encodes f as the 44 bytes of struct dcbnl_buffer, in host
// byte order.
func (f *Buffer) MarshalBinary() ([]byte, error) {
	return f.appendTo(make([]byte, 0, SizeofDCBBuffer)), nil
}

// appendTo appends the struct dcbnl_buffer encoding of f to b.
func (f *Buffer) appendTo(b []byte) []byte {
	b = append(b, f.PrioBuffer[:]...)
	for _, v := range f.Size {
		b = binary.NativeEndian.AppendUint32(b, v)
	}
	return binary.NativeEndian.AppendUint32(b, f.TotalSize)
}

// UnmarshalBinary decodes struct dcbnl_buffer from b (host byte order).
// Extra bytes are ignored; fewer than 44 is an error wrapping ErrMalformed.
func (f *Buffer) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofDCBBuffer {
		return shortError("struct dcbnl_buffer", SizeofDCBBuffer, len(b))
	}
	*f = Buffer{TotalSize: binary.NativeEndian.Uint32(b[40:])}
	copy(f.PrioBuffer[:], b)
	for i := range f.Size {
		f.Size[i] = binary.NativeEndian.Uint32(b[8+4*i:])
	}
	return nil
}

// UnmarshalBinary decodes struct cee_pg from b. Extra bytes are ignored;
// fewer than 20 is an error wrapping ErrMalformed.
func (p *CEEPeerPG) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofCEEPG {
		return shortError("struct cee_pg", SizeofCEEPG, len(b))
	}
	*p = CEEPeerPG{Willing: b[0] != 0, Error: b[1] != 0, Enabled: b[2] != 0, TCsSupported: b[3]}
	copy(p.PGBW[:], b[4:])
	copy(p.PrioPG[:], b[12:])
	return nil
}

// UnmarshalBinary decodes struct cee_pfc from b. Extra bytes are ignored;
// fewer than 4 is an error wrapping ErrMalformed.
func (p *CEEPeerPFC) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofCEEPFC {
		return shortError("struct cee_pfc", SizeofCEEPFC, len(b))
	}
	*p = CEEPeerPFC{Willing: b[0] != 0, Error: b[1] != 0, Enabled: b[2], TCsSupported: b[3]}
	return nil
}

// UnmarshalBinary decodes struct dcb_peer_app_info from b. Extra bytes are
// ignored; fewer than 2 is an error wrapping ErrMalformed.
func (p *PeerAppInfo) UnmarshalBinary(b []byte) error {
	if len(b) < SizeofPeerAppInfo {
		return shortError("struct dcb_peer_app_info", SizeofPeerAppInfo, len(b))
	}
	*p = PeerAppInfo{Willing: b[0] != 0, Error: b[1] != 0}
	return nil
}

// boolByte is 1 for true and 0 for false, as the kernel's u8 booleans.
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
