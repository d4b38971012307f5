// SPDX-License-Identifier: Apache-2.0

package poll

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
)

// DefaultCountersInterval is how often the lossless counters are sampled
// unless Config.CountersInterval says otherwise.
const DefaultCountersInterval = time.Second

// A Sampler reads an interface's lossless counters: a *counters.Sampler
// over this host's sources (counters.Open), or what stands in for one
// (the tests).
type Sampler interface {
	Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled
}

var _ Sampler = (*counters.Sampler)(nil)

// CountersConfig is what Counters reads and how often.
type CountersConfig struct {
	// Every is the sampling interval: 0 DefaultCountersInterval, negative
	// none.
	Every time.Duration
	// Sampler, when set, reads the counters instead of this host's
	// sources (SysfsRoot, EthtoolRoot, Dialers: counters.Open).
	Sampler                Sampler
	SysfsRoot, EthtoolRoot string
	Dialers                counters.Dialers
	// Opened is told of this host's sources once open (the metrics'
	// counter sources).
	Opened func(*counters.Sampler)
}

// Counters samples the lossless counters (RDMA, PFC pauses, congestion)
// of the run's interfaces now and then every interval of the run's clock,
// feeding the engine through events (engine.CountersSampled; the engine
// computes rates and diagnostics). It returns a stop function.
func Counters(r Run, cfg CountersConfig) (stop func()) {
	every := cfg.Every
	if every == 0 {
		every = DefaultCountersInterval
	}
	if every < 0 || len(r.Names()) == 0 {
		return func() {}
	}
	var closers []func()
	s := cfg.Sampler
	var host *counters.Sampler // this host's sources, when the run reads them
	tap := r.Tap()             // -w: every input read, recorded
	now := r.Now()
	if s == nil {
		host = counters.Open(cfg.SysfsRoot, cfg.EthtoolRoot, tap, cfg.Dialers)
		closers = append(closers, host.Close)
		if cfg.Opened != nil {
			cfg.Opened(host)
		}
		s = host
		r.WriteRound(now, tape.Begin{Round: tape.RoundOpen}, tap.Take())
	} else {
		tap = nil // a Sampler of the caller's: its inputs are not this host's
	}
	cad := counters.NewCadence()
	for _, n := range r.Names() { // the first sample is there from the start
		ev := s.Sample(n, now, every)
		cad.Sampled(n, now, counters.Empty(ev))
		r.Apply(Taped{At: now, Begin: tape.Begin{Round: tape.RoundCounters, Ifname: n, Interval: every}, Recs: tap.Take(), Event: ev})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		period := every
		var evs []engine.Event
		var taped []Taped
		t := r.NewTicker(period)
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
			now := r.Now()
			names := r.Names()
			evs = evs[:0]
			taped = taped[:0]
			for _, n := range names {
				if !cad.Due(n, now) {
					continue
				}
				ev := s.Sample(n, now, every)
				cad.Sampled(n, now, counters.Empty(ev))
				if tap != nil {
					taped = append(taped, Taped{At: now, Begin: tape.Begin{Round: tape.RoundCounters, Ifname: n, Interval: every}, Recs: tap.Take(), Event: ev})
					continue
				}
				evs = append(evs, ev)
			}
			for _, t := range taped {
				if !r.Send(ctx, t) {
					return
				}
			}
			cad.Keep(names)
			if host != nil {
				host.Keep(names)
			}
			for _, ev := range evs {
				if !r.SendEvent(ctx, ev) {
					return
				}
			}
			clear(evs)
			next := cad.Period(every, names)
			if next != period {
				t.Stop()
				period, t = next, r.NewTicker(next)
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
