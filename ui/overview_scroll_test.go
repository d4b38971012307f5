// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
)

// ovView is where the overview is: the port under the cursor and the first
// row on screen.
type ovView struct{ Cursor, Top string }

func (h *harness) ovView() ovView {
	l := h.m.renderer().overviewLayout()
	if len(l.rows) == 0 {
		return ovView{}
	}
	name := func(n int) string { return h.m.snap.Interfaces[l.rows[n]].Name }
	return ovView{Cursor: name(l.cur), Top: name(l.top)}
}

func ports64Harness(t *testing.T) *harness {
	h := newHarness(t, ports64(t), nil, WithOverview(true))
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24}) // 19 rows
	return h
}

// With more ports than lines the overview scrolls as little as keeps the
// cursor on screen: arrows, a page less one row, the ends.
func TestOverviewScroll(t *testing.T) {
	rep := func(k string, n int) []string { return strings.Fields(strings.Repeat(k+" ", n)) }
	tests := []struct {
		name string
		keys []string
		want ovView
	}{
		{"start", nil, ovView{"h0", "h0"}},
		{"down to the last line", rep("down", 18), ovView{"h18", "h0"}},
		{"down one more", rep("down", 19), ovView{"h19", "h1"}},
		{"j as down", rep("j", 19), ovView{"h19", "h1"}},
		{"page down", []string{"pgdown"}, ovView{"h18", "h0"}},
		{"two pages down", []string{"pgdown", "pgdown"}, ovView{"h36", "h18"}},
		{"end", []string{"end"}, ovView{"h63", "h45"}},
		{"G", []string{"G"}, ovView{"h63", "h45"}},
		{"end then up past the top line", append([]string{"end"}, rep("up", 19)...), ovView{"h44", "h44"}},
		{"end, page up", []string{"end", "pgup"}, ovView{"h45", "h45"}},
		{"end, home", []string{"end", "home"}, ovView{"h0", "h0"}},
		{"up at the top", []string{"up", "pgup"}, ovView{"h0", "h0"}},
		{"down at the end", []string{"end", "down", "pgdown"}, ovView{"h63", "h45"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ports64Harness(t)
			h.press(tt.keys...)
			if d := cmp.Diff(tt.want, h.ovView()); d != "" {
				t.Errorf("after %v (-want +got):\n%s", tt.keys, d)
			}
			h.wantScreen("▸ "+tt.want.Cursor+" ", "64 interfaces · 19 shown")
		})
	}
}

// A new snapshot keeps the cursor on its port and the table where it was,
// even when the port's row moves (sorted by problems, it gains an error).
func TestOverviewScrollNewSnapshot(t *testing.T) {
	h := ports64Harness(t)
	h.press("end", "up", "up", "up", "up", "up") // h58, 5 lines up from the bottom
	want := ovView{"h58", "h45"}
	if d := cmp.Diff(want, h.ovView()); d != "" {
		t.Fatalf("before (-want +got):\n%s", d)
	}
	h.send(snapshotMsg{ports64(t)})
	if d := cmp.Diff(want, h.ovView()); d != "" {
		t.Errorf("the same snapshot again (-want +got):\n%s", d)
	}
	h.press(">") // problems: the errors (h12, h33, h40, the multi-peer port and the three peers lost long ago), the warnings (h0-h3), the rest
	if got := h.ovView(); got.Cursor != "h58" {
		t.Fatalf("sorted by problems: cursor on %s, want h58", got.Cursor)
	}
	line := h.m.ovLine()
	s := ports64(t)
	for i := range s.Interfaces {
		if s.Interfaces[i].Name == "h58" {
			// More errors than any other port has.
			for range 5 {
				s.Interfaces[i].Diagnostics = append(s.Interfaces[i].Diagnostics, diag.Diagnostic{Code: "test", Severity: diag.SeverityError, Message: "a new error"})
			}
		}
	}
	h.send(snapshotMsg{s})
	l := h.m.renderer().overviewLayout()
	if got := h.ovView(); got.Cursor != "h58" || l.cur >= 8 {
		t.Errorf("h58 with an error: cursor on %s at row %d, want h58 among the first 8", got.Cursor, l.cur)
	}
	if l.cur < l.top || l.cur >= l.top+l.fit {
		t.Errorf("cursor row %d off screen (rows %d-%d)", l.cur, l.top, l.top+l.fit-1)
	}
	if got := h.m.ovLine(); got != min(line, l.cur) {
		t.Errorf("cursor on table line %d, want %d (where it was, as far as the rows above allow)", got, min(line, l.cur))
	}
	h.wantScreen("▸ h58 ")
}

