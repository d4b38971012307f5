package session

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/rdmastat"
	"github.com/dcbtop/dcbtop/engine"
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
	if s == nil {
		src := HostSources{SysfsRoot: r.cfg.SysfsRoot}
		if r.cfg.EthtoolRoot != "" {
			src.Ethtool = counters.FileEthtool{Root: r.cfg.EthtoolRoot}
		} else if et, err := counters.OpenEthtool(); err == nil {
			src.Ethtool = et
			closers = append(closers, et.Close)
		}
		if c, err := dcbnl.Dial(); err == nil {
			src.DCB = c
			closers = append(closers, func() { c.Close() })
		}
		if pc, err := linkpause.Dial(); err == nil {
			src.Pause = pc
			closers = append(closers, func() { pc.Close() })
		}
		hs := newHostSampler(src)
		switch sc, err := rdmastat.Dial(); {
		case err == nil:
			hs.stats = sc
			closers = append(closers, func() { sc.Close() })
		case !errors.Is(err, rdmastat.ErrNoRDMA):
			hs.statsErr = err // said on each RDMA port; no RDMA subsystem needs no word
		}
		s = hs
	}
	cad := cadence{next: map[string]time.Time{}}
	now := r.now()
	for _, n := range r.ifaceNames() { // the first sample is there from the start
		ev := s.Sample(n, now, every)
		cad.sampled(n, now, nothingSampled(ev))
		r.apply(ev)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		period := every
		var evs []engine.Event
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
			for _, n := range names {
				if !cad.due(n, now) {
					continue
				}
				ev := s.Sample(n, now, every)
				cad.sampled(n, now, nothingSampled(ev))
				evs = append(evs, ev)
			}
			cad.keep(names)
			for _, ev := range evs {
				select {
				case r.events <- ev:
				case <-ctx.Done():
					return
				}
			}
			clear(evs)
			next := cad.period(every, names)
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

// A Sampler reads an interface's lossless counters: a *counters.Sampler
// over sysfs, ethtool and dcbnl, or what stands in for one (the tests).
type Sampler interface {
	Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled
}

var _ Sampler = (*counters.Sampler)(nil)

// A hostSampler is the counters' Sampler plus the RoCE identity of the
// interface's RDMA ports (capture/rdma: GID table, rdma_cm defaults), its
// 802.3x link-wide PAUSE (capture/linkpause) and how its NIC classifies
// and buffers received traffic (DCB netlink: kernel.QoSFromIEEE), in the
// same sample.
type hostSampler struct {
	*counters.Sampler
	root  string
	pause PauseReader // nil without ethtool netlink or the ioctl
	dcb   *ieeeShare  // nil without DCB netlink
	// stats reads the RDMA ports' optional counters (RDMA netlink); nil
	// without the RDMA subsystem, or when dialling failed (statsErr).
	stats    *rdmastat.Client
	statsErr error
}

// A PauseReader reads an interface's link-wide PAUSE settings and
// statistics: a *linkpause.Client.
type PauseReader interface {
	Get(ifname string) (*linkpause.Pause, error)
}

var _ PauseReader = (*linkpause.Client)(nil)

// HostSources are where a live run's counters come from: sysfs (""
// /sys), the driver's statistics (nil: none), DCB netlink's IEEE state
// (nil: none) and ethtool netlink's PAUSE (nil: none).
type HostSources struct {
	SysfsRoot string
	Ethtool   counters.Ethtool
	DCB       counters.IEEEReader
	Pause     PauseReader
}

// NewHostSampler composes the Sampler of a live run from its sources:
// the counters (capture/counters), the RoCE identity of the RDMA ports
// (capture/rdma), the link-wide PAUSE (ethtool netlink, completed by the
// driver's frame counters) and the NIC's QoS (DCB netlink,
// kernel.QoSFromIEEE), all read once a sample. RDMA netlink's optional
// counters are the live run's own (a Sampler here has none). The case book
// (testbed/casebook) samples recorded hosts through it.
func NewHostSampler(src HostSources) Sampler { return newHostSampler(src) }

// newHostSampler is NewHostSampler.
func newHostSampler(src HostSources) hostSampler {
	cfg := counters.Config{SysfsRoot: src.SysfsRoot, Ethtool: src.Ethtool}
	hs := hostSampler{root: cmp.Or(src.SysfsRoot, counters.DefaultSysfsRoot), pause: src.Pause}
	if src.DCB != nil {
		hs.dcb = &ieeeShare{c: src.DCB, last: map[string]*dcbnl.IEEE{}}
		cfg.DCB = counters.DCBFrom(hs.dcb)
	}
	hs.Sampler = counters.New(cfg)
	return hs
}

// An ieeeShare reads an interface's IEEE DCB state for the counters' PFC
// counts (counters.DCBFrom) and keeps the reply, so that the QoS facts of
// the same sample come from it: one IEEE_GET an interface a sample. Used
// by the sampling goroutine only.
type ieeeShare struct {
	c    counters.IEEEReader
	last map[string]*dcbnl.IEEE
}

// IEEE asks the kernel and keeps the reply (or forgets the last one).
func (s *ieeeShare) IEEE(ifname string) (*dcbnl.IEEE, error) {
	ieee, err := s.c.IEEE(ifname)
	if err != nil {
		delete(s.last, ifname)
		return nil, err
	}
	s.last[ifname] = ieee
	return ieee, nil
}

// take returns the reply the sample read for ifname, and forgets it.
func (s *ieeeShare) take(ifname string) *dcbnl.IEEE {
	ieee := s.last[ifname]
	delete(s.last, ifname)
	return ieee
}

// Sample reads ifname's counters, RoCE identity and link pause now.
func (s hostSampler) Sample(ifname string, at time.Time, interval time.Duration) engine.CountersSampled {
	ev := s.Sampler.Sample(ifname, at, interval)
	var errs []string
	if ev.Err != "" {
		errs = append(errs, ev.Err)
	}
	ports, err := rdma.Read(s.root, ifname)
	if err != nil {
		errs = append(errs, err.Error())
	}
	ev.RoCE = make([]lossless.RoCEPortSample, 0, len(ports))
	for i := range ports {
		rs := ports[i].Sample()
		rs.Optional = s.optional(ports[i].Device, ports[i].Port)
		ev.RoCE = append(ev.RoCE, rs)
	}
	if s.pause != nil {
		if p, err := s.pause.Get(ifname); err == nil {
			ev.LinkPause = counters.MergeLinkPause(p.Sample(), ev.LinkPause)
		} else if !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err.Error())
		}
	}
	if s.dcb != nil {
		ev.QoS = kernel.QoSFromIEEE(s.dcb.take(ifname)) // read by the counters' PFC counts
	}
	ev.Err = strings.Join(errs, "; ")
	return ev
}

