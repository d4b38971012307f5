// SPDX-License-Identifier: Apache-2.0

package replay

// The replay's clock: the capture time reached, advancing with the
// speed between frames (the Source as the run's clock).

import (
	"time"

	"github.com/dcbtop/dcbtop/capture"
)

// Now returns the capture time reached (the zero time before the first
// frame).
func (s *Source) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nowLocked()
}

func (s *Source) nowLocked() time.Time {
	speed := s.speed
	// At the end of the file the clock stands at its last frame, on the
	// screen as headless: the end of a capture is the state at its last
	// frame (information a live run would have seen expire later is not
	// in the file).
	if !s.started || speed <= 0 || s.paused || s.status.Done {
		return s.clockBase
	}
	c := s.clockBase.Add(scaleDuration(s.real().Sub(s.wallBase), speed))
	if !s.nextAt.IsZero() && !c.Before(s.nextAt) {
		c = s.nextAt.Add(-time.Nanosecond)
	}
	if c.Before(s.clockBase) {
		c = s.clockBase
	}
	return c
}

// Speed returns the replay's speed: 1 recorded speed, 0 as fast as
// possible.
func (s *Source) Speed() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.speed
}

// NewTicker ticks in real time: the screen's pace between frames.
func (s *Source) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// Real returns d: the ticks' pace is real time.
func (s *Source) Real(d time.Duration) time.Duration { return d }

// Stamp returns t: frames carry capture time already.
func (s *Source) Stamp(t time.Time) time.Time { return t }

// Progress returns the replay's progress, its position at the clock;
// zero for a nil Source (a live run).
func (s *Source) Progress() Progress {
	if s == nil {
		return Progress{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progressLocked()
}

// progressLocked is progress with s.mu held.
func (s *Source) progressLocked() Progress {
	p := s.status
	p.Paused = s.paused
	if s.started {
		p.Position = s.nowLocked().Sub(s.first)
		if s.status.Done {
			p.Position = s.endAt.Sub(s.first) // the end of the file
		}
	}
	return p
}

// Tick posts the position reached between frames (the run calls it on
// its ticks, which also move the engine's clock).
func (s *Source) Tick() {
	if s.post != nil {
		s.post.Progress(s.Progress())
	}
}

// advanceClock moves the clock to a host packet's time, as sent does for
// a frame (no frame counted).
func (s *Source) advanceClock(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started, s.first, s.clockBase = true, at, at
	}
	if at.After(s.clockBase) {
		s.clockBase = at
	}
	s.wallBase, s.nextAt = s.real(), time.Time{}
}

// An advanceBatch is what frames read since the last flush did to a
// replay's clock: their number, and the first and latest capture times.
type advanceBatch struct {
	n         uint64
	first, hi time.Time
}

func (b *advanceBatch) add(at time.Time) {
	if b.n == 0 {
		b.first, b.hi = at, at
	} else if at.After(b.hi) {
		b.hi = at
	}
	b.n++
}

// flush moves the clock as advance would have for each frame of the
// batch, and empties it.
func (b *advanceBatch) flush(s *Source) {
	if b.n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started, s.first, s.clockBase = true, b.first, b.first
	}
	if b.hi.After(s.clockBase) {
		s.clockBase = b.hi
	}
	s.status.Frame += int(b.n)
	*b = advanceBatch{}
}

// wait returns how long the frame stamped at waits, and holds the clock
// before it meanwhile.
func (s *Source) wait(at time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.speed <= 0 || !s.started {
		return 0
	}
	gap := at.Sub(s.clockBase)
	if gap <= 0 {
		return 0
	}
	s.nextAt = at
	return s.wallBase.Add(scaleDuration(gap, 1/s.speed)).Sub(s.real())
}

// sent moves the clock to a frame about to be applied, and notes when
// (the pacing of the next frame counts from there).
func (s *Source) sent(f capture.Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked(f)
	s.wallBase, s.nextAt = s.real(), time.Time{}
}

// advanceLocked moves the clock to a frame about to be applied, with
// s.mu held.
func (s *Source) advanceLocked(f capture.Frame) {
	if !s.started {
		s.started, s.first, s.clockBase = true, f.At, f.At
	}
	if f.At.After(s.clockBase) {
		s.clockBase = f.At
	}
	s.status.Frame++
}

func scaleDuration(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if v >= float64(1<<62) {
		return 1 << 62
	}
	return time.Duration(v)
}
