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
