// SPDX-License-Identifier: Apache-2.0

package capture_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
)

// A fakeConn serves frames, then fails once, counting its packets.
type fakeConn struct {
	frames  [][]byte
	packets uint64
	closed  bool
}

func (c *fakeConn) ReadFrame(ctx context.Context) (capture.Frame, error) {
	if len(c.frames) == 0 {
		<-ctx.Done()
		return capture.Frame{}, ctx.Err()
	}
	f := c.frames[0]
	c.frames = c.frames[1:]
	if f == nil {
		return capture.Frame{}, errors.New("network is down")
	}
	c.packets++
	return capture.Frame{At: t0, Data: f}, nil
}
func (c *fakeConn) WriteFrame([]byte) error { return nil }
func (c *fakeConn) Stats() (capture.LiveStats, error) {
	return capture.LiveStats{Packets: c.packets, Drops: 2}, nil
}
func (c *fakeConn) Close() error { c.closed = true; return nil }

// portClock stamps with the frame's own time.
type portClock struct{}

func (portClock) Now() time.Time              { return t0 }
func (portClock) Stamp(t time.Time) time.Time { return t }

// TestPort: a port's capture reports its read error, reopens the socket
// and goes on; the status joins the capture's, the transmission's and
// the agent's messages and keeps the drops of closed sockets; a rename's
// port takes the socket and the counts over.
func TestPort(t *testing.T) {
	first := &fakeConn{frames: [][]byte{lldpFrame(1), nil}}
	second := &fakeConn{frames: [][]byte{lldpFrame(2)}}
	opened := 0
	p := capture.NewPort("eth0", first, func(name string) (capture.Conn, error) {
		opened++
		return second, nil
	})
	events := make(chan engine.Event, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Capture(ctx, portClock{}, events) }()
	var got []string
	for len(got) < 4 {
		switch ev := (<-events).(type) {
		case engine.FrameReceived:
			got = append(got, "frame "+ev.Interface)
		case engine.CaptureStatus:
			got = append(got, "status "+ev.Err)
		}
	}
	cancel()
	<-done
	if diff := cmp.Diff([]string{"frame eth0", "status network is down", "status ", "frame eth0"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if opened != 1 || !first.closed {
		t.Errorf("opened %d sockets, the first closed %v; want one reopened after the error", opened, first.closed)
	}
	p.CountSent()
	p.SetTxErr("transmit: no buffer space")
	p.SetAdvErr("cannot advertise 9 APP entries")
	st := p.Status(t0)
	if st.Err != "transmit: no buffer space; cannot advertise 9 APP entries" || st.Sent != 1 || st.KernelDrops != 4 {
		t.Errorf("status %+v: want both messages, one sent, the drops of both sockets (2+2)", st)
	}
	renamed := capture.NewPort("eth1", nil, nil)
	after := make(chan struct{})
	renamed.TakeOver(p, after)
	if p.Current() != nil || renamed.Current() != second {
		t.Error("the socket did not move to the renamed port")
	}
	if st := renamed.Status(t0); st.Interface != "eth1" || st.Sent != 1 || st.KernelDrops != 4 {
		t.Errorf("the renamed port's status %+v: want its name and the counts taken over", st)
	}
}
