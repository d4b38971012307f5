// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"encoding/binary"
	"fmt"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// This file decodes the attributes that follow struct dcbmsg in replies and
// notifications. The kernel builds its nests with nla_nest_start_noflag, so
// NLA_F_NESTED is normally clear; netlink.AttributeDecoder.Type masks it (and
// NLA_F_NET_BYTEORDER) anyway, so flagged nests (DCB_ATTR_DCB_APP_TRUST_TABLE
// uses nla_nest_start) decode the same. Every payload is length-checked: the
// C structure sizes are minimums, longer payloads are accepted (a newer
// kernel may append fields) and shorter ones are errors wrapping
// ErrMalformed. Unknown attributes are skipped.

// decodeStruct decodes the C structure in the payload b of attribute attr
// into a new T.
func decodeStruct[T any, PT interface {
	*T
	UnmarshalBinary([]byte) error
}](attr string, b []byte) (*T, error) {
	v := PT(new(T))
	if err := v.UnmarshalBinary(b); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return (*T)(v), nil
}

// decodeU8 decodes a u8 attribute (nla_put_u8: one byte, padded to four).
func decodeU8(attr string, b []byte) (uint8, error) {
	if len(b) < 1 {
		return 0, nl.Malformed(attr, "u8 attribute is empty")
	}
	return b[0], nil
}

// decodeU16 decodes a u16 attribute in host byte order (nla_put_u16).
func decodeU16(attr string, b []byte) (uint16, error) {
	if len(b) < 2 {
		return 0, nl.Malformed(attr, "u16 attribute has %d bytes", len(b))
	}
	return binary.NativeEndian.Uint16(b), nil
}

// decodeIEEE decodes the attributes of an IEEE_GET reply or IEEE
// notification (what dcbnl_ieee_fill puts after struct dcbmsg). It returns
// the interface name (DCB_ATTR_IFNAME) even when the rest fails.
func decodeIEEE(b []byte) (string, *IEEE, error) {
	var ie IEEE
	ifname, err := decodeFill(b, DCB_ATTR_IEEE, "DCB_ATTR_IEEE", &ie.DCBX, func(b []byte) error { return decodeIEEENest(b, &ie) })
	if err != nil {
		return ifname, nil, err
	}
	return ifname, &ie, nil
}

// decodeFill decodes the top-level attributes that dcbnl_ieee_fill and
// dcbnl_cee_fill put after struct dcbmsg: DCB_ATTR_IFNAME, whose value it
// returns even when the rest fails, the nest of type nest (named name),
// which it hands to decodeNest and which must be there, and DCB_ATTR_DCBX,
// which it stores in dcbx.
func decodeFill(b []byte, nest uint16, name string, dcbx **Mode, decodeNest func([]byte) error) (string, error) {
	ad, err := nl.NewDecoder("", b)
	if err != nil {
		return "", err
	}
	var (
		ifname string
		found  bool
	)
	for ad.Next() {
		switch ad.Type() {
		case DCB_ATTR_IFNAME:
			ad.Do(func(b []byte) error { ifname = nlclient.CString(b); return nil })
		case nest:
			found = true
			ad.Do(decodeNest)
		case DCB_ATTR_DCBX:
			ad.Do(func(b []byte) error {
				v, err := decodeU8("DCB_ATTR_DCBX", b)
				*dcbx = new(Mode(v))
				return err
			})
		}
	}
	if err := ad.Err(); err != nil {
		return ifname, nl.InAttr("", err)
	}
	if !found {
		return ifname, nl.Malformed("", "no %s nest", name)
	}
	return ifname, nil
}

