// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// notification returns an RTNLGRP_DCB message as dcbnl_notify builds it:
// type RTM_SETDCB, no flags, port ID 0, and (for a driver-originated
// notification) sequence 0; the payload is struct dcbmsg for cmd followed
// by the attributes of a fill function.
func notification(cmd uint8, attrs []byte) netlink.Message {
	return netlink.Message{
		Header: netlink.Header{Type: RTM_SETDCB},
		Data:   nlfixture.Cat([]byte{0x00, cmd, 0x00, 0x00}, attrs),
	}
}

func TestDecodeNotification(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	tests := []struct {
		name string
		msg  netlink.Message
		want Notification
	}{
		{
			name: "IEEE_SET",
			msg:  notification(DCB_CMD_IEEE_SET, replyIEEEFull[SizeofDCBMsg:]),
			want: Notification{Ifname: "eth0", Cmd: DCB_CMD_IEEE_SET, IEEE: &replyIEEEFullWant},
		},
		{
			name: "IEEE_DEL",
			msg:  notification(DCB_CMD_IEEE_DEL, replyIEEEMinimal[SizeofDCBMsg:]),
			want: Notification{Ifname: "eth0", Cmd: DCB_CMD_IEEE_DEL, IEEE: &replyIEEEMinimalWant},
		},
		{
			name: "CEE after SAPP",
			msg:  notification(DCB_CMD_SAPP, replyCEE[SizeofDCBMsg:]),
			want: Notification{Ifname: "eth0", Cmd: DCB_CMD_SAPP, CEE: &replyCEEWant},
		},
		{
			name: "short ETS",
			msg:  notification(DCB_CMD_IEEE_SET, replyIEEEShortETS[SizeofDCBMsg:]),
			want: Notification{Ifname: "eth0", Cmd: DCB_CMD_IEEE_SET,
				Err: errors.New("malformed dcbnl message: DCB_ATTR_IEEE_ETS: struct ieee_ets needs 59 bytes, got 58")},
		},
		{
			name: "no dcbmsg",
			msg:  netlink.Message{Header: netlink.Header{Type: RTM_SETDCB}, Data: []byte{0x00}},
			want: Notification{Err: errors.New("malformed dcbnl message: notification of 1 bytes is shorter than struct dcbmsg")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeNotification(tt.msg)
			if diff := cmp.Diff(tt.want, got, cmpErrText); diff != "" {
				t.Errorf("notification (-want +got):\n%s", diff)
			}
			if got.Err != nil && !errors.Is(got.Err, ErrMalformed) {
				t.Errorf("Err does not match ErrMalformed")
			}
		})
	}
}

// cmpErrText compares errors by message.
var cmpErrText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
})

// A mcastSocket is a netlink.Socket standing in for an RTNLGRP_DCB member:
// Receive blocks until the test queues an item, the read deadline passes,
// or the socket is closed.
type mcastSocket struct {
	items  chan mcastItem
	wake   chan struct{}
	closed chan struct{}

	mu       sync.Mutex
	deadline time.Time
	groups   []string
}

type mcastItem struct {
	msgs []netlink.Message
	err  error
}

func newMcastSocket() *mcastSocket {
	return &mcastSocket{items: make(chan mcastItem, 16), wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (s *mcastSocket) Close() error               { close(s.closed); return nil }
func (s *mcastSocket) Send(netlink.Message) error { return errors.New("mcastSocket: send") }
func (s *mcastSocket) SendMessages([]netlink.Message) error {
	return errors.New("mcastSocket: send")
}

func (s *mcastSocket) JoinGroup(g uint32) error  { return s.group("join", g) }
func (s *mcastSocket) LeaveGroup(g uint32) error { return s.group("leave", g) }

func (s *mcastSocket) group(op string, g uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups = append(s.groups, fmt.Sprintf("%s %d", op, g))
	return nil
}

// groupsNow returns the joins and leaves so far.
func (s *mcastSocket) groupsNow() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.groups)
}

func (s *mcastSocket) SetDeadline(t time.Time) error { return s.SetReadDeadline(t) }
func (s *mcastSocket) SetWriteDeadline(time.Time) error {
	return nil
}

func (s *mcastSocket) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

func (s *mcastSocket) Receive() ([]netlink.Message, error) {
	for {
		s.mu.Lock()
		dl := s.deadline
		s.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			if !time.Now().Before(dl) {
				return nil, os.ErrDeadlineExceeded
			}
			timer := time.NewTimer(time.Until(dl))
			defer timer.Stop()
			timeout = timer.C
		}
		select {
		case it := <-s.items:
			return it.msgs, it.err
		case <-s.wake:
		case <-timeout:
		case <-s.closed:
			return nil, net.ErrClosed
		}
	}
}

func (s *mcastSocket) ReceiveIter() iter.Seq2[netlink.Message, error] {
	return func(yield func(netlink.Message, error) bool) {
		msgs, err := s.Receive()
		if err != nil {
			yield(netlink.Message{}, err)
			return
		}
		for _, m := range msgs {
			if !yield(m, nil) {
				return
			}
		}
	}
}

