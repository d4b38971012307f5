// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
)

// A TLVType is the 7-bit type of an LLDP TLV (IEEE Std 802.1AB-2016, 8.4.1).
type TLVType uint8

// TLV types of IEEE Std 802.1AB-2016, Table 8-1.
const (
	TLVTypeEnd                TLVType = 0
	TLVTypeChassisID          TLVType = 1
	TLVTypePortID             TLVType = 2
	TLVTypeTTL                TLVType = 3
	TLVTypePortDescription    TLVType = 4
	TLVTypeSystemName         TLVType = 5
	TLVTypeSystemDescription  TLVType = 6
	TLVTypeSystemCapabilities TLVType = 7
	TLVTypeManagementAddress  TLVType = 8
	TLVTypeOrg                TLVType = 127 // organizationally specific
)

var tlvTypeNames = [...]string{
	TLVTypeEnd: "End", TLVTypeChassisID: "Chassis ID", TLVTypePortID: "Port ID",
	TLVTypeTTL: "TTL", TLVTypePortDescription: "Port Description",
	TLVTypeSystemName: "System Name", TLVTypeSystemDescription: "System Description",
	TLVTypeSystemCapabilities: "System Capabilities",
	TLVTypeManagementAddress:  "Management Address",
}

// String returns the TLV's name as in IEEE Std 802.1AB, or "Org" for 127 and
// "type N" for reserved types.
func (t TLVType) String() string {
	if int(t) < len(tlvTypeNames) {
		return tlvTypeNames[t]
	}
	if t == TLVTypeOrg {
		return "Org"
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// An OUI is an IEEE organizationally unique identifier.
type OUI [3]byte

// OUIs of the organizationally specific TLVs dcbtop decodes.
var (
	OUIIEEE8021 = OUI{0x00, 0x80, 0xc2} // IEEE 802.1: 802.1Qaz DCBX and the basic TLVs (IEEE Std 802.1Q-2018, Annex D)
	OUIIEEE8023 = OUI{0x00, 0x12, 0x0f} // IEEE 802.3 (IEEE Std 802.3-2018, Clause 79)
	OUICEE      = OUI{0x00, 0x1b, 0x21} // CEE / CIN DCBX
)

// String returns the OUI as "00-80-c2".
func (o OUI) String() string { return fmt.Sprintf("%02x-%02x-%02x", o[0], o[1], o[2]) }

// A TLV is one optional TLV of an LLDPDU. The set of implementations is
// closed: *Text, *SystemCapabilities, *ManagementAddress, *ETS, *PFC,
// *AppPriority, *CEE, *PortVLANID, *ProtocolVLANID, *VLANName,
// *ProtocolIdentity, *LinkAggregation, *CongestionNotification,
// *MACPHYStatus, *PowerViaMDI, *MaxFrameSize and *RawTLV.
type TLV interface {
	// Type returns the TLV's 7-bit type.
	Type() TLVType
	// appendValue appends the TLV's information string (after the 2-byte
	// header) to b.
	appendValue(b []byte) ([]byte, error)
}

var (
	_ TLV = &Text{}
	_ TLV = &SystemCapabilities{}
	_ TLV = &ManagementAddress{}
	_ TLV = &ETS{}
	_ TLV = &PFC{}
	_ TLV = &AppPriority{}
	_ TLV = &CEE{}
	_ TLV = &PortVLANID{}
	_ TLV = &ProtocolVLANID{}
	_ TLV = &VLANName{}
	_ TLV = &ProtocolIdentity{}
	_ TLV = &LinkAggregation{}
	_ TLV = &CongestionNotification{}
	_ TLV = &MACPHYStatus{}
	_ TLV = &PowerViaMDI{}
	_ TLV = &MaxFrameSize{}
	_ TLV = &RawTLV{}
)

// maxValueLen is the largest TLV information string: 9 bits.
const maxValueLen = 511

// AppendTLV appends t with its header to b. t must be an optional TLV:
// types 0 to 3 (End and the mandatory TLVs, which DU encodes itself) and
// types above 127 give ErrInvalidValue.
func AppendTLV(b []byte, t TLV) ([]byte, error) {
	if typ := t.Type(); typ <= TLVTypeTTL || typ > TLVTypeOrg {
		return b, fmt.Errorf("lldp: TLV %s: %w: not an optional TLV type", typ, ErrInvalidValue)
	}
	start := len(b)
	b = append(b, 0, 0)
	b, err := t.appendValue(b)
	if err != nil {
		return b[:start], err
	}
	n := len(b) - start - 2
	if n > maxValueLen {
		return b[:start], fmt.Errorf("lldp: TLV %s: %w: value of %d bytes exceeds %d", t.Type(), ErrInvalidValue, n, maxValueLen)
	}
	binary.BigEndian.PutUint16(b[start:], uint16(t.Type())<<9|uint16(n))
	return b, nil
}

// A ChassisIDSubtype says how a Chassis ID is to be read
// (IEEE Std 802.1AB-2016, Table 8-2).
type ChassisIDSubtype uint8

// Chassis ID subtypes.
const (
	ChassisIDSubtypeChassisComponent ChassisIDSubtype = 1
	ChassisIDSubtypeInterfaceAlias   ChassisIDSubtype = 2
	ChassisIDSubtypePortComponent    ChassisIDSubtype = 3
	ChassisIDSubtypeMACAddress       ChassisIDSubtype = 4
	ChassisIDSubtypeNetworkAddress   ChassisIDSubtype = 5
	ChassisIDSubtypeInterfaceName    ChassisIDSubtype = 6
	ChassisIDSubtypeLocallyAssigned  ChassisIDSubtype = 7
)

// A PortIDSubtype says how a Port ID is to be read
// (IEEE Std 802.1AB-2016, Table 8-3).
type PortIDSubtype uint8

// Port ID subtypes.
const (
	PortIDSubtypeInterfaceAlias  PortIDSubtype = 1
	PortIDSubtypePortComponent   PortIDSubtype = 2
	PortIDSubtypeMACAddress      PortIDSubtype = 3
	PortIDSubtypeNetworkAddress  PortIDSubtype = 4
	PortIDSubtypeInterfaceName   PortIDSubtype = 5
	PortIDSubtypeAgentCircuitID  PortIDSubtype = 6
	PortIDSubtypeLocallyAssigned PortIDSubtype = 7
)

// A ChassisID is the Chassis ID TLV: a subtype and the identifier bytes.
type ChassisID struct {
	Subtype ChassisIDSubtype
	ID      []byte
}

// A PortID is the Port ID TLV: a subtype and the identifier bytes.
type PortID struct {
	Subtype PortIDSubtype
	ID      []byte
}

// An idFormat says how IDs of one subtype read in String: the word naming
// the subtype and how the ID bytes are rendered.
type idFormat struct {
	word   string
	render func(id []byte) string
}

var chassisFormats = [...]idFormat{
	{"reserved", hexBytes}, {"chassis", idText}, {"ifalias", idText}, {"port", idText},
	{"mac", idMAC}, {"addr", idAddr}, {"ifname", idText}, {"local", idText},
}

var portFormats = [...]idFormat{
	{"reserved", hexBytes}, {"ifalias", idText}, {"port", idText}, {"mac", idMAC},
	{"addr", idAddr}, {"ifname", idText}, {"circuit", hexBytes}, {"local", idText},
}

// formatID renders an ID of the given subtype as "WORD VALUE"; subtypes
// beyond formats are "subtype-N" with the ID in hex.
func formatID(formats []idFormat, subtype uint8, id []byte) string {
	if int(subtype) < len(formats) {
		f := formats[subtype]
		return f.word + " " + f.render(id)
	}
	return fmt.Sprintf("subtype-%d %s", subtype, hexBytes(id))
}

// String renders the ID as "WORD VALUE", for example "mac 02:00:00:00:00:02",
// "ifname swp1" or "addr 192.0.2.1". Text subtypes are returned as sent
// (callers that print to a terminal must sanitize them); IDs that cannot be
// shown as text are rendered in hex.
func (c ChassisID) String() string { return formatID(chassisFormats[:], uint8(c.Subtype), c.ID) }

// String renders the ID as "WORD VALUE" like ChassisID.String.
func (p PortID) String() string { return formatID(portFormats[:], uint8(p.Subtype), p.ID) }

func idText(b []byte) string { return string(b) }

func idMAC(b []byte) string {
	if len(b) != 6 {
		return hexBytes(b)
	}
	return MAC(b).String()
}

// idAddr renders a network address ID: an IANA address family byte
// (1 IPv4, 2 IPv6) and the address (IEEE Std 802.1AB-2016, 8.5.2.3).
func idAddr(b []byte) string {
	if len(b) == 5 && b[0] == 1 {
		return netip.AddrFrom4([4]byte(b[1:])).String()
	}
	if len(b) == 17 && b[0] == 2 {
		return netip.AddrFrom16([16]byte(b[1:])).String()
	}
	return hexBytes(b)
}

func hexBytes(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02x", c)
	}
	return sb.String()
}

// A Text is one of the string TLVs: Port Description (4), System Name (5)
// or System Description (6) (IEEE Std 802.1AB-2016, 8.5.5 to 8.5.7). Value
// holds the bytes as sent; they are untrusted and may contain anything.
// The standard allows 255 bytes, but longer strings (up to the 511 bytes a
// TLV can hold) are decoded and re-encoded as sent.
type Text struct {
	Kind  TLVType
	Value string
}

// Type returns t.Kind.
func (t *Text) Type() TLVType { return t.Kind }

func (t *Text) appendValue(b []byte) ([]byte, error) {
	switch t.Kind {
	case TLVTypePortDescription, TLVTypeSystemName, TLVTypeSystemDescription:
	default:
		return b, fmt.Errorf("lldp: Text: %w: TLV %s is not a string TLV", ErrInvalidValue, t.Kind)
	}
	return append(b, t.Value...), nil
}

// AppendBinary appends the TLV, header included, to b.
func (t *Text) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, t) }

