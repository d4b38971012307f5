// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"sync/atomic"

	"github.com/mdlayher/netlink"
)

// Dial opens a netlink socket of protocol proto (unix.NETLINK_ROUTE,
// unix.NETLINK_GENERIC, NETLINK_RDMA, ...) in the network namespace of the
// calling thread: netlink.Dial with a nil Config creates the socket on the
// calling thread. It asks for extended acknowledgements (NETLINK_EXT_ACK,
// include/uapi/linux/netlink.h), so that an error can carry the kernel's
// message about what it refused (netlink_ack in net/netlink/af_netlink.c
// adds it as NLMSGERR_ATTR_MSG); that is best effort, and a kernel without
// the option (before Linux 4.12) still answers with plain errors. The
// error is netlink.Dial's, for the caller to name in its own terms.
func Dial(proto int) (*netlink.Conn, error) {
	conn, err := netlink.Dial(proto, nil)
	if err != nil {
		return nil, err
	}
	_ = conn.SetOption(netlink.ExtendedAcknowledge, true)
	return conn, nil
}

// A Conn is a request socket of one family: it sends a request and returns
// the messages of its reply, and it remembers that it was closed. It may be
// used from several goroutines; netlink.Conn serialises the requests and
// checks each reply's sequence number and port ID.
type Conn struct {
	family Family
	conn   *netlink.Conn
	closed atomic.Bool
	rec    Recorder
}

// A Recorder is told of each exchange of a Conn, when its reply has come:
// the request as the client made it (no sequence number or port ID yet)
// and the reply's messages as netlink.Conn.Execute returned them, or its
// error (dcbtop -w records them, capture/tape).
type Recorder func(req netlink.Message, replies []netlink.Message, err error)

// SetRecorder makes r the Conn's recorder (nil: none). Call it before
// the Conn is used.
func (c *Conn) SetRecorder(r Recorder) { c.rec = r }

// NewConn returns a Conn of family f that sends its requests on conn,
// which it owns from then on: Close closes it.
func (f Family) NewConn(conn *netlink.Conn) *Conn {
	return &Conn{family: f, conn: conn}
}

// Close marks c closed, then closes its socket and returns what closing it
// returned. A request blocked on the socket returns with an error, which
// its caller can tell from a kernel's by Closed.
func (c *Conn) Close() error {
	c.closed.Store(true)
	return c.conn.Close()
}

// Closed reports whether Close was called.
func (c *Conn) Closed() bool { return c.closed.Load() }

// Execute sends req and returns the messages of the reply whose type is
// want, in the order the kernel sent them; none is not an error (a dump of
// an empty table). Any other message is left out: the NLMSG_DONE that ends
// a dump, or a reply of another type. A kernel's NLMSG_ERROR comes back as
// netlink.Conn.Execute returns it, a *netlink.OpError, for Cause and
// Detail.
//
// req is sent as it is, flags included: with NLM_F_REQUEST and without
// NLM_F_ACK, the kernel answers with the reply alone or with an
// NLMSG_ERROR (netlink_rcv_skb in net/netlink/af_netlink.c acknowledges a
// success only when NLM_F_ACK asks for it), so one receive holds the
// whole answer.
func (c *Conn) Execute(req netlink.Message, want netlink.HeaderType) ([]netlink.Message, error) {
	msgs, _, err := c.execute(req, want)
	return msgs, err
}

// Request sends req, which asks for one reply, and returns the first
// message of type want of the reply. When there is none it returns an
// error matching the family's ErrMalformed: "no reply of type T among N
// messages", N counting the messages of every type that came.
func (c *Conn) Request(req netlink.Message, want netlink.HeaderType) (netlink.Message, error) {
	msgs, n, err := c.execute(req, want)
	switch {
	case err != nil:
		return netlink.Message{}, err
	case len(msgs) == 0:
		verb := "%d"
		if c.family.HexTypes {
			verb = "%#x"
		}
		return netlink.Message{}, c.family.Malformed("", "no reply of type "+verb+" among %d messages", uint16(want), n)
	}
	return msgs[0], nil
}

// execute sends req and returns the messages of type want and the number
// of messages of any type.
func (c *Conn) execute(req netlink.Message, want netlink.HeaderType) ([]netlink.Message, int, error) {
	msgs, err := c.conn.Execute(req)
	if c.rec != nil {
		c.rec(req, msgs, err)
	}
	if err != nil {
		return nil, 0, err
	}
	var out []netlink.Message
	for _, m := range msgs {
		if m.Header.Type == want {
			out = append(out, m)
		}
	}
	return out, len(msgs), nil
}
