// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A client is the Linux implementation of Client.
type client struct {
	conn  *nlclient.Conn // requests
	wconn *netlink.Conn  // RTNLGRP_DCB; conn's own socket for NewClient; nil without DialWatching
	// ownWatch is set when wconn is a socket of its own, which close
	// closes too.
	ownWatch bool

	watching atomic.Bool // a Watch is running
}

// dial opens the request socket, and the watch socket when watch is set,
// in the calling thread's network namespace (see nlclient.Dial).
func dial(rec nlclient.Recorder, watch bool) (*Client, error) {
	conn, err := nlclient.Dial(unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("open NETLINK_ROUTE socket: %w", err)
	}
	c := &client{conn: nl.NewConn(conn)}
	if watch {
		w, err := netlink.Dial(unix.NETLINK_ROUTE, nil)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("open NETLINK_ROUTE socket: %w", err)
		}
		c.wconn, c.ownWatch = w, true
	}
	c.conn.SetRecorder(rec)
	return &Client{c}, nil
}

func newClient(conn *netlink.Conn) *client { return &client{conn: nl.NewConn(conn), wconn: conn} }

func (c *client) close() error {
	err := c.conn.Close()
	if c.ownWatch {
		err = errors.Join(err, c.wconn.Close())
	}
	return err
}

// Names of the commands in errors (Error.Op).
const (
	opIEEEGet = "IEEE_GET"
	opIEEESet = "IEEE_SET"
	opIEEEDel = "IEEE_DEL"
	opGDCBX   = "GDCBX"
	opSDCBX   = "SDCBX"
	opCEEGet  = "CEE_GET"
	opWatch   = "watch"
)

// execute sends a request of type typ carrying payload (struct dcbmsg for
// cmd and attributes) and returns the attributes of the reply, which must
// be of type replyType and for the same command (dcb_doit answers with
// reply_funcs[cmd].type: RTM_GETDCB for GET commands, RTM_SETDCB for SET
// ones). No NLM_F_ACK is requested: the reply itself is the answer, and an
// acknowledgement would arrive as a second datagram.
func (c *client) execute(op, ifname string, typ netlink.HeaderType, cmd uint8, payload []byte) ([]byte, error) {
	replyType := netlink.HeaderType(RTM_GETDCB)
	if typ == RTM_SETDCB {
		replyType = RTM_SETDCB
	}
	m, err := c.conn.Request(netlink.Message{
		Header: netlink.Header{Type: typ, Flags: netlink.Request},
		Data:   payload,
	}, replyType)
	if err != nil {
		return nil, opError(op, ifname, err)
	}
	if len(m.Data) < SizeofDCBMsg {
		return nil, &Error{Op: op, Ifname: ifname, Err: nl.Malformed("", "reply of %d bytes is shorter than struct dcbmsg", len(m.Data))}
	}
	if m.Data[1] != cmd {
		return nil, &Error{Op: op, Ifname: ifname, Err: nl.Malformed("", "reply for command %d, want %d", m.Data[1], cmd)}
	}
	return m.Data[SizeofDCBMsg:], nil
}

// opError turns a failed request into an *Error carrying the errno (see
// nlclient.Cause).
func opError(op, ifname string, err error) error {
	return &Error{Op: op, Ifname: ifname, Err: nlclient.Cause(err)}
}

// driverError returns the error for a non-zero status byte: a truncated
// negative errno ((u8)-errno, so errno = 256 - status) when above 127, as
// for EINVAL (234), EOPNOTSUPP (161), ERANGE (222) and EEXIST (239), or a
// positive driver-specific refusal otherwise.
func driverError(op, ifname string, status uint8) error {
	e := &Error{Op: op, Ifname: ifname, Driver: true, Status: status, Err: ErrRefused}
	if status > 127 {
		e.Err = syscall.Errno(256 - int(status))
	}
	return e
}

// checkIfname refuses names that cannot exist before asking the kernel
// (see nlclient.ValidIfname).
func checkIfname(op, ifname string) error {
	if nlclient.ValidIfname(ifname) {
		return nil
	}
	return &Error{Op: op, Ifname: ifname, Err: unix.ENODEV, badName: true}
}

func (c *client) ieee(ifname string) (*IEEE, error) {
	attrs, err := c.get(opIEEEGet, ifname, DCB_CMD_IEEE_GET)
	if err != nil {
		return nil, err
	}
	_, ie, err := decodeIEEE(attrs)
	if err != nil {
		return nil, &Error{Op: opIEEEGet, Ifname: ifname, Err: err}
	}
	return ie, nil
}

func (c *client) cee(ifname string) (*CEE, error) {
	attrs, err := c.get(opCEEGet, ifname, DCB_CMD_CEE_GET)
	if err != nil {
		return nil, err
	}
	_, cee, err := decodeCEE(attrs)
	if err != nil {
		return nil, &Error{Op: opCEEGet, Ifname: ifname, Err: err}
	}
	return cee, nil
}

func (c *client) setIEEE(ifname string, s *IEEESet) error {
	return c.set(opIEEESet, ifname, DCB_CMD_IEEE_SET, func() ([]byte, error) { return ieeeSetRequest(ifname, s) },
		DCB_ATTR_IEEE, "DCB_ATTR_IEEE")
}

