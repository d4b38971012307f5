// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
)

// Basic IEEE 802.1 TLV subtypes under OUI 00-80-C2 (IEEE Std 802.1Q-2018,
// Table D-1). Subtypes 9 to 12 are the 802.1Qaz TLVs (SubtypeETSConfig
// ...); 5, 6 and 13 on are kept as *RawTLV.
const (
	SubtypePortVLANID             uint8 = 1 // D.2.1
	SubtypeProtocolVLANID         uint8 = 2 // D.2.2
	SubtypeVLANName               uint8 = 3 // D.2.3
	SubtypeProtocolIdentity       uint8 = 4 // D.2.4
	SubtypeLinkAggregation        uint8 = 7 // D.2.7 (and IEEE Std 802.1AX-2014, Annex F)
	SubtypeCongestionNotification uint8 = 8 // D.2.6 (802.1Qau)
)

// IEEE 802.3 TLV subtypes under OUI 00-12-0F (IEEE Std 802.3-2018, Table
// 79-1). Subtypes 5 on are kept as *RawTLV.
const (
	SubtypeMACPHYStatus        uint8 = 1 // 79.3.1
	SubtypePowerViaMDI         uint8 = 2 // 79.3.2
	SubtypeLinkAggregation8023 uint8 = 3 // 79.3.3, deprecated for 802.1 subtype 7
	SubtypeMaxFrameSize        uint8 = 4 // 79.3.4
)

// Information string lengths (OUI and subtype included) of the TLVs above.
const (
	pvidLen         = 6
	ppvidLen        = 7
	vlanNameHdrLen  = 7  // OUI, subtype, VID, name length
	maxVLANNameLen  = 32 // IEEE Std 802.1Q-2018, D.2.3
	protoIDHdrLen   = 5  // OUI, subtype, identity length
	maxProtoIDLen   = 255
	linkAggLen      = 9
	cnLen           = 6
	macPHYLen       = 9
	powerLen        = 7  // the basic fields
	powerATExtLen   = 5  // type/source/priority, PD requested, PSE allocated power
	powerBTExtLen   = 22 // powerATExtLen and the IEEE Std 802.3bt-2018 fields
	maxFrameSizeLen = 6
)

// Bits of the flag and status bytes.
const (
	ppvidSupported   = 0x02 // Port And Protocol VLAN ID flags
	ppvidEnabled     = 0x04
	aggCapable       = 0x01 // Link Aggregation status
	aggEnabled       = 0x02
	autonegSupported = 0x01 // MAC/PHY auto-negotiation support/status
	autonegEnabled   = 0x02
	powerPSE         = 0x01 // Power via MDI, MDI power support
	powerSupported   = 0x02
	powerEnabled     = 0x04
	powerPairsCtl    = 0x08
)

// appendOrgHeader appends an organizationally specific TLV's OUI and
// subtype.
func appendOrgHeader(b []byte, oui OUI, sub uint8) []byte {
	b = append(b, oui[:]...)
	return append(b, sub)
}

// checkLen returns an ErrInvalidLength error unless the information
// string v is want bytes long.
func checkLen(v []byte, want int) error {
	if len(v) != want {
		return errorf(ErrInvalidLength, "%d, want %d", len(v), want)
	}
	return nil
}

