// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
)

// footerLine is the screen's last line.
func (h *harness) footerLine() string {
	lines := strings.Split(h.screen(), "\n")
	return lines[len(lines)-1]
}

// The footer shows the keys that work in the current mode: in a replay the
// player's, not the actions, which cannot write to a recording; live, the
// actions the backend allows, and not the others.
func TestFooterModes(t *testing.T) {
	actions := []string{"w willing", "e edit", "a agent"}
	player := []string{"space play/pause", "←/→ seek", "+/- speed", "r restart"}

	pl := &fakePlayer{}
	h := newHarness(t, realistic(t), &fakeBackend{caps: engine.ReadOnly()}, WithPlayer(pl),
		WithCapture(CaptureStatus{Mode: CaptureReplay, Source: "x.pcap", Speed: 1}))
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	foot := h.footerLine()
	for _, s := range player {
		if !strings.Contains(foot, s) {
			t.Errorf("replay footer lacks %q: %q", s, foot)
		}
	}
	for _, s := range actions {
		if strings.Contains(foot, s) {
			t.Errorf("replay footer has %q: %q", s, foot)
		}
	}
	// A click on the seek hint seeks (back: its first key).
	x := strings.Index(foot, "←/→ seek")
	if x < 0 {
		t.Fatalf("no seek hint: %q", foot)
	}
	h.send(tea.MouseClickMsg{X: len([]rune(foot[:x])), Y: 47, Button: tea.MouseLeft})
	if diff := cmp.Diff([]string{"seek -10s"}, pl.calls); diff != "" {
		t.Errorf("click on the seek hint (-want +got):\n%s", diff)
	}

	// Live and writable: the actions, no player.
	h = newHarness(t, realistic(t), writable())
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	foot = h.footerLine()
	for _, s := range actions {
		if !strings.Contains(foot, s) {
			t.Errorf("writable footer lacks %q: %q", s, foot)
		}
	}
	for _, s := range player {
		if strings.Contains(foot, s) {
			t.Errorf("live footer has %q: %q", s, foot)
		}
	}

	// Live, writes refused but the agent may start: a, not w e u; the
	// reason on the right.
	h = newHarness(t, realistic(t), &fakeBackend{caps: Caps{CanAgent: true, WriteNo: engine.Refusal{Code: engine.RefuseNoLocalSource}}})
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	foot = h.footerLine()
	for _, s := range actions[:2] {
		if strings.Contains(foot, s) {
			t.Errorf("read-only footer has %q: %q", s, foot)
		}
	}
	if !strings.Contains(foot, "a agent") || !strings.Contains(foot, "read-only: no local DCB source") {
		t.Errorf("read-only footer: %q", foot)
	}

	// Writable: u shows once this screen applied something, and stays
	// until it is undone; a refused u does not make it come and go.
	h = newHarness(t, realistic(t), writable())
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	if foot = h.footerLine(); strings.Contains(foot, "u undo") {
		t.Errorf("nothing applied yet: footer %q", foot)
	}
	h.send(keyPress("u"))
	if foot = h.footerLine(); strings.Contains(foot, "u undo") || !strings.Contains(foot, "e edit") {
		t.Errorf("nothing to undo: footer %q", foot)
	}
	h.press("w", "y")
	if foot = h.footerLine(); !strings.Contains(foot, "u undo") {
		t.Errorf("after an apply: footer %q", foot)
	}
}

// manKeys returns the keys the man page's KEYS section lists.
func manKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../assets/dcbtop.8")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n.SH KEYS\n")
	if i < 0 {
		t.Fatal("no KEYS section in the man page")
	}
	s = s[i+len("\n.SH KEYS\n"):]
	s = s[:strings.Index(s, "\n.SH ")]
	var keys []string
	tp := regexp.MustCompile(`(?m)^\.TP\n\.BR? (.*)$`)
	tok := regexp.MustCompile(`"[^"]*"|\S+`)
	for _, m := range tp.FindAllStringSubmatch(s, -1) {
		for n, k := range tok.FindAllString(m[1], -1) {
			if n%2 == 1 { // .BR alternates bold keys and roman separators
				continue
			}
			k = strings.NewReplacer(`\-`, "-", `"`, "").Replace(k)
			keys = append(keys, k)
		}
	}
	return keys
}

