// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"time"
)

// Counters is the snapshot JSON "counters" object: an interface's
// lossless-Ethernet counters as last sampled.
type Counters struct {
	SampledAt  time.Time `json:"sampled_at"`
	IntervalMs int64     `json:"interval_ms"`
	// Driver is the netdev's driver as ethtool -i names it, null when
	// unknown.
	Driver *string `json:"driver"`
	// RDMA is [] on an interface without an RDMA device.
	RDMA []RDMAPortCounters `json:"rdma"`
	PFC  PFCCounters        `json:"pfc"`
	// ECN is null when the host's DCQCN settings are unknown.
	ECN *ECNSample `json:"ecn"`
	// RoCE is the RoCE identity of each RDMA port bound to the
	// interface (GID table, rdma_cm defaults); [] without one.
	RoCE []RoCEPortSample `json:"roce"`
	// LinkPause is the 802.3x link-wide PAUSE, null when nothing reports
	// it.
	LinkPause *LinkPauseSample `json:"link_pause"`
	// QoS is how the NIC classifies and buffers received traffic (trust,
	// PFC delay, buffers, rate limits), null when nothing reports it.
	QoS *PortQoSSample `json:"qos"`
	// RoCEPaths judges, per RoCE port, the way of its traffic through
	// this host hop by hop (Interface.RoCEPaths); [] without one.
	RoCEPaths []RoCEPath `json:"roce_paths"`
	// Error is the last sample's failures to read a source, their
	// messages joined with "; " (the counters-error diagnostic names each
	// failing source), null when fine.
	Error *string `json:"error"`
	// PauseHistory is, per priority, the summed rx+tx pause rate of each
	// sample of the last HistoryWindow, oldest first (for sparklines; not
	// part of the JSON contract).
	PauseHistory [8][]float64 `json:"-"`
	// TrafficHistory is, likewise, the summed rx+tx bytes per second, and
	// PausedHistory the share of each interval paused by the peer (0
	// where the driver has no pause time).
	TrafficHistory [8][]float64 `json:"-"`
	PausedHistory  [8][]float64 `json:"-"`
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// RDMAPortCounters is one RDMA device port's counters in the snapshot.
type RDMAPortCounters struct {
	Device string    `json:"device"`
	Port   int       `json:"port"`
	NDK    NDKValues `json:"ndk"`
	// MissingCounterMask has bit N set when NDK counter N has no source
	// (reserved bits always); DerivedCounterMask when it is approximated.
	MissingCounterMask uint32 `json:"missing_counter_mask"`
	DerivedCounterMask uint32 `json:"derived_counter_mask"`
	// Sources maps each counter with a value (NDK and congestion) to where
	// it came from.
	Sources map[string]string `json:"sources"`
	// Rates maps counters to their per-second rate over the last interval;
	// empty until a second sample.
	Rates      map[string]float64 `json:"rates"`
	Congestion CongestionValues   `json:"congestion"`
}

// NDKValues are the NDK counters; null where missing.
type NDKValues struct {
	Connect          *uint64 `json:"connect"`
	Accept           *uint64 `json:"accept"`
	ConnectFailure   *uint64 `json:"connect_failure"`
	ConnectionError  *uint64 `json:"connection_error"`
	ActiveConnection *uint64 `json:"active_connection"`
	CQError          *uint64 `json:"cq_error"`
	RDMAInOctets     *uint64 `json:"rdma_in_octets"`
	RDMAOutOctets    *uint64 `json:"rdma_out_octets"`
	RDMAInFrames     *uint64 `json:"rdma_in_frames"`
	RDMAOutFrames    *uint64 `json:"rdma_out_frames"`
}

// Get returns the field of counter c.
func (v *NDKValues) Get(c NDKCounter) *uint64 {
	switch c {
	case NDKConnect:
		return v.Connect
	case NDKAccept:
		return v.Accept
	case NDKConnectFailure:
		return v.ConnectFailure
	case NDKConnectionError:
		return v.ConnectionError
	case NDKActiveConnection:
		return v.ActiveConnection
	case NDKCQError:
		return v.CQError
	case NDKRDMAInOctets:
		return v.RDMAInOctets
	case NDKRDMAOutOctets:
		return v.RDMAOutOctets
	case NDKRDMAInFrames:
		return v.RDMAInFrames
	case NDKRDMAOutFrames:
		return v.RDMAOutFrames
	}
	return nil
}

func (v *NDKValues) set(c NDKCounter, x *uint64) {
	switch c {
	case NDKConnect:
		v.Connect = x
	case NDKAccept:
		v.Accept = x
	case NDKConnectFailure:
		v.ConnectFailure = x
	case NDKConnectionError:
		v.ConnectionError = x
	case NDKActiveConnection:
		v.ActiveConnection = x
	case NDKCQError:
		v.CQError = x
	case NDKRDMAInOctets:
		v.RDMAInOctets = x
	case NDKRDMAOutOctets:
		v.RDMAOutOctets = x
	case NDKRDMAInFrames:
		v.RDMAInFrames = x
	case NDKRDMAOutFrames:
		v.RDMAOutFrames = x
	}
}

// CongestionValues are the congestion counters; null where missing.
type CongestionValues struct {
	CNPSent       *uint64 `json:"np_cnp_sent"`
	CNPHandled    *uint64 `json:"rp_cnp_handled"`
	CNPIgnored    *uint64 `json:"rp_cnp_ignored"`
	ECNMarked     *uint64 `json:"np_ecn_marked_roce_packets"`
	OutOfSequence *uint64 `json:"out_of_sequence"`
	OutOfBuffer   *uint64 `json:"out_of_buffer"`
}

// Get returns the field of counter c.
func (v *CongestionValues) Get(c CongestionCounter) *uint64 {
	return *v.field(c)
}

func (v *CongestionValues) field(c CongestionCounter) **uint64 {
	switch c {
	case CNPSent:
		return &v.CNPSent
	case CNPHandled:
		return &v.CNPHandled
	case CNPIgnored:
		return &v.CNPIgnored
	case ECNMarked:
		return &v.ECNMarked
	case OutOfSequence:
		return &v.OutOfSequence
	}
	return &v.OutOfBuffer
}

// PFCCounters are the per-priority pause counters in the snapshot.
type PFCCounters struct {
	// Source is null when nothing provides per-priority pause counts.
	Source *PFCSource `json:"source"`
	// Priorities has one entry per priority 0-7.
	Priorities []PrioPause `json:"priorities"`
	// StormWarningEvents and StormErrorEvents count the NIC's pause-storm
	// guard firing; null where the driver has no such counter.
	StormWarningEvents *uint64 `json:"storm_warning_events"`
	StormErrorEvents   *uint64 `json:"storm_error_events"`
	// StormPreventionTimeoutMs is the storm guard's timeout in ms (the
	// ethtool tunable pfc-prevention-tout: 0 off, 65535 auto, the
	// driver's default), null where the driver has no such tunable.
	StormPreventionTimeoutMs *uint64 `json:"storm_prevention_timeout_ms"`
	// Sources maps each field with a value to where it came from, with
	// {p} standing for the priority ("rx_prio{p}_pause").
	Sources map[string]string `json:"sources"`
}

// PrioPause is one priority's pause counters. Rates are per second over
// the last interval, null until a second sample.
type PrioPause struct {
	Priority          int      `json:"priority"`
	RxPause           *uint64  `json:"rx_pause"`
	TxPause           *uint64  `json:"tx_pause"`
	RxPauseRate       *float64 `json:"rx_pause_rate"`
	TxPauseRate       *float64 `json:"tx_pause_rate"`
	RxPauseDurationUs *uint64  `json:"rx_pause_duration_us"`
	TxPauseDurationUs *uint64  `json:"tx_pause_duration_us"`
	// RxBytes and TxBytes are the priority's traffic, RxBytesRate and
	// TxBytesRate per second over the last interval; PausedFraction is
	// the share of the last interval this port spent paused by the peer
	// on the priority (rx pause duration: pauses received), and
	// TxPausedFraction the share this port spent pausing the peer (tx
	// pause duration: pauses sent; mlx5 tx_prio{p}_pause_duration), 0 to
	// 1. Null where unknown.
	RxBytes          *uint64  `json:"rx_bytes"`
	TxBytes          *uint64  `json:"tx_bytes"`
	RxBytesRate      *float64 `json:"rx_bytes_rate"`
	TxBytesRate      *float64 `json:"tx_bytes_rate"`
	PausedFraction   *float64 `json:"paused_fraction"`
	TxPausedFraction *float64 `json:"tx_paused_fraction"`
	// RxPauseTransitions counts the pauses the peer started on the
	// priority, where the driver counts them.
	RxPauseTransitions *uint64 `json:"rx_pause_transitions"`
}

func value(r Reading) *uint64 {
	if !r.OK() {
		return nil
	}
	v := r.Value
	return &v
}

// Snapshot renders the last sample with rates against the one before;
// nil when nothing was sampled.
func (ls *State) Snapshot() *Counters {
	if ls == nil || ls.cur == nil {
		return nil
	}
	if ls.made == nil {
		ls.made = ls.build()
	}
	if !ls.made.hasRoCE() {
		// Without a RoCE port there is no path, whatever else the
		// interface says: every snapshot until the next sample shares
		// the one made (nothing writes to a snapshot).
		if ls.made.RoCEPaths == nil {
			ls.made.RoCEPaths = []RoCEPath{}
		}
		return ls.made
	}
	c := *ls.made // the caller sets RoCEPaths on its own copy
	return &c
}

// hasRoCE reports whether a RoCE port (link layer Ethernet) was sampled.
func (c *Counters) hasRoCE() bool {
	for i := range c.RoCE {
		if c.RoCE[i].IsRoCE() {
			return true
		}
	}
	return false
}

// build makes the counters of the last sample, for snapshot.
func (ls *State) build() *Counters {
	cur, prev := ls.cur, ls.prev
	var dt time.Duration
	if prev != nil {
		dt = cur.At.Sub(prev.At)
	}
	out := &Counters{SampledAt: cur.At, IntervalMs: cur.Interval.Milliseconds(),
		RDMA: make([]RDMAPortCounters, 0, len(cur.RDMA))}
	for i := range cur.RDMA {
		var before *RDMAPortSample
		if prev != nil {
			for j := range prev.RDMA {
				if prev.RDMA[j].Device == cur.RDMA[i].Device && prev.RDMA[j].Port == cur.RDMA[i].Port {
					before = &prev.RDMA[j]
				}
			}
		}
		out.RDMA = append(out.RDMA, rdmaCounters(&cur.RDMA[i], before, dt))
	}
	out.PFC = pfcCounters(cur.PFC, prev, dt)
	if cur.ECN != nil {
		e := *cur.ECN
		out.ECN = &e
	}
	out.RoCE, out.LinkPause, out.QoS = cloneRoCE(cur.RoCE), copyPtr(cur.LinkPause), cur.QoS.clone()
	if e := cur.errText(); e != "" {
		out.Error = &e
	}
	if cur.Driver != "" {
		d := cur.Driver
		out.Driver = &d
	}
	// One backing array for the 24 series.
	all := make([]float64, 3*8*ls.n)
	for p := range 8 {
		pause, traffic, paused := all[:ls.n:ls.n], all[ls.n:2*ls.n:2*ls.n], all[2*ls.n:3*ls.n:3*ls.n]
		all = all[3*ls.n:]
		for i := range ls.n {
			row := &ls.history[(ls.next-ls.n+i+len(ls.history))%len(ls.history)]
			pause[i], traffic[i], paused[i] = row.pause[p], row.traffic[p], row.paused[p]
		}
		out.PauseHistory[p], out.TrafficHistory[p], out.PausedHistory[p] = pause, traffic, paused
	}
	return out
}

func rdmaCounters(s, before *RDMAPortSample, dt time.Duration) RDMAPortCounters {
	rc := RDMAPortCounters{Device: s.Device, Port: s.Port, MissingCounterMask: NDKReservedMask,
		Sources: map[string]string{}, Rates: map[string]float64{}}
	for _, c := range NDKCounters {
		r := s.NDK[c]
		if !r.OK() {
			rc.MissingCounterMask |= 1 << c
			continue
		}
		rc.NDK.set(c, value(r))
		rc.Sources[c.Key()] = r.Source
		if r.Derived {
			rc.DerivedCounterMask |= 1 << c
		}
		if before != nil && !c.Gauge() {
			if v, ok := readingRate(before.NDK[c], r, dt); ok {
				rc.Rates[c.Key()] = v
			}
		}
	}
	for c := range NumCongestion {
		r := s.Congestion[c]
		if !r.OK() {
			continue
		}
		*rc.Congestion.field(c) = value(r)
		rc.Sources[c.Key()] = r.Source
		if before != nil {
			if v, ok := readingRate(before.Congestion[c], r, dt); ok {
				rc.Rates[c.Key()] = v
			}
		}
	}
	return rc
}

func pfcCounters(s *PFCSample, prev *Sample, dt time.Duration) PFCCounters {
	out := PFCCounters{Priorities: make([]PrioPause, 8), Sources: map[string]string{}}
	for p := range out.Priorities {
		out.Priorities[p].Priority = p
	}
	if s == nil {
		return out
	}
	src := s.Source
	out.Source = &src
	var before *PFCSample
	if prev != nil {
		before = prev.PFC
	}
	source := func(key string, r Reading) {
		if r.OK() {
			out.Sources[key] = r.Source
		}
	}
	for p := range out.Priorities {
		c, pp := &s.Priorities[p], &out.Priorities[p]
		pp.RxPause, pp.TxPause = value(c.RxPause), value(c.TxPause)
		pp.RxPauseDurationUs, pp.TxPauseDurationUs = value(c.RxPauseDuration), value(c.TxPauseDuration)
		pp.RxBytes, pp.TxBytes = value(c.RxBytes), value(c.TxBytes)
		pp.RxPauseTransitions = value(c.RxPauseTransitions)
		if before != nil {
			b := &before.Priorities[p]
			if v, ok := readingRate(b.RxBytes, c.RxBytes, dt); ok {
				pp.RxBytesRate = &v
			}
			if v, ok := readingRate(b.TxBytes, c.TxBytes, dt); ok {
				pp.TxBytesRate = &v
			}
			if f, ok := pausedFraction(b.RxPauseDuration, c.RxPauseDuration, dt); ok {
				pp.PausedFraction = &f
			}
			if f, ok := pausedFraction(b.TxPauseDuration, c.TxPauseDuration, dt); ok {
				pp.TxPausedFraction = &f
			}
			if v, ok := readingRate(b.RxPause, c.RxPause, dt); ok {
				pp.RxPauseRate = &v
			}
			if v, ok := readingRate(b.TxPause, c.TxPause, dt); ok {
				pp.TxPauseRate = &v
			}
		}
	}
	// Sources are per field, the same for every priority: name them with
	// the priority as {p}.
	for p := range s.Priorities {
		c := &s.Priorities[p]
		pat := func(r Reading) Reading {
			r.Source = prioPattern(r.Source, p)
			return r
		}
		source("rx_pause", pat(c.RxPause))
		source("tx_pause", pat(c.TxPause))
		source("rx_pause_duration_us", pat(c.RxPauseDuration))
		source("tx_pause_duration_us", pat(c.TxPauseDuration))
		source("rx_bytes", pat(c.RxBytes))
		source("tx_bytes", pat(c.TxBytes))
		source("rx_pause_transitions", pat(c.RxPauseTransitions))
	}
	out.StormWarningEvents, out.StormErrorEvents = value(s.StormWarning), value(s.StormError)
	source("storm_warning_events", s.StormWarning)
	source("storm_error_events", s.StormError)
	out.StormPreventionTimeoutMs = value(s.StormTimeout)
	source("storm_prevention_timeout_ms", s.StormTimeout)
	return out
}

// pausedFraction is the share of dt a priority spent paused, from its
// pause duration counter in microseconds (mlx5 rx_prio{p}_pause_duration):
// 0 to 1 (a counter that ran ahead of the clock by jitter is 1).
func pausedFraction(prev, cur Reading, dt time.Duration) (float64, bool) {
	r, ok := readingRate(prev, cur, dt)
	if !ok {
		return 0, false
	}
	return min(1, r/1e6), true
}

// prioPattern replaces the priority's digit in a per-priority source name
// with {p} ("rx_prio3_pause" -> "rx_prio{p}_pause", "requests[3]" ->
// "requests[{p}]"): the first occurrence of the digit after a letter,
// underscore or bracket.
func prioPattern(src string, p int) string {
	d := byte('0' + p)
	for i := 1; i < len(src); i++ {
		prev := src[i-1]
		if src[i] != d || !(prev == '_' || prev == '[' || prev >= 'a' && prev <= 'z') {
			continue
		}
		if i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
			continue
		}
		return src[:i] + "{p}" + src[i+1:]
	}
	return src
}
