// SPDX-License-Identifier: Apache-2.0

package session

// The host's inputs in a recording (capture/tape): written by -w beside
// the frames, played back by a replay through the same readers
// (capture/poll's TapePlayer).

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
)

// writeTape writes records read at at to the recording (-w), if any. An
// error stops the run, as a frame's does.
func (r *liveRun) writeTape(at time.Time, recs ...tape.Record) { r.fail(r.rec.Records(at, recs...)) }

// fail keeps err as the run's error (it stops the loop), unless it has one.
func (r *liveRun) fail(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// applyLink records a link's state (-w), then applies it.
func (r *liveRun) applyLink(ev engine.LinkChanged) {
	r.writeTape(ev.At, poll.LinkRecord(ev))
	r.apply(ev)
}

// applyTaped writes a taped event's round or record, then applies its
// event (on the loop's goroutine).
func (r *liveRun) applyTaped(t poll.Taped) {
	if t.Learnt {
		t.Event = r.learntNow(t.Event)
		r.writeLearnt(t.Event)
	} else {
		r.fail(r.rec.Round(t.At, t.Begin, t.Recs))
	}
	if t.Event != nil {
		r.apply(t.Event)
	}
}

// sendTaped hands a round and its event to the loop; false when ctx ended.
func (r *liveRun) sendTaped(ctx context.Context, t poll.Taped) bool {
	select {
	case r.taped <- t:
		return true
	case <-ctx.Done():
		return false
	}
}
