// SPDX-License-Identifier: Apache-2.0

//go:build linux

package linkpause

import (
	"errors"
	"sync"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// Names of the requests in errors (Error.Op).
const (
	opPauseGet     = "PAUSE_GET"
	opGetFamily    = "CTRL_GETFAMILY"
	opGPauseParam  = "GPAUSEPARAM"
	opOpenIoctl    = "open SIOCETHTOOL socket"
	opOpenNetlink  = "open NETLINK_GENERIC socket"
	familyNotFound = syscall.ENOENT // ctrl_getfamily's answer for an unknown family
)

// A pauseIoctl reads struct ethtool_pauseparam with ETHTOOL_GPAUSEPARAM:
// github.com/safchain/ethtool's *Ethtool, or a fake in tests.
type pauseIoctl interface {
	GetPause(ifname string) (ethtool.Pause, error)
	Close()
}

// openEthtool opens the ioctl's AF_INET socket in the calling thread's
// network namespace.
func openEthtool() (pauseIoctl, error) { return ethtool.NewEthtool() }

// A client is the Linux implementation of Client.
type client struct {
	conn *nlclient.Conn

	mu       sync.Mutex
	family   uint16 // the "ethtool" family's ID; 0 until resolved
	noFamily bool   // resolved: the kernel has no "ethtool" family
	ioctl    pauseIoctl
	open     func() (pauseIoctl, error) // opens ioctl when needed
}

func newClient(conn *netlink.Conn) *client { return &client{conn: nl.NewConn(conn), open: openEthtool} }

// dial opens the socket in the calling thread's network namespace (see
// nlclient.Dial) and resolves the family there, opening the ioctl's socket
// now if it is missing, so that both belong to the same namespace.
func dial(rec nlclient.Recorder) (*Client, error) {
	conn, err := nlclient.Dial(unix.NETLINK_GENERIC)
	if err != nil {
		return nil, &Error{Op: opOpenNetlink, Err: err}
	}
	c := newClient(conn)
	c.conn.SetRecorder(rec)
	if err := c.resolve(); err != nil {
		c.close()
		return nil, err
	}
	return &Client{c}, nil
}

func (c *client) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ioctl != nil {
		c.ioctl.Close()
		c.ioctl = nil
	}
	return c.conn.Close()
}

// resolve resolves the "ethtool" family, or opens the ioctl's socket when
// the kernel has none.
func (c *client) resolve() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.resolveLocked()
	return err
}

// resolveLocked returns the "ethtool" family's ID, asking the controller
// the first time; 0 when the kernel has none, after opening the ioctl's
// socket. c.mu is held.
func (c *client) resolveLocked() (uint16, error) {
	if c.family != 0 || c.noFamily {
		return c.family, c.openIoctlLocked()
	}
	m, err := c.conn.Request(netlink.Message{
		Header: netlink.Header{Type: genlIDCtrl, Flags: netlink.Request},
		Data:   getFamilyRequest(ethtoolGenlName),
	}, genlIDCtrl)
	if errors.Is(err, familyNotFound) {
		c.noFamily = true
		return 0, c.openIoctlLocked()
	}
	if err != nil {
		return 0, opError(opGetFamily, "", err)
	}
	attrs, err := decodeMessage(m.Data, ctrlCmdNewFamily, "CTRL_CMD_GETFAMILY reply")
	if err == nil {
		c.family, err = decodeFamily(attrs, ethtoolGenlName)
	}
	if err != nil {
		return 0, &Error{Op: opGetFamily, Err: err}
	}
	return c.family, nil
}

// openIoctlLocked opens the ioctl's socket when the family is missing and
// it is not open yet. c.mu is held.
func (c *client) openIoctlLocked() error {
	if !c.noFamily || c.ioctl != nil {
		return nil
	}
	e, err := c.open()
	if err != nil {
		return &Error{Op: opOpenIoctl, Err: err}
	}
	c.ioctl = e
	return nil
}

