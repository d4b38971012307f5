// SPDX-License-Identifier: Apache-2.0

package pcap

// The capture file formats, read and written here rather than through
// gopacket/pcapgo: pcapgo imports gopacket/layers for its link type, whose
// initialisation fills two 64 K-entry tables (5 MB resident in every
// dcbtop process, a quarter of the idle screen's memory; 1.4 MB of
// binary), and its pcapng reader needed three workarounds here (a panic on
// hostile interface ids, epb_flags decoded little-endian in big-endian
// sections, capture lengths read before they could be checked).
//
// Classic pcap: https://www.tcpdump.org/manpages/pcap-savefile.5.html and
// draft-ietf-opsawg-pcap. pcapng: draft-ietf-opsawg-pcapng (Section
// Header, Interface Description, Enhanced, Simple and obsolete Packet
// Blocks; every other block is skipped).

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"time"

	"github.com/dcbtop/dcbtop/capture"
)

// pcapng block types.
const (
	ngBlockSHB = 0x0a0d0d0a // Section Header Block
	ngBlockIDB = 1          // Interface Description Block
	ngBlockOPB = 2          // Packet Block (obsolete)
	ngBlockSPB = 3          // Simple Packet Block
	ngBlockEPB = 6          // Enhanced Packet Block
)

// pcapng option codes.
const (
	ngOptEnd      = 0  // opt_endofopt
	ngOptFlags    = 2  // epb_flags (and the obsolete block's pack_flags)
	ngOptUserAppl = 4  // shb_userappl
	ngOptIfName   = 2  // if_name
	ngOptIfDescr  = 3  // if_description
	ngOptTsresol  = 9  // if_tsresol
	ngOptTsoffset = 14 // if_tsoffset
)

// epb_flags direction (bits 0-1).
const (
	ngFlagInbound  = 1
	ngFlagOutbound = 2
)

// ngMaxBlockLen bounds the blocks a Reader reads into memory (skipped
// blocks are never held): a packet of maxRecordLen bytes with room for
// any sensible options. Longer blocks come from corrupt files.
const ngMaxBlockLen = maxRecordLen + 64<<10

// defaultTsresol is if_tsresol when an interface has none: microseconds.
const defaultTsresol = 6

// An ngIface is an interface a pcapng section describes.
type ngIface struct {
	linkType uint32
	snaplen  uint32
	name     string
	tsresol  byte  // if_tsresol: 10^-n, or 2^-n with the top bit set
	tsoffset int64 // if_tsoffset, seconds
	usDflt   bool  // no if_tsresol: microseconds by default
}

// A record is a packet record as read: data is valid until the next read.
type record struct {
	data            []byte
	at              time.Time
	capLen, origLen uint32
	linkType        uint32
	snaplen         uint32 // of the file or interface, 0 for none
	iface           string // "" for a classic pcap file
	ifIndex         int
	dir             capture.Direction
	usDflt          bool  // a pcapng timestamp at the default microsecond resolution
	off             int64 // where the record (its packet block) starts
}

// readFull reads len(b) bytes of the record at off: io.EOF when nothing
// at all was left (the end of the file between records), else an error of
// this package (a truncation, a read error).
func (r *Reader) readFull(off int64, b []byte) error {
	if _, err := io.ReadFull(r.br, b); err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return r.readError(off, err)
	}
	return nil
}

// readIn is readFull inside a record, where the end of the file is a
// truncation.
func (r *Reader) readIn(off int64, b []byte) error {
	if err := r.readFull(off, b); err != nil {
		if err == io.EOF {
			return r.readError(off, io.ErrUnexpectedEOF)
		}
		return err
	}
	return nil
}

// body returns n bytes of the record at off read into the Reader's
// buffer (valid until the next read).
func (r *Reader) body(off int64, n int) ([]byte, error) {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if err := r.readIn(off, b); err != nil {
		return nil, err
	}
	return b, nil
}

// readPcapRecord reads the next record of a classic pcap file, which
// starts at off.
func (r *Reader) readPcapRecord(off int64) (record, error) {
	h := r.hdr[:pcapRecordHeaderLen] // a local array would escape: an allocation per record
	if err := r.readFull(off, h); err != nil {
		return record{}, err
	}
	o := r.order
	sec, frac := o.Uint32(h[0:4]), o.Uint32(h[4:8])
	rec := record{capLen: o.Uint32(h[8:12]), origLen: o.Uint32(h[12:16]), linkType: r.linkType, snaplen: r.snaplen}
	if rec.capLen > maxRecordLen {
		return record{}, r.tooLongError(off, rec.capLen)
	}
	data, err := r.body(off, int(rec.capLen))
	if err != nil {
		return record{}, err
	}
	rec.data = data
	nsec := int64(frac)
	if !r.nanos {
		nsec *= 1000
	}
	rec.at = time.Unix(int64(sec), nsec).UTC()
	return rec, nil
}

