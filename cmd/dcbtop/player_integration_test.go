// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"path/filepath"
	"testing"
	"time"
)

// TestTUIPlayer replays the demo capture on the screen as a player: space
// pauses (PAUSED, the position stands), → seeks 10 s on, ← back, r
// restarts.
func TestTUIPlayer(t *testing.T) {
	bin := tuiBinary(t)
	t.Parallel()
	fixture, err := filepath.Abs("../../assets/demo.pcap")
	if err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, 100, 30, nil, bin, "-r", fixture)
	p.WaitText(10*time.Second, "REMOTE first-receipt")
	p.Keys("Space")
	p.WaitText(5*time.Second, "PAUSED")
	p.Keys("r")
	p.WaitText(5*time.Second, "REPLAY demo.pcap 0:00/1:02", "PAUSED")
	// One key at a time: two escape sequences sent at once can reach the
	// screen split across reads on a loaded machine, and the terminal
	// parser then sees an Escape; quick presses are
	// TestPlayerConcurrentSeeks' (capture/session).
	p.Keys("Right")
	p.WaitText(5*time.Second, "REPLAY demo.pcap 0:10/1:02", "PAUSED")
	p.Keys("Right")
	p.WaitText(5*time.Second, "REPLAY demo.pcap 0:20/1:02", "PAUSED", "REMOTE changed")
	p.Keys("Left")
	p.WaitText(5*time.Second, "REPLAY demo.pcap 0:10/1:02", "PAUSED")
	p.Quit()
}
