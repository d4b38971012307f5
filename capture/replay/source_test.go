// SPDX-License-Identifier: Apache-2.0

package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

const demo = "../../assets/demo.pcap"

// t0 is the first frame's time in the files the tests write.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

var (
	hostMAC   = lldp.MAC{2, 0, 0, 0, 0, 0x11}
	switchMAC = lldp.MAC{2, 0, 0, 0, 0, 0x22}
)

// lldpFrame is an LLDPDU of the speaker at mac, DCBX Willing as said.
func lldpFrame(t *testing.T, mac lldp.MAC, willing bool) []byte {
	t.Helper()
	local := agent.DefaultLocal().WithWilling(willing)
	cfg := agent.Config{Ifname: "p" + mac.String()[15:], MAC: mac}
	du, err := agent.BuildDU(cfg, 120, agent.Advert{Willing: willing, Local: local, Operational: local})
	if err != nil {
		t.Fatal(err)
	}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, mac, du)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A record is a frame of a classic pcap file, sent at t0 plus at.
type record struct {
	at   time.Duration
	data []byte
}

// writePcap writes a classic pcap file (microsecond timestamps, Ethernet,
// no direction) of the records and returns its path.
func writePcap(t *testing.T, recs ...record) string {
	t.Helper()
	frames := make([]testbed.PcapFrame, len(recs))
	for i, r := range recs {
		frames[i] = testbed.PcapFrame{Time: t0.Add(r.at), Data: r.data}
	}
	return testbed.WritePcap(t, "test.pcap", testbed.LinkTypeEthernet, frames)
}

// A poster records what a Source reports.
type poster struct {
	progress chan Progress
	errs     chan error
}

func newPoster() *poster {
	return &poster{progress: make(chan Progress, 4096), errs: make(chan error, 16)}
}

func (p *poster) Progress(r Progress) { p.progress <- r }
func (p *poster) Error(err error)     { p.errs <- err }

func open(t *testing.T, path string, speed float64, post Poster) *Source {
	t.Helper()
	s, err := Open(path, speed, post)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Open scans the file for its progress when a poster follows it, and
// not otherwise (a FIFO would be read twice).
func TestOpenProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		post  Poster
		speed float64
		want  Progress
	}{
		{"poster", newPoster(), 2, Progress{Source: "demo.pcap", Duration: 62717 * time.Millisecond, Frames: 64, Speed: 2}},
		{"nobody", nil, 0, Progress{Source: "demo.pcap"}},
	} {
		s := open(t, demo, tc.speed, tc.post)
		got := s.Progress()
		got.Duration = got.Duration.Round(time.Millisecond)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: progress before the start (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.pcap"), 1, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// Direct hands every frame to the caller, moves the clock to the last
// frame and reports the end; false from the caller stops it.
func TestDirect(t *testing.T) {
	path := writePcap(t, record{0, lldpFrame(t, switchMAC, false)}, record{time.Second, lldpFrame(t, switchMAC, false)},
		record{3 * time.Second, lldpFrame(t, switchMAC, false)})
	post := newPoster()
	s := open(t, path, 0, post)
	var got []time.Duration
	err := s.Direct(context.Background(), func(fr engine.FrameReceived) bool {
		got = append(got, fr.At.Sub(t0))
		return true
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{0, time.Second, 3 * time.Second}, got); diff != "" {
		t.Errorf("frames at (-want +got):\n%s", diff)
	}
	want := Progress{Source: "test.pcap", Position: 3 * time.Second, Duration: 3 * time.Second, Frame: 3, Frames: 3, Done: true}
	if diff := cmp.Diff(want, s.Progress()); diff != "" {
		t.Errorf("progress at the end (-want +got):\n%s", diff)
	}
	if now := s.Now(); !now.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("clock at the end %v, want the last frame's", now)
	}

	s = open(t, path, 0, nil)
	n := 0
	if err := s.Direct(context.Background(), func(engine.FrameReceived) bool { n++; return n < 2 }, nil); err != nil || n != 2 {
		t.Errorf("stopped after the second frame: %d frames, %v", n, err)
	}
}

// pacedRun starts a replay at speed of a capture of three LLDPDUs, at 0,
// 2 and 5 s, in the caller's synctest bubble: the source, the events it
// sends, where Run's end goes, and when it started.
func pacedRun(t *testing.T, speed float64) (*Source, chan engine.Event, chan error, time.Time) {
	t.Helper()
	path := writePcap(t, record{0, lldpFrame(t, switchMAC, false)}, record{2 * time.Second, lldpFrame(t, switchMAC, false)},
		record{5 * time.Second, lldpFrame(t, switchMAC, false)})
	s := open(t, path, speed, nil)
	events, done := make(chan engine.Event), make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	start := time.Now()
	go s.Run(ctx, events, done)
	return s, events, done, start
}

// At a speed of ×40, each frame comes at its recorded time divided by 40,
// exactly (dcbtop -r --speed 40).
func TestRunPacedFaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, events, done, start := pacedRun(t, 40)
		for _, at := range []time.Duration{0, 2 * time.Second, 5 * time.Second} {
			fr := (<-events).(engine.FrameReceived)
			if got, want := time.Since(start), at/40; fr.At.Sub(t0) != at || got != want {
				t.Errorf("frame of %v sent after %v, want %v", fr.At.Sub(t0), got, want)
			}
		}
		if err := <-done; err != nil {
			t.Errorf("end: %v", err)
		}
	})
}

