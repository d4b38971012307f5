package capture

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// writerSnaplen is the snapshot length a Writer declares in the file header.
// Longer frames are cut to it, their original length kept in the record.
const writerSnaplen = 65535

// pcapRecordHeaderLen is the size of a classic pcap record header.
const pcapRecordHeaderLen = 16

// A Writer records Frames to a classic pcap file (link type Ethernet,
// nanosecond timestamps, snapshot length 65535), which OpenReplay
// and every pcap tool can read back.
//
// The file keeps each frame's At and Data. It has no room for Interface or
// Dir: replayed, the frames come back from interface "pcap0" with
// DirectionUnknown.
//
// Each WriteFrame hands its whole record to the underlying writer in a
// single Write, so a file being recorded is always readable up to the last
// frame written, and a crash loses at most the frame being written. A Writer
// is not safe for concurrent use.
type Writer struct {
	bw     *bufio.Writer
	pw     *pcapgo.Writer
	file   *os.File // set if CreateWriter created it
	closed bool
}

// CreateWriter creates (or truncates) the file at path and writes the pcap
// file header to it. Errors never repeat path.
func CreateWriter(path string) (*Writer, error) {
	f, err := os.Create(path)
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

// NewWriter writes the pcap file header to w and returns a Writer for the
// records. Close does not close w.
func NewWriter(w io.Writer) (*Writer, error) {
	bw := bufio.NewWriterSize(w, pcapRecordHeaderLen+writerSnaplen)
	pw := pcapgo.NewWriterNanos(bw)
	if err := pw.WriteFileHeader(writerSnaplen, layers.LinkTypeEthernet); err != nil {
		return nil, osError("write", err) // unreachable: bw has room
	}
	if err := bw.Flush(); err != nil {
		return nil, osError("write", err)
	}
	return &Writer{bw: bw, pw: pw}, nil
}

// WriteFrame appends f to the file. f.At must lie between 1970 and 2106,
// which the pcap format can represent (the zero time cannot be written).
// A failed write is final: later calls return the same error.
func (w *Writer) WriteFrame(f Frame) error {
	if w.closed {
		return fmt.Errorf("write: %w", fs.ErrClosed)
	}
	if sec := f.At.Unix(); sec < 0 || sec > math.MaxUint32 {
		return fmt.Errorf("frame timestamp %s outside the pcap range (1970 to 2106)", f.At.UTC().Format(time.RFC3339Nano))
	}
	data := f.Data
	if len(data) > writerSnaplen {
		data = data[:writerSnaplen]
	}
	ci := gopacket.CaptureInfo{Timestamp: f.At, CaptureLength: len(data), Length: len(f.Data)}
	err := w.pw.WritePacket(ci, data)
	// bufio.Writer keeps its first error, with its identity, which pcapgo
	// formats away; Flush returns it.
	if ferr := w.bw.Flush(); ferr != nil {
		return osError("write", ferr)
	}
	if err != nil { // unreachable: ci matches data and bw has room
		return fmt.Errorf("write: %s", lowerFirst(err.Error()))
	}
	return nil
}

// Close flushes the Writer and, if CreateWriter created the file, closes
// it. Close may be called more than once; WriteFrame fails after it.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.bw.Flush()
	if err != nil {
		err = osError("write", err)
	}
	if w.file != nil {
		if cerr := w.file.Close(); cerr != nil && err == nil {
			err = osError("close", cerr)
		}
	}
	return err
}
