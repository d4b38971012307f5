package cli

// The interactive screen: a ui.Model in a tea.Program on the terminal,
// beside the goroutine that owns the engine (a live run's loop or a
// replay). The engine goroutine publishes snapshots to a snapFeed and
// posts capture status and errors; the screen's Backend calls back into
// it. Nothing else writes to the terminal while the screen owns it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/ui"
)

// A screen is what runScreen shows: the feed the engine goroutine
// publishes to, the poster it posts to, the backend and the initial
// capture status.
type screen struct {
	feed    *snapFeed
	post    *poster
	backend ui.Backend
	status  ui.CaptureStatus
}

// runScreen runs the screen on the terminal (env.Stdout) while engine runs
// in a goroutine of its own, and returns when the operator quits (q,
// Ctrl-C), a signal cancels ctx, or engine asks to quit. engine is then
// cancelled and waited for, so a live run's shutdown (the agents' shutdown
// LLDPDUs, control sockets removed, -w closed) happens before runScreen
// returns. The terminal is restored in every case, a panic included; the
// error is reported after that.
//
// engine must return when its context is done. When it returns by itself
// with an error, the screen shows it and stays until the operator quits
// (the error is returned then); without an error the screen quits (live
// --duration).
func runScreen(ctx context.Context, o *options, env Env, sc screen, engineLoop func(context.Context) error) error {
	opts := []ui.Option{ui.WithBackend(sc.backend), ui.WithColor(o.color), ui.WithCapture(sc.status), ui.WithClock(o.clock.Now)}
	if len(o.ifaces) > 0 {
		opts = append(opts, ui.WithInterface(o.ifaces[0]))
	}
	model := ui.NewModel(sc.feed.C(), opts...)
	// SIGINT and SIGTERM cancel ctx (cmd/dcbtop); the program is then
	// asked to quit, as with q, and restores the terminal. Neither
	// tea.WithContext nor Bubble Tea's own signal handler: a cancelled
	// context takes Bubble Tea's kill path, which closes the terminal
	// under its input reader (a data race), and its handler would race
	// ctx and can block its shutdown (its send of the quit message has no
	// way out once the event loop has returned).
	popts := []tea.ProgramOption{tea.WithOutput(env.Stdout), tea.WithoutSignalHandler()}
	if env.Stdin != nil {
		popts = append(popts, tea.WithInput(env.Stdin))
	}
	popts = append(popts, extraProgramOptions...)
	if o.color == ui.ColorAlways {
		// Bubble Tea would drop the colours under NO_COLOR.
		popts = append(popts, tea.WithEnvironment(withoutEnv(os.Environ(), "NO_COLOR")))
	}
	p := tea.NewProgram(model, popts...)

	postCtx, stopPost := context.WithCancel(context.Background())
	postDone := make(chan struct{})
	go func() {
		defer close(postDone)
		sc.post.run(postCtx, p.Send)
	}()

	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	var (
		loopErr  error
		panicked any
		stack    []byte
	)
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		defer func() {
			if v := recover(); v != nil {
				panicked, stack = v, debug.Stack()
				sc.post.requestQuit()
			}
		}()
		loopErr = engineLoop(loopCtx)
		sc.feed.close()
		if loopCtx.Err() != nil {
			return
		}
		if loopErr != nil {
			st := sc.status
			st.Done = true
			sc.post.error(loopErr)
			sc.post.setStatus(st)
			return
		}
		sc.post.requestQuit()
	}()

	runDone := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.Quit() // does nothing once the program has ended
		case <-runDone:
		}
	}()
	_, runErr := p.Run()
	close(runDone)
	stopLoop()
	<-loopDone
	stopPost()
	<-postDone

	if panicked != nil {
		fmt.Fprintf(env.Stderr, "dcbtop: panic: %v\n%s", panicked, stack)
		return errors.New("internal error (the trace is above; please report it)")
	}
	switch {
	case runErr == nil:
	case errors.Is(runErr, tea.ErrProgramPanic):
		return errors.New("internal error in the screen (the trace is above; please report it)")
	default:
		return fmt.Errorf("terminal: %w", runErr)
	}
	return loopErr
}

// extraProgramOptions are added to the program's options (tests: a window
// size without a terminal).
var extraProgramOptions []tea.ProgramOption

