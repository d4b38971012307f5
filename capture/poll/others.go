// SPDX-License-Identifier: Apache-2.0

package poll

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
)

// otherAgentEvery is how often the control sockets of other dcbtop
// agents are asked for their local parameters.
const otherAgentEvery = 2 * time.Second

// OtherAgents asks the dcbtop agents running in other processes on the
// run's interfaces for their local parameters (control.OtherAgents), now
// and every otherAgentEvery, and feeds them to the engine as the agents',
// Learnt: the run stamps each with the time its loop applies it and, under
// -w, records it as it is applied, so that a replay applies it at the
// same time, in the same place among the frames. The first round is
// applied before OtherAgents returns, so a snapshot taken at once has
// them. It returns a stop function.
func OtherAgents(r Run) (stop func()) {
	if len(r.Names()) == 0 {
		return func() {}
	}
	others := control.NewOtherAgents(control.RunDir())
	others.Round(r.Names(), r.Now(), func(ev engine.Event) bool {
		r.Apply(Taped{Event: ev, Learnt: true})
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		every(ctx, r, otherAgentEvery, nil, func(now time.Time) {
			others.Round(r.Names(), now, func(ev engine.Event) bool {
				return r.Send(ctx, Taped{Event: ev, Learnt: true})
			})
		})
	}()
	return func() {
		cancel()
		<-done
	}
}
