// SPDX-License-Identifier: Apache-2.0

package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Progress is a replay's position and pacing, for the screen.
type Progress struct {
	// Source is the capture file's name (its base name).
	Source string
	// Position and Duration are the replay's progress in capture time;
	// Duration 0 means unknown.
	Position, Duration time.Duration
	// Frame and Frames count frames replayed and in the file (0: unknown).
	Frame, Frames int
	// Speed is the pacing: 1 recorded speed, 0 as fast as possible.
	Speed float64
	// Done: the end of the file (or a read error) was reached.
	Done bool
	// Paused: the player paused the replay.
	Paused bool
}

// A Poster receives what a replay reports beside its snapshots. Its
// methods are called from the run's goroutines and must not block.
type Poster interface {
	Progress(Progress)
	Error(error)
}

// A Source reads a capture file for a run: each frame is due its
// recorded gap to the latest timestamp so far, divided
// by the speed, after the previous one was sent; at speed 0 frames go as
// fast as the loop takes them. It is also the run's clock: the capture
// time reached, advancing at the speed between frames but never to the
// next frame's time, so that the loop's ticks expire information when it
// would have expired live, and never before a frame that refreshes it.
type Source struct {
	src   *pcap.Reader
	name  string
	speed float64
	post  Poster // nil: nobody follows the progress
	real  func() time.Time

	mu        sync.Mutex
	started   bool
	first     time.Time // the first frame's timestamp
	clockBase time.Time // the latest timestamp sent
	wallBase  time.Time // when the latest frame was sent
	nextAt    time.Time // the next frame's timestamp while it waits; zero otherwise
	status    Progress
	// paused stands the clock still (Pause); pending is a frame read
	// ahead by a seek, sent next.
	paused  bool
	pending *capture.Frame
	endAt   time.Time // the clock when the file ended
	// reqSpeed is a speed the player asked for and the goroutine has not
	// set yet.
	reqSpeed *float64
	// reqPaused and reqPos are the pause state and position requests not
	// yet carried out ask for.
	reqPaused *bool
	reqPos    *time.Duration

	// ctl carries the player's requests (Pause, StepSpeed, Seek);
	// interactive keeps Run after the end of the file, for a seek back;
	// reset starts the engine afresh before a seek re-runs the file
	// (SetPlayer).
	ctl         chan playerCmd
	interactive bool
	reset       func(context.Context)
	// ends maps an interface of a capture without direction to this
	// host's end of its link (engine.LocalEnds): frames from that address
	// are this host's, the others the peer's. peeked are the frames of a
	// stream read to find them, replayed first, and peekErr what ended
	// that reading.
	ends    map[string]lldp.MAC
	peeked  []capture.Frame
	peekErr error

	// host makes the engine's events of a dcbtop recording's host
	// packets (SetHost); delivered counts the frames handed on, which
	// the host packets read before them precede (pcap.HostPacket).
	host      HostFunc
	delivered int
}

// A HostFunc turns a host packet of a dcbtop recording (a netlink
// exchange's half, a host record) into the engine's events it completes
// (capture/tape: a round of reads replayed), in the file's order. end
// is called once at the end of the file, with a zero packet: the last
// chance to say that the recording was cut short. An error stops the
// replay: the recording is corrupt there.
type HostFunc func(p pcap.HostPacket, end bool) ([]engine.Event, error)

// SetHost makes fn the reader of the file's host packets (nil: they are
// read past). Call it before Run or Direct.
func (s *Source) SetHost(fn HostFunc) { s.host = fn }

// playHost hands the host packets that come before the next frame to
// s.host, and each event it makes to send, stamped with its packet's
// time; false from send stops it (ok false). At the end of the file
// (end), every packet left is played, then s.host's end.
func (s *Source) playHost(end bool, send func(at time.Time, ev engine.Event) bool) (ok bool, err error) {
	limit := s.delivered
	if end {
		limit = math.MaxInt
	}
	for {
		p, more := s.src.NextHost(limit)
		if !more {
			break
		}
		if s.host == nil {
			continue
		}
		evs, err := s.host(p, false)
		if err != nil {
			return false, err
		}
		for _, ev := range evs {
			if !send(p.At, ev) {
				return false, nil
			}
		}
	}
	if end && s.host != nil {
		if _, err := s.host(pcap.HostPacket{}, true); err != nil {
			return false, err
		}
	}
	return true, nil
}

// LocalEnds finds the LLDP speakers of the file's interfaces whose
// frames say no direction and decides how each is read (engine.LocalEnds,
// with ev: --local-mac, this host's addresses). A capture file is read
// whole first (scanEnds: a first pass that keeps the speakers,
// not the frames), so that an agent that starts late is an end, not a
// second peer; a stream (standard input, a FIFO), which can be read only
// once, is read for them as far as the longest TTL heard
// (capture.EndsScan), the frames kept for the replay. Frames without a
// recorded direction are then replayed as sent by the end found local
// (outgoing) or received from the others. It returns the engine's events
// saying so, for the run to apply before the first frame. Call it at most
// once, before Run or Direct.
func (s *Source) LocalEnds(ev engine.EndsEvidence) ([]engine.EndsAssumed, error) {
	var speakers []engine.LinkEnd
	if fi, err := os.Stat(s.name); s.name != "-" && err == nil && fi.Mode().IsRegular() {
		if speakers, err = scanEnds(s.name); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	} else {
		speakers = s.peekEnds()
	}
	ends, err := engine.LocalEnds(speakers, ev)
	if err != nil {
		return nil, err
	}
	s.ends = map[string]lldp.MAC{}
	for _, e := range ends {
		if e.Ends.LocalMAC != nil {
			s.ends[e.Interface] = *e.Ends.LocalMAC
		}
	}
	return ends, nil
}

