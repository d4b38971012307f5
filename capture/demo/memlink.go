// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// MemIfname is the interface name of the host end of an in-memory link.
const MemIfname = "demo0"

// memQueue is how many frames each direction of an in-memory link holds;
// a frame written to a full queue is dropped, as a kernel drops frames for
// a reader that falls behind.
const memQueue = 1024

// A MemHost is the host end of an in-memory link (NewMemLink): it behaves
// like a capture.Live on an interface named MemIfname, so dcbtop's live
// loop can capture from it and its agent transmit on it, without root and
// without a kernel interface. It is a capture.Source. ReadFrame is not safe
// for concurrent use with itself; the other methods may be called from any
// goroutine.
type MemHost struct {
	l *memLink
}

var _ capture.Source = (*MemHost)(nil)

type memFrame struct {
	at   time.Time
	data []byte
}

type memLink struct {
	mac      lldp.MAC
	clock    Clock
	toHost   chan memFrame
	toSwitch chan memFrame
	closed   chan struct{}
	once     sync.Once

	mu    sync.Mutex
	stats capture.LiveStats
}

type memSwitch struct{ l *memLink }

// NewMemLink returns the two ends of an in-memory link: the host end,
// whose MAC is hostMAC, and the switch end, for Run. Frames are stamped
// with the time they are written (from WithClock's clock, or the real
// one). Closing the host end closes the link: reads and writes at both
// ends then fail with an error wrapping fs.ErrClosed.
func NewMemLink(hostMAC lldp.MAC, opts ...Option) (*MemHost, Link) {
	o := makeOptions(opts)
	l := &memLink{mac: hostMAC, clock: o.clock, toHost: make(chan memFrame, memQueue),
		toSwitch: make(chan memFrame, memQueue), closed: make(chan struct{})}
	return &MemHost{l: l}, memSwitch{l: l}
}

// Name returns MemIfname.
func (h *MemHost) Name() string { return MemIfname }

// Link describes the host end as capture does a kernel interface: named
// MemIfname, with the host MAC, up. Its Index is 0: it is no kernel
// interface.
func (h *MemHost) Link() capture.Link {
	return capture.Link{Name: MemIfname, MAC: h.l.mac, Up: true}
}

// ReadFrame returns the next frame a simulated switch sent, as received
// on MemIfname (DirectionIncoming, At = when it was sent). It returns
// ctx.Err() when ctx is done and an error wrapping fs.ErrClosed once the
// link is closed.
func (h *MemHost) ReadFrame(ctx context.Context) (capture.Frame, error) {
	f, err := h.l.read(ctx, h.l.toHost)
	if err != nil {
		return capture.Frame{}, err
	}
	h.l.mu.Lock()
	h.l.stats.Packets++
	h.l.mu.Unlock()
	return capture.Frame{Interface: MemIfname, At: f.at, Dir: capture.DirectionIncoming, Data: f.data}, nil
}

// WriteFrame sends b, a whole Ethernet frame, to the simulated switches.
// Like a Live, the host end never reads back what it wrote.
func (h *MemHost) WriteFrame(b []byte) error {
	return h.l.write(h.l.toSwitch, b, false)
}

// Stats returns the frames read by the host end and the frames dropped
// because its queue was full.
func (h *MemHost) Stats() (capture.LiveStats, error) {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	select {
	case <-h.l.closed:
		return h.l.stats, fmt.Errorf("stats: %w", fs.ErrClosed)
	default:
	}
	return h.l.stats, nil
}

// Close closes the link. It may be called more than once.
func (h *MemHost) Close() error {
	h.l.once.Do(func() { close(h.l.closed) })
	return nil
}

// ReadFrame returns the next frame the host end wrote.
func (s memSwitch) ReadFrame(ctx context.Context) ([]byte, error) {
	f, err := s.l.read(ctx, s.l.toSwitch)
	return f.data, err
}

// WriteFrame sends b to the host end (dropped when its queue is full).
func (s memSwitch) WriteFrame(b []byte) error {
	return s.l.write(s.l.toHost, b, true)
}

func (l *memLink) read(ctx context.Context, ch chan memFrame) (memFrame, error) {
	if err := ctx.Err(); err != nil {
		return memFrame{}, err
	}
	select {
	case <-l.closed:
		return memFrame{}, fmt.Errorf("read: %w", fs.ErrClosed)
	default:
	}
	select {
	case f := <-ch:
		return f, nil
	case <-l.closed:
		return memFrame{}, fmt.Errorf("read: %w", fs.ErrClosed)
	case <-ctx.Done():
		return memFrame{}, ctx.Err()
	}
}

func (l *memLink) write(ch chan memFrame, b []byte, toHost bool) error {
	select {
	case <-l.closed:
		return fmt.Errorf("write: %w", fs.ErrClosed)
	default:
	}
	if len(b) < 14 {
		return fmt.Errorf("write: a frame of %d bytes is shorter than an Ethernet header", len(b))
	}
	select {
	case ch <- memFrame{at: l.clock.Now(), data: bytes.Clone(b)}:
	default:
		if toHost {
			l.mu.Lock()
			l.stats.Drops++
			l.stats.Packets++
			l.mu.Unlock()
		}
	}
	return nil
}