// priorities lists the bits set in bits, ascending: bit n is priority n.
func priorities(bits uint8) []uint8 {
	out := []uint8{}
	for i := range uint8(numPrios) {
		if bits&(1<<i) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// A PortVLANID is the Port VLAN ID TLV (OUI 00-80-C2, subtype 1; IEEE Std
// 802.1Q-2018, D.2.1).
//
//	bytes 4-5: PVID
type PortVLANID struct {
	// PVID is the port's VLAN identifier for untagged and priority-tagged
	// frames; 0 when the port does not support port-based VLANs
	// (D.2.1).
	PVID uint16
}

// Type returns TLVTypeOrg.
func (*PortVLANID) Type() TLVType { return TLVTypeOrg }

// Subtype returns 1.
func (*PortVLANID) Subtype() uint8 { return SubtypePortVLANID }

func (p *PortVLANID) appendValue(b []byte) ([]byte, error) {
	b = appendOrgHeader(b, OUIIEEE8021, SubtypePortVLANID)
	return binary.BigEndian.AppendUint16(b, p.PVID), nil
}

func (p *PortVLANID) unmarshal(v []byte) error {
	if err := checkLen(v, pvidLen); err != nil {
		return err
	}
	p.PVID = binary.BigEndian.Uint16(v[4:])
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (p *PortVLANID) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, p) }

// MarshalBinary returns the TLV, header included.
func (p *PortVLANID) MarshalBinary() ([]byte, error) { return AppendTLV(nil, p) }

// A ProtocolVLANID is the Port And Protocol VLAN ID TLV (OUI 00-80-C2,
// subtype 2; IEEE Std 802.1Q-2018, D.2.2). A port sends one per protocol
// VLAN.
//
//	byte 4:    flags: bit 1 supported, bit 2 enabled, the others reserved
//	bytes 5-6: PPVID
type ProtocolVLANID struct {
	// Flags is the flags byte as sent, reserved bits included; read it
	// with Supported and Enabled.
	Flags uint8
	// PPVID is the protocol VLAN identifier, 0 when the port supports
	// no protocol VLANs or has none enabled (D.2.2).
	PPVID uint16
}

// Type returns TLVTypeOrg.
func (*ProtocolVLANID) Type() TLVType { return TLVTypeOrg }

// Subtype returns 2.
func (*ProtocolVLANID) Subtype() uint8 { return SubtypeProtocolVLANID }

// Supported reports the flag "port and protocol VLAN supported" (D.2.2).
func (p *ProtocolVLANID) Supported() bool { return p.Flags&ppvidSupported != 0 }

// Enabled reports the flag "port and protocol VLAN enabled" (D.2.2).
func (p *ProtocolVLANID) Enabled() bool { return p.Flags&ppvidEnabled != 0 }

func (p *ProtocolVLANID) appendValue(b []byte) ([]byte, error) {
	b = appendOrgHeader(b, OUIIEEE8021, SubtypeProtocolVLANID)
	b = append(b, p.Flags)
	return binary.BigEndian.AppendUint16(b, p.PPVID), nil
}

func (p *ProtocolVLANID) unmarshal(v []byte) error {
	if err := checkLen(v, ppvidLen); err != nil {
		return err
	}
	*p = ProtocolVLANID{Flags: v[4], PPVID: binary.BigEndian.Uint16(v[5:])}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (p *ProtocolVLANID) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, p) }

// MarshalBinary returns the TLV, header included.
func (p *ProtocolVLANID) MarshalBinary() ([]byte, error) { return AppendTLV(nil, p) }

// A VLANName is the VLAN Name TLV (OUI 00-80-C2, subtype 3; IEEE Std
// 802.1Q-2018, D.2.3): the name of one VLAN the port is a member of.
// Name holds at most 32 bytes (D.2.3) and fills the rest of the TLV;
// Parse discards a VLAN Name TLV whose name length byte says otherwise
// (ErrInvalidLength) and encoding a longer name gives ErrInvalidValue.
//
//	bytes 4-5: VLAN ID
//	byte 6:    VLAN name length, 0..32
//	bytes 7-:  VLAN name
type VLANName struct {
	VID uint16
	// Name is the VLAN name as sent: untrusted bytes, not necessarily
	// text (callers that print it to a terminal must sanitize it).
	Name []byte
}

// Type returns TLVTypeOrg.
func (*VLANName) Type() TLVType { return TLVTypeOrg }

// Subtype returns 3.
func (*VLANName) Subtype() uint8 { return SubtypeVLANName }

func (n *VLANName) appendValue(b []byte) ([]byte, error) {
	if len(n.Name) > maxVLANNameLen {
		return b, fmt.Errorf("lldp: VLAN Name: %w: name of %d bytes exceeds %d", ErrInvalidValue, len(n.Name), maxVLANNameLen)
	}
	b = appendOrgHeader(b, OUIIEEE8021, SubtypeVLANName)
	b = binary.BigEndian.AppendUint16(b, n.VID)
	b = append(b, uint8(len(n.Name)))
	return append(b, n.Name...), nil
}