// openNgSection reads the rest of a section header block whose 8-byte
// header hdr (type and length in either byte order) was read at off, and
// starts the section: its byte order, no interfaces yet.
func (r *Reader) openNgSection(off int64, hdr []byte, first bool) error {
	var bom [4]byte
	if err := r.readIn(off, bom[:]); err != nil {
		if first {
			return fmt.Errorf("%w: file header cut short", ErrTruncated)
		}
		return err
	}
	var order binary.ByteOrder
	switch {
	case bom == [4]byte(pcapngByteOrderBE):
		order = binary.BigEndian
	case bom == [4]byte(pcapngByteOrderLE):
		order = binary.LittleEndian
	case first:
		return fmt.Errorf("%w: bad pcapng byte-order magic %x", ErrNotPcap, bom)
	default:
		return r.corrupt(off, "bad pcapng byte-order magic %x", bom)
	}
	n := order.Uint32(hdr[4:8])
	if n < pcapngMinHeaderLen || n%4 != 0 || n > ngMaxBlockLen {
		if first {
			return fmt.Errorf("%w: section header block length %d", ErrCorrupt, n)
		}
		return r.corrupt(off, "section header block length %d", n)
	}
	rest, err := r.body(off, int(n)-12)
	if err != nil {
		if first {
			return fmt.Errorf("%w: file header cut short", ErrTruncated)
		}
		return err
	}
	if major, minor := order.Uint16(rest[0:2]), order.Uint16(rest[2:4]); major != 1 || minor != 0 {
		if first {
			return fmt.Errorf("%w pcapng version %d.%d (want 1.0)", ErrUnsupported, major, minor)
		}
		return fmt.Errorf("record %d at offset %d: %w pcapng section version %d.%d (want 1.0)", r.record, off, ErrUnsupported, major, minor)
	}
	if t := order.Uint32(rest[len(rest)-4:]); t != n {
		return r.ngCorrupt(off, first, "section header block lengths differ (%d and %d)", n, t)
	}
	r.order, r.ngIfaces = order, r.ngIfaces[:0]
	return nil
}

