// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"fmt"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/tunable"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// A Writer is dcbtop's one way into the kernel's DCB state for writes:
// the live run's effects (an agent programming its NIC, an operator's
// write from the screen or dcbtop apply through the host layer, a host
// QoS fix) and dcbtop apply without a running agent all write through
// one. Each write dials its own request socket (no RTNLGRP_DCB watch:
// dcbnl.Dial), holds its interface's lock while it reads, writes and
// reads back, and closes the socket; writes on different interfaces run
// side by side. A Writer is safe for concurrent use.
type Writer struct {
	dial     func() (Client, func(), error)
	configfs rdma.WriteFS
	tunables func() (Tunables, func(), error)

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// NewWriter returns a Writer that opens DCB netlink with dial (nil: Dial,
// the seam tests replace) and writes rdma_cm's configfs in configfs (nil:
// the one under /sys).
func NewWriter(dial func() (Client, func(), error), configfs rdma.WriteFS) *Writer {
	if configfs == nil {
		configfs = rdma.DirWriter("/sys")
	}
	return &Writer{dial: dial, configfs: configfs, tunables: openTunables, locks: map[string]*sync.Mutex{}}
}

// openTunables opens the system's ethtool tunables (capture/tunable).
func openTunables() (Tunables, func(), error) {
	c, err := tunable.Open()
	if err != nil {
		return nil, nil, err
	}
	return c, c.Close, nil
}

// SetTunables makes w open the driver's tunables (the PFC storm
// prevention timeout) with open instead of the system's: the seam tests
// replace. It returns w.
func (w *Writer) SetTunables(open func() (Tunables, func(), error)) *Writer {
	w.tunables = open
	return w
}

// A DialError says DCB netlink could not be opened: nothing was read or
// written.
type DialError struct{ Err error }

func (e *DialError) Error() string { return "DCB netlink: " + e.Err.Error() }

// Unwrap returns the dial's error.
func (e *DialError) Unwrap() error { return e.Err }

// with runs fn on a client of its own while ifname's lock is held.
func (w *Writer) with(ifname string, fn func(c Client)) error {
	w.mu.Lock()
	l := w.locks[ifname]
	if l == nil {
		l = new(sync.Mutex)
		w.locks[ifname] = l
	}
	w.mu.Unlock()
	l.Lock()
	defer l.Unlock()
	dial := w.dial
	if dial == nil {
		dial = Dial
	}
	c, closeC, err := dial()
	if err != nil {
		return &DialError{Err: err}
	}
	defer closeC()
	fn(c)
	return nil
}

// Apply writes p (nil: no feature) and willing (nil: left alone) to
// ifname (the package's Apply: one read, only what differs written, one
// read back). The error is a *DialError: nothing happened.
func (w *Writer) Apply(ifname string, p *dcb.Params, willing *bool) (res engine.WriteResult, err error) {
	err = w.with(ifname, func(c Client) { res = Apply(c, ifname, p, willing) })
	return res, err
}

// ApplyQoS writes the host QoS change ch on ifname through DCB netlink,
// the ethtool tunables (opened for a storm timeout only) and rdma_cm's
// configfs (the package's ApplyQoS: read back). The error is a
// *DialError: nothing happened.
func (w *Writer) ApplyQoS(ifname string, ch qos.Change) (res qos.WriteResult, err error) {
	err = w.with(ifname, func(c Client) {
		var tun Tunables
		if ch.PFCStormTimeout != nil {
			t, closeT, terr := w.tunables()
			if terr != nil {
				res = qos.WriteResult{Interface: ifname, Err: fmt.Errorf("pfc storm timeout: open the ethtool ioctl's socket: %w", terr)}
				return
			}
			defer closeT()
			tun = t
		}
		res = ApplyQoS(c, w.configfs, tun, ifname, ch)
	})
	return res, err
}

// Read returns the local parameters of ifname as DCB netlink holds them
// now (the package's Local), false when the driver has none or DCB
// netlink cannot be opened.
func (w *Writer) Read(ifname string, now time.Time) (ev engine.LocalChanged, ok bool) {
	_ = w.with(ifname, func(c Client) { ev, ok = Local(c, ifname, now) })
	return ev, ok
}

// Failed is the result of a write whose DCB netlink could not be opened
// (err, a *DialError): nothing read, nothing sent.
func Failed(ifname string, err error) engine.WriteResult {
	return engine.WriteResult{Interface: ifname, Target: engine.WriteKernel,
		Err: &engine.WriteError{Kind: engine.WriteReadFailed, Interface: ifname, Op: "open DCB netlink", Detail: unwrapDial(err).Error()}}
}

// QoSFailed is Failed for a host QoS write.
func QoSFailed(ifname string, err error) qos.WriteResult {
	return qos.WriteResult{Interface: ifname, Err: err}
}

// unwrapDial is the dial's own error of a *DialError, err otherwise.
func unwrapDial(err error) error {
	if de, ok := err.(*DialError); ok {
		return de.Err
	}
	return err
}
