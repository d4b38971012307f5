// SPDX-License-Identifier: Apache-2.0

package session

import (
	"bytes"
	"context"
	"errors"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// stallConn is a capture socket whose reader was stopped: after the first
// frame, more frames wait "in the kernel" (Pending is true), and they are
// read only once the loop asks whether any wait (the process running
// again), or, without that question, when the test gives up waiting.
type stallConn struct {
	first    capture.Frame
	queued   []capture.Frame
	mu       sync.Mutex
	sentHead bool
	release  chan struct{}
	once     sync.Once
	done     chan struct{}
}

func (c *stallConn) ReadFrame(ctx context.Context) (capture.Frame, error) {
	c.mu.Lock()
	if !c.sentHead {
		c.sentHead = true
		c.mu.Unlock()
		f := c.first
		if f.At.IsZero() { // received as it is read
			f.At = time.Now()
		}
		return f, nil
	}
	c.mu.Unlock()
	select {
	case <-c.release:
	case <-c.done:
		return capture.Frame{}, net.ErrClosed
	case <-ctx.Done():
		return capture.Frame{}, ctx.Err()
	}
	c.mu.Lock()
	if len(c.queued) == 0 {
		c.mu.Unlock()
		select {
		case <-c.done:
			return capture.Frame{}, net.ErrClosed
		case <-ctx.Done():
			return capture.Frame{}, ctx.Err()
		}
	}
	defer c.mu.Unlock()
	f := c.queued[0]
	c.queued = c.queued[1:]
	return f, nil
}

// Pending reports the queued frames, and lets the reader run; a frame
// not yet received (its At still ahead: a loop that asks early, on a
// loaded machine) is not there yet, as in a kernel's socket.
func (c *stallConn) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sentHead || len(c.queued) > 0 && time.Now().Before(c.queued[0].At) {
		return false
	}
	c.once.Do(func() { close(c.release) })
	return len(c.queued) > 0
}

func (c *stallConn) WriteFrame([]byte) error           { return errors.New("read-only") }
func (c *stallConn) Stats() (capture.LiveStats, error) { return capture.LiveStats{}, nil }
func (c *stallConn) Close() error                      { close(c.done); return nil }

func stallFrame(t *testing.T, ttl uint16) []byte {
	t.Helper()
	src := lldp.MAC{2, 0, 0, 0, 0, 0x51}
	du := &lldp.DU{ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
		PortID: lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")}, TTL: ttl,
		TLVs: []lldp.TLV{&lldp.PFC{Cap: 8, Enabled: 1 << 3}}}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStoppedProcessNoFalseExpiry: frames the kernel received while dcbtop
// was stopped (they wait in the socket, with their receive times) are
// applied before the clock ages the peer out, so resuming reports no
// ttl-expired followed by a first-receipt. The peer's first LLDPDU has a
// TTL of 1 s; two more, received 0.4 s and 0.8 s later (TTL 10), wait in
// the socket until the loop's first tick, a second later.
func TestStoppedProcessNoFalseExpiry(t *testing.T) {
	t0 := time.Now()
	c := &stallConn{
		first: capture.Frame{Interface: "stall0", At: t0, Dir: capture.DirectionIncoming, Data: stallFrame(t, 1)},
		queued: []capture.Frame{
			{Interface: "stall0", At: t0.Add(400 * time.Millisecond), Dir: capture.DirectionIncoming, Data: stallFrame(t, 10)},
			{Interface: "stall0", At: t0.Add(800 * time.Millisecond), Dir: capture.DirectionIncoming, Data: stallFrame(t, 10)},
		},
		release: make(chan struct{}), done: make(chan struct{}),
	}
	// Without the loop asking, the frames are read after 1.3 s (the tick
	// at 1 s has then aged the first one out).
	go func() {
		select {
		case <-time.After(1300 * time.Millisecond):
			c.once.Do(func() { close(c.release) })
		case <-c.done:
		}
	}()
	var out bytes.Buffer
	rt, err := Start(Config{Links: []capture.Link{{Name: "stall0", Index: 7, MAC: [6]byte{2, 0, 0, 0, 0, 7}, Up: true}},
		Open: func(string) (Conn, error) { return c, nil }, Events: true, Out: &out, Duration: 1600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := rt.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev := out.String()
	if strings.Contains(ev, `"ttl-expired"`) || strings.Count(ev, `"first-receipt"`) != 1 {
		t.Errorf("indications after the stall:\n%s\nwant one first-receipt and no ttl-expired", ev)
	}
}

// pfcFrame is stallFrame's peer (TTL 120) enabling PFC on prio.
func pfcFrame(t *testing.T, prio uint) []byte {
	t.Helper()
	src := lldp.MAC{2, 0, 0, 0, 0, 0x51}
	du := &lldp.DU{ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
		PortID: lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")}, TTL: 120,
		TLVs: []lldp.TLV{&lldp.PFC{Cap: 8, Enabled: 1 << prio}}}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordFramesBeforeTick: under -w the frames that wait in the
// sockets are applied before a tick that only moves the clock (the
// screen's aging snapshot, a second after the last), as before one a
// deadline falls due: the recording holds no tick, so a frame applied
// after one stamped later got the tick's time for its indications live
// and its own in the replay, whose event IDs then differed. The peer's
// second LLDPDU (PFC on 4 instead of 3), received 0.4 s after the first,
// waits in the socket until the loop asks (the aging tick, 1.1 s after
// the first snapshot) or, without that question, 1.6 s; the replay's
// NDJSON is the live run's, line for line. (The first LLDPDU is received
// as the capture reads it: the run's first tick, at the loop's start,
// comes after the frames waiting then, which a fake socket that has not
// been read yet does not report.)
func TestRecordFramesBeforeTick(t *testing.T) {
	t0 := time.Now()
	c := &stallConn{
		first:   capture.Frame{Interface: "stall0", Dir: capture.DirectionIncoming, Data: pfcFrame(t, 3)},
		queued:  []capture.Frame{{Interface: "stall0", At: t0.Add(400 * time.Millisecond), Dir: capture.DirectionIncoming, Data: pfcFrame(t, 4)}},
		release: make(chan struct{}), done: make(chan struct{}),
	}
	go func() {
		select {
		case <-time.After(1600 * time.Millisecond):
			c.once.Do(func() { close(c.release) })
		case <-c.done:
		}
	}()
	rec := filepath.Join(t.TempDir(), "rec.pcapng")
	var live bytes.Buffer
	rt, err := Start(Config{Links: []capture.Link{{Name: "stall0", Index: 7, MAC: [6]byte{2, 0, 0, 0, 0, 7}, Up: true}},
		Open: func(string) (Conn, error) { return c, nil }, Events: true, Screen: true, Out: &live, Record: rec,
		CountersInterval: -1, Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	var replayed bytes.Buffer
	rp, err := Start(Config{Replay: rec, Events: true, Out: &replayed})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	if err := rp.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The replay's lines name no host (docs/fleet.md, "Events as logs").
	lines := func(b *bytes.Buffer, host bool) []string {
		var out []string
		for l := range strings.Lines(b.String()) {
			if host {
				l = regexp.MustCompile(`,"host":"[^"]*"`).ReplaceAllString(l, "")
			}
			out = append(out, l)
		}
		return out
	}
	want, got := lines(&live, true), lines(&replayed, false)
	if !strings.Contains(live.String(), `"PFC_CHANGED"`) || len(want) < 3 {
		t.Fatalf("live indications:\n%s\nwant the first receipt and the PFC change", live.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the replay's indications (-live +replay):\n%s", diff)
	}
}
