// SPDX-License-Identifier: Apache-2.0

// Package poll holds the live run's readers of the host besides the
// capture sockets: the lossless counters (Counters), the DCB netlink
// state (DCB), the dcbtop agents of other processes (OtherAgents), and
// the player of what a recording holds of them (TapePlayer). Each turns
// what it reads into engine events and hands them to the run (Run); the
// run's loop applies them and, under -w, records each round (Taped) first.
// They decide nothing of DCBX.
package poll

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
)

// A Taped is an event of a reader's round (a counters sample, a DCB
// reading) with the raw inputs the round read, or an event learnt from
// outside the host's inputs (Learnt: another agent's local parameters),
// for -w: the loop writes the round or the event's record, then applies
// the event, so that a replay plays them in the same order.
type Taped struct {
	At    time.Time
	Begin tape.Begin
	Recs  []tape.Record
	Event engine.Event // nil: the round made none
	// Learnt: Event is what the run learnt of a dcbtop agent of another
	// process (capture/control.OtherAgents), recorded itself, without a
	// round.
	Learnt bool
}

// A Run is what the readers need of the live run (capture/session).
type Run interface {
	// Now is the run's clock; NewTicker ticks on it.
	Now() time.Time
	NewTicker(d time.Duration) *time.Ticker
	// Names are the captured interfaces' names as they are now.
	Names() []string
	// Tap returns a Tap when the run records (-w), else nil.
	Tap() *tape.Tap
	// Apply applies t on the caller's goroutine, before the loop runs
	// (a reader's first round); Send hands t to the loop, SendEvent an
	// event without inputs, each false once ctx is done.
	Apply(t Taped)
	Send(ctx context.Context, t Taped) bool
	SendEvent(ctx context.Context, ev engine.Event) bool
	// WriteRound records a round of reads (-w) outside an event.
	WriteRound(at time.Time, b tape.Begin, recs []tape.Record)
}

// every calls round every period of the wall clock, and at once whenever
// kick has a value (nil: never), until ctx is done.
func every(ctx context.Context, run Run, period time.Duration, kick <-chan struct{}, round func(now time.Time)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
		}
		round(run.Now())
	}
}
