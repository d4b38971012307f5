// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
)

// Netlink is one netlink exchange: a request of protocol Proto
// (NETLINK_ROUTE 0, NETLINK_GENERIC 16, NETLINK_RDMA 20) and the messages
// of its reply as the client got them (netlink.Conn.Execute: the
// NLMSG_DONE of a dump left out), or the error it got instead. A recording
// holds it as two packets on NetlinkInterface (Packets).
type Netlink struct {
	Proto   int
	Request netlink.Message
	Replies []netlink.Message
	Err     error
}

// Kind is 0: a Netlink is no host record (it is carried on the netlink
// interface).
func (Netlink) Kind() Kind { return 0 }

// Linux cooked header fields of a netlink packet (LINKTYPE_NETLINK:
// https://www.tcpdump.org/linktypes/LINKTYPE_NETLINK.html; the header an
// nlmon interface gives, net/netlink/af_netlink.c __netlink_deliver_tap_skb,
// read by Wireshark's epan/dissectors/packet-netlink.c).
const (
	sllLen         = 16
	pktHost        = 0   // PACKET_HOST: to this host (the kernel's reply)
	pktOutgoing    = 4   // PACKET_OUTGOING: sent by this host (the request)
	arphrdNetlink  = 824 // ARPHRD_NETLINK
	nlmsgHdrLen    = 16
	flagsAckTLVs   = 0x200 // NLM_F_ACK_TLVS
	nlmsgerrAttMsg = 1     // NLMSGERR_ATTR_MSG
	nlmsgerrAttOff = 2     // NLMSGERR_ATTR_OFFS
	maxProto       = 31    // MAX_LINKS - 1 (include/uapi/linux/netlink.h)
)

// KernelError reports whether the exchange's error is the kernel's
// answer (an NLMSG_ERROR with an errno: netlink.OpError around a
// syscall.Errno), which Packets writes as the reply; any other error is
// the client's side (ClientError).
func (n Netlink) KernelError() bool {
	var oe *netlink.OpError
	var en syscall.Errno
	return errors.As(n.Err, &oe) && errors.As(oe.Err, &en) && en != 0
}

// ClientError is the record standing for an error that is no kernel's
// answer: the text of what netlink.OpError wraps.
func (n Netlink) ClientError() NetlinkError {
	var oe *netlink.OpError
	if errors.As(n.Err, &oe) && oe.Err != nil {
		return NetlinkError{Text: oe.Err.Error()}
	}
	return NetlinkError{Text: n.Err.Error()}
}

// Packets returns the exchange's two packets, each behind its cooked
// header: the request, then the reply. An error the kernel answered is
// the reply's NLMSG_ERROR message, with its extended acknowledgement
// (message, offset) when it had one. An error of the client's side
// (KernelError false) has no reply packet: Write writes its ClientError
// after the request instead (reply is nil).
func (n Netlink) Packets() (req, reply []byte, err error) {
	if n.Proto < 0 || n.Proto > maxProto {
		return nil, nil, fmt.Errorf("netlink protocol %d", n.Proto)
	}
	req, err = appendMessage(sll(pktOutgoing, n.Proto), n.Request)
	if err != nil {
		return nil, nil, err
	}
	reply = sll(pktHost, n.Proto)
	if n.Err != nil {
		if !n.KernelError() {
			return req, nil, nil
		}
		return req, appendError(reply, n.Request, n.Err), nil
	}
	for _, m := range n.Replies {
		if reply, err = appendMessage(reply, m); err != nil {
			return nil, nil, err
		}
	}
	return req, reply, nil
}

// sll returns a cooked header of packet type typ for protocol proto.
func sll(typ uint16, proto int) []byte {
	b := make([]byte, sllLen, sllLen+64)
	binary.BigEndian.PutUint16(b[0:], typ)
	binary.BigEndian.PutUint16(b[2:], arphrdNetlink)
	binary.BigEndian.PutUint16(b[14:], uint16(proto))
	return b
}

