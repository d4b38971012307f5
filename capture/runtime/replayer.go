package runtime

// The screen's replay: a capture file fed to the engine at the replay
// speed, with snapshots for the screen and its progress beside them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
)

// ReplayProgress is a screen replay's position and pacing.
type ReplayProgress struct {
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
}

// A Poster receives what a screen replay reports beside its snapshots.
// Its methods are called from the replay's goroutine and must not block.
type Poster interface {
	Progress(ReplayProgress)
	Error(error)
}

// NewReplayer opens path for the screen, paced at speed (1 recorded
// speed, 0 as fast as possible), reporting to post. Its progress starts
// with the frame count and duration a quick scan found.
func NewReplayer(path string, speed float64, post Poster) (*Replayer, error) {
	src, err := capture.OpenReplay(path, capture.ReplayOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	frames, first, last := prescan(path, 2*time.Second)
	rp := &Replayer{src: src, name: path, eng: engine.New(engine.Config{}), speed: speed,
		publisher: publisher{feed: NewFeed()}, post: post, now: time.Now,
		status: ReplayProgress{Source: filepath.Base(path), Frames: frames, Speed: speed}}
	if frames > 0 {
		rp.status.Duration = last.Sub(first)
	}
	return rp, nil
}

// Feed returns the feed the replay publishes snapshots to.
func (rp *Replayer) Feed() *Feed { return rp.feed }

// Progress returns the progress before the replay starts.
func (rp *Replayer) Progress() ReplayProgress { return rp.status }

// Close closes the capture file.
func (rp *Replayer) Close() error { return rp.src.Close() }

// prescan counts the frames of a capture file and returns the first and
// last timestamps, for the replay's progress; it gives up (0 frames:
// unknown) after budget. A file cut short counts what can be read.
func prescan(path string, budget time.Duration) (frames int, first, last time.Time) {
	src, err := capture.OpenReplay(path, capture.ReplayOptions{})
	if err != nil {
		return 0, first, last
	}
	defer src.Close()
	deadline := time.Now().Add(budget)
	ctx := context.Background()
	for {
		f, err := src.ReadFrame(ctx)
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

// A Replayer feeds a capture file to the engine for the screen, at the
// replay speed: each frame is due its recorded gap to the latest
// timestamp so far, divided by the speed, after the previous one was
// applied (as capture.ReplayOptions.Speed paces). Between frames, a tick
// a second brings the engine's clock to the capture time reached (never
// past the next frame), so information expires on screen when it would
// have live; a snapshot and the position go to the screen with it. At the
// end of the file (or a read error) it stops and waits for the screen.
type Replayer struct {
	src    *capture.Replay
	name   string
	eng    *engine.Engine
	speed  float64
	post   Poster
	status ReplayProgress
	now    func() time.Time
	publisher
	// tickEvery is how often the screen gets a snapshot and the position
	// between frames (1 s; tests shorten it).
	tickEvery time.Duration

	first     time.Time // the first frame's timestamp
	clockBase time.Time // the latest timestamp applied
	wallBase  time.Time // when the latest frame was applied
	started   bool
}

// Run replays until the end of the file, then waits for ctx; it returns
// a read error (after the screen has shown it) or nil.
func (rp *Replayer) Run(ctx context.Context) error {
	if rp.tickEvery <= 0 {
		rp.tickEvery = time.Second
	}
	tick := time.NewTicker(rp.tickEvery)
	defer tick.Stop()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	rp.dirty = true
	rp.flush()
	rp.post.Progress(rp.status)
	var readErr error
	for {
		f, err := rp.src.ReadFrame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("%s: %w", rp.name, err)
				rp.post.Error(readErr)
			}
			break
		}
		due := rp.due(f.At)
		for waiting := true; waiting; {
			d := due.Sub(rp.now())
			if d <= 0 {
				break
			}
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
				waiting = false
			case <-tick.C:
				rp.tickTo(f.At)
			}
			timer.Stop()
		}
		rp.frame(f)
		select {
		case <-tick.C:
			rp.dirty = true
		default:
		}
		rp.flush()
	}
	// The end: the final state and position, then wait for the screen.
	rp.status.Done = true
	if rp.status.Frames == 0 || rp.status.Frames < rp.status.Frame {
		rp.status.Frames = rp.status.Frame
	}
	rp.dirty = true
	rp.flush()
	rp.post.Progress(rp.status)
	<-ctx.Done()
	return readErr
}

// due returns the wall clock time a frame stamped at is due.
func (rp *Replayer) due(at time.Time) time.Time {
	now := rp.now()
	if rp.speed <= 0 || !rp.started {
		return now
	}
	gap := at.Sub(rp.clockBase)
	if gap <= 0 {
		return now
	}
	return rp.wallBase.Add(scaleDuration(gap, 1/rp.speed))
}

func scaleDuration(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if v >= float64(1<<62) {
		return 1 << 62
	}
	return time.Duration(v)
}

// frame applies one frame.
func (rp *Replayer) frame(f capture.Frame) {
	if !rp.started {
		rp.started, rp.first, rp.clockBase = true, f.At, f.At
	}
	if f.At.After(rp.clockBase) {
		rp.clockBase = f.At
	}
	rp.wallBase = rp.now()
	if ins := rp.eng.Apply(frameEvent(f.Interface, f, f.At)); len(ins) > 0 {
		rp.dirty = true
	}
	rp.fresh = true
	rp.status.Frame++
	rp.status.Position = rp.clockBase.Sub(rp.first)
	rp.post.Progress(rp.status)
}

// tickTo advances the engine's clock to the capture time reached, short of
// the next frame (stamped next), and publishes a snapshot and the
// position (the 1 Hz update).
func (rp *Replayer) tickTo(next time.Time) {
	if rp.started && rp.speed > 0 {
		c := rp.clockBase.Add(scaleDuration(rp.now().Sub(rp.wallBase), rp.speed))
		if c.Before(next) && c.After(rp.eng.Now()) {
			rp.eng.Apply(engine.Tick{At: c})
			rp.status.Position = c.Sub(rp.first)
			rp.post.Progress(rp.status)
		}
	}
	rp.dirty = true
	rp.flush()
}

// flush publishes a snapshot when the engine changed, or a frame
// refreshed a peer and the last snapshot is older than freshEvery.
func (rp *Replayer) flush() { rp.publisher.flush(rp.now(), rp.eng) }
