// SPDX-License-Identifier: Apache-2.0

//go:build linux

package rdmastat

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A client is the Linux implementation of Client.
type client struct {
	conn *nlclient.Conn

	mu   sync.Mutex        // serialises requests and guards devs
	devs map[string]Device // the last RDMA_NLDEV_CMD_GET dump; nil before the first
}

// dial opens a NETLINK_RDMA socket in the calling thread's network
// namespace (see nlclient.Dial). The socket itself is what needs ib_core:
// the kernel side is created by rdma_nl_init
// (drivers/infiniband/core/netlink.c), and without it socket(2) fails with
// EPROTONOSUPPORT.
func dial(rec nlclient.Recorder) (*Client, error) {
	conn, err := nlclient.Dial(NETLINK_RDMA)
	if err != nil {
		return nil, opError(opDial, "", 0, err)
	}
	c := newClient(conn)
	c.conn.SetRecorder(rec)
	return &Client{c}, nil
}

func newClient(conn *netlink.Conn) *client { return &client{conn: nl.NewConn(conn)} }

func (c *client) close() error { return c.conn.Close() }

// Names of the requests in errors (Error.Op).
const (
	opDial          = "dial"
	opGet           = "GET"
	opStatGet       = "STAT_GET"
	opStatGetStatus = "STAT_GET_STATUS"
)

// opError turns a failed request into an *Error carrying the errno (see
// nlclient.Cause).
func opError(op, device string, port int, err error) *Error {
	e := &Error{Op: op, Device: device, Port: port, Err: nlclient.Cause(err)}
	switch e.Err {
	case unix.EPROTONOSUPPORT:
		if op == opDial {
			e.kind = kindNoRDMA
		}
	case unix.EPERM, unix.EACCES:
		e.kind = kindPermission
	}
	return e
}

// errnoOf returns the errno of an *Error, or 0.
func errnoOf(err error) syscall.Errno {
	var e *Error
	if errors.As(err, &e) {
		if errno, ok := e.Err.(syscall.Errno); ok {
			return errno
		}
	}
	return 0
}

func (c *client) devices() ([]Device, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dump()
}

// dump lists the devices with a RDMA_NLDEV_CMD_GET dump and replaces
// c.devs. Messages that cannot be decoded (no index, an unacceptable name)
// are left out, as are repeated names.
func (c *client) dump() ([]Device, error) {
	msgs, err := c.conn.Execute(devicesRequest(), typeGet)
	if err != nil {
		return nil, opError(opGet, "", 0, err)
	}
	devs := map[string]Device{}
	list := []Device{}
	for _, m := range msgs {
		d, why := decodeDevice(m.Data)
		if why != "" {
			continue
		}
		if _, dup := devs[d.Name]; dup {
			continue
		}
		devs[d.Name] = d
		list = append(list, d)
	}
	slices.SortFunc(list, func(a, b Device) int { return strings.Compare(a.Name, b.Name) })
	c.devs = devs
	return list, nil
}

