// SPDX-License-Identifier: Apache-2.0

package casebook

// The case's NIC answers DCB netlink and ethtool netlink in bytes, as the
// kernel would: the replies are written out to the kernel's layouts
// (include/uapi/linux/dcbnl.h, net/dcb/dcbnl.c dcbnl_ieee_fill;
// include/uapi/linux/ethtool_netlink.h, net/ethtool/pause.c;
// include/uapi/linux/genetlink.h, net/netlink/genetlink.c
// ctrl_fill_info), so that a case runs through the same netlink clients
// and decoders as a live run, and a recording of it holds the byte-exact
// replies.

import (
	"encoding/binary"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// dcbAttrAppTrust is DCB_ATTR_DCB_APP_TRUST (enum dcbnl_apptrust_attrs,
// Linux 6.2): one u8 selector of the trust table.
const dcbAttrAppTrust = 1

// dcbConn returns a NETLINK_ROUTE connection answering as the case's NIC:
// DCB_CMD_IEEE_GET with dcbnl_ieee_fill's attributes, DCB_CMD_GDCBX with
// the mode, anything else (or a NIC without DCB netlink: no dcbnl_ops)
// EOPNOTSUPP.
func (k *fakeKernel) dcbConn() *netlink.Conn {
	return nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, nil
		}
		req := reqs[0]
		if k.ieee == nil || len(req.Data) < dcbnl.SizeofDCBMsg || req.Header.Type != dcbnl.RTM_GETDCB {
			return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
		}
		cmd := req.Data[1]
		ae := netlink.NewAttributeEncoder()
		ae.String(dcbnl.DCB_ATTR_IFNAME, ifnameOf(req.Data[dcbnl.SizeofDCBMsg:]))
		switch cmd {
		case dcbnl.DCB_CMD_IEEE_GET:
			ae.Nested(dcbnl.DCB_ATTR_IEEE, func(ne *netlink.AttributeEncoder) error { return k.ieeeNest(ne) })
			ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(k.mode))
		case dcbnl.DCB_CMD_GDCBX:
			ae.Uint8(dcbnl.DCB_ATTR_DCBX, uint8(k.mode))
		default:
			return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
		}
		attrs, err := ae.Encode()
		if err != nil {
			return nil, err
		}
		data := append([]byte{syscall.AF_UNSPEC, cmd, 0, 0}, attrs...) // struct dcbmsg
		return []netlink.Message{{Header: netlink.Header{Type: dcbnl.RTM_GETDCB, Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: data}}, nil
	})
}

// ieeeNest writes the DCB_ATTR_IEEE nest: ETS, PFC, the APP table, the
// buffer split and the trust table, each when the NIC has it.
func (k *fakeKernel) ieeeNest(ae *netlink.AttributeEncoder) error {
	ie := k.ieee
	if ie.ETS != nil {
		b, err := ie.ETS.MarshalBinary()
		if err != nil {
			return err
		}
		ae.Bytes(dcbnl.DCB_ATTR_IEEE_ETS, b)
	}
	if ie.PFC != nil {
		b, err := ie.PFC.MarshalBinary()
		if err != nil {
			return err
		}
		ae.Bytes(dcbnl.DCB_ATTR_IEEE_PFC, b)
	}
	ae.Nested(dcbnl.DCB_ATTR_IEEE_APP_TABLE, func(ne *netlink.AttributeEncoder) error {
		for _, a := range ie.App {
			b, err := a.MarshalBinary()
			if err != nil {
				return err
			}
			ne.Bytes(dcbnl.DCB_ATTR_IEEE_APP, b)
		}
		return nil
	})
	if bf := ie.Buffer; bf != nil {
		// struct dcbnl_buffer: prio2buffer[8] u8, buffer_size[8] u32,
		// total_size u32 (44 bytes, host byte order).
		b := append([]byte{}, bf.PrioBuffer[:]...)
		for _, s := range bf.Size {
			b = binary.NativeEndian.AppendUint32(b, s)
		}
		ae.Bytes(dcbnl.DCB_ATTR_DCB_BUFFER, binary.NativeEndian.AppendUint32(b, bf.TotalSize))
	}
	if ie.AppTrust != nil {
		ae.Nested(dcbnl.DCB_ATTR_DCB_APP_TRUST_TABLE, func(ne *netlink.AttributeEncoder) error {
			for _, s := range ie.AppTrust {
				ne.Uint8(dcbAttrAppTrust, s)
			}
			return nil
		})
	}
	return nil
}

