// SPDX-License-Identifier: Apache-2.0

package lossless

import (
	"slices"
	"time"
)

// PauseStormRate is the pause frame rate, per second and per priority in
// either direction, at or above which dcbtop reports a pause storm: a
// receiver pausing continuously refreshes XOFF about every half quanta
// (about 1,500 frames/s at 25 Gb/s with quanta 0xFFFF, 6,000 at 100 Gb/s).
const PauseStormRate = 1000.0

// HistoryWindow is how far back the pause-rate history reaches.
const HistoryWindow = 60 * time.Second

// State is what the engine keeps of an interface's counters: the
// last two samples and the pause-rate history.
type State struct {
	prev, cur *Sample
	// history is a ring of one historyRow per sample; next is where the
	// next entry goes, n how many are set.
	history []historyRow
	next, n int
	// made is the counters as snapshot made them after the last sample:
	// they change only with a sample, so every snapshot until the next
	// shares them (the slices, maps and series are never written to
	// after), and a switch of 64 ports copies no sparkline a second.
	made *Counters
}

// A historyRow is what one sample adds to the sparklines, per priority:
// the summed (rx+tx) pause rate, the summed traffic in bytes per second,
// and the share of the interval paused by the peer (0 where unknown).
type historyRow struct {
	pause, traffic, paused [8]float64
}

// Sample records a sample, keeping the previous one for rates, and
// reports whether what a snapshot shows changed: a reading, the interval
// or the error differs, a rate or the pause history is not at rest (the
// history still filling, or a pause rate in the window).
func (ls *State) Sample(ev Sample) bool {
	ls.made = nil
	rest := ls.cur != nil && ls.prev != nil && sameReadings(&ev, ls.cur) && sameReadings(ls.cur, ls.prev) && ls.historyQuiet()
	c := ev
	c.RDMA = append([]RDMAPortSample(nil), ev.RDMA...)
	if ev.PFC != nil {
		pfc := *ev.PFC
		c.PFC = &pfc
	}
	if ev.ECN != nil {
		ecn := *ev.ECN
		c.ECN = &ecn
	}
	c.RoCE, c.LinkPause, c.QoS = cloneRoCE(ev.RoCE), copyPtr(ev.LinkPause), ev.QoS.clone()
	ls.prev, ls.cur = ls.cur, &c
	if ls.prev == nil || ls.cur.PFC == nil || ls.prev.PFC == nil {
		return !rest
	}
	// The ring is made with the first row: an interface without pause
	// counters (a veth, a NIC whose driver exposes none) keeps none, which
	// on a host of a thousand such ports was 14 MB of empty rows.
	size := HistorySize(ev.Interval)
	if len(ls.history) != size {
		ls.history, ls.next, ls.n = make([]historyRow, size), 0, 0
	}
	dt := ls.cur.At.Sub(ls.prev.At)
	var row historyRow
	for p := range 8 {
		c, pr := &ls.cur.PFC.Priorities[p], &ls.prev.PFC.Priorities[p]
		for _, r := range [...][2]Reading{{pr.RxPause, c.RxPause}, {pr.TxPause, c.TxPause}} {
			if v, ok := readingRate(r[0], r[1], dt); ok {
				row.pause[p] += v
			}
		}
		for _, r := range [...][2]Reading{{pr.RxBytes, c.RxBytes}, {pr.TxBytes, c.TxBytes}} {
			if v, ok := readingRate(r[0], r[1], dt); ok {
				row.traffic[p] += v
			}
		}
		if f, ok := pausedFraction(pr.RxPauseDuration, c.RxPauseDuration, dt); ok {
			row.paused[p] = f
		}
	}
	ls.history[ls.next] = row
	ls.next = (ls.next + 1) % size
	ls.n = min(ls.n+1, size)
	return !rest
}

// historyQuiet reports that another sample without pauses leaves the
// pause history as it shows: the ring is full (or unused: no pause
// counters) and every rate in it is zero.
func (ls *State) historyQuiet() bool {
	if ls.cur.PFC == nil {
		return true
	}
	if ls.n < len(ls.history) {
		return false
	}
	for _, row := range ls.history {
		if row != (historyRow{}) {
			return false
		}
	}
	return true
}

