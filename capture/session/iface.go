// SPDX-License-Identifier: Apache-2.0

package session

// The captured interfaces: each one's socket, reopened after errors, its
// counters and messages for the engine, and what dcbtop's agent holds on
// it.

import (
	"context"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
)

// A liveIface is one captured interface: its current socket (replaced
// when the interface goes away and comes back), and the system resources
// of dcbtop's agent on it, if one runs (the agent itself is the host
// layer's, engine/host).
type liveIface struct {
	name string
	link capture.Link
	kick chan struct{} // a link event: retry opening now
	// stop ends this interface's capture alone (set by the loop when it
	// starts it): an interface removed from an all-interfaces run; done is
	// closed when that capture has returned. after, when set, is the done
	// of the capture this one takes the socket over from (a rename): it
	// reads once that one has stopped reading.
	stop        context.CancelFunc
	done, after <-chan struct{}
	open        func(name string) (Conn, error)
	mu          sync.Mutex
	conn        Conn
	prev        capture.LiveStats // accumulated from closed sockets
	sent        uint64
	errMsg      string // the capture's error, "" while capturing
	txErr       string // the agent's last transmit error, "" after a success
	// advErr is the host's word on why the agent cannot advertise the
	// current state ("" when it can), kept here for status, which the
	// capture goroutine builds too.
	advErr string
	// ctl is the agent's control socket (nil without an agent), owned by
	// the engine goroutine.
	ctl *control.Server
	// lock is held while the agent runs on a kernel interface: one agent
	// per interface and network namespace (nil otherwise).
	lock *control.AgentLock
}

// closeControl closes the agent's control socket and gives its lock up.
func (li *liveIface) closeControl() {
	if li.ctl != nil {
		li.ctl.Close()
		li.ctl = nil
	}
	li.lock.Release()
	li.lock = nil
}

func (li *liveIface) current() Conn {
	li.mu.Lock()
	defer li.mu.Unlock()
	return li.conn
}

func (li *liveIface) set(l Conn) {
	li.mu.Lock()
	defer li.mu.Unlock()
	li.conn = l
}

// closeSem bounds the sockets closed at once: closing a packet socket
// waits for an RCU grace period (packet_release calls synchronize_net,
// net/packet/af_packet.c), some 10 ms. One after the other, a thousand
// interfaces took 12 s to quit; closes that wait together share grace
// periods, and no more than closeConcurrency threads block in them.
var closeSem = make(chan struct{}, closeConcurrency)

// closeConcurrency is how many sockets close at once.
const closeConcurrency = 64

// drop closes the current socket, keeping its counters.
func (li *liveIface) drop() {
	closeSem <- struct{}{}
	defer func() { <-closeSem }()
	li.mu.Lock()
	defer li.mu.Unlock()
	if li.conn == nil {
		return
	}
	if st, err := li.conn.Stats(); err == nil {
		li.prev.Packets += st.Packets
		li.prev.Drops += st.Drops
	}
	li.conn.Close()
	li.conn = nil
}

// dropAll closes the interfaces' sockets together (see closeSem).
func dropAll(ifaces []*liveIface) {
	var wg sync.WaitGroup
	for _, li := range ifaces {
		wg.Go(li.drop)
	}
	wg.Wait()
}

// status returns the interface's capture status for the engine.
func (li *liveIface) status(now time.Time) engine.CaptureStatus {
	li.mu.Lock()
	defer li.mu.Unlock()
	st := li.prev
	if li.conn != nil {
		if s, err := li.conn.Stats(); err == nil {
			st.Drops += s.Drops
		}
	}
	msg := li.errMsg
	for _, e := range []string{li.txErr, li.advErr} {
		if e != "" {
			if msg != "" {
				msg += "; "
			}
			msg += e
		}
	}
	return engine.CaptureStatus{Interface: li.name, At: now, Err: msg, KernelDrops: st.Drops, Sent: li.sent}
}

// setErr records the capture's error ("" while capturing) and reports
// whether it changed.
func (li *liveIface) setErr(msg string) bool { return li.setMsg(&li.errMsg, msg) }

// setTxErr records the outcome of a transmission: its error, or "" after
// a success (so a transient failure, such as the link being down, does not
// stay reported once frames go out again).
func (li *liveIface) setTxErr(msg string) bool { return li.setMsg(&li.txErr, msg) }

// setMsg sets one of the interface's messages under its lock and reports
// whether it changed.
func (li *liveIface) setMsg(field *string, msg string) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	changed := *field != msg
	*field = msg
	return changed
}

// capture reads frames from the interface until ctx is done, reopening the
// socket with backoff after errors (interface removed, down, recreated).
func (li *liveIface) capture(ctx context.Context, clock clock, events chan<- engine.Event) {
	backoff := time.Second
	report := func(msg string) {
		if li.setErr(msg) {
			select {
			case events <- li.status(clock.Now().UTC()):
			case <-ctx.Done():
			}
		}
	}
	if li.after != nil {
		select {
		case <-li.after:
		case <-ctx.Done():
			return
		}
	}
	for ctx.Err() == nil {
		conn := li.current()
		if conn == nil {
			c, err := li.open(li.name)
			if err != nil {
				report(err.Error())
				select {
				case <-ctx.Done():
				case <-li.kick:
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 30*time.Second)
				continue
			}
			li.set(c)
			conn, backoff = c, time.Second
			report("")
		}
		f, err := conn.ReadFrame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			report(err.Error())
			li.drop()
			continue
		}
		select {
		case events <- f.Event(li.name, clock.Stamp(f.At).UTC()):
		case <-ctx.Done():
			return
		}
	}
}
