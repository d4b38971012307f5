// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	mdlldp "github.com/mdlayher/lldp"
)

// checkMdlayher compares dcbtop's decode du of the LLDPDU b with that of
// github.com/mdlayher/lldp, an independent implementation: chassis ID,
// port ID, TTL, and the type and value of every optional TLV (dcbtop's
// re-encoded per TLV). It reports whether there was anything to compare.
//
// Documented differences:
//   - mdlayher/lldp requires the End TLV (IEEE Std 802.1AB-2009) and reads
//     until the end of its input; dcbtop accepts an LLDPDU without End
//     (802.1AB-2016) and ignores what follows End (Ethernet padding). b is
//     cut after End, and an LLDPDU without End is not compared.
//   - dcbtop sends reserved bits as 0 and CEE sub-TLVs in the order
//     Control, PG, PFC, APP, others; mdlayherValue brings mdlayher's raw
//     values into that form before comparing.
func checkMdlayher(t testing.TB, b []byte, du *DU) bool {
	t.Helper()
	n, ok := endOffset(b)
	if !ok {
		return false
	}
	var f mdlldp.Frame
	if err := f.UnmarshalBinary(b[:n]); err != nil {
		t.Errorf("mdlayher/lldp rejects an LLDPDU dcbtop accepts: %v\nLLDPDU %x", err, b[:n])
		return true
	}
	if f.ChassisID.Subtype != mdlldp.ChassisIDSubtype(du.ChassisID.Subtype) || !bytes.Equal(f.ChassisID.ID, du.ChassisID.ID) {
		t.Errorf("chassis ID: mdlayher %d %x, dcbtop %d %x", f.ChassisID.Subtype, f.ChassisID.ID, du.ChassisID.Subtype, du.ChassisID.ID)
	}
	if f.PortID.Subtype != mdlldp.PortIDSubtype(du.PortID.Subtype) || !bytes.Equal(f.PortID.ID, du.PortID.ID) {
		t.Errorf("port ID: mdlayher %d %x, dcbtop %d %x", f.PortID.Subtype, f.PortID.ID, du.PortID.Subtype, du.PortID.ID)
	}
	if f.TTL != time.Duration(du.TTL)*time.Second {
		t.Errorf("TTL: mdlayher %v, dcbtop %d", f.TTL, du.TTL)
	}
	if len(f.Optional) != len(du.TLVs)+len(du.Discarded) {
		t.Errorf("mdlayher has %d optional TLVs, dcbtop %d and %d discarded\nLLDPDU %x", len(f.Optional), len(du.TLVs), len(du.Discarded), b[:n])
		return true
	}
	// mdlayher/lldp does not look inside optional TLVs: leave out those
	// dcbtop discarded, by offset.
	discarded := map[int]bool{}
	for _, d := range du.Discarded {
		discarded[d.Offset] = true
	}
	off := 2 + 1 + len(du.ChassisID.ID) + 2 + 1 + len(du.PortID.ID) + 4
	var kept []*mdlldp.TLV
	for _, o := range f.Optional {
		if !discarded[off] {
			kept = append(kept, o)
		}
		off += 2 + len(o.Value)
	}
	if len(kept) != len(du.TLVs) {
		t.Errorf("discarded offsets %v do not match mdlayher's TLVs\nLLDPDU %x", du.Discarded, b[:n])
		return true
	}
	for i, o := range kept {
		ours, err := AppendTLV(nil, du.TLVs[i])
		if err != nil {
			t.Errorf("TLV %d: re-encoding %T: %v", i, du.TLVs[i], err)
			continue
		}
		if TLVType(o.Type) != du.TLVs[i].Type() || int(o.Length) != len(o.Value) {
			t.Errorf("TLV %d: mdlayher type %d length %d, dcbtop type %d", i, o.Type, o.Length, du.TLVs[i].Type())
			continue
		}
		if theirs := mdlayherValue(TLVType(o.Type), o.Value); !bytes.Equal(ours[2:], theirs) {
			t.Errorf("TLV %d (%T): value\nmdlayher %x\n  dcbtop %x", i, du.TLVs[i], theirs, ours[2:])
		}
	}
	return true
}

// endOffset returns the length of b up to and including its End TLV.
func endOffset(b []byte) (int, bool) {
	for off := 0; off+2 <= len(b); {
		h := binary.BigEndian.Uint16(b[off:])
		if h>>9 == 0 {
			return off + 2, true
		}
		off += 2 + int(h&0x1ff)
	}
	return 0, false
}