// withoutEnv returns env without the variable name.
func withoutEnv(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// runTUI runs the live screen: the engine loop beside it.
func (r *liveRun) runTUI(ctx context.Context, ifaces []*liveIface) error {
	if r.feed == nil {
		r.feed = newSnapFeed()
	}
	sc := screen{feed: r.feed, post: r.o.post}
	if sc.post == nil {
		sc.post = newPoster()
	}
	r.dirty = true
	r.flush() // the screen has a snapshot from the start
	sc.backend = newBackend(r.o.snapshotDir, sc.feed.snapshot, r)
	host, _ := os.Hostname()
	sc.status = ui.CaptureStatus{Mode: ui.CaptureLive, Source: host, Demo: r.o.demo}
	if r.o.banner != "" || r.o.demo != nil {
		sc.status.Source = r.o.banner
	}
	return runScreen(ctx, r.o, r.env, sc, func(ctx context.Context) error { return r.loop(ctx, ifaces) })
}

// runReplayTUI replays a capture on the screen, paced at --speed.
func runReplayTUI(ctx context.Context, o *options, env Env) error {
	src, err := capture.OpenReplay(o.read, capture.ReplayOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", o.read, err)
	}
	defer src.Close()
	frames, first, last := prescan(o.read, 2*time.Second)
	rp := &replayer{src: src, name: o.read, eng: engine.New(engine.Config{}), speed: o.speed,
		feed: newSnapFeed(), post: newPoster(), now: time.Now,
		status: ui.CaptureStatus{Mode: ui.CaptureReplay, Source: filepath.Base(o.read), Frames: frames, Speed: o.speed}}
	if frames > 0 {
		rp.status.Duration = last.Sub(first)
	}
	sc := screen{feed: rp.feed, post: rp.post, status: rp.status,
		backend: newBackend(o.snapshotDir, rp.feed.snapshot, nil)}
	return runScreen(ctx, o, env, sc, rp.run)
}

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

// A replayer feeds a capture file to the engine for the screen, at the
// replay speed: each frame is due its recorded gap to the latest
// timestamp so far, divided by the speed, after the previous one was
// applied (as capture.ReplayOptions.Speed paces). Between frames, a tick
// a second brings the engine's clock to the capture time reached (never
// past the next frame), so information expires on screen when it would
// have live; a snapshot and the position go to the screen with it. At the
// end of the file (or a read error) it stops and waits for the screen.
type replayer struct {
	src    *capture.Replay
	name   string
	eng    *engine.Engine
	speed  float64
	feed   *snapFeed
	post   *poster
	status ui.CaptureStatus
	now    func() time.Time
	dirty  bool
	// fresh: a frame refreshed a peer (its TTL) without changing the
	// engine; published at most every freshEvery.
	fresh   bool
	lastPub time.Time
	// tickEvery is how often the screen gets a snapshot and the position
	// between frames (1 s; tests shorten it).
	tickEvery time.Duration

	first     time.Time // the first frame's timestamp
	clockBase time.Time // the latest timestamp applied
	wallBase  time.Time // when the latest frame was applied
	started   bool
}

// run replays until the end of the file, then waits for ctx; it returns
// a read error (after the screen has shown it) or nil.
func (rp *replayer) run(ctx context.Context) error {
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
	rp.post.setStatus(rp.status)
	var readErr error
	for {
		f, err := rp.src.ReadFrame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("%s: %w", rp.name, err)
				rp.post.error(readErr)
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
	rp.post.setStatus(rp.status)
	<-ctx.Done()
	return readErr
}

// due returns the wall clock time a frame stamped at is due.
func (rp *replayer) due(at time.Time) time.Time {
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
func (rp *replayer) frame(f capture.Frame) {
	if !rp.started {
		rp.started, rp.first, rp.clockBase = true, f.At, f.At
	}
	if f.At.After(rp.clockBase) {
		rp.clockBase = f.At
	}
	rp.wallBase = rp.now()
	if ins := rp.eng.Apply(engine.FrameReceived{Interface: f.Interface, At: f.At,
		Outgoing: f.Dir == capture.DirectionOutgoing, Data: f.Data}); len(ins) > 0 {
		rp.dirty = true
	}
	rp.fresh = true
	rp.status.Frame++
	rp.status.Position = rp.clockBase.Sub(rp.first)
	rp.post.setStatus(rp.status)
}

// tickTo advances the engine's clock to the capture time reached, short of
// the next frame (stamped next), and publishes a snapshot and the
// position (the 1 Hz update).
func (rp *replayer) tickTo(next time.Time) {
	if rp.started && rp.speed > 0 {
		c := rp.clockBase.Add(scaleDuration(rp.now().Sub(rp.wallBase), rp.speed))
		if c.Before(next) && c.After(rp.eng.Now()) {
			rp.eng.Apply(engine.Tick{At: c})
			rp.status.Position = c.Sub(rp.first)
			rp.post.setStatus(rp.status)
		}
	}
	rp.dirty = true
	rp.flush()
}

// freshEvery is how often, at most, a frame that changed nothing but a
// peer's TTL is published (the screen counts TTLs down from the last
// snapshot: without it, a peer sending every second with TTL 4 would
// seem to expire at ×4).
const freshEvery = 100 * time.Millisecond

// flush publishes a snapshot when the engine changed, or a frame
// refreshed a peer and the last snapshot is older than freshEvery.
func (rp *replayer) flush() {
	now := rp.now()
	if rp.dirty || (rp.fresh && now.Sub(rp.lastPub) >= freshEvery) {
		rp.dirty, rp.fresh, rp.lastPub = false, false, now
		rp.feed.publish(rp.eng.Snapshot())
	}
}
