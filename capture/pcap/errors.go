// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"errors"
	"fmt"
	"io/fs"
)

// Errors returned by Open and (*Reader).ReadFrame. Test for them with
// errors.Is: the errors returned wrap them with details such as the record
// number and its byte offset, and never repeat the file name, so callers can
// print them as "dcbtop: FILE: <error>".
var (
	// ErrNotPcap means the file is neither a classic pcap nor a pcapng file
	// (including an empty file).
	ErrNotPcap = errors.New("not a pcap or pcapng file")
	// ErrTruncated means the file ends in the middle of its header or of a
	// record, typically because the capture was still being written or was
	// killed. Every complete record before the cut is delivered first.
	ErrTruncated = errors.New("truncated capture")
	// ErrCorrupt means a header or record holds impossible values, such as
	// a capture length above 256 KiB or a timestamp outside years 0 to
	// 9999. A capture length above the snapshot length or the original
	// length is not corrupt: see Frame.Note.
	ErrCorrupt = errors.New("corrupt capture")
	// ErrUnsupported means a valid capture this package cannot read: a
	// pcap or pcapng version other than 2.4 and 1.0, or a link type
	// (of the file, or in pcapng of the interface a record was captured
	// on) other than Ethernet (1), Linux cooked capture (113) or Linux
	// cooked capture v2 (276).
	ErrUnsupported = errors.New("unsupported")
)

// osError strips the file name from an *fs.PathError (the caller already
// names the file) and keeps the cause, so that "open /x.pcap: no such file or
// directory" becomes "open: no such file or directory" and still satisfies
// errors.Is(err, fs.ErrNotExist).
func osError(op string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return fmt.Errorf("%s: %w", op, pe.Err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
