// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// A Link carries the simulated switches' frames to and from the host: the
// switch end of a veth pair (NewVethLink) or of an in-memory link
// (NewMemLink). Frames are whole Ethernet frames.
type Link interface {
	// ReadFrame returns the next frame the host sent, waiting as long as
	// needed; it returns promptly with an error once ctx is done.
	ReadFrame(ctx context.Context) ([]byte, error)
	// WriteFrame sends a frame to the host.
	WriteFrame(b []byte) error
}

// A Clock tells the time and waits. Run uses the real clock unless given
// another with WithClock; under testing/synctest the real clock is the
// bubble's fake one.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// An EventKind says what an Event reports.
type EventKind string

// Kinds of Event.
const (
	// EventStep: a scenario step was played; Step is set and Text is its
	// comment (a caption for the operator).
	EventStep EventKind = "step"
	// EventPeer: a switch learnt something about the host (it heard its
	// parameters for the first time, they changed, expired...), or its
	// link went down, or its agent stopped.
	EventPeer EventKind = "peer"
	// EventOperational: a switch's operational parameters changed because
	// of what the host advertises (a willing switch adopting the host's
	// PFC, for example).
	EventOperational EventKind = "operational"
	// EventError: a frame could not be sent (the demo goes on).
	EventError EventKind = "error"
)

// An Event is one line of the simulated switches' log.
type Event struct {
	At time.Time
	// Switch names the switch concerned, "" for a note about none.
	Switch string
	Kind   EventKind
	// Step is the step played, for EventStep.
	Step *Step
	// Text is one human-readable line.
	Text string
}

// An Option changes how Run (or NewMemLink) works.
type Option func(*options)

type options struct {
	clock   Clock
	observe func(Event)
	nic     *NIC
}

// WithClock makes Run (or a MemLink's timestamps) use c instead of the
// real clock.
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// WithObserver has Run call f with each Event, from Run's goroutine: f
// must not block for long (hand the Event over to another goroutine).
func WithObserver(f func(Event)) Option { return func(o *options) { o.observe = f } }

// WithNIC has Run drive the demo host's simulated RoCE NIC: the steps'
// NIC changes, and the switches' links and operational PFC (NIC.Fabric).
func WithNIC(n *NIC) Option { return func(o *options) { o.nic = n } }

func makeOptions(opts []Option) options {
	o := options{clock: realClock{}}
	for _, f := range opts {
		f(&o)
	}
	if o.clock == nil {
		o.clock = realClock{}
	}
	return o
}

// Run plays sc on link until ctx is done, or, when loop is false, until
// one pass of the scenario has ended. Every switch of the scenario speaks
// on the one link: each hears every frame the host sends (not the other
// switches' frames, as behind a bridge that consumes LLDP). At the end of
// each pass, and when ctx is done, switches still transmitting send a
// shutdown LLDPDU, so that every pass starts with no peer.
//
// Run returns nil when ctx is done or the pass has ended. It returns an
// error when the link fails: when reading from it fails, or writing fails
// because it was closed or its interface removed (other write errors, such
// as the host end being down, are reported as EventError and the demo
// goes on). A link failure seen after ctx is done is the normal end of a
// demo whose host closed its end as it stopped, and Run returns nil.
func Run(ctx context.Context, link Link, sc *Scenario, loop bool, opts ...Option) error {
	err := run(ctx, link, sc, loop, opts...)
	if ctx.Err() != nil && linkGone(err) {
		return nil
	}
	return err
}

// linkGone reports whether err means the link is gone: closed, or its
// interface removed.
func linkGone(err error) bool {
	return errors.Is(err, fs.ErrClosed) || errors.Is(err, capture.ErrNoInterface)
}

