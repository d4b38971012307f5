// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/dcbtop/dcbtop/capture"
)

// maxRecordLen is the longest record a Reader accepts, libpcap's
// MAXIMUM_SNAPLEN. Longer capture lengths come from corrupt files, and
// trusting them would let a small file ask for a huge allocation.
const maxRecordLen = 256 << 10

// readBufSize is the read buffer of a Reader.
const readBufSize = 64 << 10

// Link types (https://www.tcpdump.org/linktypes.html) a Reader understands.
const (
	linkTypeEthernet  = 1   // LINKTYPE_ETHERNET
	linkTypeLinuxSLL  = 113 // LINKTYPE_LINUX_SLL, "tcpdump -i any" before libpcap 1.10
	linkTypeLinuxSLL2 = 276 // LINKTYPE_LINUX_SLL2, "tcpdump -i any" since libpcap 1.10
)

// File magic numbers, as the first four bytes of the file.
var (
	magicPcapng       = []byte{0x0a, 0x0d, 0x0d, 0x0a} // section header block type
	magicPcapMicrosLE = []byte{0xd4, 0xc3, 0xb2, 0xa1}
	magicPcapMicrosBE = []byte{0xa1, 0xb2, 0xc3, 0xd4}
	magicPcapNanosLE  = []byte{0x4d, 0x3c, 0xb2, 0xa1}
	magicPcapNanosBE  = []byte{0xa1, 0xb2, 0x3c, 0x4d}
	magicGzip         = []byte{0x1f, 0x8b}
	pcapngByteOrderBE = []byte{0x1a, 0x2b, 0x3c, 0x4d}
	pcapngByteOrderLE = []byte{0x4d, 0x3c, 0x2b, 0x1a}
)

const (
	pcapHeaderLen       = 24 // classic pcap file header
	pcapRecordHeaderLen = 16 // classic pcap record header
	pcapngMinHeaderLen  = 28 // smallest section header block
)

// Linux packet types (sll_pkttype in <linux/if_packet.h>), as the packet
// type field of LINKTYPE_LINUX_SLL and LINKTYPE_LINUX_SLL2 records holds
// them. The kernel sets them on reception from the destination address
// (eth_type_trans): this interface's own address, the broadcast address,
// another multicast address, or another unicast address.
const (
	packetHost      = 0 // PACKET_HOST: to this interface's unicast address
	packetBroadcast = 1 // PACKET_BROADCAST: to ff:ff:ff:ff:ff:ff
	packetMulticast = 2 // PACKET_MULTICAST: to a multicast group
	packetOtherHost = 3 // PACKET_OTHERHOST: to another host (promiscuous)
	packetOutgoing  = 4 // PACKET_OUTGOING: sent by this host
)

// EtherTypes a Reader looks for in Linux cooked records.
const (
	etherTypeLLDP  = 0x88cc // IEEE Std 802.1AB (ETH_P_LLDP)
	etherTypeVLAN  = 0x8100 // IEEE Std 802.1Q C-tag
	etherTypeQinQ  = 0x88a8 // IEEE Std 802.1ad S-tag
	maxCookedVLANs = 2      // tags looked through, as many as the engine
)

// nearestBridge is the group address of the nearest-bridge LLDP agent
// (IEEE Std 802.1AB-2016, Table 7-1), the only one that carries DCBX: the
// destination a Reader assumes for the LLDP frames of Linux cooked records.
var nearestBridge = [6]byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}

// Timestamps a Reader accepts: those time.Time.MarshalJSON can encode, as
// RFC 3339 requires, a year of exactly four digits (and UTC, which replayed
// timestamps always are).
const (
	minYear = 0
	maxYear = 9999
)

// pcapInterface is the Interface of every frame replayed from a classic pcap
// file, which has a single unnamed interface.
const pcapInterface = "pcap0"