// TestWatch runs Watch on a fake multicast socket: it joins RTNLGRP_DCB,
// decodes notifications, skips other message types, reports ENOBUFS as an
// overrun, and leaves the group and returns on cancellation.
func TestWatch(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	sock := newMcastSocket()
	c := NewClient(netlink.NewConn(sock, 1))
	t.Cleanup(func() { c.Close() })

	got := make(chan Notification, 16)
	run := func(ctx context.Context) <-chan error {
		done := make(chan error, 1)
		go func() { done <- c.Watch(ctx, func(n Notification) { got <- n }) }()
		return done
	}
	next := func() Notification {
		t.Helper()
		select {
		case n := <-got:
			return n
		case <-time.After(5 * time.Second):
			t.Fatal("no notification within 5s")
			return Notification{}
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := run(ctx)
	sock.items <- mcastItem{msgs: []netlink.Message{
		{Header: netlink.Header{Type: unix.RTM_NEWLINK}, Data: []byte{0, 0, 0, 0}}, // another group's message
		notification(DCB_CMD_IEEE_SET, replyIEEEMinimal[SizeofDCBMsg:]),
	}}
	if diff := cmp.Diff(Notification{Ifname: "eth0", Cmd: DCB_CMD_IEEE_SET, IEEE: &replyIEEEMinimalWant}, next(), cmpErrText); diff != "" {
		t.Errorf("first notification (-want +got):\n%s", diff)
	}
	sock.items <- mcastItem{err: os.NewSyscallError("recvmsg", unix.ENOBUFS)}
	if n := next(); !n.Overrun || n.Ifname != "" || n.IEEE != nil {
		t.Errorf("after ENOBUFS: %+v, want Overrun", n)
	}
	sock.items <- mcastItem{msgs: []netlink.Message{notification(DCB_CMD_SAPP, replyCEE[SizeofDCBMsg:])}}
	if n := next(); n.Cmd != DCB_CMD_SAPP || n.CEE == nil {
		t.Errorf("CEE notification: %+v", n)
	}

	// A second Watch on the same client is refused while the first runs.
	if err := c.Watch(t.Context(), func(Notification) {}); err == nil || !errors.As(err, new(*Error)) {
		t.Errorf("concurrent Watch = %v, want *Error", err)
	}

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return within 5s of cancellation")
	}
	sock.mu.Lock()
	groups, deadline := slices.Clone(sock.groups), sock.deadline
	sock.mu.Unlock()
	if diff := cmp.Diff([]string{"join 23", "leave 23"}, groups); diff != "" {
		t.Errorf("group membership (-want +got):\n%s", diff)
	}
	if !deadline.IsZero() {
		t.Errorf("read deadline left at %v", deadline)
	}

	// The client can watch again, and a notification queued now arrives.
	ctx, cancel = context.WithCancel(t.Context())
	done = run(ctx)
	sock.items <- mcastItem{msgs: []netlink.Message{notification(DCB_CMD_IEEE_DEL, replyIEEEMinimal[SizeofDCBMsg:])}}
	if n := next(); n.Cmd != DCB_CMD_IEEE_DEL {
		t.Errorf("after restart: %+v", n)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("second Watch returned %v", err)
	}

	// A receive error that is not an overrun ends Watch with an *Error.
	done = run(t.Context())
	sock.items <- mcastItem{err: os.NewSyscallError("recvmsg", unix.EBADF)}
	if err := <-done; !errors.Is(err, unix.EBADF) || !errors.As(err, new(*Error)) {
		t.Errorf("Watch after EBADF = %v", err)
	}
}

// TestWatchCanceledBeforeStart: a context that is already done returns
// at once, without waiting for a notification.
func TestWatchCanceledBeforeStart(t *testing.T) {
	sock := newMcastSocket()
	c := NewClient(netlink.NewConn(sock, 1))
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Watch(ctx, func(Notification) { t.Error("unexpected notification") }); !errors.Is(err, context.Canceled) {
		t.Errorf("Watch = %v, want context.Canceled", err)
	}
}

// TestWatchJoined: joined is called once the group is joined, before any
// notification, so that a reader can read again then.
func TestWatchJoined(t *testing.T) {
	nlfixture.RequireLittleEndian(t)
	sock := newMcastSocket()
	c := NewClient(netlink.NewConn(sock, 1))
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	var seen []string
	var mu sync.Mutex
	done := make(chan error, 1)
	go func() {
		done <- c.WatchJoined(ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, "joined with "+strings.Join(sock.groupsNow(), ","))
			cancel()
		}, func(Notification) { t.Error("unexpected notification") })
	}()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("WatchJoined = %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"joined with join 23"}, seen); diff != "" {
		t.Errorf("joined calls (-want +got):\n%s", diff)
	}
}
