// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
)

// A DU is an LLDP Data Unit: the three mandatory TLVs and the optional TLVs
// in the order they were received. The End TLV is implied.
type DU struct {
	ChassisID ChassisID
	PortID    PortID
	TTL       uint16 // seconds; 0 marks a shutdown LLDPDU
	TLVs      []TLV
	// Findings lists semantic problems found while parsing (Validate's,
	// then one per discarded TLV); they do not make the LLDPDU invalid.
	Findings []Finding
	// Discarded lists the optional TLVs dropped for errors, in order.
	Discarded []DiscardedTLV
}

// Dialect is the DCBX flavour an LLDPDU speaks.
type Dialect uint8

// DCBX dialects.
const (
	DialectNone Dialect = iota // no DCBX TLV
	DialectIEEE                // IEEE 802.1Qaz TLVs
	DialectCEE                 // CEE DCBX (1.01) TLV, no IEEE TLV
	// DialectCIN: only the pre-CEE CIN DCBX (1.00) TLV (OUI 00-1B-21
	// subtype 1), which dcbtop recognises but does not decode. Its own
	// dialect: an IEEE 802.1Qaz or CEE agent does not negotiate with it
	// (lldpad does only in its CIN mode, dcbx_version 1).
	DialectCIN
)

// String returns "none", "ieee", "cee" or "cin".
func (d Dialect) String() string {
	switch d {
	case DialectIEEE:
		return "ieee"
	case DialectCEE:
		return "cee"
	case DialectCIN:
		return "cin"
	}
	return "none"
}

// MarshalText returns String.
func (d Dialect) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Words names the dialect for a person: "IEEE 802.1Qaz DCBX", "CEE
// DCBX", "CIN DCBX", "no DCBX".
func (d Dialect) Words() string {
	switch d {
	case DialectIEEE:
		return "IEEE 802.1Qaz DCBX"
	case DialectCEE:
		return "CEE DCBX"
	case DialectCIN:
		return "CIN DCBX"
	}
	return "no DCBX"
}

// Parse decodes an LLDPDU: the payload of an Ethernet frame of EtherType
// 0x88cc. Parsing stops at the End TLV; bytes after it (Ethernet padding)
// are ignored, and an LLDPDU without End is accepted when it ends on a TLV
// boundary (IEEE Std 802.1AB-2016 made End optional).
//
// The receive rules of IEEE Std 802.1AB-2016, 9.2.7.7.2, decide what an
// error costs. An error in the framing (a TLV header or information string
// running past the end of b, an End TLV with a non-zero length) or in the
// mandatory Chassis ID, Port ID and TTL TLVs (8.5.2-8.5.4: missing, out of
// order, repeated, of a length not allowed) discards the LLDPDU: Parse
// returns a *ParseError wrapping ErrTruncated, ErrInvalidLength or
// ErrMandatory. An error inside an optional TLV (a System Capabilities TLV
// that is not 4 bytes, a malformed Management Address, an 802.1Qaz, CEE,
// basic IEEE 802.1 or IEEE 802.3 TLV whose information string does not
// have its kind's layout) discards that TLV only: it is left out of
// DU.TLVs, listed in DU.Discarded with its offset and reported as a
// tlv-discarded Finding, and the rest of the LLDPDU is used. Semantic
// problems (values a well-formed TLV may not carry) are recorded in
// DU.Findings. The DU never aliases b.
func Parse(b []byte) (*DU, error) {
	du := &DU{}
	if err := du.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return du, nil
}

// UnmarshalBinary decodes b into du as Parse does. On error du is left
// unchanged.
func (du *DU) UnmarshalBinary(b []byte) error {
	var d DU
	if err := d.decode(b); err != nil {
		return err
	}
	d.Findings = append(d.Validate(), d.discardFindings()...)
	*du = d
	return nil
}

