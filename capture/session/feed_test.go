// SPDX-License-Identifier: Apache-2.0

//go:build linux

package session

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/replay"
	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// TestLiveFlush checks when the engine goroutine publishes: after an event
// that changed the engine (an indication, a link or capture status
// change), not after one that did not.
func TestLiveFlush(t *testing.T) {
	r := mustLiveRun(t, &Config{Screen: true})
	r.pub.Feed = feed.New()
	r.byName["h0"] = newIface(capture.Link{Name: "h0"}, nil, nil)
	take := func() (engine.Snapshot, bool) {
		select {
		case s := <-r.pub.Feed.C():
			return s, true
		default:
			return engine.Snapshot{}, false
		}
	}
	now := t0()
	r.apply(engine.LinkChanged{Interface: "h0", At: now, Ifindex: 2, MAC: testMAC, Up: true})
	r.flush()
	if s, ok := take(); !ok || len(s.Interfaces) != 1 || s.Interfaces[0].OperState != "up" {
		t.Fatalf("after the link event: %+v, %v", s, ok)
	}
	r.apply(engine.Tick{At: now.Add(time.Second)})
	r.flush()
	if s, ok := take(); ok {
		t.Errorf("a tick that changed nothing published generation %d", s.Generation)
	}
	frame := peerFrame(t, 120)
	r.apply(engine.FrameReceived{Interface: "h0", At: now.Add(2 * time.Second), Data: frame})
	r.apply(engine.FrameReceived{Interface: "h0", At: now.Add(3 * time.Second), Data: frame})
	r.flush()
	s, ok := take()
	if !ok || !s.Interfaces[0].RemoteValid || len(s.Indications) != 2 { // the peer appeared, then its first receipt
		t.Fatalf("after the first receipt: %v, %+v", ok, s)
	}
	// An identical LLDPDU changes nothing but the peer's TTL: published,
	// but not more often than every feed.FreshEvery.
	r.apply(engine.FrameReceived{Interface: "h0", At: now.Add(4 * time.Second), Data: frame})
	r.pub.LastPub = time.Now()
	r.flush()
	if _, ok := take(); ok {
		t.Errorf("an identical LLDPDU published a snapshot within %v of the last", feed.FreshEvery)
	}
	r.pub.LastPub = time.Now().Add(-feed.FreshEvery)
	r.flush()
	if s, ok := take(); !ok || !s.Interfaces[0].Peers[0].LastSeen.Equal(now.Add(4*time.Second)) {
		t.Errorf("the refreshed peer was not published after %v: %v", feed.FreshEvery, ok)
	}
	r.flush()
	if _, ok := take(); ok {
		t.Error("published twice")
	}
	r.apply(engine.CaptureStatus{Interface: "h0", At: now.Add(5 * time.Second), Err: "boom"})
	r.flush()
	if s, ok := take(); !ok || !slices.ContainsFunc(s.Interfaces[0].Diagnostics, func(d diag.Diagnostic) bool { return d.Code == diag.CodeCaptureError }) {
		t.Errorf("after a capture error: %v", ok)
	}
	// Counts only (the agent's frames sent, a counters sample): published
	// with the next refresh, not with a redraw of their own.
	r.pub.LastPub = time.Now()
	r.apply(engine.CaptureStatus{Interface: "h0", At: now.Add(6 * time.Second), Err: "boom", Sent: 7})
	r.apply(engine.CountersSampled{Interface: "h0", At: now.Add(6 * time.Second), Interval: time.Second, RDMA: []lossless.RDMAPortSample{}})
	r.flush()
	if _, ok := take(); ok {
		t.Errorf("counts published within %v of the last snapshot", feed.FreshEvery)
	}
	r.pub.LastPub = time.Now().Add(-feed.FreshEvery)
	r.flush()
	if s, ok := take(); !ok || s.Interfaces[0].Capture.FramesSent != 7 || s.Interfaces[0].Counters == nil {
		t.Errorf("the counts were not published after %v: %v", feed.FreshEvery, ok)
	}
	// A capture error that clears is published at once.
	r.pub.LastPub = time.Now()
	r.apply(engine.CaptureStatus{Interface: "h0", At: now.Add(7 * time.Second), Sent: 8})
	r.flush()
	if s, ok := take(); !ok || slices.ContainsFunc(s.Interfaces[0].Diagnostics, func(d diag.Diagnostic) bool { return d.Code == diag.CodeCaptureError }) {
		t.Errorf("after the capture error cleared: published %v", ok)
	}
}