// MarshalBinary returns the TLV, header included.
func (t *Text) MarshalBinary() ([]byte, error) { return AppendTLV(nil, t) }

// A SystemCapabilities is the System Capabilities TLV
// (IEEE Std 802.1AB-2016, 8.5.8): two bitmaps of Table 8-4.
type SystemCapabilities struct {
	Capabilities uint16
	Enabled      uint16
}

// The system capabilities, as bits of a SystemCapabilities' Capabilities
// and Enabled fields (IEEE Std 802.1AB-2016, 8.5.8.1 and 8.5.8.2, Table
// 8-4: the standard numbers the bits from 1, CapOther being its bit 1).
// Bits 11-15 are reserved.
const (
	CapOther     uint16 = 1 << iota // other
	CapRepeater                     // repeater
	CapBridge                       // MAC Bridge component (IEEE Std 802.1Q)
	CapWLANAP                       // WLAN Access Point
	CapRouter                       // router
	CapTelephone                    // telephone
	CapDOCSIS                       // DOCSIS cable device
	CapStation                      // station only
	CapCVLAN                        // C-VLAN component of a VLAN Bridge (IEEE Std 802.1Q)
	CapSVLAN                        // S-VLAN component of a VLAN Bridge (IEEE Std 802.1Q)
	CapTPMR                         // Two-port MAC Relay component (IEEE Std 802.1Q)
)