// A Reader is a capture.Source that reads Ethernet frames from a capture file: a
// classic pcap file (either byte order, microsecond or nanosecond
// timestamps) or a pcapng file, told apart by their magic number.
//
// Every capture.Frame has the record's capture timestamp (UTC) as At and a freshly
// allocated copy of the record as Data. Interface is "pcap0" for a classic
// pcap file; for pcapng it is the interface name from the Interface
// Description Block, or "pcapN" (N the interface's index in its section) if
// the block has none. A LINKTYPE_LINUX_SLL2 record ("tcpdump -i any" since
// libpcap 1.10) carries the index of the interface it was captured on: its
// Interface is "ifN" (N that index), so that the ports of a host captured
// together stay apart.
//
// Frames of the Ethernet link type are delivered as recorded, with
// capture.DirectionUnknown unless a pcapng Enhanced Packet Block has direction flags.
// Linux cooked captures ("tcpdump -i any", link types 113 and 276) are
// converted to Ethernet frames, with Frame.DstAssumed set: see the package
// documentation.
//
// A record whose capture length exceeds its packet length or the snapshot
// length (of the file, or in pcapng of its interface) is delivered with
// every captured byte, as tshark reads it, and a Frame.Note saying so.
// Capture lengths over 256 KiB are never read: they are corrupt.
//
// A Reader is not safe for concurrent use. It delivers frames as fast as
// they are read: pacing a replay is the caller's (capture/session's
// player), which also pauses and seeks.
type Reader struct {
	// borrow: an Ethernet frame's Data is the read buffer (Borrow).
	borrow bool
	// hdr holds a record header as it is read.
	hdr  [pcapRecordHeaderLen]byte
	file io.Closer
	cr   *countingReader
	br   *bufio.Reader

	// The file's format: a classic pcap file (linkType, snaplen, nanos)
	// or pcapng (ng: the current section's interfaces); order is the byte
	// order of the file or of the current pcapng section.
	ng       bool
	order    binary.ByteOrder
	linkType uint32 // of a classic pcap file
	snaplen  uint32 // of a classic pcap file, 0 if it declares none
	nanos    bool   // classic pcap with nanosecond timestamps
	// ifnames names SLL2 records' interface indexes (ifindexName).
	ifnames map[uint32]string

	ngIfaces []ngIface
	ngNames  map[int]string // "pcapN" names already built
	lastAt   time.Time      // the latest pcapng packet's timestamp

	buf []byte // the record being read

	record int   // number of records read so far
	err    error // sticky error of the last read, io.EOF included
	closed bool

	// frames counts the frames returned; host holds the host packets
	// read since the last frame they preceded was taken (NextHost);
	// skipped counts packets of other netlink or private interfaces.
	frames  int
	host    []HostPacket
	skipped int
}

// A HostPacket is a packet of a dcbtop recording's own interfaces
// (RecordingNetlink, RecordingHost): a netlink exchange's request or
// reply, or a host record, for capture/tape to read.
type HostPacket struct {
	// Netlink: a packet of the netlink interface; else a host record.
	Netlink bool
	At      time.Time
	Data    []byte // the Reader's own copy
	// Before is the number of frames ReadFrame had returned when the
	// packet was read: it comes before the frame of that index.
	Before int
	// Record and Offset are the packet's record number and offset in
	// the file, for errors.
	Record int
	Offset int64
}

// maxHostPending is how many host packets ReadFrame reads ahead of a
// frame before it returns ErrHostPending.
const maxHostPending = 256

// ErrHostPending is ReadFrame's answer when host packets wait to be taken
// (NextHost) before it reads on: a recording with long stretches without
// frames is never held in memory. It is not final.
var ErrHostPending = errors.New("host packets pending")

// NextHost returns the next host packet read that comes before the frame
// of index frame (the number of frames the caller has handed on), and
// takes it; false when there is none.
func (r *Reader) NextHost(frame int) (HostPacket, bool) {
	if len(r.host) == 0 || r.host[0].Before > frame {
		return HostPacket{}, false
	}
	p := r.host[0]
	r.host[0] = HostPacket{}
	r.host = r.host[1:]
	if len(r.host) == 0 {
		r.host = nil
	}
	return p, true
}

