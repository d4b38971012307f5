// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine/frames"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// ringSource is a FrameSource over a real frames.Ring, as
// capture/session's FrameLog is.
type ringSource struct {
	mu   sync.Mutex
	ring *frames.Ring
}

func newRingSource() *ringSource { return &ringSource{ring: frames.NewRing(frames.Limits{})} }

func (s *ringSource) add(t testing.TB, sec float64, iface string, out bool, data []byte) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ring.Add(frames.Frame{At: at(sec), Interface: iface, Outgoing: out, Data: data}); !ok {
		t.Fatalf("frame at %vs is not an LLDP frame", sec)
	}
}

func (s *ringSource) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ring.Reset()
}

func (s *ringSource) Since(after uint64) (recs []frames.Record, total, oldest uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring.Len() > 0 {
		oldest = s.ring.At(0).Number
	}
	return s.ring.Since(nil, after), s.ring.Total(), oldest
}

// hostPeer is this host's agent as an LLDP speaker (its outgoing
// LLDPDUs).
func hostPeer() peer {
	return peer{mac: macLocal0, port: "eth0", name: "host17", ttl: 120,
		tlvs: []lldp.TLV{etsTLV(false, 50, 50, prio3onTC1), &lldp.PFC{Willing: true, Cap: 8}}}
}

// frameRun is a run's frames: leaf1's first LLDPDU, two identical
// refreshes, the host's agent, leaf1 turning PFC on priority 4 as well,
// leaf2 on eth1, and a malformed LLDPDU from leaf1 (TTL TLV cut short).
func frameRun(t testing.TB) *ringSource {
	src := newRingSource()
	l1 := leaf1(40, 60, 1<<3).frame(t)
	src.add(t, 1, "eth0", false, l1)
	src.add(t, 2, "eth0", true, hostPeer().frame(t))
	src.add(t, 31, "eth0", false, l1)
	src.add(t, 61, "eth0", false, l1)
	src.add(t, 70, "eth0", false, leaf1(40, 60, 1<<3|1<<4).frame(t))
	src.add(t, 71, "eth1", false, leaf2().frame(t))
	bad := leaf1(40, 60, 1<<3).frame(t)
	src.add(t, 91, "eth0", false, bad[:14+2+7+2])
	return src
}

// The frames view lists every LLDPDU of the interface with what changed,
// follows the newest, shows any in hex and decoded, and lists only the
// changes on c.
func TestFramesView(t *testing.T) {
	src := frameRun(t)
	s := realistic(t)
	h := newHarness(t, s, nil, WithFrames(src))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("F")
	if d := h.m.vs.detail; d == nil || d.kind != detailFrames {
		t.Fatalf("F: no frames view:\n%s", h.screen())
	}
	h.wantScreen("LLDPDUs on eth0", "6 LLDPDUs listed · 7 in the run (every interface)", "first from this sender", "identical",
		"02:dc:b0:00:00:10", "out", "malformed")
	h.wantNotScreen("02:dc:b0:00:00:02") // leaf2 is on eth1
	// The cursor follows the newest: the malformed one.
	if got := h.cursorNumber(); got != 7 {
		t.Errorf("cursor on LLDPDU %d, want the newest, 7", got)
	}
	h.golden("frames_list")
	h.press("up", "up")
	if got := h.cursorNumber(); got != 4 {
		t.Errorf("two ups: cursor on %d, want 4 (eth1's 6 is not listed)", got)
	}
	// A new LLDPDU does not move a cursor that left the newest.
	src.add(t, 95, "eth0", false, leaf1(40, 60, 1<<3).frame(t))
	h.send(snapshotMsg{s})
	h.wantScreen("7 LLDPDUs listed · 8 in the run (every interface)")
	if got := h.cursorNumber(); got != 4 {
		t.Errorf("after a new LLDPDU the cursor is on %d, want 4", got)
	}
	// Enter: the record in full, hex and decode.
	h.press("enter")
	lldpdu := leaf1(40, 60, 1<<3).frame(t)[14:]
	h.wantScreen("LLDPDU 4 on eth0", "change: identical", hexDump(lldpdu, 16)[0], "System Name", "leaf1", "← → previous/next LLDPDU (4 of 7)")
	h.golden("frames_record")
	h.press("right")
	h.wantScreen("LLDPDU 5 on eth0", "PFC")
	h.press("esc")
	if d := h.m.vs.detail; d == nil || d.frames.open {
		t.Fatal("esc in a record did not go back to the list")
	}
	// c: only the LLDPDUs that changed.
	h.press("c")
	h.wantScreen("LLDPDUs on eth0 (changes only)", "5 LLDPDUs listed")
	h.wantNotScreen("  identical")
	h.press("c", "end")
	if got := h.cursorNumber(); got != 8 {
		t.Errorf("end: cursor on %d, want the newest, 8", got)
	}
	h.press("esc")
	if h.m.vs.detail != nil || h.m.vs.frames.recs != nil {
		t.Error("esc did not close the frames view and drop its copy")
	}
}