// The help overlay lists every key the man page does, each key bound.
func TestHelpListsManKeys(t *testing.T) {
	km := DefaultKeyMap()
	listed := map[string]bool{}
	bound := map[string]bool{}
	for _, col := range km.FullHelp() {
		for _, b := range col {
			for _, k := range strings.Split(b.Help().Key, "/") {
				listed[k] = true
			}
			for _, k := range b.Keys() {
				bound[k] = true
			}
		}
	}
	// The man page's spelling of keys the help shows as symbols.
	shown := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn",
		"ctrl+b": "^B", "ctrl+f": "^F", "F1": "F1", "F10": "F10", "1-9": "1-9"}
	keyName := map[string]string{"F1": "f1", "F10": "f10", "pgdown": "pgdown", "1-9": "1"}
	keys := manKeys(t)
	if len(keys) < 40 {
		t.Fatalf("read %d keys from the man page: %q", len(keys), keys)
	}
	for _, k := range keys {
		if !listed[k] && !listed[shown[k]] {
			t.Errorf("man page key %q is not in the help", k)
		}
		name := k
		if n, ok := keyName[k]; ok {
			name = n
		}
		if !bound[name] {
			t.Errorf("man page key %q is not bound", k)
		}
	}
}

// While the screen is paused the demo's step line is as frozen as the rest
// of it: the caption stays and its countdown neither runs nor grows; the
// newest step shows on resume.
func TestPauseFreezesDemo(t *testing.T) {
	snap := realistic(t)
	now := snap.TakenAt.Add(2 * time.Second)
	clock := func() time.Time { return now }
	demo := func(step int, caption string, next time.Time) CaptureStatus {
		return CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Step: step, Steps: 12, Caption: caption, NextAt: next, Pass: 1, Speed: 1}}
	}
	h := newHarness(t, snap, nil, WithClock(clock))
	h.send(demo(3, "first caption", now.Add(7*time.Second)))
	h.wantScreen("step 3/12 · first caption · next in 7s")
	h.press("p")
	for i, c := range []string{"second caption", "third caption"} {
		now = now.Add(13 * time.Second)
		h.send(demo(4+i, c, now.Add(12*time.Second)))
		h.wantScreen("step 3/12 · first caption · next in 7s", "PAUSED")
		h.wantNotScreen(c)
	}
	h.press("p")
	h.wantScreen("step 5/12 · third caption · next in 12s")
	h.wantNotScreen("first caption", "PAUSED")
}

