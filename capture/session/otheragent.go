package session

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
)

// otherAgentEvery is how often the control sockets of other dcbtop
// agents are asked for their local parameters.
const otherAgentEvery = 2 * time.Second

// startOtherAgents asks the dcbtop agents running in other processes on
// the captured interfaces for their local parameters
// (control.OtherAgents), now and every otherAgentEvery, and feeds them to
// the engine as the agents'. The first round is applied before
// startOtherAgents returns, so a snapshot taken at once has them. It
// returns a stop function.
func (r *liveRun) startOtherAgents(ifaces []*liveIface) (stop func()) {
	if len(ifaces) == 0 {
		return func() {}
	}
	others := control.NewOtherAgents(control.RunDir())
	round := func(now time.Time, send func(engine.Event) bool) { others.Round(r.ifaceNames(), now, send) }
	round(r.now(), func(ev engine.Event) bool { r.apply(ev); return true })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.poll(ctx, otherAgentEvery, nil, round)
	}()
	return func() {
		cancel()
		<-done
	}
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
