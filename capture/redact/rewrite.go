// SPDX-License-Identifier: Apache-2.0

package redact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A rewriter is the second pass: it writes each record, redacted, to w.
type rewriter struct {
	m       *mapping
	w       *capture.Writer
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
func (r *rewriter) host(p capture.HostPacket) error {
	if p.Netlink {
		data, err := r.m.netlink(p.Data)
		if err != nil {
			return fmt.Errorf("record %d at offset %d: %w", p.Record, p.Offset, err)
		}
		dir := capture.DirectionIncoming
		if len(p.Data) >= 2 && binary.BigEndian.Uint16(p.Data) == pktOutgoing {
			dir = capture.DirectionOutgoing
		}
		return r.write(r.w.WritePacket(capture.Frame{Interface: capture.RecordingNetlink, At: p.At, Dir: dir, Data: data}, capture.LinkTypeNetlink, tape.Description))
	}
	data, err := r.m.hostRecord(p.Data)
	if err != nil {
		return fmt.Errorf("record %d at offset %d: %w", p.Record, p.Offset, err)
	}
	return r.write(r.w.WritePacket(capture.Frame{Interface: capture.RecordingHost, At: p.At, Data: data}, capture.LinkTypeUser0, tape.Description))
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
	off := len(d) - len(du)
	for off+2 <= len(out) {
		h := binary.BigEndian.Uint16(out[off:])
		typ, n := lldp.TLVType(h>>9), int(h&0x1ff)
		if typ == lldp.TLVTypeEnd || off+2+n > len(out) {
			break
		}
		m.replace(out[off+2 : off+2+n])
		off += 2 + n
	}
	m.replace(out[off:])
	if _, err := lldp.Parse(du); err == nil {
		if _, err := lldp.Parse(out[len(d)-len(du):]); err != nil {
			return nil, fmt.Errorf("LLDPDU: %w", errBroken)
		}
	}
	return out, nil
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
