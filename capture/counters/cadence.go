// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"maps"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// EmptyProbeEvery is how often interfaces without any lossless counter
// (no RDMA port, pause counter or ECN setting) are sampled again: a
// driver loaded or an RDMA device bound later shows within it. On a
// switch of veths or ports without counters, sampling each one (netlink
// and ethtool round trips) was a sixth of the screen's CPU at 10 s.
const EmptyProbeEvery = 30 * time.Second

// A Cadence says which interfaces a round of counters samples: each one
// whose last sample found something, every round; one whose last sample
// found nothing (a veth, a NIC without pause counters or RDMA), again
// EmptyProbeEvery after it; a new one at once.
type Cadence struct {
	next map[string]time.Time // when an interface found empty is sampled again
}

// NewCadence returns a cadence that has sampled nothing yet.
func NewCadence() *Cadence { return &Cadence{next: map[string]time.Time{}} }

// Due reports whether ifname is sampled in a round at now.
func (c *Cadence) Due(ifname string, now time.Time) bool {
	t, ok := c.next[ifname]
	return !ok || !now.Before(t)
}

// Sampled records ifname's sample at now; empty: it found nothing.
func (c *Cadence) Sampled(ifname string, now time.Time, empty bool) {
	if empty {
		c.next[ifname] = now.Add(EmptyProbeEvery)
	} else {
		delete(c.next, ifname)
	}
}

// Keep forgets the interfaces not in names (removed ones).
func (c *Cadence) Keep(names []string) {
	if len(c.next) <= len(names) {
		return
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	maps.DeleteFunc(c.next, func(n string, _ time.Time) bool { return !present[n] })
}

// Period is the time to the next round: every while an interface of
// names has counters (or is new), else EmptyProbeEvery.
func (c *Cadence) Period(every time.Duration, names []string) time.Duration {
	for _, n := range names {
		if _, ok := c.next[n]; !ok {
			return every
		}
	}
	return max(every, EmptyProbeEvery)
}

// Empty reports whether a sample found no counter and no error: the
// interface is sampled again EmptyProbeEvery later (Cadence.Sampled).
func Empty(ev engine.CountersSampled) bool {
	return len(ev.RDMA) == 0 && ev.PFC == nil && ev.ECN == nil && len(ev.Errors) == 0 && len(ev.RoCE) == 0 && !ev.LinkPause.Known() && ev.QoS == nil
}