// Type returns TLVTypeSystemCapabilities.
func (*SystemCapabilities) Type() TLVType { return TLVTypeSystemCapabilities }

func (s *SystemCapabilities) appendValue(b []byte) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, s.Capabilities)
	return binary.BigEndian.AppendUint16(b, s.Enabled), nil
}

// AppendBinary appends the TLV, header included, to b.
func (s *SystemCapabilities) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, s) }

// MarshalBinary returns the TLV, header included.
func (s *SystemCapabilities) MarshalBinary() ([]byte, error) { return AppendTLV(nil, s) }

// A ManagementAddress is the Management Address TLV
// (IEEE Std 802.1AB-2016, 8.5.9). Address holds 1 to 31 bytes and OID at
// most 128; Parse rejects other lengths with ErrInvalidLength and
// encoding them gives ErrInvalidValue.
//
//	1 byte:   address string length (subtype + address)
//	1 byte:   address subtype (IANA address family)
//	n bytes:  address
//	1 byte:   interface numbering subtype
//	4 bytes:  interface number
//	1 byte:   OID string length
//	m bytes:  OID
type ManagementAddress struct {
	Family    uint8 // IANA address family: 1 IPv4, 2 IPv6, 6 802 MAC ...
	Address   []byte
	IfSubtype uint8
	IfNumber  uint32
	OID       []byte
}

