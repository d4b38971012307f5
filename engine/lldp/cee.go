// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"encoding/binary"
	"fmt"
)

// CEE DCBX (version 1.01) and CIN DCBX (version 1.0) TLV subtypes under OUI
// 00-1B-21, and the CEE sub-TLV types.
const (
	SubtypeCIN uint8 = 1
	SubtypeCEE uint8 = 2

	ceeSubControl = 1
	ceeSubPG      = 2
	ceeSubPFC     = 3
	ceeSubApp     = 4

	ceeControlLen  = 10
	ceeFeatureLen  = 4
	ceePGLen       = 17
	ceePFCLen      = 6
	ceeAppEntryLen = 6
	ceeStrictPGID  = 15
)

// A CEEControl is the CEE Control sub-TLV: protocol versions and the
// sequence/acknowledgement numbers of the DCBX handshake.
type CEEControl struct {
	OperVersion uint8
	MaxVersion  uint8
	SeqNo       uint32
	AckNo       uint32
}

// A CEEFeature is the 4-byte header every CEE feature sub-TLV starts with.
//
//	byte 0: Oper_Version   byte 1: Max_Version
//	byte 2: bit 7 Enable, bit 6 Willing, bit 5 Error
//	byte 3: subtype (0 in CEE for PG, PFC and APP)
type CEEFeature struct {
	OperVersion uint8
	MaxVersion  uint8
	Enable      bool
	Willing     bool
	Error       bool
	Subtype     uint8
}

func (f *CEEFeature) append(b []byte) []byte {
	var flags uint8
	if f.Enable {
		flags |= 0x80
	}
	if f.Willing {
		flags |= 0x40
	}
	if f.Error {
		flags |= 0x20
	}
	return append(b, f.OperVersion, f.MaxVersion, flags, f.Subtype)
}

func (f *CEEFeature) unmarshal(v []byte) {
	*f = CEEFeature{OperVersion: v[0], MaxVersion: v[1], Enable: v[2]&0x80 != 0,
		Willing: v[2]&0x40 != 0, Error: v[2]&0x20 != 0, Subtype: v[3]}
}

// A CEEPG is the CEE Priority Groups sub-TLV (type 2): a PGID per priority
// (15 means strict priority, no bandwidth limit), a bandwidth percentage per
// priority group and the number of traffic classes supported.
type CEEPG struct {
	CEEFeature
	PGID      [8]uint8
	Bandwidth [8]uint8
	NumTCs    uint8
}

// A CEEPFC is the CEE PFC sub-TLV (type 3).
type CEEPFC struct {
	CEEFeature
	Enabled uint8 // bit n set: PFC enabled on priority n
	NumTCs  uint8
}

// A CEEAppEntry is one CEE application entry: a protocol ID, a 2-bit
// selector (0 EtherType, 1 TCP/UDP port; 0..3 on the wire) and a bitmap of
// priorities. The OUI bits around the selector are sent as 00-1B-21 and
// not kept.
type CEEAppEntry struct {
	Protocol    uint16
	Selector    uint8
	PriorityMap uint8
}

// A CEEApp is the CEE Application sub-TLV (type 4).
type CEEApp struct {
	CEEFeature
	Entries []CEEAppEntry
}

// A CEESubTLV is a CEE sub-TLV dcbtop does not decode, kept as sent.
type CEESubTLV struct {
	Type  uint8
	Value []byte
}

// A CEE is the CEE DCBX TLV (OUI 00-1B-21, subtype 2, "1.01 CEE"): a
// sequence of sub-TLVs with LLDP-style 7-bit type / 9-bit length headers.
// Sub-TLVs are encoded in the order Control, PG, PFC, APP, others.
type CEE struct {
	Control *CEEControl
	PG      *CEEPG
	PFC     *CEEPFC
	App     *CEEApp
	// Other holds sub-TLVs not decoded above, in order: unknown types, and
	// repeats of a Control, PG, PFC or APP sub-TLV (only the first counts).
	Other []CEESubTLV
}

// Type returns TLVTypeOrg.
func (*CEE) Type() TLVType { return TLVTypeOrg }

func appendSub(b []byte, typ uint8, fill func([]byte) []byte) []byte {
	start := len(b)
	b = fill(append(b, 0, 0))
	binary.BigEndian.PutUint16(b[start:], uint16(typ)<<9|uint16(len(b)-start-2))
	return b
}

