// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
	"net"
)

// EtherType is the LLDP EtherType (IEEE Std 802.1AB-2016, 7.2).
const EtherType = 0x88cc

// A MAC is an IEEE 802 MAC address; unlike net.HardwareAddr it is
// comparable and needs no allocation.
type MAC [6]byte

// LLDP destination group addresses (IEEE Std 802.1AB-2016, Table 7-1).
var (
	NearestBridge         = MAC{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}
	NearestNonTPMRBridge  = MAC{0x01, 0x80, 0xc2, 0x00, 0x00, 0x03}
	NearestCustomerBridge = MAC{0x01, 0x80, 0xc2, 0x00, 0x00, 0x00}
)

// String returns the address as "02:00:00:00:00:01".
func (m MAC) String() string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// MarshalText returns String.
func (m MAC) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses "02:00:00:00:00:01" (six hexadecimal octets
// separated by colons or hyphens).
func (m *MAC) UnmarshalText(b []byte) error {
	hw, err := net.ParseMAC(string(b))
	if err != nil || len(hw) != len(m) {
		return fmt.Errorf("lldp: %q is not a 6-byte MAC address", b)
	}
	copy(m[:], hw)
	return nil
}

// Scope names the LLDP agent a destination address belongs to. DCBX runs
// only on the nearest-bridge agent.
func (m MAC) Scope() string {
	switch m {
	case NearestBridge:
		return "nearest-bridge"
	case NearestNonTPMRBridge:
		return "nearest-nontpmr-bridge"
	case NearestCustomerBridge:
		return "nearest-customer-bridge"
	}
	return "other"
}

// An EthernetHeader is the part of an LLDP frame before the LLDPDU.
type EthernetHeader struct {
	Dst, Src MAC
	Tagged   bool   // an 802.1Q (0x8100) or 802.1ad (0x88a8) tag preceded the EtherType
	VLAN     uint16 // VLAN ID of the outermost tag
	PCP      uint8  // priority code point of the outermost tag
}

// SplitFrame parses the Ethernet header of an LLDP frame and returns the
// LLDPDU that follows, which aliases b (padding included). Up to two VLAN
// tags are skipped. It does not allocate. A frame of another EtherType
// gives ErrNotLLDP.
func SplitFrame(b []byte) (EthernetHeader, []byte, error) {
	var h EthernetHeader
	if len(b) < 14 {
		return h, nil, fmt.Errorf("lldp: %w: Ethernet frame of %d bytes", ErrTruncated, len(b))
	}
	copy(h.Dst[:], b[0:6])
	copy(h.Src[:], b[6:12])
	off := 12
	et := binary.BigEndian.Uint16(b[off:])
	for range 2 {
		if et != 0x8100 && et != 0x88a8 {
			break
		}
		if len(b) < off+6 {
			return h, nil, fmt.Errorf("lldp: %w: VLAN tag cut off", ErrTruncated)
		}
		if !h.Tagged {
			tci := binary.BigEndian.Uint16(b[off+2:])
			h.Tagged, h.PCP, h.VLAN = true, uint8(tci>>13), tci&0xfff
		}
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	if et != EtherType {
		return h, nil, fmt.Errorf("lldp: %w: EtherType %#04x", ErrNotLLDP, et)
	}
	return h, b[off+2:], nil
}

// AppendFrame appends an untagged Ethernet frame carrying du from src to
// dst, padded to the 60-byte minimum (FCS excluded), to b.
func AppendFrame(b []byte, dst, src MAC, du *DU) ([]byte, error) {
	start := len(b)
	b = append(b, dst[:]...)
	b = append(b, src[:]...)
	b = binary.BigEndian.AppendUint16(b, EtherType)
	b, err := du.AppendBinary(b)
	if err != nil {
		return b[:start], err
	}
	for len(b)-start < 60 {
		b = append(b, 0)
	}
	return b, nil
}