// HostPending reports whether host packets wait to be taken (NextHost).
func (r *Reader) HostPending() bool { return len(r.host) > 0 }

// Skipped is the number of packets of netlink or private link types on
// interfaces that are not a dcbtop recording's (an nlmon capture beside
// the LLDPDUs): read past, never decoded.
func (r *Reader) Skipped() int { return r.skipped }

var _ capture.Source = (*Reader)(nil)

// Open opens the capture file at path and reads its file header. The
// file stays open until Close.
//
// Errors never repeat path, and satisfy errors.Is with fs.ErrNotExist (and
// other fs errors) when the file cannot be opened or read, ErrNotPcap when it
// is neither pcap nor pcapng (an empty file included), ErrTruncated when the
// file header is cut short, ErrCorrupt when it is malformed, and
// ErrUnsupported when its format version, or the link type of a classic pcap
// file, is not supported.
func Open(path string) (*Reader, error) {
	f := os.Stdin // "-", as tcpdump -r -
	if path != "-" {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, osError("open", err)
		}
	}
	r := &Reader{file: f, cr: &countingReader{r: f}}
	r.br = newBufReader(r.cr)
	if err := r.open(); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// open detects the file format from its magic number and reads the header.
func (r *Reader) open() (err error) {
	magic, err := r.br.Peek(4)
	if len(magic) < 4 {
		if err != io.EOF {
			return osError("read", err)
		}
		if len(magic) == 0 {
			return fmt.Errorf("%w: empty file", ErrNotPcap)
		}
		for _, m := range [][]byte{magicPcapng, magicPcapMicrosLE, magicPcapMicrosBE, magicPcapNanosLE, magicPcapNanosBE} {
			if bytes.HasPrefix(m, magic) {
				return fmt.Errorf("%w: file header cut short (%d bytes)", ErrTruncated, len(magic))
			}
		}
		return fmt.Errorf("%w: only %d bytes long", ErrNotPcap, len(magic))
	}
	switch {
	case bytes.Equal(magic, magicPcapng):
		return r.openPcapng()
	case bytes.Equal(magic, magicPcapMicrosLE), bytes.Equal(magic, magicPcapNanosLE):
		return r.openPcap(binary.LittleEndian, bytes.Equal(magic, magicPcapNanosLE))
	case bytes.Equal(magic, magicPcapMicrosBE), bytes.Equal(magic, magicPcapNanosBE):
		return r.openPcap(binary.BigEndian, bytes.Equal(magic, magicPcapNanosBE))
	case bytes.HasPrefix(magic, magicGzip):
		return fmt.Errorf("%w: gzip-compressed (decompress it first)", ErrNotPcap)
	default:
		return fmt.Errorf("%w: unknown magic number %x", ErrNotPcap, magic)
	}
}

// header peeks at the first n bytes of the file, which must all be there.
func (r *Reader) header(n int) ([]byte, error) {
	hdr, err := r.br.Peek(n)
	if len(hdr) < n {
		if err != io.EOF {
			return nil, osError("read", err)
		}
		return nil, fmt.Errorf("%w: file header cut short (%d of %d bytes)", ErrTruncated, len(hdr), n)
	}
	return hdr, nil
}

// openPcap reads the header of a classic pcap file.
func (r *Reader) openPcap(order binary.ByteOrder, nanos bool) error {
	hdr, err := r.header(pcapHeaderLen)
	if err != nil {
		return err
	}
	if major, minor := order.Uint16(hdr[4:6]), order.Uint16(hdr[6:8]); major != 2 || minor != 4 {
		return fmt.Errorf("%w pcap version %d.%d (want 2.4)", ErrUnsupported, major, minor)
	}
	r.snaplen = order.Uint32(hdr[16:20])
	// The upper 16 bits of the link type field may hold FCS information.
	r.linkType = order.Uint32(hdr[20:24]) & 0xffff
	if !supportedLinkType(r.linkType) {
		return unsupportedLinkType(r.linkType)
	}
	r.order, r.nanos = order, nanos
	_, err = r.br.Discard(pcapHeaderLen)
	return err
}