func t0() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }

// peerFrame is an LLDPDU from a switch with PFC on priority 3.
func peerFrame(t *testing.T, ttl uint16) []byte {
	t.Helper()
	mac := lldp.MAC{2, 0xdc, 0xb0, 0, 0, 1}
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: mac[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs:      []lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: "leaf1"}, &lldp.PFC{Cap: 8, Enabled: 1 << 3}},
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, mac, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// headless returns what a headless replay of file ends with.
func headless(t *testing.T, file string) engine.Snapshot { return headlessUpTo(t, file, -1) }

// TestReplayer replays the demo capture for the screen, paced with ticks
// in between (TTL expiry in the 12 s gap of phase 6 happens on a tick):
// the last snapshot is the headless replay's, and the status counts every
// frame and ends Done.
func TestReplayer(t *testing.T) {
	for _, tt := range []struct {
		name  string
		speed float64
	}{{"max speed", 0}, {"paced", 40}} {
		t.Run(tt.name, func(t *testing.T) {
			const file = "../../assets/demo.pcap"
			want := headless(t, file)
			src, err := replay.Open(file, 0, newRecPoster()) // scans the file
			if err != nil {
				t.Fatal(err)
			}
			scan := src.Progress()
			src.Close()
			if scan.Frames != 64 || scan.Duration < 60*time.Second {
				t.Fatalf("scan: %d frames over %v, want 64 over 62.7 s", scan.Frames, scan.Duration)
			}
			rec := newRecPoster()
			start := time.Now() // before the replay's clock can start
			rt, err := Start(Config{Replay: file, Speed: tt.speed, Screen: true, Post: rec})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			rt.tickEvery = 20 * time.Millisecond
			// Compared with the headless replay: the clock stops at the
			// end (on the screen it goes on, TestReplayClockAfterEnd).
			rt.replay.SetPlayer(nil)
			if p := rt.ReplayProgress(); p.Frames != 64 || p.Duration != scan.Duration || p.Speed != tt.speed {
				t.Errorf("progress before the start: %+v", p)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- rt.Loop(ctx) }()
			rp := rt

			var snaps []engine.Snapshot
			var final replay.Progress
			deadline := time.After(30 * time.Second)
			for !final.Done {
				select {
				case s := <-rp.Feed().C():
					snaps = append(snaps, s)
				case st := <-rec.progress:
					final = st
				case <-deadline:
					t.Fatalf("no Done status after 30 s; last %+v", final)
				}
			}
			took := time.Since(start)
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
			// The loop has returned: whatever it published is in the feed
			// now (a sleep of 50 ms was not always enough under load).
			for drained := false; !drained; {
				select {
				case s, ok := <-rp.Feed().C():
					if ok {
						snaps = append(snaps, s)
					} else {
						drained = true
					}
				default:
					drained = true
				}
			}
			if final.Frame != 64 || final.Frames != 64 || final.Position != final.Duration || final.Position < 62*time.Second {
				t.Errorf("final status %+v", final)
			}
			// The pace itself is capture/replay's (TestRunPaced, on a fake
			// clock); here only its floor: ×40 cannot take less than
			// 62.7 s / 40.
			if tt.speed > 0 && took < time.Duration(float64(final.Duration)/tt.speed) {
				t.Errorf("paced at ×%g took %v, less than %v / %g", tt.speed, took, final.Duration, tt.speed)
			}
			got := snaps[len(snaps)-1]
			// Generations differ: an expiry on a tick and the next frame's
			// first receipt are two changes there, one here.
			got.Generation = want.Generation
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("last snapshot differs from the headless replay's (-headless +screen):\n%s", diff)
			}
			if tt.speed > 0 {
				// The expiry in the gap came between frames: a snapshot had
				// it before leaf-1 came back.
				expiredEarly := false
				for _, s := range snaps {
					if len(s.Interfaces) == 0 {
						continue
					}
					in := s.Interfaces[0]
					if in.RemoteInvalidReason != nil && *in.RemoteInvalidReason == engine.ReasonTTLExpired && in.Capture.FramesIn == 55 {
						expiredEarly = true
					}
				}
				if !expiredEarly {
					t.Error("no snapshot showed the TTL expiry in the 12 s gap before the next frame")
				}
			}
		})
	}
}

