// SPDX-License-Identifier: Apache-2.0

// Package lldp parses and builds LLDP Data Units (IEEE Std 802.1AB) and the
// DCBX TLVs they carry: the IEEE 802.1Qaz ETS Configuration, ETS
// Recommendation, PFC Configuration and Application Priority TLVs
// (organizationally specific, OUI 00-80-C2, IEEE Std 802.1Q-2018 Annex D)
// and the pre-standard CEE DCBX TLV (OUI 00-1B-21, subtype 2). It also
// decodes the basic IEEE 802.1 TLVs (Port VLAN ID, Port And Protocol VLAN
// ID, VLAN Name, Protocol Identity, Link Aggregation and the 802.1Qau
// Congestion Notification TLV; IEEE Std 802.1Q-2018 D.2) and the IEEE
// 802.3 ones (MAC/PHY Configuration/Status, Power via MDI, Link
// Aggregation, Maximum Frame Size; OUI 00-12-0F, IEEE Std 802.3-2018
// 79.3).
//
// The package is pure: it performs no I/O and never reads the clock.
//
// # Decoding
//
// Parse decodes an LLDPDU (the Ethernet payload after EtherType 0x88cc) into
// a DU. Structural problems (truncation, a TLV running past the frame,
// mandatory TLVs missing or out of order, a fixed-length TLV with the wrong
// length) reject the LLDPDU with a *ParseError that names the TLV and its
// offset. Semantic problems (an ETS bandwidth sum other than 100, a reserved
// TSA, an invalid APP selector, duplicate TLVs ...) do not: they are reported
// as Findings on the DU, so an operator sees what the peer really sent.
// Results never alias the input buffer.
//
// Unknown TLVs, and organizationally specific TLVs of unknown OUI or
// subtype, are kept as *RawTLV and re-encoded byte for byte.
//
// # Encoding
//
// Every TLV type and DU implement encoding.BinaryAppender and
// encoding.BinaryMarshaler; parse, marshal and parse again yields an equal DU.
//
// # Ethernet
//
// SplitFrame separates the Ethernet header (an optional 802.1Q or 802.1ad
// tag included) from the LLDPDU without allocating, so a receiver can compare
// an LLDPDU with the previous one from the same peer before decoding it.
// AppendFrame builds a complete frame for transmission.
//
// Size: about 3,000 lines because it is the whole codec: every LLDP TLV,
// the 802.1Qaz, CEE and basic 802.1 and 802.3 TLVs, their validation and
// their views share one TLV walker and error type; splitting them would
// split one wire format.
package lldp
