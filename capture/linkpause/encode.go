// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"encoding/binary"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// appendAttr appends a netlink attribute of type typ carrying data, padded
// to NLA_ALIGNTO, in host byte order.
func appendAttr(b []byte, typ uint16, data []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(nlaHdrLen+len(data)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%nlaAlignTo != 0 {
		b = append(b, 0)
	}
	return b
}

// cString returns s with its terminating NUL.
func cString(s string) []byte { return append([]byte(s), 0) }

// pauseGetRequest returns the payload of an ETHTOOL_MSG_PAUSE_GET request
// for ifname (struct genlmsghdr, then the ETHTOOL_A_PAUSE_HEADER nest with
// ETHTOOL_A_HEADER_DEV_NAME and, when flags is not 0,
// ETHTOOL_A_HEADER_FLAGS), as ethnl_parse_header_dev_get reads it.
func pauseGetRequest(ifname string, flags uint32) []byte {
	hdr := appendAttr(nil, ethtoolAHeaderDevName, cString(ifname))
	if flags != 0 {
		hdr = appendAttr(hdr, ethtoolAHeaderFlags, binary.NativeEndian.AppendUint32(nil, flags))
	}
	b := []byte{ethtoolMsgPauseGet, ethtoolGenlVersion, 0, 0}
	return appendAttr(b, nlaFNested|ethtoolAPauseHeader, hdr)
}

// getFamilyRequest returns the payload of a CTRL_CMD_GETFAMILY request for
// the family name.
func getFamilyRequest(name string) []byte {
	b := []byte{ctrlCmdGetFamily, ctrlVersion, 0, 0}
	return appendAttr(b, ctrlAttrFamilyName, cString(name))
}

// decodeFamily returns the family ID from the attributes of a
// CTRL_CMD_NEWFAMILY reply about the family name.
func decodeFamily(b []byte, name string) (uint16, error) {
	var id uint16
	var gotName string
	s := seen{}
	err := walkAttrs(b, "CTRL_CMD_NEWFAMILY reply", func(typ uint16, data []byte) error {
		switch typ {
		case ctrlAttrFamilyID:
			if err := s.once(typ, "CTRL_ATTR_FAMILY_ID"); err != nil {
				return err
			}
			if len(data) != 2 {
				return nl.Malformed("CTRL_ATTR_FAMILY_ID", "u16 of %d bytes", len(data))
			}
			id = binary.NativeEndian.Uint16(data)
		case ctrlAttrFamilyName:
			if err := s.once(typ, "CTRL_ATTR_FAMILY_NAME"); err != nil {
				return err
			}
			gotName = nlclient.CString(data)
		}
		return nil
	})
	switch {
	case err != nil:
		return 0, err
	case id == 0:
		return 0, nl.Malformed("CTRL_ATTR_FAMILY_ID", "missing or 0")
	case gotName != "" && gotName != name:
		return 0, nl.Malformed("CTRL_ATTR_FAMILY_NAME", "reply about family %q, asked about %q", gotName, name)
	}
	return id, nil
}
