// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"errors"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// msg is a message of type typ carrying data.
func msg(typ netlink.HeaderType, data ...byte) netlink.Message {
	return netlink.Message{Header: netlink.Header{Type: typ}, Data: data}
}

// TestConn sends one request through a Conn to a fake kernel, for each
// answer the kernel may give, and checks what Execute and Request return.
func TestConn(t *testing.T) {
	const want = 0x1411
	type result struct {
		Data  [][]byte // of the messages returned
		Err   string
		Errno syscall.Errno
		Test  bool // the error matches errTestMalformed
	}
	tests := []struct {
		name        string
		dump        bool
		hex         bool
		answer      []netlink.Message
		errno       syscall.Errno
		wantExecute result
		wantRequest result
	}{
		{
			name:        "the reply",
			answer:      []netlink.Message{msg(want, 1)},
			wantExecute: result{Data: [][]byte{{1}}},
			wantRequest: result{Data: [][]byte{{1}}},
		},
		{
			name:        "the reply among others: the first of its type",
			answer:      []netlink.Message{msg(0x10, 9), msg(want, 1), msg(want, 2)},
			wantExecute: result{Data: [][]byte{{1}, {2}}},
			wantRequest: result{Data: [][]byte{{1}}},
		},
		{
			name:        "no reply of the type",
			answer:      []netlink.Message{msg(0x10, 9), msg(0x11, 8)},
			wantExecute: result{},
			wantRequest: result{Err: "malformed test message: no reply of type 5137 among 2 messages", Test: true},
		},
		{
			name:        "no reply of the type, in hexadecimal",
			hex:         true,
			answer:      []netlink.Message{msg(0x10, 9)},
			wantExecute: result{},
			wantRequest: result{Err: "malformed test message: no reply of type 0x1411 among 1 messages", Test: true},
		},
		{
			name:        "a dump",
			dump:        true,
			answer:      []netlink.Message{msg(want, 1), msg(want, 2)},
			wantExecute: result{Data: [][]byte{{1}, {2}}},
			wantRequest: result{Data: [][]byte{{1}}},
		},
		{
			name:        "an empty dump",
			dump:        true,
			wantExecute: result{},
			wantRequest: result{Err: "malformed test message: no reply of type 5137 among 0 messages", Test: true},
		},
		{
			name:        "an error",
			errno:       syscall.EINVAL,
			wantExecute: result{Err: "netlink receive: invalid argument", Errno: syscall.EINVAL},
			wantRequest: result{Err: "netlink receive: invalid argument", Errno: syscall.EINVAL},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			family := testFamily
			family.HexTypes = tt.hex
			req := netlink.Message{Header: netlink.Header{Type: want, Flags: netlink.Request}}
			if tt.dump {
				req.Header.Flags |= netlink.Dump
			}
			run := func(call func(c *Conn) ([]netlink.Message, error)) result {
				k := &nlfixture.Kernel{Answer: func(netlink.Message) ([]netlink.Message, syscall.Errno) { return tt.answer, tt.errno }}
				c := family.NewConn(k.Dial())
				defer c.Close()
				msgs, err := call(c)
				var r result
				for _, m := range msgs {
					r.Data = append(r.Data, m.Data)
				}
				if err != nil {
					r.Err = err.Error()
					r.Errno, _ = errors.AsType[syscall.Errno](err)
					r.Test = errors.Is(err, errTestMalformed)
				}
				return r
			}
			got := run(func(c *Conn) ([]netlink.Message, error) { return c.Execute(req, want) })
			if diff := cmp.Diff(tt.wantExecute, got); diff != "" {
				t.Errorf("Execute (-want +got):\n%s", diff)
			}
			got = run(func(c *Conn) ([]netlink.Message, error) {
				m, err := c.Request(req, want)
				if err != nil {
					return nil, err
				}
				return []netlink.Message{m}, nil
			})
			if diff := cmp.Diff(tt.wantRequest, got); diff != "" {
				t.Errorf("Request (-want +got):\n%s", diff)
			}
		})
	}
}

// A closeSocket is a netlink.Socket that only counts its closes.
type closeSocket struct {
	netlink.Socket // nil: no other method is called
	closes         int
}

var errSocketClosed = errors.New("closed")

func (s *closeSocket) Close() error {
	s.closes++
	return errSocketClosed
}

// TestConnClose: Closed tells whether Close was called, and Close closes
// the socket and returns what closing it returned.
func TestConnClose(t *testing.T) {
	sock := &closeSocket{}
	c := testFamily.NewConn(netlink.NewConn(sock, 1))
	if c.Closed() {
		t.Error("Closed before Close")
	}
	if err := c.Close(); !errors.Is(err, errSocketClosed) {
		t.Errorf("Close = %v, want the socket's error", err)
	}
	if !c.Closed() || sock.closes != 1 {
		t.Errorf("after Close: Closed %v, socket closed %d times; want true, 1", c.Closed(), sock.closes)
	}
}