func (n *VLANName) unmarshal(v []byte) error {
	if len(v) < vlanNameHdrLen {
		return errorf(ErrInvalidLength, "%d, want at least %d", len(v), vlanNameHdrLen)
	}
	l := int(v[6])
	if l > maxVLANNameLen || vlanNameHdrLen+l != len(v) {
		return errorf(ErrInvalidLength, "VLAN name length %d in a %d-byte TLV, want 0..%d filling it", l, len(v), maxVLANNameLen)
	}
	*n = VLANName{VID: binary.BigEndian.Uint16(v[4:]), Name: clone(v[vlanNameHdrLen:])}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (n *VLANName) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, n) }

// MarshalBinary returns the TLV, header included.
func (n *VLANName) MarshalBinary() ([]byte, error) { return AppendTLV(nil, n) }

// A ProtocolIdentity is the Protocol Identity TLV (OUI 00-80-C2, subtype
// 4; IEEE Std 802.1Q-2018, D.2.4): the first bytes of a protocol the port
// carries, from its EtherType or LLC header on (0x88cc for LLDP, 0x888e
// for EAPOL). Identity fills the rest of the TLV; Parse discards a
// Protocol Identity TLV whose length byte says otherwise
// (ErrInvalidLength).
//
//	byte 4:   protocol identity length, 0..255
//	bytes 5-: protocol identity
type ProtocolIdentity struct {
	// Identity is the protocol identity as sent: untrusted bytes.
	Identity []byte
}

// Type returns TLVTypeOrg.
func (*ProtocolIdentity) Type() TLVType { return TLVTypeOrg }

// Subtype returns 4.
func (*ProtocolIdentity) Subtype() uint8 { return SubtypeProtocolIdentity }

func (p *ProtocolIdentity) appendValue(b []byte) ([]byte, error) {
	if len(p.Identity) > maxProtoIDLen {
		return b, fmt.Errorf("lldp: Protocol Identity: %w: identity of %d bytes exceeds %d", ErrInvalidValue, len(p.Identity), maxProtoIDLen)
	}
	b = appendOrgHeader(b, OUIIEEE8021, SubtypeProtocolIdentity)
	b = append(b, uint8(len(p.Identity)))
	return append(b, p.Identity...), nil
}

func (p *ProtocolIdentity) unmarshal(v []byte) error {
	if len(v) < protoIDHdrLen {
		return errorf(ErrInvalidLength, "%d, want at least %d", len(v), protoIDHdrLen)
	}
	if l := int(v[4]); protoIDHdrLen+l != len(v) {
		return errorf(ErrInvalidLength, "protocol identity length %d in a %d-byte TLV, want it to fill the TLV", l, len(v))
	}
	p.Identity = clone(v[protoIDHdrLen:])
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (p *ProtocolIdentity) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, p) }

// MarshalBinary returns the TLV, header included.
func (p *ProtocolIdentity) MarshalBinary() ([]byte, error) { return AppendTLV(nil, p) }

// A LinkAggregation is the Link Aggregation TLV: the IEEE 802.1 one (OUI
// 00-80-C2, subtype 7; IEEE Std 802.1Q-2018, D.2.7 and IEEE Std
// 802.1AX-2014, Annex F) or the deprecated IEEE 802.3 one it replaced,
// of the same layout (OUI 00-12-0F, subtype 3; IEEE Std 802.3-2018,
// 79.3.3). lldpd sends the 802.3 one.
//
//	byte 4:    aggregation status: bit 0 capable, bit 1 enabled, bits 3-2
//	           port type (802.1AX-2014; reserved in the 802.3 TLV)
//	bytes 5-8: aggregated port ID (the aggregator's ifIndex), 0 when
//	           not aggregated
type LinkAggregation struct {
	// OUI is the OUI the TLV came under: OUIIEEE8021 or OUIIEEE8023.
	// Encoding another gives ErrInvalidValue.
	OUI OUI
	// Status is the aggregation status byte as sent, reserved bits
	// included; read it with Capable, Enabled and PortType.
	Status uint8
	PortID uint32
}

// Type returns TLVTypeOrg.
func (*LinkAggregation) Type() TLVType { return TLVTypeOrg }

// Subtype returns 7 for the 802.1 TLV and 3 for the 802.3 one.
func (l *LinkAggregation) Subtype() uint8 {
	if l.OUI == OUIIEEE8023 {
		return SubtypeLinkAggregation8023
	}
	return SubtypeLinkAggregation
}