func (c *client) delApps(ifname string, table uint16, apps []App) error {
	return c.set(opIEEEDel, ifname, DCB_CMD_IEEE_DEL, func() ([]byte, error) { return ieeeDelRequest(ifname, table, apps) },
		DCB_ATTR_IEEE, "DCB_ATTR_IEEE")
}

func (c *client) setDCBX(ifname string, m Mode) error {
	err := c.set(opSDCBX, ifname, DCB_CMD_SDCBX, func() ([]byte, error) { return sdcbxRequest(ifname, m) },
		DCB_ATTR_DCBX, "DCB_ATTR_DCBX")
	return c.explainNotSupported(err, ifname, "setdcbx")
}

func (c *client) dcbx(ifname string) (Mode, error) {
	attrs, err := c.get(opGDCBX, ifname, DCB_CMD_GDCBX)
	if err != nil {
		return 0, c.explainNotSupported(err, ifname, "getdcbx")
	}
	v, err := decodeStatus(attrs, DCB_ATTR_DCBX, "DCB_ATTR_DCBX")
	if err != nil {
		return 0, &Error{Op: opGDCBX, Ifname: ifname, Err: err}
	}
	return Mode(v), nil
}

// get sends the GET command cmd, which has no attributes but the interface
// name, and returns the attributes of the reply.
func (c *client) get(op, ifname string, cmd uint8) ([]byte, error) {
	if err := checkIfname(op, ifname); err != nil {
		return nil, err
	}
	req, err := request(cmd, ifname, nil)
	if err != nil {
		return nil, &Error{Op: op, Ifname: ifname, Err: err}
	}
	return c.execute(op, ifname, RTM_GETDCB, cmd, req)
}

// set sends the SET command cmd, with the payload build returns, and
// decodes the u8 status attribute typ (named attr) of its reply: 0 is
// success, anything else a driver error.
func (c *client) set(op, ifname string, cmd uint8, build func() ([]byte, error), typ uint16, attr string) error {
	if err := checkIfname(op, ifname); err != nil {
		return err
	}
	req, err := build()
	if err != nil {
		return &Error{Op: op, Ifname: ifname, Err: err}
	}
	attrs, err := c.execute(op, ifname, RTM_SETDCB, cmd, req)
	if err != nil {
		return err
	}
	v, err := decodeStatus(attrs, typ, attr)
	if err != nil {
		return &Error{Op: op, Ifname: ifname, Err: err}
	}
	if v != 0 {
		return driverError(op, ifname, v)
	}
	return nil
}

// explainNotSupported tells apart the two reasons for an EOPNOTSUPP from
// GDCBX or SDCBX: the device has no dcbnl_ops at all (ErrNoDCB), or the
// driver has them but lacks the callback named op. It asks DCB_CMD_IEEE_GET,
// which needs only dcbnl_ops.
func (c *client) explainNotSupported(err error, ifname, op string) error {
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Driver || e.Err != unix.EOPNOTSUPP {
		return err
	}
	if _, perr := c.ieee(ifname); !errors.Is(perr, ErrNoDCB) {
		e.missingOp = op
	}
	return e
}

// watch implements Client.Watch.
func (c *client) watch(ctx context.Context, joined func(), fn func(Notification)) error {
	if !c.watching.CompareAndSwap(false, true) {
		return &Error{Op: opWatch, Err: errors.New("another Watch is running on this client")}
	}
	defer c.watching.Store(false)
	w := c.wconn
	if w == nil {
		return &Error{Op: opWatch, Err: errors.New("no watch socket: dial the Client with DialWatching")}
	}
	// Clear a deadline left by a previous Watch before anything can block.
	if err := w.SetReadDeadline(time.Time{}); err != nil {
		return &Error{Op: opWatch, Err: err}
	}
	if err := w.JoinGroup(RTNLGRP_DCB); err != nil {
		return opError(opWatch, "", err)
	}
	defer w.LeaveGroup(RTNLGRP_DCB)
	if joined != nil {
		joined()
	}

	// On cancellation, a read deadline in the past unblocks Receive; wait
	// for that to finish before returning, so that it cannot fire during
	// a later Watch.
	var fired sync.WaitGroup
	fired.Add(1)
	stop := context.AfterFunc(ctx, func() {
		defer fired.Done()
		w.SetReadDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			fired.Wait()
		}
		w.SetReadDeadline(time.Time{})
	}()

	for {
		msgs, err := w.Receive()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case c.conn.Closed():
				return &Error{Op: opWatch, Err: net.ErrClosed}
			case errors.Is(err, unix.ENOBUFS), errors.Is(err, unix.EMSGSIZE):
				// ENOBUFS: the receive buffer overflowed. EMSGSIZE (or
				// another errno set by rtnl_set_sk_err): the kernel could
				// not build a notification.
				fn(Notification{Overrun: true})
				continue
			}
			return opError(opWatch, "", err)
		}
		for _, m := range msgs {
			if m.Header.Type == RTM_SETDCB || m.Header.Type == RTM_GETDCB {
				fn(decodeNotification(m))
			}
		}
	}
}

func (c *client) setRecorder(r nlclient.Recorder) { c.conn.SetRecorder(r) }