func run(ctx context.Context, link Link, sc *Scenario, loop bool, opts ...Option) error {
	if sc == nil || len(sc.Steps) == 0 || sc.duration <= 0 {
		return errors.New("demo: empty scenario")
	}
	o := makeOptions(opts)
	p := &player{link: link, sc: sc, o: o, byName: map[string]*Switch{}}

	readCtx, stopRead := context.WithCancel(ctx)
	frames := make(chan []byte, 64)
	readErr := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			b, err := link.ReadFrame(readCtx)
			if err != nil {
				if readCtx.Err() == nil {
					readErr <- err
				}
				return
			}
			select {
			case frames <- b:
			case <-readCtx.Done():
				return
			}
		}
	})
	defer func() {
		stopRead()
		wg.Wait()
	}()

	loopStart := o.clock.Now()
	idx := 0
	for {
		now := o.clock.Now()
		for idx < len(sc.Steps) && !loopStart.Add(sc.Steps[idx].At).After(now) {
			if err := p.play(&sc.Steps[idx], loopStart.Add(sc.Steps[idx].At)); err != nil {
				return err
			}
			idx++
		}
		end := loopStart.Add(sc.duration)
		if idx == len(sc.Steps) && !end.After(now) {
			if err := p.shutdownAll(end); err != nil {
				return err
			}
			if !loop {
				return nil
			}
			loopStart, idx = end, 0
			if now.Sub(end) > sc.duration {
				// Far behind (the machine slept): start over now rather
				// than replay every missed pass in a burst.
				loopStart = now
			}
			continue
		}
		if err := p.poll(now); err != nil {
			return err
		}
		p.fabric(now)
		next := end
		if idx < len(sc.Steps) {
			next = loopStart.Add(sc.Steps[idx].At)
		}
		for _, s := range p.order {
			if t, ok := s.Next(); ok && t.Before(next) {
				next = t
			}
		}
		select {
		case <-ctx.Done():
			// Best effort: the host may already have closed its end.
			_ = p.shutdownAll(o.clock.Now())
			return nil
		case err := <-readErr:
			_ = p.shutdownAll(o.clock.Now()) // best effort: the link failed
			return fmt.Errorf("demo: read: %w", err)
		case b := <-frames:
			at := o.clock.Now()
			for _, s := range p.order {
				s.Receive(b, at)
			}
		case <-o.clock.After(max(0, next.Sub(now))):
		}
	}
}

// A player is the state of one Run.
type player struct {
	link   Link
	sc     *Scenario
	o      options
	byName map[string]*Switch
	order  []*Switch // in the order they were started
	// The fabric last told to the NIC.
	fabricSet bool
	up        bool
	pfc       dcb.PrioSet
}

func (p *player) emit(ev Event) {
	if p.o.observe != nil {
		p.o.observe(ev)
	}
}

// fabric tells the NIC, if any, which switches' links are up and where
// they run PFC, when that changed.
func (p *player) fabric(now time.Time) {
	if p.o.nic == nil {
		return
	}
	up, pfc := false, dcb.PrioSet(0)
	for _, s := range p.order {
		if s.Transmitting() {
			up = true
			pfc |= s.PFC()
		}
	}
	if p.fabricSet && up == p.up && pfc == p.pfc {
		return
	}
	p.fabricSet, p.up, p.pfc = true, up, pfc
	p.o.nic.Fabric(now, up, pfc)
}

// play carries out one step at its scheduled time at.
func (p *player) play(st *Step, at time.Time) error {
	p.emit(Event{At: at, Switch: st.Switch, Kind: EventStep, Step: st, Text: st.Comment})
	if st.NIC != nil && p.o.nic != nil {
		p.o.nic.Script(at, *st.NIC)
	}
	s := p.byName[st.Switch]
	switch st.Action {
	case ActionNote:
		return nil
	case ActionStart:
		ns, err := NewSwitch(*st.Start, at, p.o.observe)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if s != nil {
			for i, o := range p.order {
				if o == s {
					p.order[i] = ns
				}
			}
		} else {
			p.order = append(p.order, ns)
		}
		p.byName[st.Switch] = ns
		return nil
	}
	if s == nil {
		return fmt.Errorf("demo: step at %v: switch %s was not started", st.At, st.Switch)
	}
	switch st.Action {
	case ActionSet:
		return s.Set(st.Params, st.Willing, at)
	case ActionSilence:
		s.Silence(at)
	case ActionResume:
		if err := s.Set(st.Params, st.Willing, at); err != nil {
			return err
		}
		return s.Resume(at)
	case ActionShutdown:
		if f := s.Shutdown(at); f != nil {
			return p.write(s, f, at)
		}
	}
	return nil
}

// poll lets every switch act and transmit what is due.
func (p *player) poll(now time.Time) error {
	for _, s := range p.order {
		if f, ok := s.Poll(now); ok {
			if err := p.write(s, f, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// shutdownAll stops every switch that transmits with a shutdown LLDPDU
// and forgets them all.
func (p *player) shutdownAll(at time.Time) error {
	var first error
	for _, s := range p.order {
		if f := s.Shutdown(at); f != nil {
			if err := p.write(s, f, at); err != nil && first == nil {
				first = err
			}
		}
	}
	p.order, p.byName = nil, map[string]*Switch{}
	return first
}

// write sends a switch's frame. Errors that mean the link is gone end the
// run; others (the host end is down, a full queue) are reported.
func (p *player) write(s *Switch, f []byte, at time.Time) error {
	err := p.link.WriteFrame(f)
	if err == nil {
		return nil
	}
	if linkGone(err) {
		return fmt.Errorf("demo: %s: %w", s.Name(), err)
	}
	p.emit(Event{At: at, Switch: s.Name(), Kind: EventError, Text: fmt.Sprintf("%s: transmit: %v", s.Name(), err)})
	return nil
}
