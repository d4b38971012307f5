// SPDX-License-Identifier: Apache-2.0

package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
)

// otherAgentEvery is how often the control sockets of other dcbtop
// agents are asked for their local parameters.
const otherAgentEvery = 2 * time.Second

// startOtherAgents asks the dcbtop agents running in other processes on
// the captured interfaces for their local parameters
// (control.OtherAgents), now and every otherAgentEvery, and feeds them to
// the engine as the agents', each at the time the loop applies it
// (learntNow). The first round is applied before startOtherAgents
// returns, so a snapshot taken at once has them. Under -w each event is
// recorded as it is applied (writeLearnt), so that a replay applies it
// at the same time, in the same place among the frames. It returns a
// stop function.
func (r *liveRun) startOtherAgents(ifaces []*liveIface) (stop func()) {
	if len(ifaces) == 0 {
		return func() {}
	}
	others := control.NewOtherAgents(control.RunDir())
	others.Round(r.ifaceNames(), r.now(), func(ev engine.Event) bool {
		r.applyTaped(tapedEvent{ev: ev, learnt: true})
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.poll(ctx, otherAgentEvery, nil, func(now time.Time, _ func(engine.Event) bool) {
			others.Round(r.ifaceNames(), now, func(ev engine.Event) bool {
				return r.sendTaped(ctx, tapedEvent{ev: ev, learnt: true})
			})
		})
	}()
	return func() {
		cancel()
		<-done
	}
}

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
// (tapePlayer.single). An error stops the run, as a frame's does.
func (r *liveRun) writeLearnt(ev engine.Event) {
	lc, ok := ev.(engine.LocalChanged)
	if r.rec == nil || !ok {
		return
	}
	rec, err := learntRecord(lc)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
		}
		return
	}
	r.writeTape(lc.At, rec)
}

// learntRecord is the record of lc, what the run learnt of another
// agent's local parameters.
func learntRecord(lc engine.LocalChanged) (tape.Local, error) {
	rec := tape.Local{Ifname: lc.Interface, Source: string(lc.Source), Willing: lc.Willing, Withdrawn: lc.Withdrawn}
	if lc.Params != nil {
		b, err := json.Marshal(lc.Params)
		if err != nil {
			return rec, fmt.Errorf("the local parameters of %s: %w", lc.Interface, err)
		}
		rec.Params = b
	}
	return rec, nil
}

// poll calls round every period, and at once whenever kick has a value
// (nil: never), until ctx is done; round hands its events to the loop with
// send, which says false once ctx is done.
func (r *liveRun) poll(ctx context.Context, every time.Duration, kick <-chan struct{}, round func(now time.Time, send func(engine.Event) bool)) {
	t := time.NewTicker(every)
	defer t.Stop()
	send := func(ev engine.Event) bool {
		select {
		case r.events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
		}
		round(r.now(), send)
	}
}