// The wheel moves the cursor and scrolls; a click selects the row under
// it on the scrolled table, a second click opens it.
func TestOverviewMouseScrolled(t *testing.T) {
	h := ports64Harness(t)
	h.press("end")
	for range 3 {
		h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if d := cmp.Diff(ovView{"h62", "h45"}, h.ovView()); d != "" {
		t.Errorf("wheel (-want +got):\n%s", d)
	}
	y := h.m.renderer().headerHeight() + 1 + 2 // the third row: h47
	h.send(tea.MouseClickMsg{X: 4, Y: y, Button: tea.MouseLeft})
	if d := cmp.Diff(ovView{"h47", "h45"}, h.ovView()); d != "" {
		t.Errorf("click (-want +got):\n%s", d)
	}
	h.send(tea.MouseClickMsg{X: 4, Y: y, Button: tea.MouseLeft})
	if h.m.vs.overview || h.m.vs.iface != "h47" {
		t.Errorf("second click: overview %v, interface %q; want h47 opened", h.m.vs.overview, h.m.vs.iface)
	}
}

// / filters the overview's rows by interface or peer name as it is typed,
// in any case; enter keeps the filter, esc clears it; a filter matching
// nothing says so.
func TestOverviewFilter(t *testing.T) {
	h := ports64Harness(t)
	h.press("down", "down") // h2
	h.press("/")
	h.typeText("LEAF3")
	// h2 is not listed: the cursor goes to the first row.
	h.wantScreen("filter LEAF3", "15 matching ports: 13 valid · 1 expired · 1 multi-peer · 2 with errors",
		"/LEAF3", "64 interfaces · 15 shown", "▸ h32 ", "  h47 ", "15 of 64 interfaces")
	h.wantNotScreen(" h31 ", " h39 ", " h48 ", " h2 ")
	h.press("backspace")
	h.typeText("3")
	h.wantScreen("filter LEAF3")
	h.press("enter")
	if h.m.vs.ovFiltering || h.m.vs.ovFilter != "LEAF3" {
		t.Fatalf("enter: filtering %v, filter %q; want LEAF3 kept", h.m.vs.ovFiltering, h.m.vs.ovFilter)
	}
	h.wantNotScreen("/LEAF3")
	h.press("down", "down") // h34
	h.press("esc")          // clears the filter; the cursor stays on h34
	if h.m.vs.ovFilter != "" || !h.m.vs.overview {
		t.Fatalf("esc: filter %q, overview %v; want the filter cleared, the overview kept", h.m.vs.ovFilter, h.m.vs.overview)
	}
	h.wantScreen("▸ h34 ", "64 ports: 54 valid")
	h.wantNotScreen("filter LEAF3")
	// A name and a peer's name; then nothing: a line that says so.
	h.press("/")
	h.typeText("h5")
	h.wantScreen("▸ h5 ", "  h50 ", "  h59 ", "11 matching ports: 9 valid · 1 no peer · 1 expired")
	h.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	h.typeText("spine")
	h.wantScreen(`no interface matches "spine"`, "0 matching ports", "64 interfaces · 0 shown")
	h.press("enter", "enter") // enter on nothing opens nothing
	if !h.m.vs.overview {
		t.Errorf("enter with nothing listed left the overview")
	}
	h.press("/", "esc") // all listed again; nothing was under the cursor
	h.wantScreen("▸ h0 ", "64 ports")
	// Expired ports match the peer they lost.
	h.press("/")
	h.typeText("leaf2")
	h.wantScreen("  h25 ", "ttl-expired")
}

// A cached frame is the frame drawn without a cache: as the countdowns
// run, the cursor moves, the theme changes, the screen narrows.
func TestOverviewCache(t *testing.T) {
	s := ports64(t)
	keys := DefaultKeyMap()
	vs := testState(s, 0)
	overviewState(&vs, s)
	vs.ovCache = newRowCache()
	st := DefaultStyles(true)
	step := func(name string, f func()) {
		f()
		for _, size := range [][2]int{{160, 48}, {80, 24}} {
			got := render(s, vs, &st, &keys, size[0], size[1])
			plain := vs
			plain.ovCache = nil
			if want := render(s, plain, &st, &keys, size[0], size[1]); got != want {
				t.Errorf("%s at %dx%d: the cached frame differs (-want +got):\n%s", name, size[0], size[1], cmp.Diff(ansiLines(want), ansiLines(got)))
			}
		}
	}
	step("first", func() {})
	step("again", func() {})
	for sec := range 5 {
		step(fmt.Sprintf("%ds later", sec+1), func() { vs.age = time.Duration(sec+1) * time.Second })
	}
	step("cursor moved", func() { vs.ovCur = 5 })
	step("scrolled", func() { vs.ovCur, vs.ovTop = 40, 30 })
	step("another theme", func() { st = DefaultStyles(false); vs.ovCache = newRowCache() })
	step("ascii", func() { st = NoColorStyles().ASCII(); vs.ovCache = newRowCache() })
	step("expiring", func() { vs.age = 95 * time.Second })
}

// The cache holds the rows of the last two frames, no more.
func TestRowCacheBounded(t *testing.T) {
	s := ports64(t)
	vs := testState(s, 0)
	overviewState(&vs, s)
	vs.ovCache = newRowCache()
	for sec := range 30 {
		vs.age = time.Duration(sec) * time.Second
		render(s, vs, ptr(DefaultStyles(true)), ptr(DefaultKeyMap()), 80, 24)
	}
	c := vs.ovCache
	if n := len(c.rowGen.now) + len(c.rowGen.prev); n > 2*19 {
		t.Errorf("%d rows' cells cached, want at most 2 frames of 19", n)
	}
	if n := len(c.lineGen.now) + len(c.lineGen.prev); n > 2*19 {
		t.Errorf("%d lines cached, want at most 2 frames of 19", n)
	}
}

func ansiLines(s string) []string { return strings.Split(s, "\n") }

// The columns stay put while the table scrolls: the interface and peer
// columns fit every listed row's name, not only those on screen (the
// header is the same at the top and at the end of 64 rows where only the
// last one has a long name); the others widen for the widest cell seen and
// stay so (back at the top, the header is the one of the end).
func TestOverviewColumnsSteady(t *testing.T) {
	snap := ports64(t)
	last := &snap.Interfaces[len(snap.Interfaces)-1]
	last.Name = "swp129s0f10np0" // after every hN
	h := newHarness(t, snap, nil, WithOverview(true))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 24})
	header := func() string {
		for _, l := range strings.Split(h.m.View().Content, "\n") {
			if strings.Contains(l, "Interface") && strings.Contains(l, "Remote") {
				return l
			}
		}
		t.Fatalf("no column header on the screen:\n%s", h.m.View().Content)
		return ""
	}
	top := header()
	h.press("end")
	h.wantScreen("swp129s0f10np0")
	end := header()
	if a, b := strings.Index(top, "Link"), strings.Index(end, "Link"); a != b {
		t.Errorf("the interface column changed width while scrolling:\ntop: %q\nend: %q", top, end)
	}
	h.press("home")
	if back := header(); back != end {
		t.Errorf("the columns moved back when scrolling up:\nend:  %q\ntop:  %q", end, back)
	}
}