// Capable reports the status bit "aggregation capability".
func (l *LinkAggregation) Capable() bool { return l.Status&aggCapable != 0 }

// Enabled reports the status bit "aggregation status": the link is in an
// aggregation.
func (l *LinkAggregation) Enabled() bool { return l.Status&aggEnabled != 0 }

// PortType returns bits 3-2 of the status (IEEE Std 802.1AX-2014, Annex F):
// 0 not specified, 1 sent from an Aggregation Port, 2 from an Aggregator,
// 3 from an Aggregator of a single Aggregation Port. They are reserved
// in the 802.3 TLV.
func (l *LinkAggregation) PortType() uint8 { return l.Status >> 2 & 3 }

func (l *LinkAggregation) appendValue(b []byte) ([]byte, error) {
	if l.OUI != OUIIEEE8021 && l.OUI != OUIIEEE8023 {
		return b, fmt.Errorf("lldp: Link Aggregation: %w: OUI %s is neither IEEE 802.1 nor IEEE 802.3", ErrInvalidValue, l.OUI)
	}
	b = appendOrgHeader(b, l.OUI, l.Subtype())
	b = append(b, l.Status)
	return binary.BigEndian.AppendUint32(b, l.PortID), nil
}

func (l *LinkAggregation) unmarshal(v []byte) error {
	if err := checkLen(v, linkAggLen); err != nil {
		return err
	}
	*l = LinkAggregation{OUI: OUI(v[:3]), Status: v[4], PortID: binary.BigEndian.Uint32(v[5:])}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (l *LinkAggregation) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, l) }

// MarshalBinary returns the TLV, header included.
func (l *LinkAggregation) MarshalBinary() ([]byte, error) { return AppendTLV(nil, l) }

// A CongestionNotification is the IEEE 802.1Qau Congestion Notification
// TLV (OUI 00-80-C2, subtype 8; IEEE Std 802.1Q-2018, D.2.6 and 32.6).
//
//	byte 4: per-priority CNPV indicators, bit n = priority n
//	byte 5: per-priority Ready indicators, bit n = priority n
type CongestionNotification struct {
	// CNPV has bit n set when priority n is a congestion notification
	// priority value (D.2.6).
	CNPV uint8
	// Ready has bit n set when priority n's congestion notification
	// defense is ready (D.2.6).
	Ready uint8
}

// Type returns TLVTypeOrg.
func (*CongestionNotification) Type() TLVType { return TLVTypeOrg }

// Subtype returns 8.
func (*CongestionNotification) Subtype() uint8 { return SubtypeCongestionNotification }

// CNPVPriorities lists the priorities that are CNPVs, ascending.
func (c *CongestionNotification) CNPVPriorities() []uint8 { return priorities(c.CNPV) }

// ReadyPriorities lists the priorities whose Ready indicator is set,
// ascending.
func (c *CongestionNotification) ReadyPriorities() []uint8 { return priorities(c.Ready) }

func (c *CongestionNotification) appendValue(b []byte) ([]byte, error) {
	b = appendOrgHeader(b, OUIIEEE8021, SubtypeCongestionNotification)
	return append(b, c.CNPV, c.Ready), nil
}

func (c *CongestionNotification) unmarshal(v []byte) error {
	if err := checkLen(v, cnLen); err != nil {
		return err
	}
	*c = CongestionNotification{CNPV: v[4], Ready: v[5]}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (c *CongestionNotification) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, c) }

// MarshalBinary returns the TLV, header included.
func (c *CongestionNotification) MarshalBinary() ([]byte, error) { return AppendTLV(nil, c) }

// A MACPHYStatus is the MAC/PHY Configuration/Status TLV (OUI 00-12-0F,
// subtype 1; IEEE Std 802.3-2018, 79.3.1).
//
//	byte 4:    auto-negotiation support/status: bit 0 supported, bit 1
//	           enabled, the others reserved
//	bytes 5-6: PMD auto-negotiation advertised capability
//	           (ifMauAutoNegCapAdvertisedBits of RFC 4836; its bit 0,
//	           "other", is the most significant bit)
//	bytes 7-8: operational MAU type (the last arc of a dot3MauType OID of
//	           RFC 4836 and the IANA MAU MIB)
type MACPHYStatus struct {
	// Autoneg is the support/status byte as sent, reserved bits
	// included; read it with AutonegSupported and AutonegEnabled.
	Autoneg    uint8
	Advertised uint16
	MAUType    uint16
}

