// SPDX-License-Identifier: Apache-2.0

package replay

// The replay as a player (the screen's space, ←/→, +/-, r): pause and
// resume, change the speed, seek. A seek re-runs the engine from the
// start of the file up to the target capture time, as fast as it goes,
// then plays on paced: what the screen shows after it is exactly what a
// straight replay shows at that capture time. The engine is the run's:
// SetPlayer gives the replay the function that starts it afresh.

import (
	"context"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
)

// Speeds the player steps through with SetSpeed's faster/slower (0 is as
// fast as possible, above the fastest).
var playerSpeeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 0}

// A playerCmd is a request to the replay's goroutine.
type playerCmd struct {
	pause, resume bool
	speed         *float64
	seek          *time.Duration // capture time from the first frame
}

// Pause pauses the replay (on) or resumes it: the capture clock stands
// still meanwhile.
func (s *Source) Pause(on bool) {
	s.mu.Lock()
	s.reqPaused = &on
	s.mu.Unlock()
	if on {
		s.send(playerCmd{pause: true})
	} else {
		s.send(playerCmd{resume: true})
	}
}

// Paused reports whether the replay is paused (or asked to be).
func (s *Source) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqPaused != nil {
		return *s.reqPaused
	}
	return s.paused
}

// pausedNow is the state the goroutine is in, requests aside.
func (s *Source) pausedNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// StepSpeed moves the speed one step faster (up) or slower and returns
// the new one (0: as fast as possible).
func (s *Source) StepSpeed(up bool) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.speed
	if s.reqSpeed != nil {
		cur = *s.reqSpeed // a step not yet carried out counts
	}
	i := 0
	for k, v := range playerSpeeds {
		if v == cur || (cur > 0 && v > 0 && v <= cur) {
			i = k
		}
	}
	switch {
	case up && i < len(playerSpeeds)-1:
		i++
	case !up && i > 0:
		i--
	}
	v := playerSpeeds[i]
	s.reqSpeed = &v
	s.send(playerCmd{speed: &v})
	return v
}

// Seek moves the replay to capture time pos from its first frame (clamped
// to the file), re-running the engine from the start.
func (s *Source) Seek(pos time.Duration) {
	pos = max(0, pos)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqPos = &pos
	s.send(playerCmd{seek: &pos}) // under the lock: requests queue in the order asked
}

// Position returns the capture time reached from the first frame, or the
// one a seek not yet carried out asked for (so that quick presses add up).
func (s *Source) Position() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.positionLocked()
}

// positionLocked is Position with s.mu held.
func (s *Source) positionLocked() time.Duration {
	if s.reqPos != nil {
		return *s.reqPos
	}
	return s.progressLocked().Position
}

// SeekBy moves the replay by d from Position. Reading the position, asking
// for the new one and queueing the request happen under one lock: the
// screen runs each key's command on a goroutine of its own, and two quick
// presses that both read the position before either asked for a new one
// (or queued their requests in the other order) lost one seek.
func (s *Source) SeekBy(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pos := max(0, s.positionLocked()+d)
	s.reqPos = &pos
	s.send(playerCmd{seek: &pos})
}

// send queues a request; when the queue is full (a key held down) it is
// dropped, the state the requests asked for (reqPos...) kept.
func (s *Source) send(c playerCmd) {
	select {
	case s.ctl <- c:
	default:
	}
}

// handle carries out a request on the replay's goroutine. It returns
// true when the file must be read again from the start (a seek).
func (s *Source) handle(c playerCmd) (restartTo *time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowLocked()
	switch {
	case c.pause:
		if !s.paused {
			s.paused, s.clockBase, s.wallBase = true, now, s.real()
		}
		s.reqPaused = nil
	case c.resume:
		if s.paused {
			s.paused, s.wallBase = false, s.real()
		}
		s.reqPaused = nil
	case c.speed != nil:
		s.clockBase, s.wallBase, s.speed = now, s.real(), *c.speed
		s.reqSpeed = nil
		s.status.Speed = *c.speed
	case c.seek != nil:
		// reqPos stays until the file has been read up to the position
		// (seekTo): meanwhile the progress says 0, and a quick second
		// press must count from this seek's target.
		return c.seek
	}
	return nil
}

