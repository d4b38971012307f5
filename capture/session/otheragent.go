// SPDX-License-Identifier: Apache-2.0

package session

import (
	"fmt"

	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/engine"
)

// learntNow stamps ev, what the run learnt of another agent (a
// LocalChanged), with the time the loop applies it: the run's clock,
// never before the engine's. The round stamped it when it began asking,
// and the loop may have applied a tick or a frame stamped later since
// (a round waits on another process's answer); the engine would then
// have given ev's indications that later time (its clock does not go
// back), which a replay, without the live run's ticks, would not. Stamped
// as it is applied, its indications have its own time, live and
// replayed alike.
func (r *liveRun) learntNow(ev engine.Event) engine.Event {
	lc, ok := ev.(engine.LocalChanged)
	if !ok {
		return ev
	}
	lc.At = r.now()
	if en := r.h.Engine().Now(); en.After(lc.At) {
		lc.At = en
	}
	return lc
}

// writeLearnt records (-w) what the run learnt of another agent's local
// parameters, ev (a LocalChanged of control.OtherAgents), at its time:
// a tape.Local, its parameters as the control socket carries them
// (encoding/json), which the replay decodes the same way
// (poll.TapePlayer). An error stops the run, as a frame's does.
func (r *liveRun) writeLearnt(ev engine.Event) {
	lc, ok := ev.(engine.LocalChanged)
	if r.rec == nil || !ok {
		return
	}
	rec, err := poll.LearntRecord(lc)
	if err != nil {
		r.fail(fmt.Errorf("%s: %w", r.cfg.Record, err))
		return
	}
	r.writeTape(lc.At, rec)
}
