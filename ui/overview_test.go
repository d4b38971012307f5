// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
)

// Several interfaces start in the overview; arrows move its cursor, Enter
// opens the port, o comes back with the cursor on that port, > sorts.
func TestOverviewKeys(t *testing.T) {
	h := newHarness(t, twoPorts(t), nil, WithOverview(false))
	// Without WithOverview the first snapshot decides: two ports, overview.
	h.m = NewModel(nil, WithColor(ColorNever), WithClock(h.m.clock), WithLocation(h.m.vs.loc))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.send(snapshotMsg{twoPorts(t)})
	h.wantScreen("all ports", "▸ enp129s0f0np0", "  enp129s0f1np1", "sorted by name")

	h.press("down")
	h.wantScreen("▸ enp129s0f1np1")
	h.press("enter")
	if h.m.vs.overview || h.m.vs.iface != "enp129s0f1np1" {
		t.Fatalf("enter: overview %v, interface %q; want the port view of enp129s0f1np1", h.m.vs.overview, h.m.vs.iface)
	}
	h.wantScreen("enp129s0f1np1")
	h.wantNotScreen("all ports")

	h.press("o")
	h.wantScreen("all ports", "▸ enp129s0f1np1")
	// Sort by problems: the port with a warning first; the cursor stays on
	// its port.
	h.press(">")
	h.wantScreen("sorted by problems", "▸ enp129s0f1np1")
	s := h.screen()
	if strings.Index(s, "enp129s0f0np0") > strings.Index(s, "enp129s0f1np1") {
		t.Errorf("sorted by problems, the port with a warning is not first:\n%s", s)
	}
	h.press("esc")
	h.wantNotScreen("all ports")
	h.press("o", "2")
	if h.m.vs.overview || h.m.vs.iface != "enp129s0f1np1" {
		t.Errorf("2 in the overview: overview %v, interface %q", h.m.vs.overview, h.m.vs.iface)
	}
}

// One interface: the port view; o still opens the overview.
func TestOverviewSinglePort(t *testing.T) {
	h := newHarness(t, losslessSnap(t), nil)
	h.m = NewModel(nil, WithColor(ColorNever), WithClock(h.m.clock), WithLocation(h.m.vs.loc))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.send(snapshotMsg{losslessSnap(t)})
	h.wantNotScreen("all ports")
	h.press("o")
	h.wantScreen("all ports", "1 interface ·", "Pauses/s")
}