// decode decodes the TLVs of b into the zero DU du.
func (du *DU) decode(b []byte) error {
	for i, off := 0, 0; ; i++ {
		typ, v, ok, pe := next(b, off, i)
		if pe != nil {
			return pe
		}
		if !ok {
			return nil
		}
		switch typ {
		case TLVTypeEnd:
			if len(v) != 0 {
				return newParseError(b, off, ErrInvalidLength, "%d, want 0", len(v))
			}
			return nil
		case TLVTypeChassisID:
			du.ChassisID = ChassisID{Subtype: ChassisIDSubtype(v[0]), ID: clone(v[1:])}
		case TLVTypePortID:
			du.PortID = PortID{Subtype: PortIDSubtype(v[0]), ID: clone(v[1:])}
		case TLVTypeTTL:
			du.TTL = binary.BigEndian.Uint16(v)
		case TLVTypePortDescription, TLVTypeSystemName, TLVTypeSystemDescription:
			du.TLVs = append(du.TLVs, &Text{Kind: typ, Value: string(v)})
		case TLVTypeSystemCapabilities:
			if len(v) != 4 {
				du.discard(newParseError(b, off, ErrInvalidLength, "%d, want 4", len(v)))
				break
			}
			du.TLVs = append(du.TLVs, &SystemCapabilities{Capabilities: binary.BigEndian.Uint16(v), Enabled: binary.BigEndian.Uint16(v[2:])})
		case TLVTypeManagementAddress:
			m := &ManagementAddress{}
			if err := m.unmarshal(v); err != nil {
				detail, sentinel := split(err)
				du.discard(newParseError(b, off, sentinel, "%s", detail))
				break
			}
			du.TLVs = append(du.TLVs, m)
		case TLVTypeOrg:
			if len(v) < 4 {
				du.discard(newParseError(b, off, ErrInvalidLength, "%d, want at least 4 (OUI and subtype)", len(v)))
				break
			}
			t, subOff, err := parseOrg(v)
			if err != nil {
				detail, sentinel := split(err)
				if subOff > 0 {
					detail = fmt.Sprintf("CEE sub-TLV at offset %d: %s", off+2+subOff, detail)
				}
				du.discard(newParseError(b, off, sentinel, "%s", detail))
				break
			}
			du.TLVs = append(du.TLVs, t)
		default:
			du.TLVs = append(du.TLVs, &RawTLV{T: typ, Value: clone(v)})
		}
		off += 2 + len(v)
	}
}

// discard records an optional TLV dropped for the error pe.
func (du *DU) discard(pe *ParseError) {
	du.Discarded = append(du.Discarded, DiscardedTLV{Offset: pe.Offset, Type: pe.Type, OUI: pe.OUI, Sub: pe.Sub, Err: pe})
}

// next reads TLV number i (counting from 0) at offset off of the LLDPDU b
// and returns its type and information string, or ok false at the end of
// b. It checks what Parse and PeekMSAP have in common: the TLV fits in b,
// the first three TLVs are Chassis ID, Port ID and TTL with valid lengths,
// and none of them comes again.
func next(b []byte, off, i int) (typ TLVType, v []byte, ok bool, pe *ParseError) {
	if off == len(b) {
		if i < 3 {
			return 0, nil, false, &ParseError{Offset: off, Type: TLVType(i + 1), Err: ErrMandatory,
				Detail: fmt.Sprintf("LLDPDU ends after %d TLVs", i)}
		}
		return 0, nil, false, nil
	}
	if len(b)-off < 2 {
		return 0, nil, false, &ParseError{Offset: off, Type: TLVType(b[off] >> 1), Err: ErrTruncated, Detail: "TLV header cut off"}
	}
	h := binary.BigEndian.Uint16(b[off:])
	typ, n := TLVType(h>>9), int(h&0x1ff)
	switch {
	case off+2+n > len(b):
		return 0, nil, false, newParseError(b, off, ErrTruncated, "length %d but %d bytes left", n, len(b)-off-2)
	case i < 3 && typ != TLVType(i+1):
		return 0, nil, false, newParseError(b, off, ErrMandatory, "TLV #%d is %s, want %s", i+1, typ, TLVType(i+1))
	case i >= 3 && typ >= TLVTypeChassisID && typ <= TLVTypeTTL:
		return 0, nil, false, newParseError(b, off, ErrMandatory, "%s repeated", typ)
	case (typ == TLVTypeChassisID || typ == TLVTypePortID) && (n < 2 || n > 256):
		return 0, nil, false, newParseError(b, off, ErrInvalidLength, "%d, want 2..256", n)
	case typ == TLVTypeTTL && n != 2:
		return 0, nil, false, newParseError(b, off, ErrInvalidLength, "%d, want 2", n)
	}
	return typ, b[off+2 : off+2+n], true, nil
}

