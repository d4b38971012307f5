// SPDX-License-Identifier: Apache-2.0

// Package feed carries the engine's snapshots from the goroutine that owns
// the engine to the screen (and the metrics) through a mailbox that never
// blocks it, a channel of one where the latest wins, and decides when a
// snapshot is due (Publisher).
package feed

import (
	"cmp"
	"sync/atomic"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// A Feed publishes engine snapshots to the screen. It has one
// producer, the goroutine that owns the engine: publish replaces a
// snapshot the screen has not taken yet (latest wins) and never blocks.
// The latest snapshot published is also kept for the Backend.
type Feed struct {
	ch     chan engine.Snapshot
	latest atomic.Pointer[engine.Snapshot]
	closed bool
}

// New returns a feed with nothing published.
func New() *Feed { return &Feed{ch: make(chan engine.Snapshot, 1)} }

// C is the channel the screen reads (ui.NewModel).
func (f *Feed) C() <-chan engine.Snapshot { return f.ch }

// Publish offers s to the screen, replacing a snapshot not yet taken.
// It never blocks; after Close it does nothing.
func (f *Feed) Publish(s engine.Snapshot) {
	if f.closed {
		return
	}
	f.latest.Store(&s)
	for {
		select {
		case f.ch <- s:
			return
		default:
		}
		// Full: the screen has not taken the previous one. Drop it (the
		// screen may take it meanwhile; then the send succeeds).
		select {
		case <-f.ch:
		default:
		}
	}
}

// Snapshot returns the latest snapshot published.
func (f *Feed) Snapshot() (engine.Snapshot, bool) {
	if s := f.latest.Load(); s != nil {
		return *s, true
	}
	return engine.Snapshot{}, false
}

// Close tells the screen no more snapshots come (a snapshot still in the
// channel is delivered first).
func (f *Feed) Close() {
	if !f.closed {
		f.closed = true
		close(f.ch)
	}
}

// A Publisher decides when the engine goroutine (live, or a screen
// replay) publishes a snapshot to its feed: after an event that changed
// the engine (dirty), or after a frame that only refreshed a peer's TTL
// (fresh) once the last snapshot is FreshEvery old; nothing without a
// Feed. LastPub is when it last published.
type Publisher struct {
	Feed    *Feed
	Dirty   bool
	Fresh   bool
	LastPub time.Time
	// Every is FreshEvery of the run's clock in real time (the demo's
	// runs faster); 0 is FreshEvery.
	Every time.Duration
}

// FreshAfter is how long after the last snapshot a fresh change is
// published.
func (p *Publisher) FreshAfter() time.Duration { return cmp.Or(p.Every, FreshEvery) }

// Flush publishes eng's snapshot when due at now, and reports whether it
// did.
func (p *Publisher) Flush(now time.Time, eng *engine.Engine) bool {
	if p.Feed == nil {
		return false
	}
	if p.Dirty || (p.Fresh && now.Sub(p.LastPub) >= p.FreshAfter()) {
		p.Dirty, p.Fresh, p.LastPub = false, false, now
		p.Feed.Publish(eng.Snapshot())
		return true
	}
	return false
}

// FreshEvery is how often, at most, a frame that changed nothing but a
// peer's TTL is published. The screen draws TTLs from the last snapshot
// and the seconds since it was taken, in whole seconds, so a refreshed
// TTL published once a second is exact to what the screen shows; more
// often only redraws the screen for nothing: with 64 peers, each sending
// every second at its own instant, a 100 ms throttle published (and the
// screen redrew all 64 rows) ten times a second. A second also lines up
// with the engine goroutine's aging snapshots, so a switch of any size costs
// one snapshot and one redraw a second when nothing changes.
const FreshEvery = time.Second