// TestReplayerReadError shows a cut file's error on the screen and
// returns it at the end.
func TestReplayerReadError(t *testing.T) {
	good, err := os.ReadFile("../../engine/lldp/testdata/lldpd-ieee-full.pcap")
	if err != nil {
		t.Fatal(err)
	}
	file := writeTempBytes(t, good[:len(good)-10])
	rec := newRecPoster()
	rt, err := Start(Config{Replay: file, Screen: true, Post: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Loop(ctx) }()
	var gotErr error
	for gotErr == nil {
		select {
		case gotErr = <-rec.errs:
		case <-time.After(10 * time.Second):
			t.Fatal("no error posted")
		}
	}
	cancel()
	err = <-done
	if err == nil || err.Error() != gotErr.Error() || !errors.Is(err, pcap.ErrTruncated) {
		t.Errorf("run returned %v, posted %v; want the same truncation error", err, gotErr)
	}
}

func writeTempBytes(t *testing.T, b []byte) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "cut-*.pcap")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return f.Name()
}

// A recPoster records what a Replayer reports.
type recPoster struct {
	progress chan replay.Progress
	errs     chan error
}

func newRecPoster() *recPoster {
	return &recPoster{progress: make(chan replay.Progress, 4096), errs: make(chan error, 16)}
}

func (p *recPoster) Progress(r replay.Progress) { p.progress <- r }
func (p *recPoster) Error(err error)            { p.errs <- err }

// TestArmAging checks when the loop publishes a snapshot only because time
// passed: never while nothing ages; a second and a tenth after a snapshot
// published for an event (a peer sending every second then publishes once
// a second, not twice); then every second exactly, counted from when the
// last such snapshot was due, so that a countdown drawn from each never
// skips a second.
func TestArmAging(t *testing.T) {
	synctest.Test(t, testArmAging) // the loop's time is the bubble's: exact
}

func testArmAging(t *testing.T) {
	r := mustLiveRun(t, &Config{Screen: true})
	r.pub.Feed = feed.New()
	defer func() {
		if r.wake != nil {
			r.wake.Stop()
		}
	}()
	now := t0()
	r.apply(engine.LinkChanged{Interface: "h0", At: now, Ifindex: 2, MAC: testMAC, Up: true})
	r.flush()
	<-r.pub.Feed.C()
	if !r.agingAt.IsZero() || r.wakeC != nil {
		t.Fatal("the run's timer is armed with nothing ageing")
	}
	r.apply(engine.FrameReceived{Interface: "h0", At: now.Add(time.Second), Data: peerFrame(t, 120)})
	before := time.Now()
	r.flush()
	<-r.pub.Feed.C()
	if r.agingAt.IsZero() || r.wakeC == nil {
		t.Fatal("a peer counts down, and the run's timer is not armed")
	}
	if d := r.agingAt.Sub(before); d != agingAfter {
		t.Errorf("first aging snapshot due %v after the event's, want %v", d, agingAfter)
	}
	// The timer fires late; the next is due a second after this one was.
	due := r.agingAt
	r.apply(engine.Tick{At: now.Add(2 * time.Second)})
	r.pub.Dirty, r.agingFired = true, true
	r.flush()
	<-r.pub.Feed.C()
	if !r.agingAt.Equal(due.Add(time.Second)) {
		t.Errorf("next aging snapshot due at %v, want %v (a second after the last was due)", r.agingAt, due.Add(time.Second))
	}
	// The peer leaves (shutdown): its loss ages (peer-lost turns an
	// error two TTLs later), then nothing does and the timer stops.
	r.apply(engine.FrameReceived{Interface: "h0", At: now.Add(3 * time.Second), Data: peerFrame(t, 0)})
	r.flush()
	<-r.pub.Feed.C()
	if r.agingAt.IsZero() || r.wakeC == nil {
		t.Error("a lost peer ages, and the run's timer is not armed")
	}
	r.apply(engine.Tick{At: now.Add(3*time.Second + 241*time.Second)})
	r.pub.Dirty = true
	r.flush()
	<-r.pub.Feed.C()
	if !r.agingAt.IsZero() || r.wakeC != nil {
		t.Error("the run's timer is still armed with nothing ageing")
	}
}

// mustLiveRun is newLiveRun that fails the test on error.
func mustLiveRun(t *testing.T, cfg *Config) *liveRun {
	t.Helper()
	r, err := newLiveRun(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
