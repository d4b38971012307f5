// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// A Kernel stands in for the kernel at the far end of an nltest
// connection: it records every request and answers it with what Answer
// returns, framed the way the kernel's netlink core frames it. It may be
// used from several goroutines.
type Kernel struct {
	// Answer returns the messages answering req, of which Type, Flags
	// and Data count (the Kernel sets the sequence number to the
	// request's and the port ID to nltest.PID), or a non-zero errno,
	// which goes back as an NLMSG_ERROR.
	Answer func(req netlink.Message) ([]netlink.Message, syscall.Errno)
	// ExtAck, when not "", is the extended acknowledgement message
	// (NLMSGERR_ATTR_MSG) that every NLMSG_ERROR carries.
	ExtAck string

	mu   sync.Mutex
	reqs []netlink.Message
}

// Dial returns a connection whose requests k answers.
func (k *Kernel) Dial() *netlink.Conn { return nltest.Dial(k.receive) }

// Requests returns the requests k has received, in order.
func (k *Kernel) Requests() []netlink.Message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.reqs)
}

// receive is k's nltest.Func. The answer to a dump request (NLM_F_DUMP)
// goes out as a kernel dump does: every message with NLM_F_MULTI (which
// the families' dumpit callbacks set), then the NLMSG_DONE holding the int
// 0 that netlink_dump (net/netlink/af_netlink.c) ends it with.
func (k *Kernel) receive(reqs []netlink.Message) ([]netlink.Message, error) {
	if len(reqs) != 1 {
		return nil, fmt.Errorf("nlfixture: %d requests in one send, want 1", len(reqs))
	}
	req := reqs[0]
	k.mu.Lock()
	k.reqs = append(k.reqs, req)
	k.mu.Unlock()

	msgs, errno := k.Answer(req)
	if errno != 0 {
		m, err := ErrorMessage(req, errno, k.ExtAck)
		if err != nil {
			return nil, err
		}
		return []netlink.Message{m}, nil
	}
	dump := req.Header.Flags&netlink.Dump != 0
	out := make([]netlink.Message, 0, len(msgs)+1)
	for _, m := range msgs {
		m.Header.Sequence, m.Header.PID = req.Header.Sequence, nltest.PID
		if dump {
			m.Header.Flags |= netlink.Multi
		}
		out = append(out, m)
	}
	if dump {
		out = append(out, netlink.Message{
			Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence, PID: nltest.PID},
			Data:   make([]byte, 4),
		})
	}
	return out, nil
}

// ErrorMessage returns the NLMSG_ERROR with which the kernel refuses req
// with errno, as netlink_ack (net/netlink/af_netlink.c) builds it on a
// socket without NETLINK_CAP_ACK: struct nlmsgerr (include/uapi/linux/netlink.h:
// int error, the negative errno, then the request's struct nlmsghdr)
// followed by the request's payload. With an extAck message it sets
// NLM_F_ACK_TLVS and appends the attribute NLMSGERR_ATTR_MSG holding it.
func ErrorMessage(req netlink.Message, errno syscall.Errno, extAck string) (netlink.Message, error) {
	orig, err := req.MarshalBinary()
	if err != nil {
		return netlink.Message{}, fmt.Errorf("nlfixture: marshal request: %w", err)
	}
	m := netlink.Message{
		Header: netlink.Header{Type: netlink.Error, Sequence: req.Header.Sequence, PID: nltest.PID},
		Data:   append(binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno))), orig...),
	}
	if extAck != "" {
		const nlmsgerrAttrMsg = 1 // NLMSGERR_ATTR_MSG
		ae := netlink.NewAttributeEncoder()
		ae.String(nlmsgerrAttrMsg, extAck)
		tlvs, err := ae.Encode()
		if err != nil {
			return netlink.Message{}, fmt.Errorf("nlfixture: encode extended acknowledgement: %w", err)
		}
		m.Header.Flags |= netlink.AcknowledgeTLVs
		m.Data = append(m.Data, tlvs...)
	}
	return m, nil
}
