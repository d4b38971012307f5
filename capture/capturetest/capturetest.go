// SPDX-License-Identifier: Apache-2.0

// Package capturetest provides a fake capture.Source for tests.
package capturetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/dcbtop/dcbtop/capture"
)

// A Source is a capture.Source that yields a fixed list of Frames, then
// io.EOF. It is safe for concurrent use, so a test can watch Closed while
// the code under test reads from another goroutine.
type Source struct {
	mu     sync.Mutex
	frames []capture.Frame
	next   int
	closed bool
}

var _ capture.Source = (*Source)(nil)

// New returns a Source that yields frames in order. It keeps its own copy of
// the slice and of every Data, so the caller may reuse them.
func New(frames ...capture.Frame) *Source {
	s := &Source{frames: make([]capture.Frame, len(frames))}
	for i, f := range frames {
		f.Data = bytes.Clone(f.Data)
		s.frames[i] = f
	}
	return s
}

// ReadFrame returns the next frame, with a Data of its own, or io.EOF once
// all were read. Like a real Source, it returns ctx.Err() when ctx is done
// and an error wrapping fs.ErrClosed after Close.
func (s *Source) ReadFrame(ctx context.Context) (capture.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return capture.Frame{}, fmt.Errorf("read: %w", fs.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return capture.Frame{}, err
	}
	if s.next >= len(s.frames) {
		return capture.Frame{}, io.EOF
	}
	f := s.frames[s.next]
	s.next++
	f.Data = bytes.Clone(f.Data)
	return f, nil
}

// Close marks the Source closed. It never fails and may be called more
// than once.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Closed reports whether Close was called.
func (s *Source) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// LLDPFrame returns a minimal LLDP Ethernet frame (chassis ID, port ID,
// TTL and End TLVs) sent to the nearest-bridge group by the station whose
// MAC address ends in last.
func LLDPFrame(last byte) []byte {
	return append([]byte{
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, // nearest bridge group address
		0x02, 0x00, 0x00, 0x00, 0x00, last, // source
		0x88, 0xcc, // LLDP
	}, LLDPPayload(last)...)
}

// LLDPPayload is the LLDPDU of LLDPFrame.
func LLDPPayload(last byte) []byte {
	return []byte{
		0x02, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, last, // chassis ID: MAC
		0x04, 0x05, 0x05, 's', 'w', 'p', '1', // port ID: interface name
		0x06, 0x02, 0x00, 0x78, // TTL 120 s
		0x00, 0x00, // End
	}
}