// Interface names are never cut short in the port view's header either.
func TestHeaderLongNames(t *testing.T) {
	h := newHarness(t, twoPorts(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.wantScreen("enp129s0f0np0 (1/2)", "2:enp129s0f1np1")
}

// Enter in the Peers pane opens every TLV of the peer decoded; in the
// Diagnostics pane the diagnostics in full with their rule; elsewhere it
// says where it works instead of moving the focus.
func TestDrillDown(t *testing.T) {
	h := newHarness(t, nexus(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 60})
	h.m.vs.focus = paneETS
	h.press("enter")
	if h.m.vs.focus != paneETS || h.m.vs.detail != nil {
		t.Errorf("enter in ETS: focus %v, detail %v; want no jump", h.m.vs.focus, h.m.vs.detail)
	}
	h.wantScreen("enter shows details in the Log, Peers and Diagnostics panes")
	h.m.vs.focus = panePeers
	h.press("enter")
	h.wantScreen("Peers of eth0", "System Capabilities", "bridge, router", "Management Address", "192.0.2.13",
		"TAC support: http://www.cisco.com/tac", "discarded PFC Configuration at offset", "802.1Q tag none (untagged)")
	h.press("esc")
	h.m.vs.focus = paneDiag
	h.press("enter")
	h.wantScreen("Diagnostics of eth0", "tlv-discarded", "rule", "802.1AB-2016 9.2.7.7.2", "since")
	h.press("esc")
	// In the pane, the line breaks show as ⏎.
	h.wantScreen("Software 9.3(8) ⏎ TAC")
}

// An empty peer list says why: never seen, expired, or withdrawn.
func TestNoPeerWording(t *testing.T) {
	for _, tt := range []struct {
		name string
		snap func(testing.TB) engine.Snapshot
		want string
	}{
		{"never", noPeer, "no LLDP peer seen on this interface yet"},
		{"expired", expired, "no live LLDP peer: the last one's information expired (TTL)"},
		{"shutdown", shutdown, "no live LLDP peer: the last one withdrew (shutdown LLDPDU)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.snap(t), nil)
			h.m.vs.focus = panePeers
			h.wantScreen(tt.want)
		})
	}
}

// Status messages go to a history (m shows it in full with times), a long
// one says how to read it whole, and each clears after a while.
func TestStatusMessages(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	h := newHarness(t, realistic(t), nil, WithClock(clock))
	long := "eth0: " + strings.Repeat("a very long message from the backend ", 6) + "END"
	h.send(ErrorMsg{Err: errors.New(long)})
	h.wantScreen("(m: in full)")
	h.wantNotScreen("END")
	h.send(ErrorMsg{Err: errors.New("second")})
	h.press("m")
	h.wantScreen("Messages", "10:00:05", "END", "second")
	h.press("esc")
	now = now.Add(31 * time.Second)
	mm, _ := h.m.Update(tickMsg(now)) // (its command is the next tick)
	h.m = mm.(Model)
	h.wantNotScreen("second")
	h.press("m")
	h.wantScreen("second") // still in the history
}

// The log's filter also filters Peers and Diagnostics, and marks what it
// matched.
func TestFilterPeersAndDiagnostics(t *testing.T) {
	h := newHarness(t, nexus(t), nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.m.vs.filter = "tlv-discarded"
	h.wantScreen("filter: 1 of 2", "tlv-discarded") // the diagnostic, of it and the unknown checks' line
	h.m.vs.filter = "nomatch"
	h.wantScreen("no diagnostic matches the filter", "filter: 0 of 2")
	h.wantNotScreen("n9k-leaf3                ")
	st := DefaultStyles(true)
	r := &renderer{st: &st, vs: &viewState{filter: "pfc"}}
	if got := r.highlight("ETS* PFC*"); got != "ETS* "+st.Match.Render("PFC")+"*" {
		t.Errorf("highlight = %q", got)
	}
}

// O shows the log newest first; the arrows then move toward newer
// entries upward, and O goes back.
func TestLogNewestFirst(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("O")
	h.wantScreen("entries, newest first")
	s := h.screen()
	first, last := strings.Index(s, "10:00:00.000"), strings.Index(s, "10:00:31.000")
	if first < 0 || last < 0 || last > first {
		t.Fatalf("newest first: the 10:00:31 entries are not above the 10:00:00 ones:\n%s", s)
	}
	if !strings.Contains(strings.Split(s, "\n")[lineOf(s, "10:00:31.000")], UnicodeSymbols().Cursor) {
		t.Errorf("the cursor is not on the newest entry, on top:\n%s", s)
	}
	h.press("down") // one older
	if h.m.vs.logFollow {
		t.Error("down in newest-first did not move to an older entry")
	}
	h.press("O")
	h.wantScreen("entries, newest last")
}

// Undo with nothing to undo says so instead of asking for confirmation.
func TestUndoNothingToUndo(t *testing.T) {
	be := &fakeBackend{caps: Caps{CanWrite: true, CanAgent: true, UndoNo: engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: "eth0"}}}
	h := newHarness(t, realistic(t), be)
	h.press("u")
	if h.m.vs.dialog != nil {
		t.Fatal("undo with nothing to undo opened a confirmation")
	}
	h.wantScreen("nothing to undo on eth0")
}

// With a filter, n and N move to the next and previous matching entry.
func TestFilterNextPrev(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.m.vs.filter = "remote"
	n := len(filtered(h.m.snap.Indications, "remote"))
	h.press("N")
	if h.m.vs.logFollow || logCursor(&h.m.vs, n) != n-2 {
		t.Errorf("N: cursor %d of %d, want the previous match", logCursor(&h.m.vs, n), n)
	}
	h.press("n")
	if logCursor(&h.m.vs, n) != n-1 {
		t.Errorf("n: cursor %d of %d, want the last match", logCursor(&h.m.vs, n), n)
	}
}

// The overview shows the peer's PFC beside the operational, counts ports
// without a peer apart from those whose remote parameters are invalid, and
// keeps the remote state whole at 80 columns (other columns give way).
func TestOverviewRemote(t *testing.T) {
	h := newHarness(t, fourPorts(t), nil, WithOverview(true))
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		// The expired port's lost peer is a warning too (peer-lost); the
		// port without a peer is an error, as dcbtop check's dcbx-peer
		// says (7737732: no finding).
		h.wantScreen("4 ports: 2 valid · 1 no peer · 1 expired · 1 with errors · 2 with warnings", "Peer PFC", "✗ ttl-expired", "no peer  ")
		h.wantNotScreen("remote invalid 2", "ttl-exp…")
		s := h.screen()
		for _, l := range strings.Split(s, "\n") {
			// The port without a local source: no operational PFC, the
			// peer's on priority 3.
			if strings.Contains(l, "enp130s0f0np0") {
				if f := strings.Fields(l); !slices.Contains(f, "none") || !slices.Contains(f, "—") || !slices.Contains(f, "3") {
					t.Errorf("%dx%d: %q", size[0], size[1], l)
				}
			}
		}
	}
}

// An overlay that takes the keys is drawn in the overview too: m's
// messages (at 7737732 the overview's m opened an overlay that was never
// drawn, and every key did nothing until esc).
func TestOverviewMessagesDrawn(t *testing.T) {
	h := newHarness(t, twoPorts(t), nil, WithOverview(true))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.send(ErrorMsg{Err: errors.New("eth0: the backend said no")})
	h.press("m")
	if h.m.vs.detail == nil {
		t.Fatal("m opened nothing")
	}
	h.wantScreen("Messages", "the backend said no", "esc close")
	h.press("esc")
	h.wantNotScreen("Messages")
	h.wantScreen("all ports")
}

// A past log entry never changes: the flags' form is chosen by the width
// alone, so a later entry (a Willing toggle: WILLING set) does not write
// the lines above it again. At 7737732 it did: the long form was chosen
// by the entries in the log.
func TestLogEntriesStay(t *testing.T) {
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", false, localParams(false), "").rx(1, "eth0", leaf1(50, 50, 1<<3))
	before := s.snap()
	s.local(30, "eth0", "agent", true, localParams(true), "")
	after := s.snap()
	for _, w := range []int{100, 140, 145, 148, 160, 200} { // 145, 148: the long form fits before WILLING, not after
		h := newHarness(t, before, nil)
		h.send(tea.WindowSizeMsg{Width: w, Height: 40})
		was := lineOf(h.screen(), "first-receipt")
		first := strings.TrimRight(strings.Split(h.screen(), "\n")[was], " ")
		first = first[strings.Index(first, "10:00:01"):] // the cursor's mark aside
		h.send(snapshotMsg{after})
		now := h.screen()
		if !strings.Contains(now, first) {
			t.Errorf("width %d: the entry %q was written again after a later Willing toggle:\n%s", w, strings.TrimSpace(first), now)
		}
	}
}
