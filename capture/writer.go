package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// writerSnaplen is the snapshot length a Writer declares for each
// interface. Longer frames are cut to it, their original length kept in the
// record.
const writerSnaplen = 65535

// writerApplication is the shb_userappl option of the files a Writer writes.
const writerApplication = "dcbtop"

// Timestamps a Writer can record: pcapgo writes time.Time.UnixNano as an
// unsigned count of nanoseconds since 1970.
var (
	writerMinTime = time.Unix(0, 0)
	writerMaxTime = time.Unix(0, math.MaxInt64) // 2262-04-11T23:47:16.854775807Z
)

// A Writer records Frames to a pcapng file, which OpenReplay, tshark and
// every pcapng tool can read back. The file has a single little-endian
// section. Each distinct Frame.Interface gets an Interface Description
// Block, written just before the first frame captured on it, with the name
// as if_name, link type Ethernet, snapshot length 65535 and nanosecond
// timestamps (if_tsresol 9). Each frame is an Enhanced Packet Block on its
// interface, whose epb_flags option holds the direction: inbound for
// DirectionIncoming, outbound for DirectionOutgoing, and no epb_flags at all
// for DirectionUnknown.
//
// Replayed, the frames come back as they were written: same Interface, At
// (to the nanosecond, in UTC), Dir and Data, except that frames over 65535
// bytes are cut (the original length stays in the record) and that an empty
// Interface has no if_name and replays as "pcapN", N being the index of its
// interface in the file. DstAssumed and Note are not recorded: a recorded
// frame replays with its Data's destination as recorded, DstAssumed false
// and no Note.
//
// Each WriteFrame hands its whole record, preceded by the interface's
// description if it is new, to the underlying writer in a single Write, so a
// file being recorded is always readable up to the last frame written, and
// a crash loses at most the frame being written. A Writer is not safe for
// concurrent use.
type Writer struct {
	dst    io.Writer
	file   *os.File // set if CreateWriter created it
	ng     *pcapgo.NgWriter
	buf    *blockBuffer   // where ng writes, emptied into dst
	ifaces map[string]int // interface index in the file, by name
	err    error          // first failed write to dst: final
	closed bool
}

// blockBuffer collects the blocks pcapgo writes, so that the Writer can hand
// them to the destination in one Write. Its Write never fails.
type blockBuffer struct{ b []byte }

func (b *blockBuffer) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}

// CreateWriter creates the file at path, with mode 0644 (before umask), or
// truncates it if it exists, as tcpdump -w does, and writes the pcapng
// section header to it. Errors never repeat path.
func CreateWriter(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, osError("create", err)
	}
	w, err := NewWriter(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.file = f
	return w, nil
}

// NewWriter writes the pcapng section header to w and returns a Writer for
// the interfaces and records. Close does not close w.
func NewWriter(w io.Writer) (*Writer, error) {
	buf := &blockBuffer{}
	// pcapgo writes a first interface along with the section header; the
	// Writer describes interfaces only once it knows their names, so it
	// keeps the section header alone. Interface i of the file is then
	// interface i+1 of the NgWriter, whose indexes only matter to check
	// that the interface exists.
	ng, err := pcapgo.NewNgWriterInterface(buf,
		pcapgo.NgInterface{LinkType: layers.LinkTypeEthernet, SnapLength: writerSnaplen},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: writerApplication}})
	if err == nil {
		err = ng.Flush()
	}
	if err != nil { // unreachable: buf never fails
		return nil, pcapgoError(err)
	}
	if len(buf.b) < 8 || binary.LittleEndian.Uint32(buf.b[4:8]) > uint32(len(buf.b)) {
		return nil, errors.New("write: gopacket/pcapgo wrote no section header") // unreachable
	}
	buf.b = buf.b[:binary.LittleEndian.Uint32(buf.b[4:8])]
	wr := &Writer{dst: w, ng: ng, buf: buf, ifaces: make(map[string]int)}
	if err := wr.flush(); err != nil {
		return nil, err
	}
	return wr, nil
}

// WriteFrame appends f to the file, after the description of f.Interface if
// it is the first frame on it. f.At must lie between 1970 and 2262, which
// pcapgo can represent (the zero time cannot be written); such a rejected
// frame leaves the Writer usable. A failed write is final: later calls
// return the same error.
func (w *Writer) WriteFrame(f Frame) error {
	if w.closed {
		return fmt.Errorf("write: %w", fs.ErrClosed)
	}
	if w.err != nil {
		return w.err
	}
	if f.At.Before(writerMinTime) || f.At.After(writerMaxTime) {
		return fmt.Errorf("frame timestamp %s outside the pcapng range (1970 to 2262)", f.At.UTC().Format(time.RFC3339Nano))
	}
	if len(f.Interface) > math.MaxUint16 {
		return fmt.Errorf("interface name of %d bytes too long for pcapng", len(f.Interface))
	}
	idx, ok := w.ifaces[f.Interface]
	if !ok {
		id, err := w.ng.AddInterface(pcapgo.NgInterface{
			Name:       f.Interface,
			LinkType:   layers.LinkTypeEthernet,
			SnapLength: writerSnaplen,
		})
		if err != nil { // unreachable: buf never fails
			return w.fail(pcapgoError(err))
		}
		idx = id - 1 // see NewWriter
		w.ifaces[f.Interface] = idx
	}
	data := f.Data
	if len(data) > writerSnaplen {
		data = data[:writerSnaplen]
	}
	ci := gopacket.CaptureInfo{Timestamp: f.At, CaptureLength: len(data), Length: len(f.Data), InterfaceIndex: idx}
	var opts pcapgo.NgPacketOptions
	switch f.Dir {
	case DirectionIncoming:
		opts.Flags = &pcapgo.NgEpbFlags{Direction: pcapgo.NgEpbFlagDirectionInbound}
	case DirectionOutgoing:
		opts.Flags = &pcapgo.NgEpbFlags{Direction: pcapgo.NgEpbFlagDirectionOutbound}
	}
	err := w.ng.WritePacketWithOptions(ci, data, opts)
	if ferr := w.ng.Flush(); err == nil {
		err = ferr
	}
	// Whatever pcapgo refused, a new interface's description is in buf and
	// must reach the file.
	if ferr := w.flush(); ferr != nil {
		return ferr
	}
	if err != nil { // unreachable: ci matches data and buf never fails
		return pcapgoError(err)
	}
	return nil
}

// flush hands the blocks in w.buf to the destination in one Write.
func (w *Writer) flush() error {
	if len(w.buf.b) == 0 {
		return nil
	}
	n, err := w.dst.Write(w.buf.b)
	if err == nil && n < len(w.buf.b) {
		err = io.ErrShortWrite
	}
	w.buf.b = w.buf.b[:0]
	if err != nil {
		return w.fail(osError("write", err))
	}
	return nil
}

// fail makes err the Writer's final error.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// Close closes the file if CreateWriter created it, and returns the error
// that ended writing, if any. Every frame written is already in the file.
// Close may be called more than once; WriteFrame fails after it.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.err
	if w.file != nil {
		if cerr := w.file.Close(); cerr != nil && err == nil {
			err = osError("close", cerr)
		}
	}
	return err
}

// pcapgoError turns a complaint of gopacket/pcapgo's writer into a
// one-line error.
func pcapgoError(err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Errorf("write: gopacket/pcapgo: %s", lowerFirst(msg))
}
