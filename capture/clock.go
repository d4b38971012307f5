// SPDX-License-Identifier: Apache-2.0

package capture

import "time"

// A Clock is the time a live run lives in: the real clock (the zero
// value), or the real clock run faster from an origin (ScaledClock), which
// is how `dcbtop demo --speed 8` plays its two-minute scenario in 15 s with
// every timer in step: the simulated switches' steps and transmissions,
// dcbtop's agent, TTLs and their expiry all count scenario seconds.
//
// The kernel stamps frames and link events with the real clock; Stamp
// converts such a time into the clock's.
type Clock struct {
	origin time.Time
	speed  float64 // 0 or 1: real time
}

// ScaledClock returns a clock that reads origin at origin and then runs
// speed times faster than real time. A speed of 0 or 1 is the real clock.
func ScaledClock(origin time.Time, speed float64) Clock {
	if speed <= 0 || speed == 1 {
		return Clock{}
	}
	return Clock{origin: origin, speed: speed}
}

// Speed returns how many times faster than real time the clock runs (1 for
// the real clock).
func (c Clock) Speed() float64 {
	if c.speed == 0 {
		return 1
	}
	return c.speed
}

// Now returns the clock's current time.
func (c Clock) Now() time.Time {
	if c.speed == 0 {
		return time.Now()
	}
	return c.origin.Add(c.scale(time.Since(c.origin)))
}

// Stamp converts t, a time on the real clock (a kernel timestamp), into
// the clock's time.
func (c Clock) Stamp(t time.Time) time.Time {
	if c.speed == 0 {
		return t
	}
	return c.origin.Add(c.scale(t.Sub(c.origin)))
}

// Real returns how long d of the clock's time lasts in real time.
func (c Clock) Real(d time.Duration) time.Duration {
	if c.speed == 0 {
		return d
	}
	return time.Duration(float64(d) / c.speed)
}

// After waits for d of the clock's time, then sends the real time on the
// returned channel.
func (c Clock) After(d time.Duration) <-chan time.Time { return time.After(c.Real(d)) }

// NewTicker returns a ticker that ticks every d of the clock's time. The
// times it sends are real; read Now when a tick arrives.
func (c Clock) NewTicker(d time.Duration) *time.Ticker {
	return time.NewTicker(max(c.Real(d), time.Millisecond))
}

func (c Clock) scale(d time.Duration) time.Duration { return time.Duration(float64(d) * c.speed) }
