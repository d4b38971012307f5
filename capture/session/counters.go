// SPDX-License-Identifier: Apache-2.0

package session

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// DefaultCountersInterval is how often the lossless counters are sampled
// unless Config.CountersInterval says otherwise.
const DefaultCountersInterval = time.Second

// startCounters samples the lossless counters (RDMA, PFC pauses,
// congestion) of the interfaces now and then every interval of the run's
// clock, feeding the engine through events (engine.CountersSampled; the
// engine computes rates and diagnostics). It returns a stop function. A
// negative Config.CountersInterval turns sampling off.
func (r *liveRun) startCounters(ifaces []*liveIface) (stop func()) {
	every := r.cfg.CountersInterval
	if every == 0 {
		every = DefaultCountersInterval
	}
	if every < 0 || len(ifaces) == 0 {
		return func() {}
	}
	var closers []func()
	s := r.cfg.Sampler
	var host *counters.Sampler // this host's sources, when the run reads them
	tap := r.newTap()          // -w: every input read, recorded
	now := r.now()
	if s == nil {
		host = counters.Open(r.cfg.SysfsRoot, r.cfg.EthtoolRoot, tap, r.cfg.Dialers)
		closers = append(closers, host.Close)
		r.counterSources.Store(host)
		s = host
		r.writeRound(now, tape.Begin{Round: tape.RoundOpen}, tap.Take())
	} else {
		tap = nil // a Sampler of the caller's: its inputs are not this host's
	}
	cad := counters.NewCadence()
	for _, n := range r.ifaceNames() { // the first sample is there from the start
		ev := s.Sample(n, now, every)
		cad.Sampled(n, now, counters.Empty(ev))
		r.applyTaped(tapedEvent{at: now, begin: tape.Begin{Round: tape.RoundCounters, Ifname: n, Interval: every}, recs: tap.Take(), ev: ev})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		period := every
		var evs []engine.Event
		var taped []tapedEvent
		t := r.clk.NewTicker(period)
		defer func() { t.Stop() }()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// Every interface is sampled before the samples go to the
			// loop: they arrive together, and the loop settles the
			// capture sockets once for all of them (settle, drain), not
			// once a sample (a thousand interfaces made a million
			// SIOCINQ a round).
			now := r.now()
			names := r.ifaceNames()
			evs = evs[:0]
			taped = taped[:0]
			for _, n := range names {
				if !cad.Due(n, now) {
					continue
				}
				ev := s.Sample(n, now, every)
				cad.Sampled(n, now, counters.Empty(ev))
				if tap != nil {
					taped = append(taped, tapedEvent{at: now, begin: tape.Begin{Round: tape.RoundCounters, Ifname: n, Interval: every}, recs: tap.Take(), ev: ev})
					continue
				}
				evs = append(evs, ev)
			}
			for _, t := range taped {
				if !r.sendTaped(ctx, t) {
					return
				}
			}
			cad.Keep(names)
			if host != nil {
				host.Keep(names)
			}
			for _, ev := range evs {
				select {
				case r.events <- ev:
				case <-ctx.Done():
					return
				}
			}
			clear(evs)
			next := cad.Period(every, names)
			if next != period {
				t.Stop()
				period, t = next, r.clk.NewTicker(next)
			}
		}
	}()
	return func() {
		cancel()
		<-done
		for _, c := range closers {
			c()
		}
	}
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

// A Sampler reads an interface's lossless counters: a *counters.Sampler
// over this host's sources (counters.Open), or what stands in for one
// (the tests).
type Sampler interface {
	Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled
}

var _ Sampler = (*counters.Sampler)(nil)
