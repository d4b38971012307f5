package runtime

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
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
	cfg := counters.Config{SysfsRoot: r.cfg.SysfsRoot}
	var closers []func()
	if et, err := counters.OpenEthtool(); err == nil {
		cfg.Ethtool = et
		closers = append(closers, et.Close)
	}
	if c, err := dcbnl.Dial(); err == nil {
		cfg.DCB = counters.DCBFrom(c)
		closers = append(closers, func() { c.Close() })
	}
	s := counters.New(cfg)
	names := make([]string, len(ifaces))
	for i, li := range ifaces {
		names[i] = li.name
	}
	sample := func() {
		now := r.now()
		for _, n := range names {
			r.apply(s.Sample(n, now, every))
		}
	}
	sample() // the first sample is there from the start
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := r.clk.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now := r.now()
			for _, n := range names {
				select {
				case r.events <- s.Sample(n, now, every):
				case <-ctx.Done():
					return
				}
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
