// SPDX-License-Identifier: Apache-2.0

package session

// The captured interfaces: each one's socket (capture.Port: reopened
// after errors, its counters and messages for the engine), and what
// dcbtop's agent holds on it.

import (
	"context"
	"sync"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
)

// A liveIface is one captured interface: its socket (capture.Port), its
// link as last reported, its capture's lifetime, and the system resources
// of dcbtop's agent on it, if one runs (the agent itself is the host
// layer's, engine/host).
type liveIface struct {
	*capture.Port
	link capture.Link
	// stop ends this interface's capture alone (set by the loop when it
	// starts it): an interface removed from an all-interfaces run; done is
	// closed when that capture has returned.
	stop context.CancelFunc
	done <-chan struct{}
	// seat is the agent's control socket and lock (nil without an
	// agent), owned by the engine goroutine.
	seat *control.Seat
}

// newIface returns the captured interface of link l, its socket conn
// (nil: none yet), which open opens again.
func newIface(l capture.Link, conn Conn, open func(string) (Conn, error)) *liveIface {
	return &liveIface{Port: capture.NewPort(l.Name, conn, open), link: l}
}

// dropAll closes the interfaces' sockets together (capture.Port.Drop
// bounds how many at once).
func dropAll(ifaces []*liveIface) {
	var wg sync.WaitGroup
	for _, li := range ifaces {
		wg.Go(li.Drop)
	}
	wg.Wait()
}
