// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/capturetest"
)

// This file builds capture files byte by byte, in both byte orders, so that
// the tests do not depend on a writer that only knows little-endian.
// TestBuildersMatchPcapgo checks them against pcapgo's writers.

// t0 is the capture time of the first frame of most fixtures.
var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Link types used in the fixtures.
const (
	ltEthernet = 1
	ltSLL      = 113
	ltSLL2     = 276
	ltRaw      = 101 // LINKTYPE_RAW: an IP packet, no link-layer header
)

// lldpFrame and lldpPayload are capturetest's minimal LLDP frame of the
// station whose MAC address ends in last, and its LLDPDU.
var (
	lldpFrame   = capturetest.LLDPFrame
	lldpPayload = capturetest.LLDPPayload
)

// cooked is lldpFrame(last) as a Replay turns its Linux cooked capture
// into Ethernet when the packet type does not let it assume the
// nearest-bridge destination: with no destination address.
func cooked(last byte) []byte {
	b := lldpFrame(last)
	copy(b[0:6], make([]byte, 6))
	return b
}

// rec is one record of a fixture.
type rec struct {
	at   time.Time
	data []byte
	// capLen and origLen override the record header's lengths if non-zero.
	capLen, origLen uint32
}

// lengths returns the capture and original lengths of the record header.
func (r rec) lengths() (capLen, origLen uint32) {
	capLen, origLen = uint32(len(r.data)), uint32(len(r.data))
	if r.capLen != 0 {
		capLen = r.capLen
	}
	if r.origLen != 0 {
		origLen = r.origLen
	}
	return capLen, origLen
}

// pcapFile describes a classic pcap file.
type pcapFile struct {
	order        binary.AppendByteOrder
	nanos        bool
	major, minor uint16 // 2.4 if zero
	snaplen      uint32
	linkType     uint32
}

// header returns the 24-byte file header.
func (p pcapFile) header() []byte {
	magic := uint32(0xa1b2c3d4)
	if p.nanos {
		magic = 0xa1b23c4d
	}
	major, minor := p.major, p.minor
	if major == 0 && minor == 0 {
		major, minor = 2, 4
	}
	b := p.order.AppendUint32(nil, magic)
	b = p.order.AppendUint16(b, major)
	b = p.order.AppendUint16(b, minor)
	b = p.order.AppendUint32(b, 0) // thiszone
	b = p.order.AppendUint32(b, 0) // sigfigs
	b = p.order.AppendUint32(b, p.snaplen)
	return p.order.AppendUint32(b, p.linkType)
}

// record returns a 16-byte record header followed by the data.
func (p pcapFile) record(r rec) []byte {
	frac := uint32(r.at.Nanosecond())
	if !p.nanos {
		frac /= 1000
	}
	capLen, origLen := r.lengths()
	b := p.order.AppendUint32(nil, uint32(r.at.Unix()))
	b = p.order.AppendUint32(b, frac)
	b = p.order.AppendUint32(b, capLen)
	b = p.order.AppendUint32(b, origLen)
	return append(b, r.data...)
}

// bytes returns the whole file.
func (p pcapFile) bytes(recs ...rec) []byte {
	b := p.header()
	for _, r := range recs {
		b = append(b, p.record(r)...)
	}
	return b
}

// ng builds a pcapng file block by block.
type ng struct {
	order binary.AppendByteOrder
	b     []byte
}

// ngOpt is a pcapng option.
type ngOpt struct {
	code  uint16
	value []byte
}

// options encodes opts and the end of options, or nothing if opts is empty.
func (n *ng) options(opts []ngOpt) []byte {
	if len(opts) == 0 {
		return nil
	}
	var b []byte
	for _, o := range opts {
		b = n.order.AppendUint16(b, o.code)
		b = n.order.AppendUint16(b, uint16(len(o.value)))
		b = append(b, o.value...)
		b = append(b, make([]byte, pad4(len(o.value)))...)
	}
	return append(b, 0, 0, 0, 0)
}

func pad4(n int) int { return (4 - n%4) % 4 }