// ifnameOf returns DCB_ATTR_IFNAME of a request's attributes.
func ifnameOf(b []byte) string {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return ""
	}
	for ad.Next() {
		if ad.Type() == dcbnl.DCB_ATTR_IFNAME {
			return ad.String()
		}
	}
	return ""
}

// Generic netlink and ethtool netlink numbers (include/uapi/linux/
// genetlink.h, ethtool_netlink.h).
const (
	genlIDCtrl              = 0x10 // GENL_ID_CTRL
	ctrlCmdGetFamily        = 3    // CTRL_CMD_GETFAMILY
	ctrlCmdNewFamily        = 1    // CTRL_CMD_NEWFAMILY
	ctrlAttrFamilyID        = 1    // CTRL_ATTR_FAMILY_ID
	ctrlAttrFamilyName      = 2    // CTRL_ATTR_FAMILY_NAME
	ethtoolFamilyID         = 0x14 // the ID the controller gives "ethtool" here (any above GENL_MIN_ID)
	ethtoolMsgPauseGetReply = 22   // ETHTOOL_MSG_PAUSE_GET_REPLY
	ethtoolAPauseHeader     = 1    // ETHTOOL_A_PAUSE_HEADER
	ethtoolAPauseAutoneg    = 2    // ETHTOOL_A_PAUSE_AUTONEG
	ethtoolAPauseRX         = 3    // ETHTOOL_A_PAUSE_RX
	ethtoolAPauseTX         = 4    // ETHTOOL_A_PAUSE_TX
	ethtoolAPauseStats      = 5    // ETHTOOL_A_PAUSE_STATS
	ethtoolAHeaderDevIndex  = 1    // ETHTOOL_A_HEADER_DEV_INDEX
	ethtoolAHeaderDevName   = 2    // ETHTOOL_A_HEADER_DEV_NAME
	casebookIfindex         = 2    // the case's interface index (Run's LinkChanged)
)

// pauseConn returns a NETLINK_GENERIC connection answering as the case's
// kernel: the controller resolves "ethtool", and ETHTOOL_MSG_PAUSE_GET
// answers with the link-wide PAUSE settings and an empty statistics nest
// (the driver has no get_pause_stats: ethtool_pause_get's stats are left
// unset, net/ethtool/pause.c pause_fill_reply puts the nest anyway).
func pauseConn(p *LinkPause, ifname string) *netlink.Conn {
	return nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, nil
		}
		req := reqs[0]
		ae := netlink.NewAttributeEncoder()
		var cmd uint8
		switch {
		case req.Header.Type == genlIDCtrl && len(req.Data) >= 4 && req.Data[0] == ctrlCmdGetFamily:
			cmd = ctrlCmdNewFamily
			ae.Uint16(ctrlAttrFamilyID, ethtoolFamilyID)
			ae.String(ctrlAttrFamilyName, "ethtool")
		case req.Header.Type == ethtoolFamilyID && p != nil:
			cmd = ethtoolMsgPauseGetReply
			ae = pauseAttrs(p, ifname)
		default:
			return nltest.Error(int(syscall.EOPNOTSUPP), reqs)
		}
		attrs, err := ae.Encode()
		if err != nil {
			return nil, err
		}
		data := append([]byte{cmd, 1, 0, 0}, attrs...) // struct genlmsghdr: cmd, version
		return []netlink.Message{{Header: netlink.Header{Type: req.Header.Type, Sequence: req.Header.Sequence, PID: req.Header.PID}, Data: data}}, nil
	})
}

// pauseAttrs are a PAUSE_GET reply's attributes (pause_fill_reply): the
// header, each setting the case gives (u8), the statistics nest.
func pauseAttrs(p *LinkPause, ifname string) *netlink.AttributeEncoder {
	ae := netlink.NewAttributeEncoder()
	ae.Nested(ethtoolAPauseHeader, func(ne *netlink.AttributeEncoder) error {
		ne.Uint32(ethtoolAHeaderDevIndex, casebookIfindex)
		ne.String(ethtoolAHeaderDevName, ifname)
		return nil
	})
	for _, s := range []struct {
		typ uint16
		v   *bool
	}{{ethtoolAPauseAutoneg, p.Autoneg}, {ethtoolAPauseRX, p.RX}, {ethtoolAPauseTX, p.TX}} {
		if s.v != nil {
			v := uint8(0)
			if *s.v {
				v = 1
			}
			ae.Uint8(s.typ, v)
		}
	}
	ae.Nested(ethtoolAPauseStats, func(*netlink.AttributeEncoder) error { return nil })
	return ae
}