// openPcapng reads the first section header block of a pcapng file.
func (r *Reader) openPcapng() error {
	if _, err := r.header(pcapngMinHeaderLen); err != nil {
		return err
	}
	var hdr [8]byte
	if _, err := io.ReadFull(r.br, hdr[:]); err != nil {
		return osError("read", err) // unreachable: peeked above
	}
	if err := r.openNgSection(0, hdr[:], true); err != nil {
		return err
	}
	r.ng, r.ngNames = true, make(map[int]string)
	return nil
}

// ReadFrame returns the next frame of the file, or ctx.Err() when ctx is
// done.
//
// At the end of the file ReadFrame returns io.EOF. If the file ends in the
// middle of a record, it returns an error wrapping ErrTruncated that names
// the record number and its byte offset; if a record is malformed, one
// wrapping ErrCorrupt or ErrUnsupported. A timestamp outside years 0 to
// 9999, which no RFC 3339 (JSON) timestamp can hold, is corrupt: typically
// nanosecond timestamps in a pcapng interface without if_tsresol, read as
// microseconds. Such errors are final: later calls return them again.
func (r *Reader) ReadFrame(ctx context.Context) (capture.Frame, error) {
	if r.closed {
		return capture.Frame{}, fmt.Errorf("read: %w", fs.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return capture.Frame{}, err
	}
	if r.err != nil {
		return capture.Frame{}, r.err
	}
	f, err := r.read()
	if err != nil {
		if err != ErrHostPending {
			r.err = err
		}
		return capture.Frame{}, err
	}
	return f, nil
}

// Close closes the file. ReadFrame fails after Close; Close itself may be
// called more than once.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if err := r.file.Close(); err != nil {
		return osError("close", err)
	}
	return nil
}

// offset returns the offset in the file of the next byte to be read.
func (r *Reader) offset() int64 {
	return r.cr.n - int64(r.br.Buffered())
}

// nextRecord reads the next record of either format and returns it with
// its offset in the file.
func (r *Reader) nextRecord() (rec record, off int64, err error) {
	off = r.offset()
	r.record++
	if r.ng {
		rec, err = r.readNgRecord()
		return rec, rec.off, err
	}
	rec, err = r.readPcapRecord(off)
	return rec, off, err
}

// read reads the next record and turns it into a Frame; a dcbtop
// recording's host packets on the way are kept for NextHost.
func (r *Reader) read() (capture.Frame, error) {
	rec, off, err := r.nextRecord()
	if err == nil && (rec.linkType == LinkTypeNetlink || rec.linkType == LinkTypeUser0) {
		rec, off, err = r.hostRecords(rec, off)
	}
	if err != nil {
		return capture.Frame{}, err
	}
	if err := r.checkTime(off, rec.at, rec.usDflt); err != nil {
		return capture.Frame{}, err
	}
	name := pcapInterface
	if r.ng {
		name = rec.iface
		if name == "" {
			name = r.ngName(rec.ifIndex)
		}
	}
	f, err := r.frame(off, rec.linkType, rec.data, rec.at, name, rec.dir)
	if err != nil {
		return capture.Frame{}, err
	}
	f.Note = r.lengthNote(off, rec.capLen, rec.origLen, rec.snaplen)
	r.frames++
	return f, nil
}