// peekEnds reads the start of the file for the speakers of its links,
// keeping the frames it read.
func (s *Source) peekEnds() []engine.LinkEnd {
	var sc capture.EndsScan
	for {
		f, err := s.src.ReadFrame(context.Background())
		if err == pcap.ErrHostPending {
			break // a recording's host records: it records directions anyway
		}
		if err != nil {
			s.peekErr = err
			break
		}
		s.peeked = append(s.peeked, f)
		if !sc.Add(f) {
			break
		}
	}
	return sc.Ends()
}

// read returns the replay's next frame: the peeked ones first.
func (s *Source) read(ctx context.Context) (capture.Frame, error) {
	if len(s.peeked) > 0 {
		f := s.peeked[0]
		s.peeked[0] = capture.Frame{}
		s.peeked = s.peeked[1:]
		return f, nil
	}
	if err := s.peekErr; err != nil {
		s.peekErr = nil
		return capture.Frame{}, err
	}
	return s.src.ReadFrame(ctx)
}

// event is the engine's event for a replayed frame, its direction given
// by the link's ends where the capture records none.
func (s *Source) event(f capture.Frame) engine.FrameReceived {
	if f.Dir == capture.DirectionUnknown && len(s.ends) > 0 && len(f.Data) >= 12 {
		if local, ok := s.ends[f.Interface]; ok {
			f.Dir = capture.DirectionIncoming
			if lldp.MAC(f.Data[6:12]) == local {
				f.Dir = capture.DirectionOutgoing
			}
		}
	}
	return f.Event(f.Interface, f.At)
}

// Open opens the capture file at path (pcap or pcapng) for a replay at
// speed (1 recorded speed, 0 as fast as possible), its progress posted
// to post (nil: to nobody). With a poster, the file is scanned first for
// its frame count and duration (given up after 2 s). Close closes it.
func Open(path string, speed float64, post Poster) (*Source, error) {
	src, err := pcap.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Source{src: src, name: path, speed: speed, post: post, real: time.Now,
		status: Progress{Source: filepath.Base(path), Speed: speed}, ctl: make(chan playerCmd, 16)}
	if post != nil {
		frames, first, last := prescan(path, 2*time.Second)
		s.status.Frames = frames
		if frames > 0 {
			s.status.Duration = last.Sub(first)
		}
	}
	return s, nil
}

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

// Progress returns the replay's progress, its position at the clock.
func (s *Source) Progress() Progress {
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

// ended handles the read error that ended the file: nil at its end
// (io.EOF), else the error naming the file, which the poster gets too;
// either way the replay is done (end).
func (s *Source) ended(err error) error {
	var readErr error
	if !errors.Is(err, io.EOF) {
		readErr = fmt.Errorf("%s: %w", s.name, err)
		if s.post != nil {
			s.post.Error(readErr)
		}
	}
	s.end()
	return readErr
}

// end marks the replay done and posts its final progress.
func (s *Source) end() {
	s.mu.Lock()
	if s.started {
		// The clock stays at the last frame; on the screen it goes on
		// from there (nowLocked).
		s.wallBase, s.endAt = s.real(), s.clockBase
	}
	s.status.Done = true
	if s.status.Frames < s.status.Frame {
		s.status.Frames = s.status.Frame
	}
	s.mu.Unlock()
	if s.post != nil {
		s.post.Progress(s.Progress())
	}
}

func scaleDuration(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if v >= float64(1<<62) {
		return 1 << 62
	}
	return time.Duration(v)
}

// prescan counts the frames of a capture file and returns the first and
// last timestamps, for the replay's progress; it gives up (0 frames:
// unknown) after budget. A file cut short counts what can be read.
func prescan(path string, budget time.Duration) (frames int, first, last time.Time) {
	src, err := pcap.Open(path)
	if err != nil {
		return 0, first, last
	}
	defer src.Close()
	deadline := time.Now().Add(budget)
	ctx := context.Background()
	for {
		f, err := src.ReadFrame(ctx)
		if err == pcap.ErrHostPending {
			for _, ok := src.NextHost(math.MaxInt); ok; _, ok = src.NextHost(math.MaxInt) {
			}
			continue
		}
		if err != nil {
			return frames, first, last
		}
		if frames == 0 {
			first = f.At
		}
		if f.At.After(last) {
			last = f.At
		}
		frames++
		if frames%1024 == 0 && time.Now().After(deadline) {
			return 0, time.Time{}, time.Time{}
		}
	}
}