// Type returns TLVTypeManagementAddress.
func (*ManagementAddress) Type() TLVType { return TLVTypeManagementAddress }

func (m *ManagementAddress) appendValue(b []byte) ([]byte, error) {
	if len(m.Address) < 1 || len(m.Address) > 31 || len(m.OID) > 128 {
		return b, fmt.Errorf("lldp: Management Address: %w: address of %d bytes or OID of %d bytes", ErrInvalidValue, len(m.Address), len(m.OID))
	}
	b = append(b, uint8(1+len(m.Address)), m.Family)
	b = append(b, m.Address...)
	b = append(b, m.IfSubtype)
	b = binary.BigEndian.AppendUint32(b, m.IfNumber)
	b = append(b, uint8(len(m.OID)))
	return append(b, m.OID...), nil
}

func (m *ManagementAddress) unmarshal(v []byte) error {
	if len(v) < 9 {
		return errorf(ErrInvalidLength, "%d, want at least 9", len(v))
	}
	al := int(v[0])
	if al < 2 || al > 32 || 1+al+6 > len(v) {
		return errorf(ErrInvalidLength, "address string length %d in a %d-byte TLV", al, len(v))
	}
	m.Family = v[1]
	m.Address = clone(v[2 : 1+al])
	rest := v[1+al:]
	m.IfSubtype = rest[0]
	m.IfNumber = binary.BigEndian.Uint32(rest[1:5])
	ol := int(rest[5])
	if ol > 128 || 6+ol != len(rest) {
		return errorf(ErrInvalidLength, "OID length %d does not fit the TLV (%d bytes left, at most 128)", ol, len(rest)-6)
	}
	m.OID = clone(rest[6:])
	return nil
}

// Addr returns the address as a netip.Addr when it is IPv4 or IPv6.
func (m *ManagementAddress) Addr() (netip.Addr, bool) {
	switch {
	case m.Family == 1 && len(m.Address) == 4:
		return netip.AddrFrom4([4]byte(m.Address)), true
	case m.Family == 2 && len(m.Address) == 16:
		return netip.AddrFrom16([16]byte(m.Address)), true
	}
	return netip.Addr{}, false
}

// AppendBinary appends the TLV, header included, to b.
func (m *ManagementAddress) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, m) }

// MarshalBinary returns the TLV, header included.
func (m *ManagementAddress) MarshalBinary() ([]byte, error) { return AppendTLV(nil, m) }

// A RawTLV is a TLV dcbtop does not decode: a reserved type, or an
// organizationally specific TLV of an unknown OUI or subtype (then Value
// starts with the OUI and subtype, so it has at least 4 bytes). It is
// re-encoded byte for byte.
type RawTLV struct {
	T     TLVType
	Value []byte
}

// Type returns r.T.
func (r *RawTLV) Type() TLVType { return r.T }

func (r *RawTLV) appendValue(b []byte) ([]byte, error) {
	if r.T == TLVTypeOrg && len(r.Value) < 4 {
		return b, fmt.Errorf("lldp: TLV Org: %w: %d bytes, too short for OUI and subtype", ErrInvalidValue, len(r.Value))
	}
	return append(b, r.Value...), nil
}

// OrgID returns the OUI and subtype of an organizationally specific raw TLV;
// ok is false for other TLVs.
func (r *RawTLV) OrgID() (oui OUI, subtype uint8, ok bool) {
	if r.T != TLVTypeOrg || len(r.Value) < 4 {
		return OUI{}, 0, false
	}
	return OUI(r.Value[:3]), r.Value[3], true
}

// AppendBinary appends the TLV, header included, to b.
func (r *RawTLV) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, r) }

// MarshalBinary returns the TLV, header included.
func (r *RawTLV) MarshalBinary() ([]byte, error) { return AppendTLV(nil, r) }

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