// cursorNumber is the Number of the record under the frames view's
// cursor.
func (h *harness) cursorNumber() uint64 {
	h.t.Helper()
	d := h.m.vs.detail
	idx := framesListed(&h.m.vs.frames, &d.frames)
	at := d.frames.cursorAt(&h.m.vs.frames, idx)
	if at < 0 {
		return 0
	}
	return h.m.vs.frames.recs[idx[at]].Number
}

// From the overview the frames view lists every interface's, with the
// interface's column; a run that starts over (a replay's seek) is
// listed from its start again.
func TestFramesViewEveryInterface(t *testing.T) {
	src := frameRun(t)
	h := newHarness(t, twoPorts(t), nil, WithFrames(src))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("o", "F")
	h.wantScreen("LLDPDUs on every interface", "7 LLDPDUs listed", "interface", "02:dc:b0:00:00:02")
	src.reset()
	src.add(t, 1, "eth1", false, leaf2().frame(t))
	h.send(snapshotMsg{twoPorts(t)})
	h.wantScreen("1 LLDPDU listed · 1 in the run")
	if n := len(h.m.vs.frames.recs); n != 1 {
		t.Errorf("after the run started over the screen holds %d records, want 1", n)
	}
}

// The screen's copy is bounded as the ring is: a long run's oldest
// records go, and the view says how many.
func TestFramesViewBounded(t *testing.T) {
	src := newRingSource()
	f := leaf1(40, 60, 1<<3).frame(t)
	n := frames.DefaultRecords + 904
	for i := range n {
		src.add(t, float64(i), "eth0", false, f)
	}
	h := newHarness(t, firstReceipt(t), nil, WithFrames(src))
	h.press("F")
	if got := len(h.m.vs.frames.recs); got != frames.DefaultRecords {
		t.Errorf("the screen holds %d records, want %d", got, frames.DefaultRecords)
	}
	h.wantScreen(fmt.Sprintf("%d LLDPDUs listed · %d in the run (every interface), the oldest 904 gone", frames.DefaultRecords, n))
	// Home goes to the oldest kept.
	h.press("g")
	if got := h.cursorNumber(); got != 905 {
		t.Errorf("home: cursor on %d, want 905", got)
	}
	// While the view is open the ring drops its oldest: so does the
	// screen's copy, and the cursor stays on the oldest kept.
	for i := range 10 {
		src.add(t, float64(n+i), "eth0", false, f)
	}
	h.send(snapshotMsg{firstReceipt(t)})
	if recs := h.m.vs.frames.recs; len(recs) != frames.DefaultRecords || recs[0].Number != 915 || recs[len(recs)-1].Number != uint64(n+10) {
		t.Errorf("after 10 more the screen holds %d records, %d to %d; want %d, 915 to %d",
			len(recs), recs[0].Number, recs[len(recs)-1].Number, frames.DefaultRecords, n+10)
	}
	if got := h.cursorNumber(); got != 915 {
		t.Errorf("the cursor is on %d, want the oldest kept, 915", got)
	}
}

// Without a frame log F says so.
func TestFramesViewNone(t *testing.T) {
	h := newHarness(t, firstReceipt(t), nil)
	h.press("F")
	if h.m.vs.detail != nil {
		t.Fatal("F without a frame log opened a view")
	}
	h.wantScreen("this screen has no frame log")
}

// Strings from the wire reach the frames view sanitized: the decode of a
// hostile System Name, the changes naming it.
func TestFramesViewHostile(t *testing.T) {
	src := newRingSource()
	p := leaf1(40, 60, 1<<3)
	p.name = "evil\x1b]52;c;ZXZpbA==\a\x1b[2J"
	src.add(t, 1, "eth0", false, leaf1(40, 60, 1<<3).frame(t))
	src.add(t, 2, "eth0", false, p.frame(t))
	h := newHarness(t, firstReceipt(t), nil, WithFrames(src))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("F")
	raw := h.m.View().Content
	h.press("enter")
	h.wantScreen("System Name", "evil")
	raw += h.m.View().Content
	for _, bad := range []string{"\x1b]52", "\a", "\x1b[2J"} {
		if strings.Contains(raw, bad) {
			t.Errorf("%q from the wire reached the screen", bad)
		}
	}
}