// rewind reopens the file, resets the engine (through reset, on the
// engine's goroutine) and sends, unpaced, every frame up to the first
// frame's time plus pos; the replay then goes on paced from there. It
// returns the reopened source.
func (s *Source) rewind(ctx context.Context, pos time.Duration, events chan<- engine.Event) error {
	src, err := pcap.Open(s.name)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if s.reset != nil {
		s.reset(ctx)
	}
	s.mu.Lock()
	old := s.src
	s.src = src
	s.peeked, s.peekErr = nil, nil // read again from the start
	s.delivered = 0
	s.mu.Unlock()
	old.Close()
	s.mu.Lock()
	first := s.first
	s.started, s.status.Frame, s.status.Done, s.pending = false, 0, false, nil
	s.mu.Unlock()
	target := first.Add(pos)
	for {
		f, err := s.src.ReadFrame(ctx)
		if s.src.HostPending() {
			ok, herr := s.playHost(false, func(at time.Time, ev engine.Event) bool {
				// Unpaced, as the frames up to the target: those
				// past it precede the frame that waits (pending).
				s.advanceClock(at)
				select {
				case events <- ev:
					return true
				case <-ctx.Done():
					return false
				}
			})
			if herr != nil {
				return herr
			}
			if !ok {
				return ctx.Err()
			}
		}
		if err == pcap.ErrHostPending {
			continue
		}
		if err != nil {
			s.mu.Lock()
			s.clockBase, s.wallBase = maxTime(s.clockBase, target), s.real()
			s.mu.Unlock()
			return err // the end (or an error) before the target: the run loop handles it
		}
		if !first.IsZero() && f.At.After(target) {
			s.mu.Lock()
			s.pending = &f // the first frame after the target: sent paced
			s.clockBase, s.wallBase = target, s.real()
			s.mu.Unlock()
			return nil
		}
		s.sent(f)
		s.delivered++
		select {
		case events <- s.event(f):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// SetPlayer makes the replay a player (the screen's): Run stays after
// the end of the file for the player's requests, and a seek calls reset
// first, which starts the run's engine afresh (its context ends when the
// replay gives the seek up). nil makes it a plain source again, whose
// Run returns at the end of the file. Call it before Run.
func (s *Source) SetPlayer(reset func(context.Context)) {
	s.interactive, s.reset = reset != nil, reset
}

// Player returns the replay's controls for the screen (ui.Player); nil
// for a nil Source (a live run).
func (s *Source) Player() *Player {
	if s == nil {
		return nil
	}
	return &Player{s: s}
}

// A Player controls a replay from the screen. Its methods return at once;
// the replay's progress (Progress, posted) shows the effect.
type Player struct{ s *Source }

// TogglePause pauses or resumes the replay.
func (p *Player) TogglePause() { p.s.Pause(!p.s.Paused()) }

// Faster and Slower step the speed (×0.25 … ×64, then as fast as
// possible) and return the new one.
func (p *Player) Faster() float64 { return p.s.StepSpeed(true) }

// Slower steps the speed down.
func (p *Player) Slower() float64 { return p.s.StepSpeed(false) }

// Seek moves by d in capture time (negative: back).
func (p *Player) Seek(d time.Duration) { p.s.SeekBy(d) }

// Restart goes back to the start of the file.
func (p *Player) Restart() { p.s.Seek(0) }

// Close closes the file being replayed (a seek may have reopened it).
func (s *Source) Close() error {
	s.mu.Lock()
	src := s.src
	s.mu.Unlock()
	return src.Close()
}