// newParseError describes a problem with the TLV whose header is at off.
func newParseError(b []byte, off int, err error, format string, a ...any) *ParseError {
	h := binary.BigEndian.Uint16(b[off:])
	pe := &ParseError{Offset: off, Type: TLVType(h >> 9), Err: err, Detail: fmt.Sprintf(format, a...)}
	if pe.Type == TLVTypeOrg && h&0x1ff >= 4 && off+6 <= len(b) {
		pe.OUI, pe.Sub = OUI(b[off+2:off+5]), b[off+5]
	}
	return pe
}

// parseOrg decodes an organizationally specific TLV's information string.
func parseOrg(v []byte) (TLV, int, error) {
	oui, sub := OUI(v[:3]), v[3]
	switch {
	case oui == OUIIEEE8021 && (sub == SubtypeETSConfig || sub == SubtypeETSReco):
		e := &ETS{}
		return e, 0, e.unmarshal(v)
	case oui == OUIIEEE8021 && sub == SubtypePFC:
		p := &PFC{}
		return p, 0, p.unmarshal(v)
	case oui == OUIIEEE8021 && sub == SubtypeAppPriority:
		a := &AppPriority{}
		return a, 0, a.unmarshal(v)
	case oui == OUICEE && sub == SubtypeCEE:
		c := &CEE{}
		off, err := c.unmarshal(v)
		return c, off, err
	}
	if t, ok, err := parseBasicOrg(v); ok {
		return t, 0, err
	}
	return &RawTLV{T: TLVTypeOrg, Value: clone(v)}, 0, nil
}

// AppendBinary appends the encoded LLDPDU, End TLV included, to b.
func (du *DU) AppendBinary(b []byte) ([]byte, error) {
	start := len(b)
	if len(du.ChassisID.ID) < 1 || len(du.ChassisID.ID) > 255 || len(du.PortID.ID) < 1 || len(du.PortID.ID) > 255 {
		return b, fmt.Errorf("lldp: %w: chassis ID of %d bytes or port ID of %d bytes (want 1..255)", ErrInvalidValue, len(du.ChassisID.ID), len(du.PortID.ID))
	}
	// The length is 9 bits: 1+255 needs the low bit of the first byte.
	b = binary.BigEndian.AppendUint16(b, uint16(TLVTypeChassisID)<<9|uint16(1+len(du.ChassisID.ID)))
	b = append(b, byte(du.ChassisID.Subtype))
	b = append(b, du.ChassisID.ID...)
	b = binary.BigEndian.AppendUint16(b, uint16(TLVTypePortID)<<9|uint16(1+len(du.PortID.ID)))
	b = append(b, byte(du.PortID.Subtype))
	b = append(b, du.PortID.ID...)
	b = binary.BigEndian.AppendUint16(b, uint16(TLVTypeTTL)<<9|2)
	b = binary.BigEndian.AppendUint16(b, du.TTL)
	for _, t := range du.TLVs {
		var err error
		if b, err = AppendTLV(b, t); err != nil {
			return b[:start], err
		}
	}
	return append(b, 0, 0), nil
}

// MarshalBinary returns the encoded LLDPDU, End TLV included.
func (du *DU) MarshalBinary() ([]byte, error) { return du.AppendBinary(nil) }

// Shutdown reports whether du is a shutdown LLDPDU (TTL 0): the sender
// withdraws its information at once (IEEE Std 802.1AB-2016, 9.2.7.7.1).
func (du *DU) Shutdown() bool { return du.TTL == 0 }

// text returns the first Text TLV of kind k.
func (du *DU) text(k TLVType) string {
	for _, t := range du.TLVs {
		if x, ok := t.(*Text); ok && x.Kind == k {
			return x.Value
		}
	}
	return ""
}

// SystemName returns the System Name, or "" when absent. It is untrusted.
func (du *DU) SystemName() string { return du.text(TLVTypeSystemName) }

