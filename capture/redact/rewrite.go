// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A rewriter is the second pass: it writes each record, redacted, to w.
type rewriter struct {
	m       *mapping
	w       *pcap.Writer
	records int
	werr    bool // the error returned is the Writer's
}

// write hands a record to the Writer.
func (r *rewriter) write(err error) error {
	if err != nil {
		r.werr = true
		return err
	}
	r.records++
	return nil
}

// frame writes a frame with its interface name and data redacted.
func (r *rewriter) frame(f capture.Frame) error {
	data, err := r.m.frame(f.Data)
	if err != nil {
		return fmt.Errorf("frame %d: %w", r.records+1, err)
	}
	return r.write(r.w.WriteFrame(capture.Frame{Interface: r.m.replaceString(f.Interface), At: f.At, Dir: f.Dir, Data: data}))
}

// host writes a host packet redacted, on the interface, with the link
// type, description and direction tape.Write gives it: a netlink request
// outgoing and its reply incoming (the cooked header's packet type), a
// host record of no direction.
func (r *rewriter) host(p pcap.HostPacket) error {
	if p.Netlink {
		data, err := r.m.netlink(p.Data)
		if err != nil {
			return fmt.Errorf("record %d at offset %d: %w", p.Record, p.Offset, err)
		}
		dir := capture.DirectionIncoming
		if len(p.Data) >= 2 && binary.BigEndian.Uint16(p.Data) == pktOutgoing {
			dir = capture.DirectionOutgoing
		}
		return r.write(r.w.WritePacket(capture.Frame{Interface: pcap.RecordingNetlink, At: p.At, Dir: dir, Data: data}, pcap.LinkTypeNetlink, tape.Description))
	}
	data, err := r.m.hostRecord(p.Data)
	if err != nil {
		return fmt.Errorf("record %d at offset %d: %w", p.Record, p.Offset, err)
	}
	return r.write(r.w.WritePacket(capture.Frame{Interface: pcap.RecordingHost, At: p.At, Data: data}, pcap.LinkTypeUser0, tape.Description))
}

// Netlink packets (capture/tape/netlink.go): the Linux cooked header of
// LINKTYPE_NETLINK, its packet type for a request, and the netlink
// message header (include/uapi/linux/netlink.h struct nlmsghdr).
const (
	sllLen      = 16
	pktOutgoing = 4
	nlmsgHdrLen = 16
)

// errBroken is the error of a record the replacements would break.
var errBroken = errors.New("redaction would break it (a value to hide matched bytes of its structure); not written")

// frame returns a frame's data redacted: its two MACs each as a whole,
// then, for an LLDP frame, each TLV's information string (IEEE Std
// 802.1AB-2016, 8.4.1), never a TLV header; what follows the End TLV
// (padding) and the payload of other frames as they come.
func (m *mapping) frame(d []byte) ([]byte, error) {
	out := bytes.Clone(d)
	if len(out) < 14 {
		m.replace(out)
		return out, nil
	}
	m.replace(out[0:6])
	m.replace(out[6:12])
	_, du, err := lldp.SplitFrame(d)
	if err != nil {
		m.replace(out[12:])
		return out, nil
	}
	start := len(d) - len(du)
	parsed, perr := lldp.Parse(du)
	keep := m.tlvsKept(du, parsed, perr)
	off, i := start, 0
	var blanked []blankedTLV // the discarded TLVs blanked
	for off+2 <= len(out) {
		h := binary.BigEndian.Uint16(out[off:])
		typ, n := lldp.TLVType(h>>9), int(h&0x1ff)
		if typ == lldp.TLVTypeEnd {
			break
		}
		if off+2+n > len(out) {
			if perr != nil && i >= 3 {
				clear(out[off+2:]) // a cut TLV of an LLDPDU dcbtop rejects
			}
			break
		}
		v := out[off+2 : off+2+n]
		m.replace(v)
		switch {
		case !keep(off-start, i):
			blank(typ, v, 0)
			m.blanked++
			if perr == nil {
				blanked = append(blanked, blankedTLV{off - start, typ, v})
			}
		case typ == lldp.TLVTypeChassisID || typ == lldp.TLVTypePortID:
			if len(v) > 1 {
				m.replaceShort(v[1:])
			}
		case typ == lldp.TLVTypePortDescription || typ == lldp.TLVTypeSystemName || typ == lldp.TLVTypeSystemDescription:
			m.replaceShort(v)
		case typ == lldp.TLVTypeOrg && len(v) > 7 && lldp.OUI(v[:3]) == lldp.OUIIEEE8021 && v[3] == lldp.SubtypeVLANName:
			m.replaceShort(v[7:]) // VID, name length, name (802.1Q-2018 D.2.4)
		}
		off += 2 + n
		i++
	}
	m.replace(out[off:])
	if perr != nil {
		return out, nil
	}
	// A discarded TLV stays discarded: a zeroed one that now reads (a
	// VLAN Name whose length byte was all it lacked) is filled with ones
	// instead, which no layout dcbtop reads accepts as a length.
	for try := 0; ; try++ {
		after, err := lldp.Parse(out[start:])
		if err != nil {
			return nil, fmt.Errorf("LLDPDU: %w", errBroken)
		}
		wrong := false
		for _, b := range blanked {
			if !discardedAt(parsed, b.off) || discardedAt(after, b.off) {
				continue
			}
			wrong = true
			blank(b.typ, b.v, 0xff)
		}
		if !wrong {
			return out, nil
		}
		if try > 0 {
			return nil, fmt.Errorf("LLDPDU: %w", errBroken)
		}
	}
}

