// SPDX-License-Identifier: Apache-2.0

package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/replay"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
)

// headlessUpTo is the snapshot of a straight replay of file up to the
// first frame's time plus pos (the whole file for a negative pos).
func headlessUpTo(t *testing.T, file string, pos time.Duration) engine.Snapshot {
	t.Helper()
	src, err := replay.Open(file, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	eng := engine.New(engine.Config{Replay: true, NeighborEvents: true, Judge: check.Judge}) // as a replay runs it
	ends, err := src.LocalEnds(engine.EndsEvidence{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ends {
		eng.Apply(e)
	}
	var first time.Time
	err = src.Direct(context.Background(), func(f engine.FrameReceived) bool {
		if first.IsZero() {
			first = f.At
		}
		if pos >= 0 && f.At.After(first.Add(pos)) {
			return false
		}
		eng.Apply(f)
		return true
	}, func(engine.Event) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return eng.Snapshot()
}

// screenReplay starts a screen's replay of file at recorded speed, its
// progress posted to rec; a t.Cleanup closes it.
func screenReplay(t *testing.T, file string, rec *recPoster) *Runtime {
	t.Helper()
	rt, err := Start(Config{Replay: file, Speed: 1, Screen: true, Post: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// The screen's replay as a player: paused, a seek re-runs the engine from
// the start up to the target and the screen then shows what a straight
// replay shows there; forward and back; restart; the speed steps.
func TestPlayerSeek(t *testing.T) {
	const file = "../../assets/demo.pcap"
	rec := newRecPoster()
	rt := screenReplay(t, file, rec)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Loop(ctx) }()
	defer func() { cancel(); <-done }()
	pl := rt.Player()
	pl.TogglePause()
	waitProgress(t, rec, func(p replay.Progress) bool { return p.Paused })

	latest := func() engine.Snapshot {
		var s engine.Snapshot
		deadline := time.After(5 * time.Second)
		for {
			select {
			case s = <-rt.Feed().C():
			case <-time.After(300 * time.Millisecond):
				return s
			case <-deadline:
				t.Fatal("no snapshot")
			}
		}
	}
	for _, pos := range []time.Duration{25 * time.Second, 45 * time.Second, 12 * time.Second} {
		pl.Seek(pos - rt.replay.Position())
		waitProgress(t, rec, func(p replay.Progress) bool { return p.Position == pos })
		got, want := latest(), headlessUpTo(t, file, pos)
		if diff := cmp.Diff(want.Indications, got.Indications); diff != "" {
			t.Errorf("seek to %v: indications differ from a straight replay (-straight +seek):\n%s", pos, diff)
		}
		if diff := cmp.Diff(want.Interfaces[0].Remote, got.Interfaces[0].Remote); diff != "" {
			t.Errorf("seek to %v: remote differs (-straight +seek):\n%s", pos, diff)
		}
	}
	pl.Restart()
	waitProgress(t, rec, func(p replay.Progress) bool { return p.Position == 0 && p.Frame == 1 })
	if got := len(latest().Indications); got != len(headlessUpTo(t, file, 0).Indications) {
		t.Errorf("restart: %d indications", got)
	}
	if s := pl.Faster(); s != 2 {
		t.Errorf("faster from ×1: ×%g, want ×2", s)
	}
	waitProgress(t, rec, func(p replay.Progress) bool { return true })
	if s := pl.Slower(); s != 1 {
		t.Errorf("slower from ×2: ×%g, want ×1", s)
	}
}

// waitProgress waits for a progress report cond accepts.
func waitProgress(t *testing.T, rec *recPoster, cond func(replay.Progress) bool) replay.Progress {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-rec.progress:
			if cond(p) {
				return p
			}
		case <-deadline:
			t.Fatal("no such progress within 10 s")
		}
	}
}

// A seek asked for while another is being carried out (the file read
// again from the start, the progress meanwhile at 0) counts from the
// first one's target: two quick → presses go 20 s on, not 10.
func TestPlayerSeekDuringSeek(t *testing.T) {
	const file = "../../assets/demo.pcap"
	rec := newRecPoster()
	rt := screenReplay(t, file, rec)
	pl := rt.Player()
	pressed := false
	rt.replay.SetPlayer(func(ctx context.Context) {
		rt.resetReplay(ctx)
		if !pressed { // the second press, in the middle of the first seek
			pressed = true
			pl.Seek(10 * time.Second)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Loop(ctx) }()
	defer func() { cancel(); <-done }()
	pl.TogglePause()
	// Paused a few µs in, or a few ms under load: the seeks count from
	// there.
	from := waitProgress(t, rec, func(p replay.Progress) bool { return p.Paused }).Position
	pl.Seek(10 * time.Second)
	p := waitProgress(t, rec, func(p replay.Progress) bool { return p.Position != 0 && rt.replay.Position() == p.Position })
	if got, want := p.Position.Round(time.Millisecond), (from + 20*time.Second).Round(time.Millisecond); got != want {
		t.Errorf("two seeks of 10 s from %v, the second during the first: at %v, want %v", from, got, want)
	}
}

// Quitting while a seek starts the engine afresh (q pressed just after
// ←): the run ends, the seek given up, rather than both waiting for each
// other.
func TestPlayerQuitDuringSeek(t *testing.T) {
	for range 5 { // the loop picks at random between the quit and the seek
		rt, err := Start(Config{Replay: "../../assets/demo.pcap", Speed: 1, Screen: true, Post: newRecPoster()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		rt.replay.SetPlayer(func(c context.Context) {
			cancel() // q
			rt.resetReplay(c)
		})
		done := make(chan error, 1)
		go func() { done <- rt.Loop(ctx) }()
		rt.Player().Seek(10 * time.Second)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the run did not end within 5 s of quitting during a seek")
		}
		rt.Close()
	}
}

// Quick presses handled on goroutines of their own (the screen runs each
// key's command on one) all count: eight seeks of 5 s asked at once end 40 s
// in. Reading the position and asking for the next one were two steps, so
// two presses could both count from the same place.
func TestPlayerConcurrentSeeks(t *testing.T) {
	const file = "../../assets/demo.pcap"
	rec := newRecPoster()
	rt := screenReplay(t, file, rec)
	pl := rt.Player()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Loop(ctx) }()
	defer func() { cancel(); <-done }()
	pl.TogglePause()
	waitProgress(t, rec, func(p replay.Progress) bool { return p.Paused })
	// Where the pause found the replay (a few milliseconds in, on a
	// loaded machine): paused, it stays there until a seek.
	from := rt.replay.Position()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { pl.Seek(5 * time.Second) })
	}
	wg.Wait()
	p := waitProgress(t, rec, func(p replay.Progress) bool { return p.Position != from && rt.replay.Position() == p.Position })
	if p.Position != from+40*time.Second {
		t.Errorf("eight concurrent seeks of 5 s from %v: at %v, want 40 s later", from, p.Position)
	}
}

// The end of a capture is the state at its last frame, on the screen as
// headless: after the end the screen's replay clock stands at the last
// frame (it went on in real time, so every peer showed ttl-expired at END
// while -r FILE --json said valid).
func TestReplayEndIsLastFrame(t *testing.T) {
	const file = "../../engine/lldp/testdata/lldpd-ieee-full.pcap"
	rec := newRecPoster()
	rt, err := Start(Config{Replay: file, Speed: 0, Screen: true, Post: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Loop(ctx) }()
	defer func() { cancel(); <-done }()
	waitProgress(t, rec, func(p replay.Progress) bool { return p.Done })
	end := rt.replay.Now()
	time.Sleep(1500 * time.Millisecond) // the loop's ticks run on
	if now := rt.replay.Now(); !now.Equal(end) {
		t.Errorf("after the end the clock moved from %v to %v", end, now)
	}
	want := headlessUpTo(t, file, -1).Interfaces[0]
	// What the screen shows: the published snapshot (rt.Snapshot belongs
	// to the loop's goroutine until Loop returns).
	snap, ok := rt.Feed().Snapshot()
	if !ok || len(snap.Interfaces) == 0 {
		t.Fatalf("no snapshot published at the end (%v)", ok)
	}
	got := snap.Interfaces[0]
	if got.RemoteValid != want.RemoteValid || got.RemoteStatus != want.RemoteStatus || !got.RemoteValid {
		t.Errorf("at the end: screen remote %v (%s), headless %v (%s); want both valid", got.RemoteValid, got.RemoteStatus, want.RemoteValid, want.RemoteStatus)
	}
}