// Run paces the frames at their recorded gaps; between frames the clock
// moves at the speed but never reaches the next frame; paused, it stands
// still, and the frame waiting is due its remaining gap after the resume.
func TestRunPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, events, done, start := pacedRun(t, 1)
		next := func() time.Duration {
			t.Helper()
			fr := (<-events).(engine.FrameReceived)
			if got, want := time.Since(start), fr.At.Sub(t0); got != want {
				t.Errorf("frame of %v sent after %v", want, got)
			}
			return fr.At.Sub(t0)
		}
		next()
		time.Sleep(time.Second)
		if got := s.Now().Sub(t0); got != time.Second {
			t.Errorf("a second after the first frame the clock reads %v", got)
		}
		time.Sleep(time.Second) // the second frame is due, not taken yet
		synctest.Wait()
		if got := s.Now().Sub(t0); got != 2*time.Second {
			t.Errorf("at the second frame's time the clock reads %v", got)
		}
		next()
		s.Pause(true)
		synctest.Wait()
		time.Sleep(10 * time.Second)
		if got := s.Now().Sub(t0); got != 2*time.Second || !s.Paused() || !s.Progress().Paused {
			t.Errorf("paused 10 s: clock at %v, paused %v", got, s.Paused())
		}
		s.Pause(false)
		synctest.Wait()
		fr := (<-events).(engine.FrameReceived)
		if got := time.Since(start); fr.At.Sub(t0) != 5*time.Second || got != 15*time.Second {
			t.Errorf("third frame (of 5 s) sent after %v, want 15 s: 2 s, 10 s paused, 3 s", got)
		}
		if err := <-done; err != nil {
			t.Errorf("end: %v", err)
		}
		if p := s.Progress(); !p.Done || p.Frame != 3 || p.Position != 5*time.Second {
			t.Errorf("progress at the end %+v", p)
		}
	})
}

// A cut file: Run reports the read error on done and to the poster.
func TestRunReadError(t *testing.T) {
	path := writePcap(t, record{0, lldpFrame(t, switchMAC, false)}, record{time.Second, lldpFrame(t, switchMAC, false)})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	post := newPoster()
	s := open(t, path, 0, post)
	events, done := make(chan engine.Event, 4), make(chan error, 1)
	s.Run(context.Background(), events, done)
	err = <-done
	if !errors.Is(err, pcap.ErrTruncated) || len(events) != 1 {
		t.Errorf("%d frames, end %v: want one frame and the truncation", len(events), err)
	}
	if perr := <-post.errs; perr.Error() != err.Error() {
		t.Errorf("posted %v, returned %v", perr, err)
	}
}

// StepSpeed walks the player's speeds, as fast as possible above ×64;
// steps not yet carried out count.
func TestStepSpeed(t *testing.T) {
	for _, tc := range []struct {
		from  float64
		steps []bool // true: faster
		want  []float64
	}{
		{1, []bool{true, true, false}, []float64{2, 4, 2}},
		{64, []bool{true, true, false}, []float64{0, 0, 64}},
		{0.25, []bool{false, true}, []float64{0.25, 0.5}},
		{3, []bool{true}, []float64{4}}, // a speed between steps: from the step below
	} {
		s := open(t, demo, tc.from, nil)
		var got []float64
		for _, up := range tc.steps {
			got = append(got, s.StepSpeed(up))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("from ×%g (-want +got):\n%s", tc.from, diff)
		}
	}
}

// Seeks asked for before the first is carried out add up, and never go
// before the start.
func TestSeekBy(t *testing.T) {
	s := open(t, demo, 1, nil)
	var got []time.Duration
	for _, d := range []time.Duration{5 * time.Second, 5 * time.Second, -3 * time.Second, -time.Minute} {
		s.SeekBy(d)
		got = append(got, s.Position())
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 10 * time.Second, 7 * time.Second, 0}, got); diff != "" {
		t.Errorf("positions asked for (-want +got):\n%s", diff)
	}
}