// A blankedTLV is a TLV frame blanked: its offset in the LLDPDU, its
// type, its value.
type blankedTLV struct {
	off int
	typ lldp.TLVType
	v   []byte
}

// discardedAt reports whether du discarded the TLV at offset off.
func discardedAt(du *lldp.DU, off int) bool {
	return slices.ContainsFunc(du.Discarded, func(d lldp.DiscardedTLV) bool { return d.Offset == off })
}

// tlvsKept returns whether the i-th TLV of the LLDPDU du, at offset off,
// keeps its value (redacted as the mapping says): the TLVs dcbtop decodes
// (du.TLVs other than RawTLV), and the CIN DCBX TLV, whose dialect a
// replay reads from its raw bytes. The others are blanked: a TLV dcbtop
// discarded as malformed (a VLAN Name it could not read still carries the
// name), one it does not decode (LLDP-MED inventory: serial and asset
// numbers; vendors' TLVs), and every optional TLV of an LLDPDU it
// rejects.
func (m *mapping) tlvsKept(du []byte, parsed *lldp.DU, perr error) func(off, i int) bool {
	if perr != nil {
		return func(_, i int) bool { return i < 3 }
	}
	discarded := map[int]bool{}
	for _, x := range parsed.Discarded {
		discarded[x.Offset] = true
	}
	k := 0 // the next of parsed.TLVs
	return func(off, i int) bool {
		switch {
		case i < 3:
			return true
		case discarded[off]:
			return false
		}
		if k >= len(parsed.TLVs) {
			return false
		}
		t := parsed.TLVs[k]
		k++
		raw, ok := t.(*lldp.RawTLV)
		if !ok {
			return true
		}
		return raw.T == lldp.TLVTypeOrg && len(raw.Value) >= 4 && lldp.OUI(raw.Value[:3]) == lldp.OUICEE && raw.Value[3] == lldp.SubtypeCIN
	}
}

// blank sets a TLV's value to fill, but an organizationally specific
// TLV's OUI and subtype (which say what was there).
func blank(typ lldp.TLVType, v []byte, fill byte) {
	if typ == lldp.TLVTypeOrg && len(v) >= 4 {
		v = v[4:]
	}
	for i := range v {
		v[i] = fill
	}
}

// replaceShort replaces v whole when it is one of the short names.
func (m *mapping) replaceShort(v []byte) {
	if p, ok := m.short[string(v)]; ok {
		copy(v, p)
	}
}

// netlink returns a netlink packet redacted: each message's payload,
// never the cooked header or a message header.
func (m *mapping) netlink(d []byte) ([]byte, error) {
	out := bytes.Clone(d)
	if len(out) < sllLen {
		return out, nil // tape.Reader refused it in the first pass
	}
	rest := out[sllLen:]
	for len(rest) >= nlmsgHdrLen {
		n := int(binary.NativeEndian.Uint32(rest))
		if n < nlmsgHdrLen || n > len(rest) {
			break
		}
		m.replace(rest[nlmsgHdrLen:n])
		rest = rest[min(len(rest), (n+3)&^3):]
	}
	m.replace(rest)
	if _, _, _, err := tape.DecodePacket(out); err != nil {
		return nil, fmt.Errorf("netlink packet: %w", errBroken)
	}
	return out, nil
}

// hostRecord returns a host record redacted: each field's value, never
// the record's header (magic, version, kind), a field's tag and length, or
// the binary numbers of the fields that have some (numbers).
func (m *mapping) hostRecord(d []byte) ([]byte, error) {
	out := bytes.Clone(d)
	const hdrLen, fieldHdr = 8, 6 // docs/recording.md, tape.AppendHost
	if len(out) < hdrLen {
		return out, nil // tape.Reader refused it in the first pass
	}
	kind := tape.Kind(out[5])
	rest := out[hdrLen:]
	for len(rest) >= fieldHdr {
		tag, n := binary.LittleEndian.Uint16(rest), binary.LittleEndian.Uint32(rest[2:])
		if uint64(n) > uint64(len(rest)-fieldHdr) {
			break
		}
		v := rest[fieldHdr : fieldHdr+int(n)]
		m.replace(v[tape.NumericPrefix(kind, tag, v):])
		rest = rest[fieldHdr+int(n):]
	}
	m.replace(rest)
	if _, err := tape.DecodeHost(d); err == nil {
		if _, err := tape.DecodeHost(out); err != nil {
			return nil, fmt.Errorf("host record: %w", errBroken)
		}
	}
	return out, nil
}
