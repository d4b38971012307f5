// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The multi-peer hold-down counts down in real seconds between snapshots:
// one second less each second, never stuck or skipping (synctest's clock).
// While two DCBX peers still speak, each of their LLDPDUs pushes the end
// out, so the time is said as a lower bound ("at least"), which stays
// true when it grows (7737732: "hold-down 18s", then "hold-down 19s" 20 s
// later); once one speaks, a plain countdown to the expiry it waits for.
func TestHoldDownCountdown(t *testing.T) {
	for _, speaking := range []int{2, 1} {
		t.Run(fmt.Sprint(speaking, " speaking"), func(t *testing.T) { holdDownCountdown(t, speaking) })
	}
}

func holdDownCountdown(t *testing.T, speaking int) {
	synctest.Test(t, func(t *testing.T) {
		snap := multiPeer(t)
		if in := &snap.Interfaces[0]; speaking < len(in.Peers) {
			in.Peers = in.Peers[:speaking] // the other's TTL ran out: its LLDPDUs' taint holds on
		}
		mp := snap.Interfaces[0].MultiPeer
		if mp == nil {
			t.Fatal("fixture without a multi-peer condition")
		}
		hold := time.Duration(mp.HoldDownMs) * time.Millisecond
		// The snapshot was taken just now on the screen's clock.
		shift := time.Since(snap.TakenAt)
		snap.TakenAt = snap.TakenAt.Add(shift)
		m := NewModel(nil, WithColor(ColorNever), WithLocation(time.UTC), WithOverview(false))
		var mm tea.Model = m
		mm, _ = mm.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		mm, _ = mm.Update(snapshotMsg{snap})
		start := int(hold.Seconds())
		for s := 0; s < start; s++ {
			want := fmt.Sprintf("hold-down %ds", start-s)
			if speaking >= 2 {
				want = fmt.Sprintf("hold-down at least %ds (%d DCBX peers speaking)", start-s, speaking)
			}
			if screen := stripView(mm); !contains(screen, want) {
				t.Fatalf("after %ds the screen lacks %q:\n%s", s, want, screen)
			}
			time.Sleep(time.Second)
			mm, _ = mm.Update(tickMsg(time.Now()))
		}
	})
}

func stripView(m tea.Model) string { return ansi.Strip(m.View().Content) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// The 1 Hz tick stops while nothing on screen counts down (no peer, the
// replay ended) and starts again when something does.
func TestTickOnlyWhenCounting(t *testing.T) {
	m := NewModel(nil, WithColor(ColorNever), WithOverview(false))
	var mm tea.Model = m
	mm, _ = mm.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(snapshotMsg{noPeer(t)})
	mm, cmd := mm.Update(tickMsg(time.Now()))
	if cmd != nil {
		t.Error("a tick re-armed with nothing counting down")
	}
	if mm.(Model).ticking {
		t.Error("ticking after a tick with nothing to count")
	}
	mm, cmd = mm.Update(snapshotMsg{firstReceipt(t)}) // a peer: its TTL counts down
	if !mm.(Model).ticking || cmd == nil {
		t.Errorf("a peer appeared: ticking %v, command %v; want the tick armed", mm.(Model).ticking, cmd)
	}
}

// With a source whose snapshots age (live: one at least every second
// while something counts down), a peer's countdown needs no tick of the
// screen's own; it does again once the source is done, and for what the
// source does not know (a status message).
func TestTickNotWhenSnapshotsAge(t *testing.T) {
	m := NewModel(nil, WithColor(ColorNever), WithOverview(false))
	var mm tea.Model = m
	mm, _ = mm.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureLive, Ages: true})
	mm, _ = mm.Update(snapshotMsg{noPeer(t)})
	mm, _ = mm.Update(tickMsg(time.Now())) // the tick Init armed ends
	mm, _ = mm.Update(snapshotMsg{firstReceipt(t)})
	if mm.(Model).ticking {
		t.Error("a peer appeared on an ageing feed: the screen ticks")
	}
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureLive, Ages: true, Done: true})
	if !mm.(Model).ticking {
		t.Error("the capture ended with a peer on screen: no tick")
	}
	mm, _ = mm.Update(tickMsg(time.Now()))
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureLive, Ages: true})
	mm, _ = mm.Update(tickMsg(time.Now()))
	if mm.(Model).ticking {
		t.Error("ticking on an ageing feed")
	}
	mm, _ = mm.Update(ErrorMsg{Err: errors.New("boom")})
	if !mm.(Model).ticking {
		t.Error("a status message that clears in time: no tick")
	}
}

// A lost peer's "expired Ns ago" moves once a second on a live screen
// also when no snapshot comes (the engine's last deadline has passed):
// 54a24de said "expired 0s ago" until the next event.
func TestLostPeerAgeMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snap := expired(t)
		lp := snap.Interfaces[0].LastPeer
		if lp == nil || len(snap.Interfaces[0].Peers) != 0 {
			t.Fatal("fixture without a lost peer")
		}
		// The snapshot was taken as the peer expired, just now.
		shift := time.Since(snap.TakenAt)
		snap.TakenAt = snap.TakenAt.Add(shift)
		snap.Interfaces[0].LastPeer.GoneAt = snap.TakenAt
		m := NewModel(nil, WithColor(ColorNever), WithLocation(time.UTC), WithOverview(false))
		var mm tea.Model = m
		mm, _ = mm.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
		mm, _ = mm.Update(CaptureStatus{Mode: CaptureLive, Ages: true})
		mm, _ = mm.Update(snapshotMsg{snap})
		if !mm.(Model).ticking {
			t.Fatal("a lost peer's age on screen: no tick")
		}
		for s := 0; s < 5; s++ {
			want := fmt.Sprintf("expired %ds ago", s)
			if screen := stripView(mm); !contains(screen, want) {
				t.Fatalf("after %ds the screen lacks %q:\n%s", s, want, screen)
			}
			time.Sleep(time.Second)
			mm, _ = mm.Update(tickMsg(time.Now()))
		}
	})
}

// While a live run's snapshots flow (one less than a second ago), a tick
// draws nothing new: View gives the screen drawn for the snapshot, whose
// countdowns the next snapshot moves. Once none came for a second, the
// tick draws again, countdowns moved.
func TestTickRedrawnWhileSnapshotsFlow(t *testing.T) {
	snap := firstReceipt(t)
	now := snap.TakenAt
	m := NewModel(nil, WithColor(ColorNever), WithOverview(false), WithClock(func() time.Time { return now }))
	var mm tea.Model = m
	mm, _ = mm.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureLive, Ages: true})
	mm, _ = mm.Update(snapshotMsg{snap})
	drawn := stripView(mm)
	now = now.Add(900 * time.Millisecond)
	mm, _ = mm.Update(tickMsg(now))
	if !mm.(Model).redrawn || stripView(mm) != drawn {
		t.Error("a tick 0.9 s after the snapshot drew the screen again")
	}
	now = now.Add(2 * time.Second)
	mm, _ = mm.Update(tickMsg(now))
	if mm.(Model).redrawn || stripView(mm) == drawn {
		t.Error("a tick 2.9 s after the last snapshot did not draw the moved countdowns")
	}
	// A replay's ticks always draw (its clock is the player's).
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureReplay})
	mm, _ = mm.Update(snapshotMsg{snap})
	mm, _ = mm.Update(tickMsg(now))
	if mm.(Model).redrawn {
		t.Error("a replay's tick reused the last screen")
	}
}