// mdlayherValue returns a raw TLV value with the bits dcbtop does not keep
// cleared (reserved bits of IEEE Std 802.1Q-2018 D.2 and CEE v1.01
// sub-TLV headers) and CEE sub-TLVs in
// dcbtop's order. It works on values dcbtop accepted, so lengths are valid.
func mdlayherValue(typ TLVType, v []byte) []byte {
	if typ != TLVTypeOrg || len(v) < 4 {
		return v
	}
	c := bytes.Clone(v)
	oui, sub := OUI(c[:3]), c[3]
	switch {
	case oui == OUIIEEE8021 && sub == 9: // ETS Configuration: byte 4 bits 5-3 reserved
		c[4] &= 0xc7
	case oui == OUIIEEE8021 && sub == 10: // ETS Recommendation: byte 4 reserved
		c[4] = 0
	case oui == OUIIEEE8021 && sub == 11: // PFC: byte 4 bits 5-4 reserved
		c[4] &= 0xcf
	case oui == OUIIEEE8021 && sub == 12: // APP: byte 4 reserved, entry bits 4-3 reserved
		c[4] = 0
		for i := 5; i+3 <= len(c); i += 3 {
			c[i] &= 0xe7
		}
	case oui == OUICEE && sub == 2:
		return mdlayherCEE(c)
	}
	return c
}

// mdlayherCEE clears the reserved feature flags (byte 2 bits 4-0) and the
// OUI bits around the APP selectors of the first Control, PG, PFC and APP
// sub-TLVs and puts those four first, in that order.
func mdlayherCEE(v []byte) []byte {
	type sub struct {
		typ  uint8
		body []byte
	}
	var first [5]*sub
	var rest []sub
	for off := 4; off+2 <= len(v); {
		h := binary.BigEndian.Uint16(v[off:])
		s := sub{uint8(h >> 9), v[off+2 : off+2+int(h&0x1ff)]}
		off += 2 + len(s.body)
		if s.typ >= 1 && s.typ <= 4 && first[s.typ] == nil {
			if s.typ >= 2 {
				s.body[2] &= 0xe0
			}
			if s.typ == 4 {
				for e := 4; e+6 <= len(s.body); e += 6 {
					s.body[e+2] &= 3
					s.body[e+3], s.body[e+4] = 0x1b, 0x21
				}
			}
			first[s.typ] = &s
			continue
		}
		rest = append(rest, s)
	}
	out := bytes.Clone(v[:4])
	for _, s := range first[1:] {
		if s != nil {
			out = binary.BigEndian.AppendUint16(out, uint16(s.typ)<<9|uint16(len(s.body)))
			out = append(out, s.body...)
		}
	}
	for _, s := range rest {
		out = binary.BigEndian.AppendUint16(out, uint16(s.typ)<<9|uint16(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

func TestMdlayher(t *testing.T) {
	type input struct {
		name    string
		b       []byte
		compare bool // false: mdlayher/lldp cannot read it (no End)
	}
	var inputs []input
	for _, f := range allFixtureFrames(t) {
		inputs = append(inputs, input{f.name(), lldpduOf(t, f.data), true})
	}
	inputs = append(inputs,
		input{"typical", typicalLLDPDU, true},
		input{"padding after End", cat(typicalLLDPDU, make([]byte, 9)), true},
		input{"both dialects, duplicates", lldpdu(refETS, refETS, refCEE, refPFC, juniperCEE, cinTLV), true},
		input{"reserved bits", lldpdu(
			hx("FE 19 00 80 C2 09  FF  01 23 45 67  0A 14 1E 28 00 00 00 00  02 02 02 02 00 01 FF 07"),
			hx("FE 19 00 80 C2 0A  FF  76 54 32 10  32 32 00 00 00 00 00 00  02 02 00 00 00 00 00 00"),
			hx("FE 06 00 80 C2 0B  FF FF"),
			hx("FE 0B 00 80 C2 0C FF  7B 12 B7  FF FF FF"),
			hx("FE 10 00 1B 21 02  08 0A 00 00 9F 00  89 06 FD FF FF 08")), true},
		input{"CEE out of order, repeated", lldpdu(hx(`FE 45 00 1B 21 02
			06 06 01 02 FF 00 FF 03
			02 0A 01 02 00 00 01 00 FF FF FF FF
			08 10 00 00 5F 00 89 06 FC 00 00 0A 0C BC 01 1B 21 00
			04 11 00 00 3F 00 FE DC BA 98 00 00 00 00 00 00 00 64 08
			06 06 00 00 9F 00 10 08`)), true},
		input{"no End", cat(tlvChassis, tlvPort, tlvTTL, refPFC), false},
	)
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			du := mustParse(t, in.b)
			if got := checkMdlayher(t, in.b, du); got != in.compare {
				t.Errorf("checkMdlayher compared: %v, want %v", got, in.compare)
			}
		})
	}
}