// SystemDescription returns the System Description, or "". It is untrusted.
func (du *DU) SystemDescription() string { return du.text(TLVTypeSystemDescription) }

// PortDescription returns the Port Description, or "". It is untrusted.
func (du *DU) PortDescription() string { return du.text(TLVTypePortDescription) }

// ETS returns the first ETS Configuration TLV, or nil. Later copies are
// ignored, as lldpad does, and reported as a Finding.
func (du *DU) ETS() *ETS { return du.ets(false) }

// ETSReco returns the first ETS Recommendation TLV, or nil.
func (du *DU) ETSReco() *ETS { return du.ets(true) }

func (du *DU) ets(reco bool) *ETS {
	for _, t := range du.TLVs {
		if e, ok := t.(*ETS); ok && e.Recommendation == reco {
			return e
		}
	}
	return nil
}

// SystemCapabilities returns the System Capabilities TLV (IEEE Std
// 802.1AB-2016, 8.5.8), nil when the LLDPDU has none.
func (du *DU) SystemCapabilities() *SystemCapabilities { return firstTLV[*SystemCapabilities](du.TLVs) }

// PFC returns the first PFC Configuration TLV, or nil.
func (du *DU) PFC() *PFC { return firstTLV[*PFC](du.TLVs) }

// App returns the first Application Priority TLV, or nil.
func (du *DU) App() *AppPriority { return firstTLV[*AppPriority](du.TLVs) }

// CEE returns the first CEE DCBX TLV, or nil.
func (du *DU) CEE() *CEE { return firstTLV[*CEE](du.TLVs) }

// firstTLV returns the first TLV of type T in tlvs, or the zero T (nil).
func firstTLV[T TLV](tlvs []TLV) T {
	for _, t := range tlvs {
		if x, ok := t.(T); ok {
			return x
		}
	}
	var zero T
	return zero
}

// HasCIN reports whether du carries a legacy CIN DCBX TLV (OUI 00-1B-21,
// subtype 1), which dcbtop does not decode further.
func (du *DU) HasCIN() bool {
	for _, t := range du.TLVs {
		if r, ok := t.(*RawTLV); ok {
			if oui, sub, ok := r.OrgID(); ok && oui == OUICEE && sub == SubtypeCIN {
				return true
			}
		}
	}
	return false
}

// Dialect returns DialectIEEE when du carries any 802.1Qaz TLV (IEEE takes
// precedence when both are present, as in lldpad), DialectCEE when it
// carries a CEE TLV and no IEEE one, DialectCIN when its only DCBX TLV is
// CIN's, and DialectNone otherwise.
func (du *DU) Dialect() Dialect {
	cee := false
	for _, t := range du.TLVs {
		switch t.(type) {
		case *ETS, *PFC, *AppPriority:
			return DialectIEEE
		case *CEE:
			cee = true
		}
	}
	switch {
	case cee:
		return DialectCEE
	case du.HasCIN():
		return DialectCIN
	}
	return DialectNone
}

// PeekMSAP returns the Chassis ID and Port ID TLV information strings
// (subtype byte included) and the TTL of the LLDPDU b without decoding the
// rest and without allocating. The returned slices alias b. Together the
// two IDs are the MSAP identifier of IEEE Std 802.1AB-2016, 6.5.
//
// The first three TLVs are checked as Parse checks them: for a problem
// there PeekMSAP returns the *ParseError Parse would, and it succeeds on
// every LLDPDU Parse accepts.
func PeekMSAP(b []byte) (chassis, port []byte, ttl uint16, err error) {
	off := 0
	var vals [3][]byte
	for i := range vals {
		_, v, _, pe := next(b, off, i)
		if pe != nil {
			return nil, nil, 0, pe
		}
		vals[i] = v
		off += 2 + len(v)
	}
	return vals[0], vals[1], binary.BigEndian.Uint16(vals[2]), nil
}

// UnmarshalText accepts what String returns.
func (d *Dialect) UnmarshalText(b []byte) error {
	for _, c := range []Dialect{DialectNone, DialectIEEE, DialectCEE, DialectCIN} {
		if c.String() == string(b) {
			*d = c
			return nil
		}
	}
	return fmt.Errorf("unknown DCBX dialect %q", b)
}
