// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"errors"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// TestKernel sends requests through a Kernel's connection and checks what
// comes back, as netlink.Conn.Execute returns it: the answers with the
// kernel's sequence number and port ID, a dump's messages without the
// NLMSG_DONE, and errors with their errno and extended acknowledgement.
func TestKernel(t *testing.T) {
	RequireLittleEndian(t)
	type result struct {
		Msgs    []netlink.Message
		Errno   syscall.Errno
		Message string // of the *netlink.OpError
	}
	tests := []struct {
		name   string
		flags  netlink.HeaderFlags
		answer []netlink.Message
		errno  syscall.Errno
		extAck string
		want   result // the messages' sequence number is the request's
	}{
		{
			name:   "one reply",
			flags:  netlink.Request,
			answer: []netlink.Message{{Header: netlink.Header{Type: 0x1234, Flags: netlink.Request}, Data: []byte{1, 2, 3, 4}}},
			want: result{Msgs: []netlink.Message{{
				Header: netlink.Header{Type: 0x1234, Flags: netlink.Request, PID: nltest.PID},
				Data:   []byte{1, 2, 3, 4},
			}}},
		},
		{
			name:  "a dump",
			flags: netlink.Request | netlink.Dump,
			answer: []netlink.Message{
				{Header: netlink.Header{Type: 0x1234}, Data: []byte{1, 0, 0, 0}},
				{Header: netlink.Header{Type: 0x1234}, Data: []byte{2, 0, 0, 0}},
			},
			want: result{Msgs: []netlink.Message{
				{Header: netlink.Header{Type: 0x1234, Flags: netlink.Multi, PID: nltest.PID}, Data: []byte{1, 0, 0, 0}},
				{Header: netlink.Header{Type: 0x1234, Flags: netlink.Multi, PID: nltest.PID}, Data: []byte{2, 0, 0, 0}},
			}},
		},
		{
			name:  "an empty dump",
			flags: netlink.Request | netlink.Dump,
			want:  result{},
		},
		{
			name:  "an error",
			flags: netlink.Request,
			errno: syscall.ENODEV,
			want:  result{Errno: syscall.ENODEV},
		},
		{
			name:   "an error with an extended acknowledgement",
			flags:  netlink.Request,
			errno:  syscall.EINVAL,
			extAck: "unrecognized request flags",
			want:   result{Errno: syscall.EINVAL, Message: "unrecognized request flags"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &Kernel{
				Answer: func(netlink.Message) ([]netlink.Message, syscall.Errno) { return tt.answer, tt.errno },
				ExtAck: tt.extAck,
			}
			conn := k.Dial()
			defer conn.Close()
			req := netlink.Message{Header: netlink.Header{Type: 0x1234, Flags: tt.flags}, Data: []byte{9, 9, 9, 9}}
			msgs, err := conn.Execute(req)
			var got result
			got.Msgs = msgs
			if err != nil {
				oe, ok := errors.AsType[*netlink.OpError](err)
				if !ok {
					t.Fatalf("Execute: %v (%T), want a *netlink.OpError", err, err)
				}
				errno, _ := errors.AsType[syscall.Errno](err)
				got.Errno, got.Message = errno, oe.Message
			}
			reqs := k.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests recorded, want 1", len(reqs))
			}
			for i := range tt.want.Msgs {
				tt.want.Msgs[i].Header.Sequence = reqs[0].Header.Sequence
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Execute (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(req.Data, reqs[0].Data); diff != "" {
				t.Errorf("recorded request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorMessage pins the bytes of an NLMSG_ERROR to the layout of
// netlink_ack (net/netlink/af_netlink.c), written out by hand.
func TestErrorMessage(t *testing.T) {
	RequireLittleEndian(t)
	req := netlink.Message{
		Header: netlink.Header{Length: 20, Type: 0x4e, Flags: netlink.Request, Sequence: 7, PID: nltest.PID},
		Data:   []byte{0x00, 0x15, 0x00, 0x00},
	}
	orig := []byte{
		0x14, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x01, 0x00, // nlmsg_len 20, type 78, NLM_F_REQUEST
		0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // seq 7, pid nltest.PID (1)
		0x00, 0x15, 0x00, 0x00, // payload
	}
	tests := []struct {
		name   string
		extAck string
		want   netlink.Message
	}{
		{
			name: "plain",
			want: netlink.Message{
				Header: netlink.Header{Type: netlink.Error, Sequence: 7, PID: nltest.PID},
				Data:   Cat([]byte{0xed, 0xff, 0xff, 0xff}, orig), // error -19 (ENODEV)
			},
		},
		{
			name:   "with an extended acknowledgement",
			extAck: "busy",
			want: netlink.Message{
				Header: netlink.Header{Type: netlink.Error, Flags: netlink.AcknowledgeTLVs, Sequence: 7, PID: nltest.PID},
				Data: Cat([]byte{0xed, 0xff, 0xff, 0xff}, orig,
					[]byte{0x09, 0x00, 0x01, 0x00, 'b', 'u', 's', 'y', 0x00, 0x00, 0x00, 0x00}), // NLMSGERR_ATTR_MSG "busy"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ErrorMessage(req, syscall.ENODEV, tt.extAck)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestKernelRefusesBatches: a send of several messages at once is not a
// request the clients make; the Kernel says so rather than answer one.
func TestKernelRefusesBatches(t *testing.T) {
	k := &Kernel{Answer: func(netlink.Message) ([]netlink.Message, syscall.Errno) { return nil, 0 }}
	conn := k.Dial()
	defer conn.Close()
	m := netlink.Message{Header: netlink.Header{Type: 0x1234, Flags: netlink.Request}}
	if _, err := conn.SendMessages([]netlink.Message{m, m}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Receive(); err == nil || err.Error() != "netlink receive: nlfixture: 2 requests in one send, want 1" {
		t.Errorf("Receive after a batch: %v", err)
	}
}