// ngCorrupt is corrupt for a block of the file header (first) or later.
func (r *Reader) ngCorrupt(off int64, first bool, format string, args ...any) error {
	if first {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	return r.corrupt(off, format, args...)
}

// readNgRecord reads blocks until a packet block and returns its record,
// whose off is where that block starts (errors name the block they are
// in): io.EOF at the end of the file, between blocks.
func (r *Reader) readNgRecord() (record, error) {
	for {
		off := r.offset()
		var hdr [8]byte
		if err := r.readFull(off, hdr[:]); err != nil {
			return record{}, err
		}
		if typ := binary.LittleEndian.Uint32(hdr[0:4]); typ == ngBlockSHB { // a palindrome
			if err := r.openNgSection(off, hdr[:], false); err != nil {
				return record{}, err
			}
			continue
		}
		typ, n := r.order.Uint32(hdr[0:4]), r.order.Uint32(hdr[4:8])
		if n < 12 || n%4 != 0 {
			return record{}, r.corrupt(off, "block of type %d has length %d", typ, n)
		}
		switch typ {
		case ngBlockIDB, ngBlockEPB, ngBlockSPB, ngBlockOPB:
		default:
			// Name resolution, statistics, secrets, custom blocks: not
			// needed, skipped without being held.
			if _, err := r.br.Discard(int(n) - 12); err != nil {
				return record{}, r.readError(off, err)
			}
			var t [4]byte
			if err := r.readIn(off, t[:]); err != nil {
				return record{}, err
			}
			if r.order.Uint32(t[:]) != n {
				return record{}, r.corrupt(off, "block of type %d: lengths differ (%d and %d)", typ, n, r.order.Uint32(t[:]))
			}
			continue
		}
		if err := r.checkNgPacketLen(off, typ, n); err != nil {
			return record{}, err
		}
		if n > ngMaxBlockLen {
			return record{}, r.corrupt(off, "block of type %d has length %d, over the %d-byte limit", typ, n, ngMaxBlockLen)
		}
		b, err := r.body(off, int(n)-8)
		if err != nil {
			return record{}, err
		}
		if t := r.order.Uint32(b[len(b)-4:]); t != n {
			return record{}, r.corrupt(off, "block of type %d: lengths differ (%d and %d)", typ, n, t)
		}
		b = b[:len(b)-4]
		if typ == ngBlockIDB {
			if err := r.addNgIface(off, b); err != nil {
				return record{}, err
			}
			continue
		}
		rec, err := r.ngPacket(off, typ, b)
		rec.off = off
		return rec, err
	}
}

// checkNgPacketLen peeks at a packet block's capture length before its
// block is read, so that a corrupt length is reported as such (and never
// allocated).
func (r *Reader) checkNgPacketLen(off int64, typ, n uint32) error {
	at := 12 // EPB and OPB: interface, timestamp high and low, then the capture length
	if typ != ngBlockEPB && typ != ngBlockOPB {
		return nil
	}
	b, _ := r.br.Peek(at + 4)
	if len(b) < at+4 {
		return nil // the block is cut short: reading it says so
	}
	if c := r.order.Uint32(b[at:]); c > maxRecordLen {
		return r.tooLongError(off, c)
	}
	return nil
}

// addNgIface records the interface an Interface Description Block body
// describes.
func (r *Reader) addNgIface(off int64, b []byte) error {
	if len(b) < 8 {
		return r.corrupt(off, "interface description block of %d bytes", len(b)+12)
	}
	in := ngIface{linkType: uint32(r.order.Uint16(b[0:2])), snaplen: r.order.Uint32(b[4:8]), tsresol: defaultTsresol, usDflt: true}
	err := r.ngOptions(off, b[8:], func(code uint16, v []byte) error {
		switch code {
		case ngOptIfName:
			in.name = string(v)
		case ngOptTsresol:
			if len(v) != 1 {
				return r.corrupt(off, "if_tsresol of %d bytes", len(v))
			}
			in.tsresol, in.usDflt = v[0], false
		case ngOptTsoffset:
			if len(v) != 8 {
				return r.corrupt(off, "if_tsoffset of %d bytes", len(v))
			}
			in.tsoffset = int64(r.order.Uint64(v))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if e, ok := tsresolExp(in.tsresol); !ok {
		return fmt.Errorf("record %d at offset %d: %w if_tsresol %s", r.record, off, ErrUnsupported, e)
	}
	r.ngIfaces = append(r.ngIfaces, in)
	return nil
}

// ngOptions calls fn for each option of a block's option list b.
func (r *Reader) ngOptions(off int64, b []byte, fn func(code uint16, v []byte) error) error {
	for len(b) >= 4 {
		code, n := r.order.Uint16(b[0:2]), int(r.order.Uint16(b[2:4]))
		if code == ngOptEnd {
			return nil
		}
		if 4+n > len(b) {
			return r.corrupt(off, "option %d of %d bytes runs past its block", code, n)
		}
		if err := fn(code, b[4:4+n]); err != nil {
			return err
		}
		b = b[min(len(b), 4+n+pad4(n)):]
	}
	return nil
}

// pad4 is the padding after n bytes to a multiple of 4.
func pad4(n int) int { return (4 - n%4) % 4 }

// ngPacket decodes the body b of a packet block of type typ.
func (r *Reader) ngPacket(off int64, typ uint32, b []byte) (record, error) {
	var (
		ifIndex  uint32
		ts       uint64
		rec      record
		data     []byte
		hdrLen   int
		haveTime = true
	)
	switch typ {
	case ngBlockEPB, ngBlockOPB:
		hdrLen = 20
		if len(b) < hdrLen {
			return record{}, r.corrupt(off, "packet block of %d bytes", len(b)+12)
		}
		if typ == ngBlockEPB {
			ifIndex = r.order.Uint32(b[0:4])
		} else {
			ifIndex = uint32(r.order.Uint16(b[0:2])) // then a drop count
		}
		ts = uint64(r.order.Uint32(b[4:8]))<<32 | uint64(r.order.Uint32(b[8:12]))
		rec.capLen, rec.origLen = r.order.Uint32(b[12:16]), r.order.Uint32(b[16:20])
		if rec.capLen > maxRecordLen {
			return record{}, r.tooLongError(off, rec.capLen)
		}
		if int(rec.capLen) > len(b)-hdrLen {
			return record{}, r.corrupt(off, "capture length %d runs past its block", rec.capLen)
		}
		data = b[hdrLen : hdrLen+int(rec.capLen)]
	case ngBlockSPB:
		hdrLen = 4
		if len(b) < hdrLen {
			return record{}, r.corrupt(off, "simple packet block of %d bytes", len(b)+12)
		}
		haveTime = false
		rec.origLen = r.order.Uint32(b[0:4])
		if len(r.ngIfaces) == 0 {
			return record{}, r.corrupt(off, "simple packet block before any interface description")
		}
		// Its data is the packet up to the interface's snapshot length.
		n := min(uint64(rec.origLen), uint64(len(b)-hdrLen))
		if s := r.ngIfaces[0].snaplen; s != 0 {
			n = min(n, uint64(s))
		}
		rec.capLen, data = uint32(n), b[hdrLen:hdrLen+int(n)]
	}
	if uint64(ifIndex) >= uint64(len(r.ngIfaces)) { // no int: 32-bit platforms
		return record{}, r.corrupt(off, "packet on interface %d, but the section describes %d", ifIndex, len(r.ngIfaces))
	}
	in := &r.ngIfaces[ifIndex]
	rec.data, rec.linkType, rec.snaplen, rec.iface, rec.ifIndex, rec.usDflt = data, in.linkType, in.snaplen, in.name, int(ifIndex), in.usDflt
	if haveTime {
		rec.at = ngTime(ts, in.tsresol, in.tsoffset)
		r.lastAt = rec.at
	} else {
		// No timestamp: the previous packet's, or the epoch before any
		// (as Wireshark shows it).
		rec.at, rec.usDflt = r.lastAt, false
		if rec.at.IsZero() {
			rec.at = time.Unix(0, 0).UTC()
		}
	}
	if typ != ngBlockSPB {
		pad := int(rec.capLen) + pad4(int(rec.capLen))
		err := r.ngOptions(off, b[min(len(b), hdrLen+pad):], func(code uint16, v []byte) error {
			if code == ngOptFlags && len(v) == 4 {
				switch r.order.Uint32(v) & 3 {
				case ngFlagInbound:
					rec.dir = capture.DirectionIncoming
				case ngFlagOutbound:
					rec.dir = capture.DirectionOutgoing
				}
			}
			return nil
		})
		if err != nil {
			return record{}, err
		}
	}
	return rec, nil
}

// tsresolExp describes if_tsresol v ("10^-6", "2^-10") and reports
// whether a Reader can convert its timestamps: 10^-0 to 10^-19 (a 64-bit
// count), 2^-0 to 2^-63.
func tsresolExp(v byte) (string, bool) {
	if v&0x80 != 0 {
		return fmt.Sprintf("2^-%d", v&0x7f), v&0x7f <= 63
	}
	return fmt.Sprintf("10^-%d", v), v <= 19
}

// pow10 are the powers of ten up to 10^19, the largest a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// ngTimeLimit bounds the seconds ngTime hands to time.Unix: about 31
// million years either side of 1970, far outside the years 0 to 9999 the
// Reader accepts and far inside what time.Time holds without wrapping.
const ngTimeLimit = 1e15

// ngTime converts a pcapng timestamp of ts units of resolution tsresol,
// plus tsoffset seconds, to a time. Seconds beyond ±ngTimeLimit saturate
// there (a year the Reader rejects, on the side the value was on: a large
// negative if_tsoffset gives a year before 0, never one after 9999).
func ngTime(ts uint64, tsresol byte, tsoffset int64) time.Time {
	var sec, nsec uint64
	if tsresol&0x80 != 0 {
		n := uint(tsresol & 0x7f)
		sec = ts >> n
		frac := ts & (1<<n - 1)
		hi, lo := bits.Mul64(frac, 1e9)
		if n > 0 {
			nsec = hi<<(64-n) | lo>>n
		}
	} else {
		unit := pow10[tsresol]
		sec = ts / unit
		frac := ts % unit
		if tsresol <= 9 {
			nsec = frac * pow10[9-tsresol]
		} else {
			nsec = frac / pow10[tsresol-9]
		}
	}
	s := int64(min(sec, ngTimeLimit)) + max(min(tsoffset, ngTimeLimit), -ngTimeLimit)
	return time.Unix(max(min(s, ngTimeLimit), -ngTimeLimit), int64(nsec)).UTC()
}
