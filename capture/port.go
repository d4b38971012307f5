// SPDX-License-Identifier: Apache-2.0

package capture

// A captured interface's socket as a run holds it: reopened after
// errors, its counters kept across sockets, its status for the engine.

import (
	"context"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// A Conn is a captured interface's socket: a *Live, or what stands in for
// one (the demo's in-memory link, a test's).
type Conn interface {
	ReadFrame(ctx context.Context) (Frame, error)
	WriteFrame(b []byte) error
	Stats() (LiveStats, error)
	Close() error
}

var _ Conn = (*Live)(nil)

// A Port is one captured interface's socket as a run holds it: the
// current socket (replaced when the interface goes away and comes back:
// Capture reopens it with backoff), the counters of the sockets closed,
// the frames sent, and the messages its status reports (the capture's
// error, the last transmission's, the host's word on what dcbtop's agent
// cannot advertise). Its methods are safe for concurrent use.
type Port struct {
	name string
	open func(name string) (Conn, error)
	kick chan struct{} // a link event: retry opening now
	// after, when set, is closed when the capture this port takes the
	// socket over from (TakeOver: a rename) has stopped reading.
	after <-chan struct{}

	mu     sync.Mutex
	conn   Conn
	prev   LiveStats // accumulated from closed sockets
	sent   uint64
	errMsg string // the capture's error, "" while capturing
	txErr  string // the last transmission's error, "" after a success
	advErr string // why the agent cannot advertise the current state, "" when it can
}

// NewPort returns the port of interface name, its socket conn (nil:
// none yet), which open opens again.
func NewPort(name string, conn Conn, open func(name string) (Conn, error)) *Port {
	return &Port{name: name, open: open, kick: make(chan struct{}, 1), conn: conn}
}

// Name is the interface's name.
func (p *Port) Name() string { return p.name }

// Kick has a waiting Capture retry opening the socket now.
func (p *Port) Kick() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Current returns the socket, nil while there is none.
func (p *Port) Current() Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn
}

func (p *Port) set(c Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conn = c
}

// TakeOver moves old's socket, counters and frames sent to p (a rename:
// the kernel interface is the same), leaving old without a socket; p's
// Capture reads once after is closed (old's capture has stopped).
func (p *Port) TakeOver(old *Port, after <-chan struct{}) {
	old.mu.Lock()
	p.conn, p.prev, p.sent = old.conn, old.prev, old.sent
	old.conn = nil
	old.mu.Unlock()
	p.after = after
}

// closeSem bounds the sockets closed at once: closing a packet socket
// waits for an RCU grace period (packet_release calls synchronize_net,
// net/packet/af_packet.c), some 10 ms. One after the other, a thousand
// interfaces took 12 s to quit; closes that wait together share grace
// periods, and no more than closeConcurrency threads block in them.
var closeSem = make(chan struct{}, closeConcurrency)

// closeConcurrency is how many sockets close at once.
const closeConcurrency = 64

// Drop closes the current socket, keeping its counters.
func (p *Port) Drop() {
	closeSem <- struct{}{}
	defer func() { <-closeSem }()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return
	}
	if st, err := p.conn.Stats(); err == nil {
		p.prev.Packets += st.Packets
		p.prev.Drops += st.Drops
	}
	p.conn.Close()
	p.conn = nil
}

// Status returns the interface's capture status for the engine.
func (p *Port) Status(now time.Time) engine.CaptureStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.prev
	if p.conn != nil {
		if s, err := p.conn.Stats(); err == nil {
			st.Drops += s.Drops
		}
	}
	msg := p.errMsg
	for _, e := range []string{p.txErr, p.advErr} {
		if e != "" {
			if msg != "" {
				msg += "; "
			}
			msg += e
		}
	}
	return engine.CaptureStatus{Interface: p.name, At: now, Err: msg, KernelDrops: st.Drops, Sent: p.sent}
}

// SetErr records the capture's error ("" while capturing) and reports
// whether it changed.
func (p *Port) SetErr(msg string) bool { return p.setMsg(&p.errMsg, msg) }

// SetTxErr records the outcome of a transmission: its error, or "" after
// a success (so a transient failure, such as the link being down, does
// not stay reported once frames go out again); it reports whether it
// changed.
func (p *Port) SetTxErr(msg string) bool { return p.setMsg(&p.txErr, msg) }

// SetAdvErr records why dcbtop's agent cannot advertise the current state
// ("" when it can) and reports whether it changed.
func (p *Port) SetAdvErr(msg string) bool { return p.setMsg(&p.advErr, msg) }

// setMsg sets one of the port's messages under its lock and reports
// whether it changed.
func (p *Port) setMsg(field *string, msg string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := *field != msg
	*field = msg
	return changed
}

// CountSent counts a frame sent on the port.
func (p *Port) CountSent() {
	p.mu.Lock()
	p.sent++
	p.mu.Unlock()
}

// A PortClock is the time a port's capture stamps with: the run's.
type PortClock interface {
	Now() time.Time
	Stamp(t time.Time) time.Time
}

// Capture reads frames from the interface until ctx is done, reopening
// the socket with backoff after errors (interface removed, down,
// recreated), and sends them, stamped by clock, and each change of its
// status to events.
func (p *Port) Capture(ctx context.Context, clock PortClock, events chan<- engine.Event) {
	backoff := time.Second
	report := func(msg string) {
		if p.SetErr(msg) {
			select {
			case events <- p.Status(clock.Now().UTC()):
			case <-ctx.Done():
			}
		}
	}
	if p.after != nil {
		select {
		case <-p.after:
		case <-ctx.Done():
			return
		}
	}
	for ctx.Err() == nil {
		conn := p.Current()
		if conn == nil {
			c, err := p.open(p.name)
			if err != nil {
				report(err.Error())
				select {
				case <-ctx.Done():
				case <-p.kick:
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 30*time.Second)
				continue
			}
			p.set(c)
			conn, backoff = c, time.Second
			report("")
		}
		f, err := conn.ReadFrame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			report(err.Error())
			p.Drop()
			continue
		}
		select {
		case events <- f.Event(p.name, clock.Stamp(f.At).UTC()):
		case <-ctx.Done():
			return
		}
	}
}