// hostRecords keeps rec, a host packet, and those that follow it for
// NextHost (or counts them skipped: another program's netlink or private
// packets), and returns the first record after them, or ErrHostPending
// once maxHostPending wait. Off the path of a file of frames alone.
func (r *Reader) hostRecords(rec record, off int64) (record, int64, error) {
	var err error
	for err == nil && (rec.linkType == LinkTypeNetlink || rec.linkType == LinkTypeUser0) {
		if err = r.checkTime(off, rec.at, rec.usDflt); err != nil {
			return rec, off, err
		}
		switch {
		case r.ng && (rec.iface == RecordingNetlink || rec.iface == RecordingHost):
			r.host = append(r.host, HostPacket{Netlink: rec.iface == RecordingNetlink, At: rec.at, Data: bytes.Clone(rec.data), Before: r.frames, Record: r.record, Offset: off})
			if len(r.host) >= maxHostPending {
				return rec, off, ErrHostPending
			}
		default:
			r.skipped++
		}
		rec, off, err = r.nextRecord()
	}
	return rec, off, err
}

// lengthNote returns the Frame.Note of the record at off, of capture length
// capLen, original length origLen and snapshot length snaplen (0 for none),
// or "" if capLen exceeds neither.
func (r *Reader) lengthNote(off int64, capLen, origLen, snaplen uint32) string {
	overLen := capLen > origLen
	overSnap := snaplen != 0 && capLen > snaplen
	var what string
	switch {
	case overLen && overSnap:
		what = fmt.Sprintf("packet length %d and snapshot length %d", origLen, snaplen)
	case overLen:
		what = fmt.Sprintf("packet length %d", origLen)
	case overSnap:
		what = fmt.Sprintf("snapshot length %d", snaplen)
	default:
		return ""
	}
	return fmt.Sprintf("record %d at offset %d: capture length %d exceeds %s; read as captured", r.record, off, capLen, what)
}

// checkTime returns an ErrCorrupt error if the timestamp at of the record at
// off is outside years 0 to 9999. usNg says the record is a pcapng packet on
// an interface with microsecond timestamps, the default when if_tsresol is
// absent, which nanosecond timestamps then overflow.
func (r *Reader) checkTime(off int64, at time.Time, usNg bool) error {
	switch y := at.Year(); {
	case y > maxYear && usNg:
		return r.corrupt(off, "timestamp is year %d, after %d (nanosecond stamps without if_tsresol?)", y, maxYear)
	case y > maxYear:
		return r.corrupt(off, "timestamp is year %d, after %d", y, maxYear)
	case y < minYear:
		return r.corrupt(off, "timestamp is year %d, before %d", y, minYear)
	}
	return nil
}

// ngName returns "pcapN" for interface index i.
func (r *Reader) ngName(i int) string {
	name, ok := r.ngNames[i]
	if !ok {
		name = "pcap" + strconv.Itoa(i)
		r.ngNames[i] = name
	}
	return name
}

// Borrow makes later ReadFrame calls hand out frames whose Data is valid
// only until the next call (the read buffer, not a copy): for a reader
// that copies what it keeps, such as the engine, one allocation less per
// frame.
func (r *Reader) Borrow() { r.borrow = true }

