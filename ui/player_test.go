// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakePlayer records the player calls.
type fakePlayer struct{ calls []string }

func (f *fakePlayer) TogglePause()         { f.calls = append(f.calls, "pause") }
func (f *fakePlayer) Faster() float64      { f.calls = append(f.calls, "faster"); return 2 }
func (f *fakePlayer) Slower() float64      { f.calls = append(f.calls, "slower"); return 0.5 }
func (f *fakePlayer) Seek(d time.Duration) { f.calls = append(f.calls, "seek "+d.String()) }
func (f *fakePlayer) Restart()             { f.calls = append(f.calls, "restart") }

// In a replay with a player, space, ←/→, +/- and r drive it; live, the
// same keys do what they always did (space pauses the screen).
func TestPlayerKeys(t *testing.T) {
	pl := &fakePlayer{}
	h := newHarness(t, realistic(t), nil, WithPlayer(pl), WithCapture(CaptureStatus{Mode: CaptureReplay, Source: "x.pcap", Speed: 1}))
	h.press("space", "right", "left", "+", "-", "r")
	want := []string{"pause", "seek 10s", "seek -10s", "faster", "slower", "restart"}
	if diff := cmp.Diff(want, pl.calls); diff != "" {
		t.Errorf("player calls (-want +got):\n%s", diff)
	}
	if h.m.vs.paused {
		t.Error("space in a replay paused the screen instead of the replay")
	}
	h.send(CaptureStatus{Mode: CaptureReplay, Source: "x.pcap", Speed: 1, Paused: true, Position: 20 * time.Second, Duration: time.Minute})
	h.wantScreen("REPLAY x.pcap 0:20/1:00", "PAUSED")

	live := &fakePlayer{}
	l := newHarness(t, realistic(t), nil, WithPlayer(live))
	l.press("space")
	if len(live.calls) != 0 || !l.m.vs.paused {
		t.Errorf("live: player calls %v, screen paused %v; want no calls and the screen paused", live.calls, l.m.vs.paused)
	}
}