func (c *CEE) appendValue(b []byte) ([]byte, error) {
	b = append(b, OUICEE[:]...)
	b = append(b, SubtypeCEE)
	if c.Control != nil {
		b = appendSub(b, ceeSubControl, func(b []byte) []byte {
			b = append(b, c.Control.OperVersion, c.Control.MaxVersion)
			b = binary.BigEndian.AppendUint32(b, c.Control.SeqNo)
			return binary.BigEndian.AppendUint32(b, c.Control.AckNo)
		})
	}
	if pg := c.PG; pg != nil {
		for p, id := range pg.PGID {
			if id > 15 {
				return b, fmt.Errorf("lldp: CEE PG: %w: priority %d PGID %d > 15", ErrInvalidValue, p, id)
			}
		}
		b = appendSub(b, ceeSubPG, func(b []byte) []byte {
			b = pg.append(b)
			for i := 0; i < 8; i += 2 {
				b = append(b, pg.PGID[i]<<4|pg.PGID[i+1])
			}
			b = append(b, pg.Bandwidth[:]...)
			return append(b, pg.NumTCs)
		})
	}
	if p := c.PFC; p != nil {
		b = appendSub(b, ceeSubPFC, func(b []byte) []byte {
			return append(p.append(b), p.Enabled, p.NumTCs)
		})
	}
	if a := c.App; a != nil {
		if ceeFeatureLen+ceeAppEntryLen*len(a.Entries) > maxValueLen {
			return b, fmt.Errorf("lldp: CEE APP: %w: %d entries do not fit", ErrInvalidValue, len(a.Entries))
		}
		for i, e := range a.Entries {
			if e.Selector > 3 {
				return b, fmt.Errorf("lldp: CEE APP: %w: entry %d selector %d > 3", ErrInvalidValue, i, e.Selector)
			}
		}
		b = appendSub(b, ceeSubApp, func(b []byte) []byte {
			b = a.append(b)
			for _, e := range a.Entries {
				b = binary.BigEndian.AppendUint16(b, e.Protocol)
				b = append(b, OUICEE[0]|e.Selector, OUICEE[1], OUICEE[2], e.PriorityMap)
			}
			return b
		})
	}
	for _, o := range c.Other {
		if o.Type > 127 || len(o.Value) > maxValueLen {
			return b, fmt.Errorf("lldp: CEE sub-TLV %d: %w", o.Type, ErrInvalidValue)
		}
		b = appendSub(b, o.Type, func(b []byte) []byte { return append(b, o.Value...) })
	}
	return b, nil
}

// unmarshal decodes the information string v (OUI and subtype included).
// Errors carry the offset of the bad sub-TLV relative to v; the detail of
// a *fieldError does not repeat it.
func (c *CEE) unmarshal(v []byte) (int, error) {
	*c = CEE{}
	off := 4
	for off < len(v) {
		if len(v)-off < 2 {
			return off, errorf(ErrTruncated, "header cut off")
		}
		h := binary.BigEndian.Uint16(v[off:])
		typ, n := uint8(h>>9), int(h&0x1ff)
		if off+2+n > len(v) {
			return off, errorf(ErrTruncated, "type %d length %d but %d bytes left", typ, n, len(v)-off-2)
		}
		s := v[off+2 : off+2+n]
		bad := func(want string) (int, error) {
			return off, errorf(ErrInvalidLength, "type %d length %d, want %s", typ, n, want)
		}
		switch typ {
		case ceeSubControl:
			if n != ceeControlLen {
				return bad("10")
			}
			if c.Control != nil {
				c.Other = append(c.Other, CEESubTLV{Type: typ, Value: clone(s)})
				break
			}
			c.Control = &CEEControl{OperVersion: s[0], MaxVersion: s[1],
				SeqNo: binary.BigEndian.Uint32(s[2:]), AckNo: binary.BigEndian.Uint32(s[6:])}
		case ceeSubPG:
			if n != ceePGLen {
				return bad("17")
			}
			if c.PG != nil {
				c.Other = append(c.Other, CEESubTLV{Type: typ, Value: clone(s)})
				break
			}
			pg := &CEEPG{NumTCs: s[16]}
			pg.unmarshal(s)
			for i := range 4 {
				pg.PGID[2*i], pg.PGID[2*i+1] = s[4+i]>>4, s[4+i]&0xf
			}
			copy(pg.Bandwidth[:], s[8:16])
			c.PG = pg
		case ceeSubPFC:
			if n != ceePFCLen {
				return bad("6")
			}
			if c.PFC != nil {
				c.Other = append(c.Other, CEESubTLV{Type: typ, Value: clone(s)})
				break
			}
			p := &CEEPFC{Enabled: s[4], NumTCs: s[5]}
			p.unmarshal(s)
			c.PFC = p
		case ceeSubApp:
			if n < ceeFeatureLen || (n-ceeFeatureLen)%ceeAppEntryLen != 0 {
				return bad("4+6N")
			}
			if c.App != nil {
				c.Other = append(c.Other, CEESubTLV{Type: typ, Value: clone(s)})
				break
			}
			a := &CEEApp{}
			a.unmarshal(s)
			for e := s[ceeFeatureLen:]; len(e) > 0; e = e[ceeAppEntryLen:] {
				a.Entries = append(a.Entries, CEEAppEntry{Protocol: binary.BigEndian.Uint16(e),
					Selector: e[2] & 3, PriorityMap: e[5]})
			}
			c.App = a
		default:
			c.Other = append(c.Other, CEESubTLV{Type: typ, Value: clone(s)})
		}
		off += 2 + n
	}
	return 0, nil
}

// AppendBinary appends the TLV, header included, to b.
func (c *CEE) AppendBinary(b []byte) ([]byte, error) { return AppendTLV(b, c) }

// MarshalBinary returns the TLV, header included.
func (c *CEE) MarshalBinary() ([]byte, error) { return AppendTLV(nil, c) }
