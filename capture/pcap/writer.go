// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/dcbtop/dcbtop/capture"
)

// writerSnaplen is the snapshot length a Writer declares for each
// interface. Longer frames are cut to it, their original length kept in the
// record.
const writerSnaplen = 65535

// writerApplication is the shb_userappl option of the files a Writer writes.
const writerApplication = "dcbtop"

// Timestamps a Writer can record: an unsigned 64-bit count of nanoseconds
// since 1970 (if_tsresol 9), of which time.Time.UnixNano gives the first
// half.
var (
	writerMinTime = time.Unix(0, 0)
	writerMaxTime = time.Unix(0, math.MaxInt64) // 2262-04-11T23:47:16.854775807Z
)

// A Writer records Frames to a pcapng file, which Open, tshark and
// every pcapng tool can read back. The file has a single little-endian
// section. Each distinct Frame.Interface gets an Interface Description
// Block, written just before the first frame captured on it, with the name
// as if_name, link type Ethernet, snapshot length 65535 and nanosecond
// timestamps (if_tsresol 9). Each frame is an Enhanced Packet Block on its
// interface, whose epb_flags option holds the direction: inbound for
// capture.DirectionIncoming, outbound for capture.DirectionOutgoing, and no epb_flags at all
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
	file   *os.File       // set if Create created it
	buf    []byte         // the blocks of one WriteFrame, handed to dst in one Write
	ifaces map[string]int // interface index in the file, by name
	types  []uint16       // each interface's link type, by index
	err    error          // first failed write to dst: final
	closed bool
}

// Create creates the file at path, or truncates it if it exists,
// as tcpdump -w does, and writes the pcapng section header to it. A
// recording holds what a support bundle does (names, addresses, the
// switch's advertisement), so the file is mode 0600 from its creation,
// and an existing regular file is made 0600 before anything is written
// to it (a pipe or a device is left as it is). Errors never repeat path.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, osError("create", err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, osError("chmod", err)
		}
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
	wr := &Writer{dst: w, ifaces: make(map[string]int)}
	body := binary.LittleEndian.AppendUint32(nil, 0x1a2b3c4d) // byte-order magic
	body = binary.LittleEndian.AppendUint16(body, 1)          // version 1.0
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint64(body, math.MaxUint64) // section length: unknown
	body = appendNgOption(body, ngOptUserAppl, []byte(writerApplication))
	wr.buf = appendNgBlock(wr.buf, ngBlockSHB, appendNgEnd(body))
	if err := wr.flush(); err != nil {
		return nil, err
	}
	return wr, nil
}

// WriteFrame appends f to the file, after the description of f.Interface if
// it is the first frame on it. f.At must lie between 1970 and 2262, which
// the file's timestamps can represent (the zero time cannot be written);
// such a rejected frame leaves the Writer usable. A failed write is final:
// later calls return the same error.
func (w *Writer) WriteFrame(f capture.Frame) error { return w.write(f, linkTypeEthernet, "") }

// WritePacket appends a packet of another link type than Ethernet (a
// dcbtop recording's netlink exchanges and host records, capture/tape) on
// the interface f.Interface, which has that link type and the description
// descr (if_description; "" none). An interface name keeps the link type
// it was first written with: another one is an error.
func (w *Writer) WritePacket(f capture.Frame, linkType uint16, descr string) error {
	return w.write(f, linkType, descr)
}

// write appends f on its interface, of link type lt.
func (w *Writer) write(f capture.Frame, lt uint16, descr string) error {
	if w.closed {
		return fmt.Errorf("write: %w", fs.ErrClosed)
	}
	if w.err != nil {
		return w.err
	}
	if f.At.Before(writerMinTime) || f.At.After(writerMaxTime) {
		return fmt.Errorf("frame timestamp %s outside the pcapng range (1970 to 2262)", f.At.UTC().Format(time.RFC3339Nano))
	}
	if len(f.Interface) > math.MaxUint16 || len(descr) > math.MaxUint16 {
		return fmt.Errorf("interface name of %d bytes too long for pcapng", len(f.Interface))
	}
	snaplen := writerSnaplen
	if lt != linkTypeEthernet {
		// A host packet is never cut: it would not decode.
		if snaplen = maxRecordLen; len(f.Data) > snaplen {
			return fmt.Errorf("packet of %d bytes for %s, over the %d-byte limit", len(f.Data), f.Interface, maxRecordLen)
		}
	}
	idx, ok := w.ifaces[f.Interface]
	if !ok {
		// The link type, snapshot length, if_name, nanoseconds.
		body := binary.LittleEndian.AppendUint16(nil, lt)
		body = binary.LittleEndian.AppendUint16(body, 0)
		body = binary.LittleEndian.AppendUint32(body, uint32(snaplen))
		if f.Interface != "" {
			body = appendNgOption(body, ngOptIfName, []byte(f.Interface))
		}
		if descr != "" {
			body = appendNgOption(body, ngOptIfDescr, []byte(descr))
		}
		body = appendNgOption(body, ngOptTsresol, []byte{9})
		w.buf = appendNgBlock(w.buf, ngBlockIDB, appendNgEnd(body))
		idx = len(w.ifaces)
		w.ifaces[f.Interface] = idx
		w.types = append(w.types, lt)
	} else if w.types[idx] != lt {
		return fmt.Errorf("interface %q has link type %d, not %d", f.Interface, w.types[idx], lt)
	}
	data := f.Data
	if len(data) > snaplen {
		data = data[:snaplen]
	}
	ts := uint64(f.At.UnixNano())
	body := binary.LittleEndian.AppendUint32(nil, uint32(idx))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts>>32))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(data)))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(f.Data)))
	body = append(body, data...)
	body = append(body, make([]byte, pad4(len(data)))...)
	var flags uint32
	switch f.Dir {
	case capture.DirectionIncoming:
		flags = ngFlagInbound
	case capture.DirectionOutgoing:
		flags = ngFlagOutbound
	}
	if flags != 0 {
		body = appendNgEnd(appendNgOption(body, ngOptFlags, binary.LittleEndian.AppendUint32(nil, flags)))
	}
	w.buf = appendNgBlock(w.buf, ngBlockEPB, body)
	return w.flush()
}

// appendNgOption appends a pcapng option (little-endian), padded to 4
// bytes.
func appendNgOption(b []byte, code uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	b = append(b, v...)
	return append(b, make([]byte, pad4(len(v)))...)
}

// appendNgEnd ends an option list (opt_endofopt).
func appendNgEnd(b []byte) []byte { return append(b, 0, 0, 0, 0) }

// appendNgBlock appends a little-endian pcapng block of type typ around
// body (a multiple of 4 bytes long).
func appendNgBlock(b []byte, typ uint32, body []byte) []byte {
	total := uint32(12 + len(body))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = binary.LittleEndian.AppendUint32(b, total)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, total)
}

// flush hands the blocks in w.buf to the destination in one Write.
func (w *Writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	n, err := w.dst.Write(w.buf)
	if err == nil && n < len(w.buf) {
		err = io.ErrShortWrite
	}
	w.buf = w.buf[:0]
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

// Close closes the file if Create created it, and returns the error
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