// opError turns a failed request into an *Error carrying the errno and the
// kernel's extended acknowledgement message (see nlclient.Cause and
// nlclient.Detail).
func opError(op, ifname string, err error) error {
	return &Error{Op: op, Ifname: ifname, Err: nlclient.Cause(err), Detail: nlclient.Detail(err)}
}

// checkIfname refuses names that cannot exist before asking the kernel
// (see nlclient.ValidIfname).
func checkIfname(op, ifname string) error {
	if nlclient.ValidIfname(ifname) {
		return nil
	}
	return &Error{Op: op, Ifname: ifname, Err: syscall.ENODEV, badName: true}
}

func (c *client) get(ifname string) (*Pause, error) {
	if err := checkIfname(opPauseGet, ifname); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.conn.Closed() {
		c.mu.Unlock()
		return nil, &Error{Op: opPauseGet, Ifname: ifname, Err: errors.New("client closed")}
	}
	family, err := c.resolveLocked()
	ioctl := c.ioctl
	c.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case family == 0:
		return getIoctl(ioctl, ifname)
	}

	p, err := c.pauseGet(family, ifname, ethtoolFlagStats)
	if !errors.Is(err, syscall.EOPNOTSUPP) {
		return p, err
	}
	// EOPNOTSUPP: the driver has no get_pauseparam, or the kernel (5.6 to
	// 5.9) does not know ETHTOOL_FLAG_STATS. Without the flag, only the
	// former remains.
	p, err = c.pauseGet(family, ifname, 0)
	if errors.Is(err, syscall.EOPNOTSUPP) {
		return unsupported(ifname, SourceNetlink), nil
	}
	return p, err
}

// unsupported is the Pause of a driver without pause operations.
func unsupported(ifname, source string) *Pause {
	return &Pause{Ifname: ifname, Source: source, Unsupported: true, Reason: ReasonNoPauseOps}
}

// pauseGet sends ETHTOOL_MSG_PAUSE_GET with the header flags and decodes
// the reply. No NLM_F_ACK is requested: the reply itself is the answer.
func (c *client) pauseGet(family uint16, ifname string, flags uint32) (*Pause, error) {
	m, err := c.conn.Request(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(family), Flags: netlink.Request},
		Data:   pauseGetRequest(ifname, flags),
	}, netlink.HeaderType(family))
	if err != nil {
		return nil, opError(opPauseGet, ifname, err)
	}
	attrs, err := decodeMessage(m.Data, ethtoolMsgPauseGetReply, "PAUSE_GET reply")
	if err != nil {
		return nil, &Error{Op: opPauseGet, Ifname: ifname, Err: err}
	}
	r, err := decodeReply(attrs)
	if err != nil {
		return nil, &Error{Op: opPauseGet, Ifname: ifname, Err: err}
	}
	p, err := r.pause(ifname, flags&ethtoolFlagStats != 0)
	if err != nil {
		return nil, &Error{Op: opPauseGet, Ifname: ifname, Err: err}
	}
	return p, nil
}

// getIoctl reads the settings with ETHTOOL_GPAUSEPARAM (dev_ethtool:
// EOPNOTSUPP without get_pauseparam, ENODEV for an unknown name).
func getIoctl(e pauseIoctl, ifname string) (*Pause, error) {
	pp, err := e.GetPause(ifname)
	switch {
	case errors.Is(err, syscall.EOPNOTSUPP):
		return unsupported(ifname, SourceIoctl), nil
	case err != nil:
		return nil, opError(opGPauseParam, ifname, err)
	}
	return &Pause{
		Ifname: ifname,
		Settings: Settings{
			Autoneg: stateOf(pp.Autoneg != 0),
			RX:      stateOf(pp.RxPause != 0),
			TX:      stateOf(pp.TxPause != 0),
		},
		Source: SourceIoctl,
		Reason: ReasonIoctl,
	}, nil
}

func (c *client) setRecorder(r nlclient.Recorder) { c.conn.SetRecorder(r) }