// decodeIEEENest decodes the DCB_ATTR_IEEE nest into ie.
func decodeIEEENest(b []byte, ie *IEEE) error {
	ad, err := nl.NewDecoder("DCB_ATTR_IEEE", b)
	if err != nil {
		return err
	}
	for ad.Next() {
		switch ad.Type() {
		case DCB_ATTR_IEEE_ETS:
			ad.Do(func(b []byte) (err error) { ie.ETS, err = decodeStruct[ETS]("DCB_ATTR_IEEE_ETS", b); return })
		case DCB_ATTR_IEEE_PFC:
			ad.Do(func(b []byte) (err error) { ie.PFC, err = decodeStruct[PFC]("DCB_ATTR_IEEE_PFC", b); return })
		case DCB_ATTR_IEEE_APP_TABLE:
			ad.Do(func(b []byte) (err error) { ie.App, err = decodeAppTable("DCB_ATTR_IEEE_APP_TABLE", b); return })
		case DCB_ATTR_IEEE_PEER_ETS:
			ad.Do(func(b []byte) (err error) { ie.PeerETS, err = decodeStruct[ETS]("DCB_ATTR_IEEE_PEER_ETS", b); return })
		case DCB_ATTR_IEEE_PEER_PFC:
			ad.Do(func(b []byte) (err error) { ie.PeerPFC, err = decodeStruct[PFC]("DCB_ATTR_IEEE_PEER_PFC", b); return })
		case DCB_ATTR_IEEE_PEER_APP:
			ad.Do(func(b []byte) (err error) { ie.PeerApp, err = decodeAppTable("DCB_ATTR_IEEE_PEER_APP", b); return })
		case DCB_ATTR_IEEE_MAXRATE:
			ad.Do(func(b []byte) (err error) {
				ie.MaxRate, err = unmarshalMaxrate(b)
				return nl.InAttr("DCB_ATTR_IEEE_MAXRATE", err)
			})
		case DCB_ATTR_DCB_BUFFER:
			ad.Do(func(b []byte) (err error) { ie.Buffer, err = decodeStruct[Buffer]("DCB_ATTR_DCB_BUFFER", b); return })
		case DCB_ATTR_DCB_APP_TRUST_TABLE:
			ad.Do(func(b []byte) (err error) { ie.AppTrust, err = decodeAppTrust(b); return })
		case DCB_ATTR_DCB_REWR_TABLE:
			ad.Do(func(b []byte) (err error) { ie.Rewr, err = decodeAppTable("DCB_ATTR_DCB_REWR_TABLE", b); return })
			// DCB_ATTR_IEEE_QCN and DCB_ATTR_IEEE_QCN_STATS (802.1Qau) are
			// not decoded.
		}
	}
	return nl.InAttr("DCB_ATTR_IEEE", ad.Err())
}

// decodeAppTable decodes an APP table nest (DCB_ATTR_IEEE_APP_TABLE or
// DCB_ATTR_IEEE_PEER_APP): struct dcb_app entries typed DCB_ATTR_IEEE_APP,
// DCB_ATTR_DCB_APP (selector DCB_APP_SEL_PCP) or, for selectors a 6.2+
// kernel does not know (CEE entries), DCB_ATTR_IEEE_APP_UNSPEC. An empty
// nest gives an empty, non-nil slice.
func decodeAppTable(attr string, b []byte) ([]App, error) {
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	apps := []App{}
	for ad.Next() {
		typ := ad.Type()
		if typ != DCB_ATTR_IEEE_APP && typ != DCB_ATTR_DCB_APP && typ != DCB_ATTR_IEEE_APP_UNSPEC {
			continue
		}
		ad.Do(func(b []byte) error {
			if typ == DCB_ATTR_IEEE_APP_UNSPEC && len(b) == 0 {
				return nil // an empty unspecified attribute is padding, not an entry
			}
			a, err := decodeStruct[App](appAttrName(typ), b)
			if err == nil {
				apps = append(apps, *a)
			}
			return err
		})
	}
	return apps, nl.InAttr(attr, ad.Err())
}

// appAttrName is the C name of an APP entry attribute type.
func appAttrName(typ uint16) string {
	switch typ {
	case DCB_ATTR_IEEE_APP:
		return "DCB_ATTR_IEEE_APP"
	case DCB_ATTR_DCB_APP:
		return "DCB_ATTR_DCB_APP"
	}
	return "DCB_ATTR_IEEE_APP_UNSPEC"
}