// block appends a block of type typ around body, padded to 4 bytes.
func (n *ng) block(typ uint32, body []byte) *ng {
	body = append(body, make([]byte, pad4(len(body)))...)
	total := uint32(12 + len(body))
	n.b = n.order.AppendUint32(n.b, typ)
	n.b = n.order.AppendUint32(n.b, total)
	n.b = append(n.b, body...)
	n.b = n.order.AppendUint32(n.b, total)
	return n
}

// shb appends a section header block, version 1.0, section length unknown,
// with options opts.
func (n *ng) shb(opts ...ngOpt) *ng {
	b := n.order.AppendUint32(nil, 0x1a2b3c4d)
	b = n.order.AppendUint16(b, 1)
	b = n.order.AppendUint16(b, 0)
	b = n.order.AppendUint64(b, ^uint64(0))
	return n.block(0x0a0d0d0a, append(b, n.options(opts)...))
}

// idb appends an interface description block with nanosecond timestamps
// and, if name is not empty, an if_name option.
func (n *ng) idb(linkType uint16, snaplen uint32, name string) *ng {
	opts := []ngOpt{tsresolNanos}
	if name != "" {
		opts = append(opts, ngOpt{code: 2, value: []byte(name)})
	}
	return n.idbOpts(linkType, snaplen, opts...)
}

// tsresolNanos is the if_tsresol option for nanosecond timestamps.
var tsresolNanos = ngOpt{code: 9, value: []byte{9}}

// tsoffset returns the if_tsoffset option for an offset of sec seconds.
func (n *ng) tsoffset(sec int64) ngOpt {
	return ngOpt{code: 14, value: n.order.AppendUint64(nil, uint64(sec))}
}

// idbOpts appends an interface description block with options opts only.
func (n *ng) idbOpts(linkType uint16, snaplen uint32, opts ...ngOpt) *ng {
	b := n.order.AppendUint16(nil, linkType)
	b = n.order.AppendUint16(b, 0)
	b = n.order.AppendUint32(b, snaplen)
	return n.block(1, append(b, n.options(opts)...))
}

// epb appends an enhanced packet block stamped r.at in nanoseconds; flags
// is the epb_flags option word if non-nil.
func (n *ng) epb(iface uint32, r rec, flags *uint32) *ng {
	return n.epbTS(iface, uint64(r.at.UnixNano()), r, flags)
}

// epbTS appends an enhanced packet block with timestamp ts, in the units of
// its interface, and ignores r.at.
func (n *ng) epbTS(iface uint32, ts uint64, r rec, flags *uint32) *ng {
	capLen, origLen := r.lengths()
	b := n.order.AppendUint32(nil, iface)
	b = n.order.AppendUint32(b, uint32(ts>>32))
	b = n.order.AppendUint32(b, uint32(ts))
	b = n.order.AppendUint32(b, capLen)
	b = n.order.AppendUint32(b, origLen)
	b = append(b, r.data...)
	b = append(b, make([]byte, pad4(len(r.data)))...)
	if flags != nil {
		b = append(b, n.options([]ngOpt{{code: 2, value: n.order.AppendUint32(nil, *flags)}})...)
	}
	return n.block(6, b)
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// sll returns a LINKTYPE_LINUX_SLL record: packet type, ARPHRD_ETHER, the
// address, the protocol and the payload.
func sll(pktType uint16, addr []byte, proto uint16, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, pktType)
	b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
	b = binary.BigEndian.AppendUint16(b, uint16(len(addr)))
	a := make([]byte, 8)
	copy(a, addr)
	b = append(b, a...)
	b = binary.BigEndian.AppendUint16(b, proto)
	return append(b, payload...)
}

// sll2 returns a LINKTYPE_LINUX_SLL2 record.
func sll2(pktType uint8, ifindex uint32, addr []byte, proto uint16, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, proto)
	b = binary.BigEndian.AppendUint16(b, 0) // reserved
	b = binary.BigEndian.AppendUint32(b, ifindex)
	b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
	b = append(b, pktType, uint8(len(addr)))
	a := make([]byte, 8)
	copy(a, addr)
	b = append(b, a...)
	return append(b, payload...)
}

// writeTemp writes b to a new file in t.TempDir and returns its path.
func writeTemp(tb testing.TB, b []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "capture")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
