// SPDX-License-Identifier: Apache-2.0

package replay

// Playing the frames: paced by their timestamps for the screen (Run,
// seeks), or straight through (Direct).

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
)

// Run sends the file's frames to events, paced, then reports the end on
// done: nil at the end of the file, else the read error (which the poster
// gets too). It returns early when ctx is done; a player (SetPlayer, the
// screen's replay) stays after the end for the player's requests (a seek
// back plays on). Requests are handled while a frame waits.
func (s *Source) Run(ctx context.Context, events chan<- engine.Event, done chan<- error) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		var f capture.Frame
		var err error
		s.mu.Lock()
		pending := s.pending
		s.pending = nil
		s.mu.Unlock()
		if pending != nil {
			f = *pending
		} else {
			f, err = s.read(ctx)
		}
		if ok, herr := s.playHostPaced(ctx, timer, err, events); herr != nil {
			err = herr
		} else if !ok {
			if ctx.Err() != nil {
				return
			}
			continue // a seek: the file was read again
		}
		if err == pcap.ErrHostPending {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			readErr := s.ended(err)
			if done != nil {
				done <- readErr
				done = nil // reported once
			}
			if !s.interactive || !s.awaitSeek(ctx, events) {
				return
			}
			continue
		}
		if !s.pace(ctx, timer, f.At, events) {
			if ctx.Err() != nil {
				return
			}
			continue // a seek: the file was read again
		}
		s.sent(f)
		s.delivered++
		select {
		case events <- s.event(f):
		case <-ctx.Done():
			return
		}
		if s.post != nil {
			s.post.Progress(s.Progress())
		}
	}
}

// Direct reads the file to its end and hands each frame to apply on the
// calling goroutine: a headless replay as fast as possible, with no pacing,
// no player and no channel operation per frame. It stops early when apply
// returns false or ctx ends (nil), and returns the read error otherwise
// (nil at the end of the file), which the poster gets too.
//
// The events a recording's host packets make (SetHost) go to other, in
// the file's order.
func (s *Source) Direct(ctx context.Context, apply func(engine.FrameReceived) bool, other func(engine.Event) bool) error {
	s.src.Borrow() // apply (the engine, the recorder) copies what it keeps
	// The clock and the frame count move under the lock once per batch
	// of frames, not per frame (a lock per frame cost a replay 4 %): the
	// engine takes its time from each frame, and nothing reads the clock
	// between two frames of a direct replay.
	var b advanceBatch
	defer b.flush(s)
	for n := 1; ; n++ {
		if n%1024 == 0 {
			b.flush(s)
			if ctx.Err() != nil {
				return nil
			}
		}
		var f capture.Frame
		var err error
		if len(s.peeked) > 0 || s.peekErr != nil {
			f, err = s.read(ctx)
		} else {
			// The file itself, called directly: a Frame returned through
			// read as well cost a replay 2 % of its CPU.
			f, err = s.src.ReadFrame(ctx)
		}
		if s.src.HostPending() {
			end := err != nil && err != pcap.ErrHostPending
			ok, herr := s.playHost(end, func(at time.Time, ev engine.Event) bool {
				b.add(at)
				return other(ev)
			})
			switch {
			case herr != nil:
				b.flush(s)
				return s.ended(herr)
			case !ok:
				return nil
			}
		}
		if err != nil {
			if err == pcap.ErrHostPending {
				continue
			}
			b.flush(s)
			if ctx.Err() != nil {
				return nil
			}
			if _, herr := s.playHost(true, nil); herr != nil && errors.Is(err, io.EOF) {
				err = herr
			}
			return s.ended(err)
		}
		b.add(f.At)
		s.delivered++
		if !apply(s.event(f)) {
			return nil
		}
	}
}

// playHostPaced plays the host packets before the next frame, each
// event at its packet's time (paced, as a frame), readErr being what the
// read of that frame returned (at the end of the file, every packet
// left). ok false: ctx ended or a seek re-read the file.
func (s *Source) playHostPaced(ctx context.Context, timer *time.Timer, readErr error, events chan<- engine.Event) (ok bool, err error) {
	end := readErr != nil && readErr != pcap.ErrHostPending
	if !s.src.HostPending() && !end {
		return true, nil
	}
	return s.playHost(end, func(at time.Time, ev engine.Event) bool {
		if !s.pace(ctx, timer, at, events) {
			return false
		}
		s.advanceClock(at)
		select {
		case events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	})
}

// pace waits until the frame stamped at is due, handling the player's
// requests meanwhile (a pause holds it, a speed change recomputes the
// wait). It returns false when ctx ended or a seek re-read the file.
func (s *Source) pace(ctx context.Context, timer *time.Timer, at time.Time, events chan<- engine.Event) bool {
	for {
		var tc <-chan time.Time
		if !s.pausedNow() {
			d := s.wait(at)
			if d <= 0 {
				return true
			}
			timer.Reset(d)
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return false
		case <-tc:
		case c := <-s.ctl:
			timer.Stop()
			if to := s.handle(c); to != nil {
				s.seekTo(ctx, *to, events)
				return false
			}
		}
	}
}

// awaitSeek waits at the end of the file for the player's requests until
// a seek re-reads it (true) or ctx ends (false).
func (s *Source) awaitSeek(ctx context.Context, events chan<- engine.Event) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case c := <-s.ctl:
			if to := s.handle(c); to != nil {
				s.seekTo(ctx, *to, events)
				return true
			}
		}
	}
}

// seekTo re-runs the file up to pos and reports the position.
func (s *Source) seekTo(ctx context.Context, pos time.Duration, events chan<- engine.Event) {
	err := s.rewind(ctx, pos, events)
	s.mu.Lock()
	if err != nil && ctx.Err() == nil {
		s.pending = nil
	}
	if s.reqPos != nil && *s.reqPos == pos {
		s.reqPos = nil // the latest seek asked for is carried out
	}
	s.mu.Unlock()
	if s.post != nil {
		s.post.Progress(s.Progress())
	}
}
