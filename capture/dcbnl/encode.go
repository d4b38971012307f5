// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"encoding/binary"

	"github.com/mdlayher/netlink"
)

// This file builds request payloads: struct dcbmsg followed by
// DCB_ATTR_IFNAME and the command's attributes. Nests are sent with
// NLA_F_NESTED set, as libmnl (iproute2's dcb) does; the kernel masks the
// flag with nla_type().

// dcbMsg returns struct dcbmsg for cmd: dcb_family AF_UNSPEC (0), cmd, and
// the u16 dcb_pad.
func dcbMsg(cmd uint8) []byte { return []byte{0, cmd, 0, 0} }

// request returns the payload of a request for cmd on ifname; fn, if not
// nil, adds the command's attributes after DCB_ATTR_IFNAME.
func request(cmd uint8, ifname string, fn func(ae *netlink.AttributeEncoder)) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	ae.String(DCB_ATTR_IFNAME, ifname) // NUL-terminated, as NLA_NUL_STRING requires
	if fn != nil {
		fn(ae)
	}
	attrs, err := ae.Encode()
	if err != nil {
		return nil, err
	}
	return append(dcbMsg(cmd), attrs...), nil
}

// ieeeSetRequest returns the payload of DCB_CMD_IEEE_SET: DCB_ATTR_IEEE
// holding DCB_ATTR_IEEE_ETS, DCB_ATTR_IEEE_MAXRATE, DCB_ATTR_IEEE_PFC,
// DCB_ATTR_IEEE_APP_TABLE, DCB_ATTR_DCB_BUFFER and
// DCB_ATTR_DCB_APP_TRUST_TABLE, each only when set in s.
func ieeeSetRequest(ifname string, s *IEEESet) ([]byte, error) {
	return request(DCB_CMD_IEEE_SET, ifname, func(ae *netlink.AttributeEncoder) {
		ae.Nested(DCB_ATTR_IEEE, func(nae *netlink.AttributeEncoder) error {
			if s.ETS != nil {
				nae.Bytes(DCB_ATTR_IEEE_ETS, s.ETS.appendTo(nil))
			}
			if s.MaxRate != nil {
				nae.Bytes(DCB_ATTR_IEEE_MAXRATE, appendMaxrate(nil, s.MaxRate))
			}
			if s.PFC != nil {
				nae.Bytes(DCB_ATTR_IEEE_PFC, s.PFC.appendTo(nil))
			}
			if s.Apps != nil {
				nae.Nested(DCB_ATTR_IEEE_APP_TABLE, appTable(s.Apps))
			}
			if s.Buffer != nil {
				nae.Bytes(DCB_ATTR_DCB_BUFFER, s.Buffer.appendTo(nil))
			}
			if s.AppTrust != nil {
				nae.Nested(DCB_ATTR_DCB_APP_TRUST_TABLE, trustTable(s.AppTrust))
			}
			if s.Rewr != nil {
				nae.Nested(DCB_ATTR_DCB_REWR_TABLE, appTable(s.Rewr))
			}
			return nil
		})
	})
}

// ieeeDelRequest returns the payload of DCB_CMD_IEEE_DEL removing apps
// from the table of type table (DCB_ATTR_IEEE_APP_TABLE or
// DCB_ATTR_DCB_REWR_TABLE).
func ieeeDelRequest(ifname string, table uint16, apps []App) ([]byte, error) {
	return request(DCB_CMD_IEEE_DEL, ifname, func(ae *netlink.AttributeEncoder) {
		ae.Nested(DCB_ATTR_IEEE, func(nae *netlink.AttributeEncoder) error {
			nae.Nested(table, appTable(apps))
			return nil
		})
	})
}

// appTable encodes apps as the entries of an APP table nest: struct dcb_app
// typed DCB_ATTR_IEEE_APP, or DCB_ATTR_DCB_APP for selector DCB_APP_SEL_PCP,
// which is what the kernel (6.2+) requires of each selector
// (dcbnl_app_selector_validate).
func appTable(apps []App) func(*netlink.AttributeEncoder) error {
	return func(ae *netlink.AttributeEncoder) error {
		for _, a := range apps {
			typ := uint16(DCB_ATTR_IEEE_APP)
			if a.Selector == DCB_APP_SEL_PCP {
				typ = DCB_ATTR_DCB_APP
			}
			ae.Bytes(typ, a.appendTo(nil))
		}
		return nil
	}
}

// trustTable encodes a trust table: one u8 selector per attribute, typed
// as the kernel types it (dcbnl_app_attr_type_get): DCB_ATTR_DCB_APP for
// DCB_APP_SEL_PCP, DCB_ATTR_IEEE_APP for the IEEE selectors.
func trustTable(sels []uint8) func(*netlink.AttributeEncoder) error {
	return func(ae *netlink.AttributeEncoder) error {
		for _, s := range sels {
			typ := uint16(DCB_ATTR_IEEE_APP)
			if s == DCB_APP_SEL_PCP {
				typ = DCB_ATTR_DCB_APP
			}
			ae.Uint8(typ, s)
		}
		return nil
	}
}

// sdcbxRequest returns the payload of DCB_CMD_SDCBX setting mode m.
func sdcbxRequest(ifname string, m Mode) ([]byte, error) {
	return request(DCB_CMD_SDCBX, ifname, func(ae *netlink.AttributeEncoder) {
		ae.Uint8(DCB_ATTR_DCBX, uint8(m))
	})
}

// appendMaxrate appends struct ieee_maxrate (8 × u64 kbit/s, host byte
// order, no padding: SizeofIEEEMaxrate) to b.
func appendMaxrate(b []byte, m *[8]uint64) []byte {
	for _, v := range m {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	return b
}