// decodeAppTrust decodes DCB_ATTR_DCB_APP_TRUST_TABLE: one u8 selector per
// attribute, typed DCB_ATTR_IEEE_APP or DCB_ATTR_DCB_APP (dcbnl_getapptrust).
func decodeAppTrust(b []byte) ([]uint8, error) {
	const attr = "DCB_ATTR_DCB_APP_TRUST_TABLE"
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	sels := []uint8{}
	for ad.Next() {
		ad.Do(func(b []byte) error {
			v, err := decodeU8(attr, b)
			sels = append(sels, v)
			return err
		})
	}
	return sels, nl.InAttr(attr, ad.Err())
}

// decodeCEE decodes the attributes of a CEE_GET reply or CEE notification
// (what dcbnl_cee_fill puts after struct dcbmsg). It returns the interface
// name even when the rest fails.
func decodeCEE(b []byte) (string, *CEE, error) {
	var cee CEE
	ifname, err := decodeFill(b, DCB_ATTR_CEE, "DCB_ATTR_CEE", &cee.DCBX, func(b []byte) error { return decodeCEENest(b, &cee) })
	if err != nil {
		return ifname, nil, err
	}
	return ifname, &cee, nil
}

// decodeCEENest decodes the DCB_ATTR_CEE nest into c.
func decodeCEENest(b []byte, c *CEE) error {
	ad, err := nl.NewDecoder("DCB_ATTR_CEE", b)
	if err != nil {
		return err
	}
	for ad.Next() {
		switch ad.Type() {
		case DCB_ATTR_CEE_PEER_PG:
			ad.Do(func(b []byte) (err error) { c.PeerPG, err = decodeStruct[CEEPeerPG]("DCB_ATTR_CEE_PEER_PG", b); return })
		case DCB_ATTR_CEE_PEER_PFC:
			ad.Do(func(b []byte) (err error) {
				c.PeerPFC, err = decodeStruct[CEEPeerPFC]("DCB_ATTR_CEE_PEER_PFC", b)
				return
			})
		case DCB_ATTR_CEE_PEER_APP_TABLE:
			ad.Do(func(b []byte) (err error) { c.PeerApp, err = decodeCEEPeerApp(b); return })
		case DCB_ATTR_CEE_TX_PG:
			ad.Do(func(b []byte) (err error) { c.TxPG, err = decodeCEEPG("DCB_ATTR_CEE_TX_PG", b); return })
		case DCB_ATTR_CEE_RX_PG:
			ad.Do(func(b []byte) (err error) { c.RxPG, err = decodeCEEPG("DCB_ATTR_CEE_RX_PG", b); return })
		case DCB_ATTR_CEE_PFC:
			ad.Do(func(b []byte) (err error) { c.PFC, err = decodeCEEPFC(b); return })
		case DCB_ATTR_CEE_APP_TABLE:
			ad.Do(func(b []byte) (err error) { c.App, err = decodeCEEAppTable(b); return })
		case DCB_ATTR_CEE_FEAT:
			ad.Do(func(b []byte) (err error) { c.Feat, err = decodeCEEFeat(b); return })
		}
	}
	return nl.InAttr("DCB_ATTR_CEE", ad.Err())
}