// appendMessage appends m with its header, its length computed, padded to
// 4 bytes (NLMSG_ALIGN). Its sequence number and port ID are kept.
func appendMessage(b []byte, m netlink.Message) ([]byte, error) {
	n := nlmsgHdrLen + len(m.Data)
	if n > maxMessage {
		return nil, fmt.Errorf("netlink message of %d bytes", n)
	}
	b = binary.NativeEndian.AppendUint32(b, uint32(n))
	b = binary.NativeEndian.AppendUint16(b, uint16(m.Header.Type))
	b = binary.NativeEndian.AppendUint16(b, uint16(m.Header.Flags))
	b = binary.NativeEndian.AppendUint32(b, m.Header.Sequence)
	b = binary.NativeEndian.AppendUint32(b, m.Header.PID)
	b = append(b, m.Data...)
	return append(b, make([]byte, align4(n)-n)...), nil
}

// maxMessage bounds a netlink message written (a packet holds at most
// 256 KiB).
const maxMessage = 1 << 18

// appendError appends the NLMSG_ERROR message answering req with err, a
// kernel's error (Netlink.KernelError).
func appendError(b []byte, req netlink.Message, err error) []byte {
	var oe *netlink.OpError
	var errno syscall.Errno
	errors.As(err, &oe)
	errors.As(oe.Err, &errno)
	msg, off := oe.Message, oe.Offset
	data := binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno)))
	data, _ = appendMessage(data, req)
	flags := netlink.HeaderFlags(0)
	if msg != "" || off != 0 {
		flags |= flagsAckTLVs
		ae := netlink.NewAttributeEncoder()
		if msg != "" {
			ae.String(nlmsgerrAttMsg, msg)
		}
		if off != 0 {
			ae.Uint32(nlmsgerrAttOff, uint32(off))
		}
		attrs, _ := ae.Encode()
		data = append(data, attrs...)
	}
	out, _ := appendMessage(b, netlink.Message{Header: netlink.Header{Type: netlink.Error, Flags: flags, Sequence: req.Header.Sequence}, Data: data})
	return out
}

// DecodePacket reads a packet of the netlink interface: its protocol,
// whether it is a request (outgoing), and its messages. A packet that is
// not one dcbtop writes (another header type, a message cut short) is an
// error matching ErrMalformed.
func DecodePacket(b []byte) (proto int, outgoing bool, msgs []netlink.Message, err error) {
	if len(b) < sllLen {
		return 0, false, nil, fmt.Errorf("%w: netlink packet of %d bytes", ErrMalformed, len(b))
	}
	typ, hatype := binary.BigEndian.Uint16(b[0:]), binary.BigEndian.Uint16(b[2:])
	proto = int(binary.BigEndian.Uint16(b[14:]))
	switch {
	case hatype != arphrdNetlink:
		return 0, false, nil, fmt.Errorf("%w: link-layer type %d, not netlink", ErrMalformed, hatype)
	case typ != pktHost && typ != pktOutgoing:
		return 0, false, nil, fmt.Errorf("%w: netlink packet type %d", ErrMalformed, typ)
	case proto > maxProto:
		return 0, false, nil, fmt.Errorf("%w: netlink protocol %d", ErrMalformed, proto)
	}
	for rest := b[sllLen:]; len(rest) > 0; {
		if len(rest) < nlmsgHdrLen {
			return 0, false, nil, fmt.Errorf("%w: netlink message header cut short (%d bytes)", ErrMalformed, len(rest))
		}
		n := binary.NativeEndian.Uint32(rest)
		if n < nlmsgHdrLen || uint64(n) > uint64(len(rest)) {
			return 0, false, nil, fmt.Errorf("%w: netlink message of length %d in %d bytes", ErrMalformed, n, len(rest))
		}
		if len(msgs) >= MaxItems {
			return 0, false, nil, fmt.Errorf("%w: over %d netlink messages", ErrMalformed, MaxItems)
		}
		mb := padded(rest[:n]) // the last message may be unpadded
		if end := align4(int(n)); end <= len(rest) {
			mb = rest[:end]
		}
		var m netlink.Message
		if err := m.UnmarshalBinary(mb); err != nil {
			return 0, false, nil, fmt.Errorf("%w: netlink message: %v", ErrMalformed, err)
		}
		m.Data = append([]byte{}, m.Data[:n-nlmsgHdrLen]...)
		msgs = append(msgs, m)
		rest = rest[min(len(rest), align4(int(n))):]
	}
	return proto, typ == pktOutgoing, msgs, nil
}

func align4(n int) int { return (n + 3) &^ 3 }

// padded returns b padded with zeros to a multiple of 4 bytes.
func padded(b []byte) []byte {
	return append(append([]byte{}, b...), make([]byte, align4(len(b))-len(b))...)
}