// optional reads an RDMA port's optional counters over RDMA netlink; nil
// without the RDMA subsystem.
func (s hostSampler) optional(dev string, port int) *lossless.OptionalCounters {
	switch {
	case s.stats != nil:
		p, err := s.stats.Port(dev, port)
		if err != nil {
			return rdmastat.Unread(err)
		}
		return p.Sample()
	case s.statsErr != nil:
		return rdmastat.Unread(s.statsErr)
	}
	return nil
}

// emptyProbeEvery is how often interfaces without any lossless counter
// (no RDMA port, pause counter or ECN setting) are sampled again: a
// driver loaded or an RDMA device bound later shows within it. On a
// switch of veths or ports without counters, sampling each one (netlink
// and ethtool round trips) was a sixth of the screen's CPU at 10 s.
const emptyProbeEvery = 30 * time.Second

// A cadence says which interfaces a counters round samples: each one
// whose last sample found something, every round; one whose last sample
// found nothing (a veth, a NIC without pause counters or RDMA), again
// emptyProbeEvery after it; a new one at once.
type cadence struct {
	next map[string]time.Time // when an interface found empty is sampled again
}

// due reports whether ifname is sampled in a round at now.
func (c *cadence) due(ifname string, now time.Time) bool {
	t, ok := c.next[ifname]
	return !ok || !now.Before(t)
}

// sampled records ifname's sample at now; empty: it found nothing.
func (c *cadence) sampled(ifname string, now time.Time, empty bool) {
	if empty {
		c.next[ifname] = now.Add(emptyProbeEvery)
	} else {
		delete(c.next, ifname)
	}
}

// keep forgets the interfaces not in names (removed ones).
func (c *cadence) keep(names []string) {
	if len(c.next) <= len(names) {
		return
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	maps.DeleteFunc(c.next, func(n string, _ time.Time) bool { return !present[n] })
}

// period is the time to the next round: every while an interface of
// names has counters (or is new), else emptyProbeEvery.
func (c *cadence) period(every time.Duration, names []string) time.Duration {
	for _, n := range names {
		if _, ok := c.next[n]; !ok {
			return every
		}
	}
	return max(every, emptyProbeEvery)
}

// nothingSampled reports whether a sample found no counter and no error.
func nothingSampled(ev engine.CountersSampled) bool {
	return len(ev.RDMA) == 0 && ev.PFC == nil && ev.ECN == nil && ev.Err == "" && len(ev.RoCE) == 0 && !ev.LinkPause.Known() && ev.QoS == nil
}
