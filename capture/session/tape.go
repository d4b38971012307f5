// SPDX-License-Identifier: Apache-2.0

package session

// The host's inputs in a recording (capture/tape): written by -w beside
// the frames, played back by a replay through the same readers
// (capture/poll's TapePlayer).

import (
	"context"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
)

// newTap returns a Tap when the run records (-w), else nil (collects
// nothing, costs nothing).
func (r *liveRun) newTap() *tape.Tap {
	if r.rec == nil {
		return nil
	}
	return tape.NewTap()
}

// writeTape writes records read at at to the recording (-w), if any. An
// error stops the run, as a frame's does.
func (r *liveRun) writeTape(at time.Time, recs ...tape.Record) {
	if r.rec == nil || len(recs) == 0 {
		return
	}
	if err := tape.Write(r.rec, at, recs); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
	}
}

// writeRound writes a round of reads to the recording (-w), if any.
func (r *liveRun) writeRound(at time.Time, b tape.Begin, recs []tape.Record) {
	if r.rec == nil {
		return
	}
	if err := tape.WriteRound(r.rec, at, b, recs); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
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
		r.writeRound(t.At, t.Begin, t.Recs)
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