// frame builds the capture.Frame of a record of link type lt. data is reused by
// the next read, so the capture.Frame gets a copy unless Borrow was called.
func (r *Reader) frame(off int64, lt uint32, data []byte, at time.Time, iface string, dir capture.Direction) (capture.Frame, error) {
	f := capture.Frame{Interface: iface, At: at, Dir: dir}
	var cookedDir capture.Direction
	switch lt {
	case linkTypeEthernet:
		if r.borrow {
			f.Data = data
			return f, nil
		}
		f.Data = make([]byte, len(data))
		copy(f.Data, data)
		return f, nil
	case linkTypeLinuxSLL:
		// https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html
		//  0: packet type   2: ARPHRD type   4: address length
		//  6: address (8 bytes, zero padded)  14: protocol type
		const hdrLen = 16
		if len(data) < hdrLen {
			return capture.Frame{}, r.corrupt(off, "linux cooked header cut short (%d of %d bytes)", len(data), hdrLen)
		}
		pktType := binary.BigEndian.Uint16(data[0:2])
		f.Data = cookedToEthernet(pktType, data[6:14], int(binary.BigEndian.Uint16(data[4:6])), binary.BigEndian.Uint16(data[14:16]), data[hdrLen:])
		cookedDir = cookedDirection(pktType)
	case linkTypeLinuxSLL2:
		// https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html
		//  0: protocol type   2: reserved   4: interface index
		//  8: ARPHRD type    10: packet type   11: address length
		// 12: address (8 bytes, zero padded)
		const hdrLen = 20
		if len(data) < hdrLen {
			return capture.Frame{}, r.corrupt(off, "linux cooked v2 header cut short (%d of %d bytes)", len(data), hdrLen)
		}
		pktType := uint16(data[10])
		f.Data = cookedToEthernet(pktType, data[12:20], int(data[11]), binary.BigEndian.Uint16(data[0:2]), data[hdrLen:])
		cookedDir = cookedDirection(pktType)
		// "tcpdump -i any" records each frame's interface index: frames
		// of different ports are different interfaces, not one link
		// with several peers.
		f.Interface = r.ifindexName(binary.BigEndian.Uint32(data[4:8]))
	default:
		return capture.Frame{}, fmt.Errorf("record %d at offset %d: %w", r.record, off, unsupportedLinkType(lt))
	}
	f.DstAssumed = true
	if f.Dir == capture.DirectionUnknown {
		f.Dir = cookedDir
	}
	return f, nil
}

// ifindexName names the interface of a LINKTYPE_LINUX_SLL2 record by the
// interface index it carries: "if2" for index 2 (the file has no names).
// Names are kept, so a frame does not allocate one.
func (r *Reader) ifindexName(idx uint32) string {
	if name, ok := r.ifnames[idx]; ok {
		return name
	}
	if r.ifnames == nil {
		r.ifnames = map[uint32]string{}
	}
	name := "if" + strconv.FormatUint(uint64(idx), 10)
	if len(r.ifnames) < maxIfindexNames {
		r.ifnames[idx] = name
	}
	return name
}

// maxIfindexNames bounds the interface names a Reader keeps (a hostile
// file may carry any index in every record).
const maxIfindexNames = 4096

// The interfaces of a dcbtop recording besides the captured ones
// (capture/tape, docs/recording.md): the netlink exchanges, on an
// interface of link type LINKTYPE_NETLINK, and the host records, on one of
// LINKTYPE_USER0.
const (
	RecordingNetlink = "dcbtop:netlink"
	RecordingHost    = "dcbtop:host"
	// LinkTypeNetlink is LINKTYPE_NETLINK
	// (https://www.tcpdump.org/linktypes/LINKTYPE_NETLINK.html).
	LinkTypeNetlink = 253
	// LinkTypeUser0 is LINKTYPE_USER0, for private use
	// (https://www.tcpdump.org/linktypes.html).
	LinkTypeUser0 = 147
)

func supportedLinkType(lt uint32) bool {
	return lt == linkTypeEthernet || lt == linkTypeLinuxSLL || lt == linkTypeLinuxSLL2
}

func unsupportedLinkType(lt uint32) error {
	return fmt.Errorf("%w link type %d (want Ethernet or Linux cooked)", ErrUnsupported, lt)
}

func (r *Reader) tooLongError(off int64, n uint32) error {
	return r.corrupt(off, "capture length %d exceeds the %d-byte limit", n, maxRecordLen)
}

// corrupt returns an ErrCorrupt error about the current record.
func (r *Reader) corrupt(off int64, format string, args ...any) error {
	return fmt.Errorf("%w: record %d at offset %d: %s", ErrCorrupt, r.record, off, fmt.Sprintf(format, args...))
}

// readError turns an error reading the record at off into one of this
// package: a truncation, or the file's read error.
func (r *Reader) readError(off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: record %d at offset %d cut short", ErrTruncated, r.record, off)
	}
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return osError("read", err)
	}
	return osError("read", err)
}

// newBufReader returns the buffered reader a Reader reads through.
func newBufReader(r io.Reader) *bufio.Reader {
	return bufio.NewReaderSize(r, readBufSize)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