// Type returns TLVTypeOrg.
func (*MACPHYStatus) Type() TLVType { return TLVTypeOrg }

// Subtype returns 1.
func (*MACPHYStatus) Subtype() uint8 { return SubtypeMACPHYStatus }

// AutonegSupported reports whether the port supports auto-negotiation.
func (m *MACPHYStatus) AutonegSupported() bool { return m.Autoneg&autonegSupported != 0 }

// AutonegEnabled reports whether auto-negotiation is enabled.
func (m *MACPHYStatus) AutonegEnabled() bool { return m.Autoneg&autonegEnabled != 0 }

func (m *MACPHYStatus) appendValue(b []byte) ([]byte, error) {
	b = appendOrgHeader(b, OUIIEEE8023, SubtypeMACPHYStatus)
	b = append(b, m.Autoneg)
	b = binary.BigEndian.AppendUint16(b, m.Advertised)
	return binary.BigEndian.AppendUint16(b, m.MAUType), nil
}

func (m *MACPHYStatus) unmarshal(v []byte) error {
	if err := checkLen(v, macPHYLen); err != nil {
		return err
	}
	*m = MACPHYStatus{Autoneg: v[4], Advertised: binary.BigEndian.Uint16(v[5:]), MAUType: binary.BigEndian.Uint16(v[7:])}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (m *MACPHYStatus) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, m) }

// MarshalBinary returns the TLV, header included.
func (m *MACPHYStatus) MarshalBinary() ([]byte, error) { return AppendTLV(nil, m) }

// A PowerViaMDI is the Power via MDI TLV (OUI 00-12-0F, subtype 2; IEEE
// Std 802.3-2018, 79.3.2). dcbtop decodes its three basic fields and
// keeps the rest as sent: the IEEE 802.3at fields (5 bytes: power
// type/source/priority, PD requested and PSE allocated power) and the
// IEEE 802.3bt-2018 ones after them (17 bytes more). The information
// string is 7 bytes (the TLV of IEEE Std 802.1AB-2005, Annex G), 12 or
// 29; Parse discards other lengths (ErrInvalidLength) and encoding an
// Extension of other than 0, 5 or 22 bytes gives ErrInvalidValue.
//
//	byte 4:  MDI power support: bit 0 port class (1 PSE, 0 PD), bit 1 PSE
//	         MDI power supported, bit 2 PSE MDI power enabled, bit 3 PSE
//	         pairs control ability, the others reserved
//	byte 5:  PSE power pair (1 signal, 2 spare; RFC 3621
//	         pethPsePortPowerPairs)
//	byte 6:  power class (1 to 5: class 0 to 4; RFC 3621
//	         pethPsePortPowerClassifications)
//	byte 7-: Extension
type PowerViaMDI struct {
	// Support is the MDI power support byte as sent, reserved bits
	// included; read it with PSE, PSESupported, PSEEnabled and
	// PairsControl.
	Support    uint8
	PowerPair  uint8
	PowerClass uint8
	// Extension is what follows the basic fields, undecoded: nil, 5
	// bytes (802.3at) or 22 (802.3bt).
	Extension []byte
}

// Type returns TLVTypeOrg.
func (*PowerViaMDI) Type() TLVType { return TLVTypeOrg }

// Subtype returns 2.
func (*PowerViaMDI) Subtype() uint8 { return SubtypePowerViaMDI }

// PSE reports the port class: true for a PSE (power sourcing
// equipment), false for a PD (powered device).
func (p *PowerViaMDI) PSE() bool { return p.Support&powerPSE != 0 }

// PSESupported reports the bit "PSE MDI power support".
func (p *PowerViaMDI) PSESupported() bool { return p.Support&powerSupported != 0 }

// PSEEnabled reports the bit "PSE MDI power state".
func (p *PowerViaMDI) PSEEnabled() bool { return p.Support&powerEnabled != 0 }