// sameReadings reports whether two samples read the same values from the
// same sources at the same interval (their times aside).
func sameReadings(a, b *Sample) bool {
	return a.Interval == b.Interval && slices.Equal(a.Errors, b.Errors) && a.Driver == b.Driver && slices.Equal(a.RDMA, b.RDMA) &&
		ptrEqual(a.PFC, b.PFC) && a.ECN.equal(b.ECN) && sameRoCE(a, b)
}

// ptrEqual reports whether two pointers are both nil or point to equal
// values.
// copyPtr returns a pointer to a copy of *p, nil for nil.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// historySize is the number of samples that cover HistoryWindow at the
// interval, from 2 to 600.
func HistorySize(interval time.Duration) int {
	if interval <= 0 {
		interval = time.Second
	}
	return int(min(600, max(2, (HistoryWindow+interval-1)/interval)))
}

// Rate returns the per-second rate of a counter that went from prev to
// cur in dt. A decrease is a reset (or a wrap): the counter restarted
// from zero, so cur is what was counted since; never a negative rate.
func Rate(prev, cur uint64, dt time.Duration) float64 {
	if dt <= 0 {
		return 0
	}
	d := cur - prev
	if cur < prev {
		d = cur
	}
	return float64(d) / dt.Seconds()
}

// MaxCounterRate bounds what any counter dcbtop reads can count in a
// second: five times the bytes a second of the fastest Ethernet carries
// (1.6 Tb/s, IEEE Std 802.3dj: 2e11 bytes/s), far above its frame rate
// (about 2.4e9 minimum-size frames/s) or the microseconds of a pause
// duration counter. A counter that moved faster did not count traffic:
// it was reset, wrapped at a width other than 64 bits, or misread (a jump
// by about 2^64 is a small negative number read as unsigned).
const MaxCounterRate = 1e12

// PlausibleRate is Rate, and false when the rate is above
// MaxCounterRate: no rate for that interval, rather than a storm that
// never happened.
func PlausibleRate(prev, cur uint64, dt time.Duration) (float64, bool) {
	r := Rate(prev, cur, dt)
	if r > MaxCounterRate {
		return 0, false
	}
	return r, true
}

// readingRate is PlausibleRate of two readings from the same source, and
// false when either is missing or they come from different sources.
func readingRate(prev, cur Reading, dt time.Duration) (float64, bool) {
	if !prev.OK() || !cur.OK() || prev.Source != cur.Source || dt <= 0 {
		return 0, false
	}
	return PlausibleRate(prev.Value, cur.Value, dt)
}

// Preview returns a copy of ls whose last sample is changed by change (a
// copy of it: ls is not changed), for judging what a change of the facts
// would make of the port. The copy shares ls's history, which neither
// writes to. Without a sample it is ls's copy with nothing changed.
func (ls *State) Preview(change func(*Sample)) *State {
	c := *ls
	c.made = nil
	if ls.cur != nil {
		s := *ls.cur
		s.RoCE, s.QoS = cloneRoCE(ls.cur.RoCE), ls.cur.QoS.clone()
		change(&s)
		c.cur = &s
	}
	return &c
}

// Current returns the last sample, nil before the first: a new sample is
// a new pointer, so its identity tells whether what the counters say
// changed. It is read, never written to.
func (ls *State) Current() *Sample {
	if ls == nil {
		return nil
	}
	return ls.cur
}

// HasRoCE reports whether the last sample holds a RoCE port (an RDMA
// device over this interface whose link layer is Ethernet); false on
// a nil State (no sample yet).
func (ls *State) HasRoCE() bool { return ls != nil && ls.cur != nil && len(ls.cur.RoCE) > 0 }

// RDMATraffic reports whether the last sample's RDMA ports have counted
// frames or octets (false without a sample).
func (ls *State) RDMATraffic() bool { return ls != nil && ls.cur != nil && ls.rdmaTraffic() }