// q (and F10) while dcbtop's agent runs asks first: quitting sends the
// shutdown LLDPDU that makes a willing switch drop the host's parameters.
// y quits, n and esc cancel; ctrl+c still quits at once; a replay, where
// no agent of this process runs, quits at once.
func TestQuitAgentConfirm(t *testing.T) {
	for _, k := range []string{"q", "f10"} {
		h := newHarness(t, firstReceipt(t), writable()) // eth0's local source is dcbtop's agent
		press := keyPress("q")
		if k == "f10" {
			press = tea.KeyPressMsg{Code: tea.KeyF10}
		}
		mm, cmd := h.m.Update(press)
		h.m = mm.(Model)
		if isQuit(cmd) {
			t.Fatalf("%s quit at once with the agent running", k)
		}
		if d := h.m.vs.dialog; d == nil || d.kind != dialogQuit {
			t.Fatalf("%s: no quit dialog:\n%s", k, h.screen())
		}
		h.wantScreen("Quit dcbtop", "agent running on 1 port(s): quit and withdraw? y/n", "shutdown LLDPDU", "y quit and withdraw")
		if k == "q" {
			h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			h.golden("quit_dialog_80x24")
		}
		if _, cmd := h.m.Update(keyPress("y")); !isQuit(cmd) {
			t.Errorf("%s, y: did not quit", k)
		}
	}
	for _, k := range []string{"n", "esc"} {
		h := newHarness(t, firstReceipt(t), writable())
		h.press("q", k)
		if h.m.vs.dialog != nil {
			t.Fatalf("%s: dialog still open", k)
		}
		h.wantScreen("quit cancelled: dcbtop's agent keeps running")
		for _, c := range h.be.Calls() {
			if !strings.HasPrefix(c, "Capabilities") {
				t.Errorf("%s: backend call %s", k, c)
			}
		}
	}
	// ctrl+c: at once.
	h := newHarness(t, firstReceipt(t), writable())
	if _, cmd := h.m.Update(keyPress("ctrl+c")); !isQuit(cmd) {
		t.Error("ctrl+c does not quit at once")
	}
	// In the overview the dialog shows over it.
	h = newHarness(t, realistic(t), writable(), WithOverview(true))
	h.press("q")
	h.wantScreen("all ports", "agent running on 1 port(s): quit and withdraw? y/n", "on eth0:")
	// A replay of a capture where the agent ran: nothing to withdraw.
	h = newHarness(t, firstReceipt(t), &fakeBackend{caps: engine.ReadOnly()}, WithCapture(CaptureStatus{Mode: CaptureReplay, Source: "x.pcap", Speed: 1}))
	if _, cmd := h.m.Update(keyPress("q")); !isQuit(cmd) {
		t.Error("q in a replay does not quit at once")
	}
}

// u previews what an undo changes, as w and e do: the local Willing state
// and parameters before → after and the operational parameters after;
// once undone (one level), a second u says that truthfully instead of
// "no apply since dcbtop started"; the next apply can be undone again.
func TestUndoPreview(t *testing.T) {
	be := writable()
	before := localParams(false)
	before.ETS.TCBandwidth = [8]uint8{70, 30}
	before.PFC.Enabled = 1<<3 | 1<<4
	be.undo = &engine.LocalState{Willing: false, Params: before}
	be.applyUndo = &engine.LocalState{Willing: true, Params: localParams(true)}
	h := newHarness(t, firstReceipt(t), be)
	h.press("u")
	if d := h.m.vs.dialog; d == nil || d.kind != dialogUndo {
		t.Fatalf("no undo dialog:\n%s", h.screen())
	}
	h.wantScreen("Undo the last apply on eth0", "Local Willing: ON → OFF", "Local parameters change:",
		"ETS TC0 bandwidth 50% → 70%", "ETS TC1 bandwidth 50% → 30%", "PFC priority 4 enabled",
		"Operational after undo (preview):", "y undo")
	// One call for u: what the host would restore; the preview is the
	// screen's own (engine.PreviewOperational on the snapshot).
	h.wantCalls("QoSUndo(eth0)", "UndoState(eth0)")
	h.golden("undo_dialog")
	h.press("y")
	h.wantScreen("✓ eth0: restored willing on; read back: willing on")
	h.press("u")
	if h.m.vs.dialog != nil {
		t.Fatal("a second undo opened a dialog")
	}
	h.wantScreen("undo unavailable: nothing left to undo on eth0 (one level")
	h.wantNotScreen("no apply since dcbtop started")
	// An apply: undo has something again.
	h.press("w", "y", "u")
	if d := h.m.vs.dialog; d == nil || d.kind != dialogUndo {
		t.Fatalf("no undo dialog after an apply:\n%s", h.screen())
	}
	h.wantScreen("Local Willing: ON (unchanged)", "nothing changes")
	h.press("n")
	// Nothing ever applied: the host's words.
	h2 := newHarness(t, firstReceipt(t), writable())
	h2.press("u")
	h2.wantScreen("no apply since dcbtop started")
}