// decodeCEEPG decodes DCB_ATTR_CEE_TX_PG or DCB_ATTR_CEE_RX_PG
// (dcbnl_cee_pg_fill): DCB_PG_ATTR_TC_0..7 nests of DCB_TC_ATTR_PARAM_* u8s,
// then DCB_PG_ATTR_BW_ID_0..7 u8s. Values not present stay
// DCB_ATTR_VALUE_UNDEFINED.
func decodeCEEPG(attr string, b []byte) (*CEEPG, error) {
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	var pg CEEPG
	for i := range pg.TC {
		pg.TC[i] = CEETC{DCB_ATTR_VALUE_UNDEFINED, DCB_ATTR_VALUE_UNDEFINED, DCB_ATTR_VALUE_UNDEFINED, DCB_ATTR_VALUE_UNDEFINED}
		pg.BWGroupPct[i] = DCB_ATTR_VALUE_UNDEFINED
	}
	for ad.Next() {
		typ := ad.Type()
		switch {
		case typ >= DCB_PG_ATTR_TC_0 && typ <= DCB_PG_ATTR_TC_7:
			tc := &pg.TC[typ-DCB_PG_ATTR_TC_0]
			ad.Nested(func(nad *netlink.AttributeDecoder) error {
				for nad.Next() {
					var dst *uint8
					switch nad.Type() {
					case DCB_TC_ATTR_PARAM_PGID:
						dst = &tc.PGID
					case DCB_TC_ATTR_PARAM_UP_MAPPING:
						dst = &tc.UPMap
					case DCB_TC_ATTR_PARAM_STRICT_PRIO:
						dst = &tc.StrictPrio
					case DCB_TC_ATTR_PARAM_BW_PCT:
						dst = &tc.BWPct
					default:
						continue
					}
					nad.Do(func(b []byte) (err error) {
						*dst, err = decodeU8(fmt.Sprintf("DCB_PG_ATTR_TC_%d", typ-DCB_PG_ATTR_TC_0), b)
						return
					})
				}
				return nil
			})
		case typ >= DCB_PG_ATTR_BW_ID_0 && typ <= DCB_PG_ATTR_BW_ID_7:
			ad.Do(func(b []byte) (err error) {
				pg.BWGroupPct[typ-DCB_PG_ATTR_BW_ID_0], err = decodeU8(fmt.Sprintf("DCB_PG_ATTR_BW_ID_%d", typ-DCB_PG_ATTR_BW_ID_0), b)
				return
			})
		}
	}
	if err := ad.Err(); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return &pg, nil
}

// decodeCEEPFC decodes DCB_ATTR_CEE_PFC: DCB_PFC_UP_ATTR_0..7 u8s.
func decodeCEEPFC(b []byte) (*[8]uint8, error) {
	const attr = "DCB_ATTR_CEE_PFC"
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	var pfc [8]uint8
	for ad.Next() {
		if typ := ad.Type(); typ >= DCB_PFC_UP_ATTR_0 && typ <= DCB_PFC_UP_ATTR_7 {
			ad.Do(func(b []byte) (err error) { pfc[typ-DCB_PFC_UP_ATTR_0], err = decodeU8(attr, b); return })
		}
	}
	if err := ad.Err(); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return &pfc, nil
}

// decodeCEEAppTable decodes DCB_ATTR_CEE_APP_TABLE: one DCB_ATTR_APP nest
// per entry (dcbnl_cee_fill uses DCB_ATTR_APP = 12, not DCB_ATTR_CEE_APP;
// both are accepted) holding DCB_APP_ATTR_IDTYPE (u8), DCB_APP_ATTR_ID
// (u16) and DCB_APP_ATTR_PRIORITY (u8).
func decodeCEEAppTable(b []byte) ([]App, error) {
	const attr = "DCB_ATTR_CEE_APP_TABLE"
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	apps := []App{}
	for ad.Next() {
		if typ := ad.Type(); typ != DCB_ATTR_APP && typ != DCB_ATTR_CEE_APP {
			continue
		}
		var a App
		ad.Nested(func(nad *netlink.AttributeDecoder) error {
			for nad.Next() {
				switch nad.Type() {
				case DCB_APP_ATTR_IDTYPE:
					nad.Do(func(b []byte) (err error) { a.Selector, err = decodeU8("DCB_APP_ATTR_IDTYPE", b); return })
				case DCB_APP_ATTR_ID:
					nad.Do(func(b []byte) (err error) { a.Protocol, err = decodeU16("DCB_APP_ATTR_ID", b); return })
				case DCB_APP_ATTR_PRIORITY:
					nad.Do(func(b []byte) (err error) { a.Priority, err = decodeU8("DCB_APP_ATTR_PRIORITY", b); return })
				}
			}
			return nil
		})
		apps = append(apps, a)
	}
	if err := ad.Err(); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return apps, nil
}

// decodeCEEFeat decodes DCB_ATTR_CEE_FEAT: DCB_FEATCFG_ATTR_PG, _PFC and
// _APP u8 flags.
func decodeCEEFeat(b []byte) (*CEEFeat, error) {
	const attr = "DCB_ATTR_CEE_FEAT"
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	var f CEEFeat
	for ad.Next() {
		var dst **FeatFlags
		switch ad.Type() {
		case DCB_FEATCFG_ATTR_PG:
			dst = &f.PG
		case DCB_FEATCFG_ATTR_PFC:
			dst = &f.PFC
		case DCB_FEATCFG_ATTR_APP:
			dst = &f.App
		default:
			continue
		}
		ad.Do(func(b []byte) error {
			v, err := decodeU8(attr, b)
			*dst = new(FeatFlags(v))
			return err
		})
	}
	if err := ad.Err(); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return &f, nil
}