// PairsControl reports the bit "PSE pairs control ability".
func (p *PowerViaMDI) PairsControl() bool { return p.Support&powerPairsCtl != 0 }

func (p *PowerViaMDI) appendValue(b []byte) ([]byte, error) {
	if n := len(p.Extension); n != 0 && n != powerATExtLen && n != powerBTExtLen {
		return b, fmt.Errorf("lldp: Power via MDI: %w: extension of %d bytes, want 0, %d or %d", ErrInvalidValue, n, powerATExtLen, powerBTExtLen)
	}
	b = appendOrgHeader(b, OUIIEEE8023, SubtypePowerViaMDI)
	b = append(b, p.Support, p.PowerPair, p.PowerClass)
	return append(b, p.Extension...), nil
}

func (p *PowerViaMDI) unmarshal(v []byte) error {
	if n := len(v); n != powerLen && n != powerLen+powerATExtLen && n != powerLen+powerBTExtLen {
		return errorf(ErrInvalidLength, "%d, want %d, %d or %d", n, powerLen, powerLen+powerATExtLen, powerLen+powerBTExtLen)
	}
	*p = PowerViaMDI{Support: v[4], PowerPair: v[5], PowerClass: v[6], Extension: clone(v[powerLen:])}
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (p *PowerViaMDI) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, p) }

// MarshalBinary returns the TLV, header included.
func (p *PowerViaMDI) MarshalBinary() ([]byte, error) { return AppendTLV(nil, p) }

// A MaxFrameSize is the Maximum Frame Size TLV (OUI 00-12-0F, subtype 4;
// IEEE Std 802.3-2018, 79.3.4): the largest frame, in bytes, the MAC and
// PHY of the port can send and receive (from the destination address to
// the FCS).
//
//	bytes 4-5: maximum frame size
type MaxFrameSize struct {
	Size uint16
}

// Type returns TLVTypeOrg.
func (*MaxFrameSize) Type() TLVType { return TLVTypeOrg }

// Subtype returns 4.
func (*MaxFrameSize) Subtype() uint8 { return SubtypeMaxFrameSize }

func (m *MaxFrameSize) appendValue(b []byte) ([]byte, error) {
	b = appendOrgHeader(b, OUIIEEE8023, SubtypeMaxFrameSize)
	return binary.BigEndian.AppendUint16(b, m.Size), nil
}

func (m *MaxFrameSize) unmarshal(v []byte) error {
	if err := checkLen(v, maxFrameSizeLen); err != nil {
		return err
	}
	m.Size = binary.BigEndian.Uint16(v[4:])
	return nil
}

// AppendBinary appends the TLV, header included, to b.
func (m *MaxFrameSize) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, m) }

// MarshalBinary returns the TLV, header included.
func (m *MaxFrameSize) MarshalBinary() ([]byte, error) { return AppendTLV(nil, m) }

// parseBasicOrg decodes the basic IEEE 802.1 and IEEE 802.3 TLVs of this
// file; ok is false for other OUIs and subtypes.
func parseBasicOrg(v []byte) (t TLV, ok bool, err error) {
	type decoder interface {
		TLV
		unmarshal(v []byte) error
	}
	var d decoder
	switch oui, sub := OUI(v[:3]), v[3]; {
	case oui == OUIIEEE8021:
		switch sub {
		case SubtypePortVLANID:
			d = &PortVLANID{}
		case SubtypeProtocolVLANID:
			d = &ProtocolVLANID{}
		case SubtypeVLANName:
			d = &VLANName{}
		case SubtypeProtocolIdentity:
			d = &ProtocolIdentity{}
		case SubtypeLinkAggregation:
			d = &LinkAggregation{}
		case SubtypeCongestionNotification:
			d = &CongestionNotification{}
		}
	case oui == OUIIEEE8023:
		switch sub {
		case SubtypeMACPHYStatus:
			d = &MACPHYStatus{}
		case SubtypePowerViaMDI:
			d = &PowerViaMDI{}
		case SubtypeLinkAggregation8023:
			d = &LinkAggregation{}
		case SubtypeMaxFrameSize:
			d = &MaxFrameSize{}
		}
	}
	if d == nil {
		return nil, false, nil
	}
	return d, true, d.unmarshal(v)
}
