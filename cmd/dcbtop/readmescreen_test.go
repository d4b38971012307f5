// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/demo"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/ui"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's picture of the screen from the demo")

// The README's picture of the screen sits between these lines, in a code
// block.
const (
	pictureStart = "<!-- screen: go test ./cmd/dcbtop -run TestREADMEScreen -update-readme -->\n```\n"
	pictureEnd   = "```\n<!-- end of screen -->\n"
)

// When and how large the README's picture of the demo is: 37 s into the
// scenario, leaf-1's new ETS recommendation is in force and the log holds
// every indication before it.
const (
	pictureAt          = 37 * time.Second
	pictureW, pictureH = 120, 30
)

// TestREADMEScreen: the README's picture of the screen is what `dcbtop
// demo` draws at 120x30, pictureAt into its scenario: the simulated switch,
// the host's agent and the engine run as `dcbtop demo` runs them without
// root (an in-memory link), on synctest's clock, and the screen is the ui
// package's Model given the snapshot and the demo's status, in plain text.
// -update-readme rewrites the picture; the cells timingCells names are
// compared masked.
func TestREADMEScreen(t *testing.T) {
	got := demoScreen(t, pictureAt, pictureW, pictureH)
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, pictureStart), strings.Index(s, pictureEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no picture of the screen between %q and %q", pictureStart, pictureEnd)
	}
	cur := s[i+len(pictureStart) : j]
	if *updateReadme {
		if err := os.WriteFile(readmePath, []byte(s[:i+len(pictureStart)]+got+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(maskTiming(cur), maskTiming(got)); diff != "" {
		t.Errorf("README.md's picture of the screen is not what the demo draws (go test ./cmd/dcbtop -run TestREADMEScreen -update-readme) (-README +demo):\n%s", diff)
	}
}

// demoScreen runs the demo as demoRun does without root (keep the two in
// step), in a synctest bubble, and returns its w x h screen at at into the
// scenario, after keys (typed one by one), as runScreen's Model draws it:
// plain text, trailing spaces and blank last lines cut.
func demoScreen(t *testing.T, at time.Duration, w, h int, keys ...rune) string {
	return demoScreenAfter(t, 0, at, w, h, keys...)
}

// demoScreenAfter is demoScreen with this host's run started hostAfter
// after the simulated switch: its counters samples then fall between the
// switch's frames, never at the instant a frame publishes a snapshot, so
// that which samples a snapshot holds does not depend on which of two
// goroutines runs first (a sample only moves counts: it waits for the
// next publish, session.countsOnly).
func demoScreenAfter(t *testing.T, hostAfter, at time.Duration, w, h int, keys ...rune) string {
	var out string
	synctest.Test(t, func(t *testing.T) {
		sc, err := demo.Load()
		if err != nil {
			t.Fatal(err)
		}
		o := &options{tui: true, color: ui.ColorNever}
		o.demoStart = time.Now()
		o.clock = capture.ScaledClock(o.demoStart, 1)
		o.agent, o.force, o.txInterval, o.noControl = true, true, time.Second, true
		o.willing, o.localParams = sc.Host.Willing, sc.Host.Params
		dctx, stop := context.WithCancel(t.Context())
		defer stop()
		host, link := demo.NewMemLink(sc.Host.MAC)
		o.banner = "in-memory link (not root)"
		var (
			mu   sync.Mutex
			prog = demo.NewProgress(sc)
		)
		nic := demo.NewNIC(o.clock)
		done := make(chan error, 1)
		go func() {
			done <- demo.Run(dctx, link, sc, true, demo.WithClock(o.clock), demo.WithNIC(nic), demo.WithObserver(func(ev demo.Event) {
				mu.Lock()
				prog.Observe(ev)
				mu.Unlock()
			}))
		}()
		time.Sleep(hostAfter)
		rt, err := session.Start(session.Config{Links: []capture.Link{host.Link()},
			Open:  func(string) (session.Conn, error) { return stopOnClose{host, stop}, nil },
			Clock: o.clock, Agent: o.agent, LocalParams: o.localParams, Willing: o.willing, TxInterval: o.txInterval,
			Force: o.force, NoControl: o.noControl, CountersInterval: session.DefaultCountersInterval, Screen: true,
			Sampler: nic, ConfigFS: nic.ConfigFS()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		loopDone := make(chan error, 1)
		go func() { loopDone <- rt.Loop(ctx) }()

		time.Sleep(at - hostAfter)
		synctest.Wait()
		snap, ok := rt.Feed().Snapshot()
		if !ok {
			t.Fatal("the demo published no snapshot")
		}
		mu.Lock()
		status := demoStatus(o, prog)
		mu.Unlock()

		snaps := make(chan engine.Snapshot, 1)
		snaps <- snap
		d := &teaDriver{msgs: make(chan tea.Msg, 64)}
		d.m = ui.NewModel(snaps, ui.WithBackend(rt.Backend(t.TempDir())), ui.WithColor(o.color), ui.WithCapture(status),
			ui.WithClock(o.clock.Now), ui.WithInterface(demo.MemIfname), ui.WithLocation(time.UTC))
		d.run(d.m.Init())
		d.send(tea.WindowSizeMsg{Width: w, Height: h})
		d.settle()
		for _, k := range keys {
			d.send(tea.KeyPressMsg{Code: k, Text: string(k)})
			d.settle()
		}
		out = plainScreen(d.m.View().Content)
		close(snaps)

		cancel()
		if err := <-loopDone; err != nil && ctx.Err() == nil {
			t.Errorf("loop: %v", err)
		}
		stop()
		if err := rt.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		<-done
		// The screen's 1 Hz tick (Init) is still armed: let it fire.
		time.Sleep(2 * time.Second)
	})
	return out
}

// plainScreen is a screen as text: no escape sequences, no trailing
// spaces, no blank lines at the end.
func plainScreen(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\n"
}

// A teaDriver runs a tea.Model without a program: each command in a
// goroutine of the synctest bubble, its message back to Update.
type teaDriver struct {
	m    tea.Model
	msgs chan tea.Msg
}

func (d *teaDriver) run(cmd tea.Cmd) {
	if cmd != nil {
		go func() { d.msgs <- cmd() }()
	}
}

func (d *teaDriver) send(msg tea.Msg) {
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			d.run(c)
		}
		return
	}
	m, cmd := d.m.Update(msg)
	d.m = m
	d.run(cmd)
}

// settle delivers messages until every command left waits (on the
// clock, which does not move, or on a channel).
func (d *teaDriver) settle() {
	for {
		synctest.Wait()
		select {
		case msg := <-d.msgs:
			d.send(msg)
		default:
			return
		}
	}
}

// timingCells are the cells of a demo screen that depend on which of two
// goroutines runs first at one instant of synctest's clock (a switch's
// frame and the host's, both due at the same time): the peer's age, TTL
// left and frame counts move by one between runs.
var timingCells = []*regexp.Regexp{
	regexp.MustCompile(`TTL \[[█░]+\] \d+s/\d+s`),
	regexp.MustCompile(`\d+s/\d+s +\d+s ago +\d+`),
	regexp.MustCompile(`\d+ frames, last \d+s ago`),
}

// maskTiming replaces timingCells with # of the same width.
func maskTiming(s string) string {
	for _, re := range timingCells {
		s = re.ReplaceAllStringFunc(s, func(m string) string { return strings.Repeat("#", utf8.RuneCountInString(m)) })
	}
	return s
}

// The demo shows the RoCE side at the sizes operators use: at 160x48 the
// lossless view (l) 45 s in (leaf-1 has stopped PFC on priority 3: drops in a
// burst, the ToS that reaches no PFC priority), and at 80x24 the lossless
// view (l) 80 s in (RoCE moved to priority 0 by a ToS of 0, f proposes
// the fix). At 80x24 the time comes 0.3 s after two samples of the same
// burst second, so that the screen is the same whether the last sample
// made the snapshot of its instant or the next (two goroutines at one
// synctest instant). At 160x48 the sparklines show it (while the 60 s
// history fills, one sample more is one cell more), so the host starts
// half a second after the switch (demoScreenAfter) and its samples never
// meet a publish. Goldens in testdata/, rewritten with -update.
func TestDemoScreens(t *testing.T) {
	for _, tc := range []struct {
		name          string
		hostAfter, at time.Duration
		w, h          int
		keys          []rune
	}{
		{"demo-160x48-lossless", 500 * time.Millisecond, 45*time.Second + 300*time.Millisecond, 160, 48, []rune{'l'}},
		{"demo-80x24-lossless", 0, 80*time.Second + 300*time.Millisecond, 80, 24, []rune{'l'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, filepath.Join("testdata", tc.name+".golden"), maskTiming(demoScreenAfter(t, tc.hostAfter, tc.at, tc.w, tc.h, tc.keys...)))
		})
	}
}