// decodeCEEPeerApp decodes DCB_ATTR_CEE_PEER_APP_TABLE (dcbnl_build_peer_app):
// DCB_ATTR_CEE_PEER_APP_INFO then DCB_ATTR_CEE_PEER_APP entries.
func decodeCEEPeerApp(b []byte) (*CEEPeerApp, error) {
	const attr = "DCB_ATTR_CEE_PEER_APP_TABLE"
	ad, err := nl.NewDecoder(attr, b)
	if err != nil {
		return nil, err
	}
	pa := CEEPeerApp{Apps: []App{}}
	for ad.Next() {
		switch ad.Type() {
		case DCB_ATTR_CEE_PEER_APP_INFO:
			ad.Do(func(b []byte) (err error) {
				pa.Info, err = decodeStruct[PeerAppInfo]("DCB_ATTR_CEE_PEER_APP_INFO", b)
				return
			})
		case DCB_ATTR_CEE_PEER_APP:
			ad.Do(func(b []byte) error {
				a, err := decodeStruct[App]("DCB_ATTR_CEE_PEER_APP", b)
				if err == nil {
					pa.Apps = append(pa.Apps, *a)
				}
				return err
			})
		}
	}
	if err := ad.Err(); err != nil {
		return nil, nl.InAttr(attr, err)
	}
	return &pa, nil
}

// decodeStatus finds the u8 attribute typ (named attr) among the top-level
// attributes b of a reply: the status of IEEE_SET and IEEE_DEL
// (DCB_ATTR_IEEE) or of SDCBX, or the mode of GDCBX (DCB_ATTR_DCBX).
func decodeStatus(b []byte, typ uint16, attr string) (uint8, error) {
	ad, err := nl.NewDecoder("", b)
	if err != nil {
		return 0, err
	}
	var (
		v     uint8
		found bool
	)
	for ad.Next() {
		if ad.Type() == typ {
			found = true
			ad.Do(func(b []byte) (err error) { v, err = decodeU8(attr, b); return })
		}
	}
	if err := ad.Err(); err != nil {
		return 0, nl.InAttr("", err)
	}
	if !found {
		return 0, nl.Malformed("", "no %s in the reply", attr)
	}
	return v, nil
}

// decodeNotification decodes one RTNLGRP_DCB message: struct dcbmsg, then
// the attributes of dcbnl_ieee_fill (an IEEE notification) or of
// dcbnl_cee_fill (a CEE one, recognised by its DCB_ATTR_CEE nest).
func decodeNotification(m netlink.Message) Notification {
	if len(m.Data) < SizeofDCBMsg {
		return Notification{Err: nl.Malformed("", "notification of %d bytes is shorter than struct dcbmsg", len(m.Data))}
	}
	n := Notification{Cmd: m.Data[1]}
	attrs := m.Data[SizeofDCBMsg:]
	if hasAttr(attrs, DCB_ATTR_CEE) {
		n.Ifname, n.CEE, n.Err = decodeCEE(attrs)
	} else {
		n.Ifname, n.IEEE, n.Err = decodeIEEE(attrs)
	}
	return n
}

// hasAttr reports whether the attributes b include one of type typ.
func hasAttr(b []byte, typ uint16) bool {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return false
	}
	for ad.Next() {
		if ad.Type() == typ {
			return true
		}
	}
	return false
}

// unmarshalMaxrate decodes struct ieee_maxrate (8 × u64, host byte order).
func unmarshalMaxrate(b []byte) (*[8]uint64, error) {
	if len(b) < SizeofIEEEMaxrate {
		return nil, shortError("struct ieee_maxrate", SizeofIEEEMaxrate, len(b))
	}
	var r [8]uint64
	for i := range r {
		r[i] = binary.NativeEndian.Uint64(b[8*i:])
	}
	return &r, nil
}
