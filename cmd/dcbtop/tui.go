// SPDX-License-Identifier: Apache-2.0

package main

// The interactive screen: a ui.Model in a tea.Program on the terminal,
// beside the goroutine that owns the engine (a live run's loop or a
// replay). The engine goroutine publishes snapshots to a feed.Feed and
// posts capture status and errors; the screen's Backend calls back into
// it. Nothing else writes to the terminal while the screen owns it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/replay"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/ui"
)

// A screen is what runScreen shows: the feed the engine goroutine
// publishes to, the poster it posts to, the backend and the initial
// capture status.
type screen struct {
	feed    *feed.Feed
	post    *poster
	backend ui.Backend
	status  ui.CaptureStatus
	player  ui.Player         // a replay's controls; nil live
	frames  *session.FrameLog // the run's every LLDPDU (the frames view); nil: none
}

// XTWINOPS: save the window and icon titles on the terminal's stack, and
// restore them.
const (
	pushTitle = "\x1b[22;0t"
	popTitle  = "\x1b[23;0t"
)

// runScreen runs the screen on the terminal (env.Stdout) while engineLoop
// runs in a goroutine of its own, and returns when the operator quits (q,
// Ctrl-C), a signal cancels ctx, or engineLoop asks to quit. engineLoop is
// then cancelled and waited for, so a live run's shutdown (the agents'
// shutdown LLDPDUs, control sockets removed, -w closed) happens before
// runScreen returns. The terminal is restored in every case, a panic
// included; the error is reported after that.
//
// engineLoop must return when its context is done. When it returns by
// itself with an error, the screen shows it and stays until the operator
// quits (the error is returned then); without an error the screen quits
// (live --duration).
func runScreen(ctx context.Context, o *options, env Env, sc screen, engineLoop func(context.Context) error) error {
	// A locale whose character set is not UTF-8 (LANG=C) gets the
	// screen in ASCII, as htop does.
	opts := []ui.Option{ui.WithBackend(sc.backend), ui.WithColor(o.color), ui.WithCapture(sc.status), ui.WithClock(o.clock.Now),
		ui.WithMouse(!o.noMouse), ui.WithASCII(ui.ASCIILocale(os.Getenv))}
	if sc.player != nil {
		opts = append(opts, ui.WithPlayer(sc.player))
	}
	if sc.frames != nil {
		opts = append(opts, ui.WithFrames(sc.frames))
	}
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
	environ := os.Environ()
	if o.color == ui.ColorAlways {
		environ = withoutEnv(environ, "NO_COLOR") // colours despite NO_COLOR
	}
	tty, err := openTerminal(env, environ)
	if err != nil {
		return err
	}
	defer tty.close()
	popts := append([]tea.ProgramOption{tea.WithOutput(env.Stdout), tea.WithoutSignalHandler(), tea.WithEnvironment(environ)},
		tty.programOptions()...)
	popts = append(popts, extraProgramOptions...)
	p := tea.NewProgram(tty.painter.Wrap(model), popts...)
	defer tty.watchSize(env.Stdout, p)()
	defer tuneScreen()()

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
		sc.feed.Close()
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
	// The screen sets the window title ("dcbtop: eth0"): the terminal's
	// own is pushed on its title stack first and popped afterwards
	// (XTWINOPS 22;0 and 23;0; terminals without a stack ignore them).
	io.WriteString(env.Stdout, pushTitle)
	_, runErr := p.Run()
	if err := tty.close(); err != nil && runErr == nil {
		runErr = err
	}
	io.WriteString(env.Stdout, popTitle)
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

// runLive runs a live capture (the demo's too): on the screen, or
// headless with the outputs the flags asked for.
func runLive(ctx context.Context, o *options, env Env) error {
	root, err := sysfsRoot()
	if err != nil {
		return err
	}
	o.sysfsRoot = root
	if o.ethtoolRoot, err = ethtoolRoot(); err != nil {
		return err
	}
	cfg := session.Config{Interfaces: o.ifaces, Links: o.links, Open: o.openLive, Clock: o.clock,
		Duration: o.duration, Agent: o.agent, LocalParams: o.localParams, Local: o.local, Willing: o.willing, WillingSet: o.willingSet,
		TxInterval: o.txInterval, Force: o.force, NoControl: o.noControl, Record: o.write, Metrics: o.metricsListen(),
		CountersInterval: o.countersEvery, SysfsRoot: o.sysfsRoot, EthtoolRoot: o.ethtoolRoot, Sampler: o.sampler, ConfigFS: o.configFS,
		Screen: o.tui, Events: o.events, TextEvents: o.textEvents, JSON: o.json, Out: env.Stdout, Version: version, Revision: revision,
		// A run until stopped (an exporter, the screen) answers dcbtop
		// show and check on its interfaces' view sockets.
		View: o.duration == 0}
	if !o.tui {
		cfg.Warn = env.Stderr
	}
	if o.frames {
		// The LLDPDUs, not the final snapshot, on stdout.
		cfg.JSON, cfg.Frames = false, liveFrames(o, env)
	}
	if !o.noControl { // the demo (no control socket) keeps nothing: it leaves no file behind
		st := statedir.Default()
		cfg.State = &st
	}
	return runRuntime(ctx, o, env, cfg, func(rt *session.Runtime) screen {
		sc := screen{feed: rt.Feed(), post: o.post, backend: rt.Backend(o.snapshotDir), frames: rt.Frames()}
		if sc.post == nil {
			sc.post = newPoster()
		}
		host, _ := os.Hostname()
		sc.status = ui.CaptureStatus{Mode: ui.CaptureLive, Source: host, Demo: o.demo, Ages: true}
		if o.banner != "" || o.demo != nil {
			sc.status.Source = o.banner
		}
		return sc
	})
}

// runReplay replays a capture file through the runtime: on the screen,
// paced at --speed, or headless.
func runReplay(ctx context.Context, o *options, env Env) error {
	release, err := waitFIFO(ctx, o.read)
	if err != nil {
		return err
	}
	defer release()
	if o.frames {
		return runFrames(ctx, o, env)
	}
	cfg := session.Config{Replay: o.read, LocalMAC: o.localMAC, Speed: o.speed, Screen: o.tui, Events: o.events, TextEvents: o.textEvents, JSON: o.json,
		Out: env.Stdout, Version: version, Revision: revision}
	if !o.tui {
		cfg.Warn = env.Stderr
	}
	post := newPoster()
	if o.tui {
		cfg.Post = replayPoster{post}
	}
	return runRuntime(ctx, o, env, cfg, func(rt *session.Runtime) screen {
		return screen{feed: rt.Feed(), post: post, status: replayStatus(rt.ReplayProgress()), backend: rt.Backend(o.snapshotDir),
			player: rt.Player(), frames: rt.Frames()}
	})
}

// runRuntime starts the run cfg describes and runs it on the screen
// screenOf describes, or headless (after the not-a-terminal notice, once
// the run's sources are open), then releases it.
func runRuntime(ctx context.Context, o *options, env Env, cfg session.Config, screenOf func(*session.Runtime) screen) error {
	rt, err := session.Start(cfg)
	if err != nil {
		return err
	}
	if o.tui {
		err = runScreen(ctx, o, env, screenOf(rt), rt.Loop)
	} else {
		o.announce(env)
		err = rt.Loop(ctx)
	}
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	return err
}

// replayPoster posts a screen replay's progress and errors to the screen.
type replayPoster struct{ *poster }

// Progress posts the replay's position as the screen's capture status.
func (p replayPoster) Progress(r replay.Progress) { p.setStatus(replayStatus(r)) }

// Error posts an error for the status line.
func (p replayPoster) Error(err error) { p.error(err) }

// replayStatus is the screen's capture status of a replay's progress.
func replayStatus(r replay.Progress) ui.CaptureStatus {
	return ui.CaptureStatus{Mode: ui.CaptureReplay, Source: r.Source, Position: r.Position, Duration: r.Duration,
		Frame: r.Frame, Frames: r.Frames, Speed: r.Speed, Done: r.Done, Paused: r.Paused}
}

// screenFPS is the most frames a second the screen draws (ui/paint):
// views that change faster, a replay at speed or a held key, are drawn
// together. A change after a quiet moment is drawn at once; nothing is
// drawn, and nothing wakes up, while the view stays the same.
const screenFPS = 12

// tuneScreen sets the Go runtime for the screen, unless the GOMAXPROCS
// or GOGC environment variables say otherwise, and returns what undoes
// it. The screen's work (a frame in under a millisecond, an LLDPDU in
// under a microsecond) needs no second processor, and with one a wake-up
// stirs one thread instead of two. Its live heap is small (a few MB),
// and the default
// GOGC lets the heap grow to twice that between collections: at
// screenGOGC the idle screen's resident memory is about 1.5 MB lower for
// a collection every few seconds of a busy screen.
func tuneScreen() (undo func()) {
	procs, gc := -1, -1
	if os.Getenv("GOMAXPROCS") == "" {
		procs = runtime.GOMAXPROCS(screenProcs)
	}
	if os.Getenv("GOGC") == "" {
		gc = debug.SetGCPercent(screenGOGC)
	}
	return func() {
		if procs > 0 {
			runtime.GOMAXPROCS(procs)
		}
		if gc != -1 {
			debug.SetGCPercent(gc)
		}
	}
}

// screenProcs is GOMAXPROCS and screenGOGC the GC percentage while the
// screen runs (tuneScreen).
const (
	screenProcs = 1
	screenGOGC  = 50
)
