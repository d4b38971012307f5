// SPDX-License-Identifier: Apache-2.0

package session

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// pollRun is the live run as its readers of the host see it
// (capture/poll): the clock, the names captured now, the -w tap, and the
// way of their events to the loop.
type pollRun struct{ r *liveRun }

var _ poll.Run = pollRun{}

func (p pollRun) Now() time.Time                              { return p.r.now() }
func (p pollRun) NewTicker(d time.Duration) *time.Ticker      { return p.r.clk.NewTicker(d) }
func (p pollRun) Names() []string                             { return p.r.ifaceNames() }
func (p pollRun) Tap() *tape.Tap                              { return p.r.rec.NewTap() }
func (p pollRun) Apply(t poll.Taped)                          { p.r.applyTaped(t) }
func (p pollRun) Send(ctx context.Context, t poll.Taped) bool { return p.r.sendTaped(ctx, t) }
func (p pollRun) WriteRound(at time.Time, b tape.Begin, recs []tape.Record) {
	p.r.fail(p.r.rec.Round(at, b, recs))
}

// SendEvent hands ev to the loop; false once ctx is done.
func (p pollRun) SendEvent(ctx context.Context, ev engine.Event) bool {
	select {
	case p.r.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// A Sampler reads an interface's lossless counters (capture/poll).
type Sampler = poll.Sampler

// DefaultCountersInterval is how often the lossless counters are sampled
// unless Config.CountersInterval says otherwise.
const DefaultCountersInterval = poll.DefaultCountersInterval

// startDCB starts reading the local parameters from DCB netlink
// (poll.DCB); its first round is applied before it returns.
func (r *liveRun) startDCB() (stop func()) {
	return poll.DCB(pollRun{r}, r.cfg.Dialers.DCB)
}

// startOtherAgents starts asking the dcbtop agents of other processes
// for their local parameters (poll.OtherAgents).
func (r *liveRun) startOtherAgents() (stop func()) { return poll.OtherAgents(pollRun{r}) }

// startCounters starts sampling the lossless counters (poll.Counters),
// keeping this host's sources for the metrics (counterStatus).
func (r *liveRun) startCounters() (stop func()) {
	return poll.Counters(pollRun{r}, poll.CountersConfig{Every: r.cfg.CountersInterval, Sampler: r.cfg.Sampler,
		SysfsRoot: r.cfg.SysfsRoot, EthtoolRoot: r.cfg.EthtoolRoot, Dialers: r.cfg.Dialers,
		Opened: func(s *counters.Sampler) { r.counterSources.Store(s) }})
}

// counterStatus is how the run's counter sources fared in each
// interface's last sample (counters.Sampler.Status), for the metrics;
// none while the run samples no counters of this host.
func (r *liveRun) counterStatus() []metrics.CounterSource {
	s := r.counterSources.Load()
	if s == nil {
		return nil
	}
	st := s.Status()
	out := make([]metrics.CounterSource, len(st))
	for i, x := range st {
		out[i] = metrics.CounterSource{Name: x.Name, Success: x.OK, Duration: x.Duration}
	}
	return out
}