func (c *client) port(device string, port int) (Port, error) {
	if !validDeviceName(device) {
		return Port{}, &Error{Op: opStatGet, Device: device, Port: port, Err: unix.ENODEV, kind: kindBadName}
	}
	c.mu.Lock()
	defer c.mu.Unlock()

	// The cached dump may be stale: a device that appeared since, a
	// driver reloaded (the kernel hands out a new index), a device
	// renamed. Every path that may come from staleness dumps again, once.
	fresh := false
	refresh := func() error {
		fresh = true
		if _, err := c.dump(); err != nil {
			e := err.(*Error)
			e.Device, e.Port = device, port
			return e
		}
		return nil
	}
	for {
		d, ok := c.devs[device]
		if !ok && !fresh {
			if err := refresh(); err != nil {
				return Port{}, err
			}
			d, ok = c.devs[device]
		}
		if !ok {
			return Port{}, &Error{Op: opStatGet, Device: device, Port: port, Err: unix.ENODEV, kind: kindNoDevice}
		}
		if port < 1 || port > d.Ports {
			if !fresh {
				if err := refresh(); err != nil {
					return Port{}, err
				}
				continue
			}
			return Port{}, &Error{Op: opStatGet, Device: device, Port: port, Err: unix.EINVAL, kind: kindNoPort, ports: d.Ports}
		}

		stat, err := c.stat(opStatGet, typeStatGet, d, port)
		if err != nil {
			// EINVAL (or ENODEV) is the kernel's answer for an index
			// or port it does not know, and a reply naming another
			// device means the index changed hands.
			errno := errnoOf(err)
			stale := errno == unix.EINVAL || errno == unix.ENODEV || errors.Is(err, errRenamed)
			if stale && !fresh {
				if err := refresh(); err != nil {
					return Port{}, err
				}
				continue
			}
			if errno == unix.EINVAL {
				// The fresh dump has the device and port: the
				// driver has no port counters
				// (stat_get_doit_default_counter: no
				// alloc_hw_port_stats or get_hw_stats, or
				// get_hw_stats failed).
				return Port{}, &Error{Op: opStatGet, Device: device, Port: port, Err: errno, kind: kindNoCounters}
			}
			return Port{}, err
		}

		status, serr := c.stat(opStatGetStatus, typeStatGetStatus, d, port)
		if serr != nil {
			return merge(device, port, stat, nil, statusWhy(serr)), nil
		}
		return merge(device, port, stat, &status, ""), nil
	}
}

// statusWhy explains, in one line, a failed STAT_GET_STATUS after a
// successful STAT_GET of the same port.
func statusWhy(err error) string {
	switch errnoOf(err) {
	case unix.EINVAL, unix.EOPNOTSUPP:
		// rdma_nl_rcv_msg answers EINVAL for an op at or beyond the
		// kernel's RDMA_NLDEV_NUM_OPS (is_nl_msg_valid).
		return fmt.Sprintf("the kernel refuses RDMA_NLDEV_CMD_STAT_GET_STATUS (%v; it came with optional counters in Linux 5.16): which counters are optional is unknown", errnoOf(err))
	}
	return err.Error()
}

// errRenamed marks a reply whose device name is not the one asked for: the
// cached index now belongs to another device.
var errRenamed = errors.New("reply names another device")

// stat sends a STAT_GET or STAT_GET_STATUS request (typ) for port of d and
// decodes the reply, which must be of the same type, carry the table of
// counters, and name the device and port asked for.
func (c *client) stat(op string, typ netlink.HeaderType, d Device, port int) (statReply, error) {
	req, err := portRequest(typ, d.Index, uint32(port))
	if err != nil {
		return statReply{}, &Error{Op: op, Device: d.Name, Port: port, Err: err}
	}
	m, err := c.conn.Request(req, typ)
	if err != nil {
		return statReply{}, opError(op, d.Name, port, err)
	}
	fail := func(err error) (statReply, error) {
		return statReply{}, &Error{Op: op, Device: d.Name, Port: port, Err: err}
	}
	r, err := decodeStatReply(m.Data, typ == typeStatGet)
	switch {
	case err != nil:
		return fail(err)
	case r.devIndex != nil && *r.devIndex != d.Index:
		return fail(nl.Malformed("", "reply for device index %d, asked for %d", *r.devIndex, d.Index))
	case r.port != nil && *r.port != uint32(port):
		return fail(nl.Malformed("", "reply for port %d, asked for %d", *r.port, port))
	case r.devName != "" && r.devName != d.Name:
		return fail(fmt.Errorf("%w: index %d is now %q", errRenamed, d.Index, r.devName))
	case !r.hasTable:
		return fail(nl.Malformed("", "no RDMA_NLDEV_ATTR_STAT_HWCOUNTERS"))
	}
	return r, nil
}

func (c *client) setRecorder(r nlclient.Recorder) { c.conn.SetRecorder(r) }
