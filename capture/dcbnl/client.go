// SPDX-License-Identifier: Apache-2.0

package dcbnl

import (
	"context"

	"github.com/mdlayher/netlink"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// A Client talks to the kernel's DCB netlink interface (net/dcb/dcbnl.c) over
// NETLINK_ROUTE. Its methods may be called from several goroutines: requests
// are serialised on one socket, and Watch uses a second one.
type Client struct{ c *client }

// Dial opens a Client on one NETLINK_ROUTE socket, for requests, in the
// network namespace of the calling thread; requests name interfaces of
// that namespace. Reading needs no privilege; IEEE_SET, IEEE_DEL and
// SDCBX need CAP_NET_ADMIN in the initial user namespace. Its Watch
// fails: DialWatching opens the second socket a Watch reads.
func Dial() (*Client, error) { return dial(nil, false) }

// DialWatching is DialRecorded with a second NETLINK_ROUTE socket, opened
// now in the same namespace, for Watch (RTNLGRP_DCB): what follows DCB
// notifications needs it, a reader or a writer does not.
func DialWatching(rec nlclient.Recorder) (*Client, error) { return dial(rec, true) }

// SetRecorder makes r the recorder of every exchange of the Client's
// requests (a Client of NewClient recorded, capture/tape). Call it before
// the Client is used.
func (c *Client) SetRecorder(r nlclient.Recorder) { c.c.setRecorder(r) }

// DialRecorded is Dial, rec told of every exchange of the Client's
// requests, its first included (dcbtop -w, capture/tape).
func DialRecorded(rec nlclient.Recorder) (*Client, error) { return dial(rec, false) }

// NewClient returns a Client that sends its requests on conn, typically a
// fake from nltest.Dial. Watch also uses conn, which must then support
// multicast groups and read deadlines (an nltest connection does not), and
// blocks requests while it waits. Closing the Client closes conn.
func NewClient(conn *netlink.Conn) *Client { return &Client{newClient(conn)} }

// Close closes the Client's sockets; a running Watch returns.
func (c *Client) Close() error { return c.c.close() }

// IEEE reads the IEEE DCB state of ifname with DCB_CMD_IEEE_GET: local ETS,
// PFC and APP table, peer values when the driver reports them, maximum
// rates, and the DCBX mode. Errors are *Error: see ErrNoDCB (the interface
// has no dcbnl_ops), os.ErrNotExist (no such interface) and ErrMalformed.
func (c *Client) IEEE(ifname string) (*IEEE, error) { return c.c.ieee(ifname) }

// SetIEEE sends DCB_CMD_IEEE_SET with the non-nil parts of s. The kernel
// applies ETS, then PFC, then each APP entry, and stops at the first
// failure without undoing the earlier ones; that failure comes back as an
// *Error with Driver set (for example errors.Is(err, syscall.EINVAL) when
// ice refuses ETS in firmware mode). A driver without the matching op
// ignores that part and still reports success, so read back with IEEE and
// compare. Without CAP_NET_ADMIN the error matches os.ErrPermission. Some
// drivers reset the link when PFC or ETS changes (mlx5 setpfc, ixgbe).
func (c *Client) SetIEEE(ifname string, s *IEEESet) error {
	if s == nil {
		s = &IEEESet{}
	}
	return c.c.setIEEE(ifname, s)
}

// DelApps removes apps from the APP table of ifname with DCB_CMD_IEEE_DEL.
// Removal stops at the first entry that fails; an entry that is not in the
// table gives a driver error matching syscall.ENOENT (the kernel's own list)
// or whatever the driver's ieee_delapp returns.
func (c *Client) DelApps(ifname string, apps []App) error {
	return c.c.delApps(ifname, DCB_ATTR_IEEE_APP_TABLE, apps)
}

// DelRewr removes entries from the APP rewrite table of ifname with
// DCB_CMD_IEEE_DEL (DCB_ATTR_DCB_REWR_TABLE, Linux 6.3+; the kernel's
// dcb_delrewr answers ENOENT for an entry that is not there). Like
// IEEESet.Rewr, a kernel without the table ignores it.
func (c *Client) DelRewr(ifname string, apps []App) error {
	return c.c.delApps(ifname, DCB_ATTR_DCB_REWR_TABLE, apps)
}

// DCBX reads the DCBX mode of ifname with DCB_CMD_GDCBX. A driver with
// dcbnl_ops but without getdcbx gives an EOPNOTSUPP *Error that does not
// match ErrNoDCB.
func (c *Client) DCBX(ifname string) (Mode, error) { return c.c.dcbx(ifname) }

// SetDCBX asks the driver of ifname to switch to DCBX mode m with
// DCB_CMD_SDCBX. The reply carries the driver's setdcbx return value: any
// non-zero status is returned as an *Error with Driver set (Err is the errno
// for a negative status, otherwise ErrRefused). mlx5 takes 0 to hand DCBX to
// the firmware and a mode with ModeHost for host mode; ice returns 1 also
// when the port already is in mode m; so read back with DCBX.
func (c *Client) SetDCBX(ifname string, m Mode) error { return c.c.setDCBX(ifname, m) }

// CEE reads the CEE DCB state of ifname with DCB_CMD_CEE_GET.
func (c *Client) CEE(ifname string) (*CEE, error) { return c.c.cee(ifname) }

// Watch joins the RTNLGRP_DCB multicast group and calls fn, on the calling
// goroutine, for every DCB notification of the Client's network namespace,
// until ctx is done; it then leaves the group and returns ctx.Err(). Lost
// notifications are reported as a Notification with Overrun set. Only one
// Watch may run on a Client at a time. Joining needs no privilege.
//
// Notifications are hints: mlx5 sends none, and the kernel sends one after
// every IEEE_SET and IEEE_DEL, including failed ones, so poll as well and
// re-read on a notification.
func (c *Client) Watch(ctx context.Context, fn func(Notification)) error {
	return c.c.watch(ctx, nil, fn)
}

// WatchJoined is Watch that calls joined, on the calling goroutine, once
// the group is joined and before the first notification: a reader that
// read the state before it subscribed reads again then, so that a change
// between its read and the subscription is not lost until its next poll
// (found on the real kernel under load: testbed/realkernel).
func (c *Client) WatchJoined(ctx context.Context, joined func(), fn func(Notification)) error {
	return c.c.watch(ctx, joined, fn)
}
