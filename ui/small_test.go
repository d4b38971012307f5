// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
)

// TestRenderSizes renders sizes from 20x5 to 200x60 (the edges of the
// layouts, and a grid between them) over fixtures and
// view states (the help overlay, the overview, a focused pane, the demo
// with a status line, ASCII): each screen is exactly w×h cells, never a
// panic; ASCII screens are ASCII; and the panes the mouse knows are where
// the screen draws them.
func TestRenderSizes(t *testing.T) {
	type state struct {
		name   string
		modify func(*viewState, engine.Snapshot)
		ascii  bool
	}
	all := []state{
		{name: "log"},
		{name: "help", modify: func(vs *viewState, _ engine.Snapshot) { vs.help = true }},
		{name: "overview", modify: overviewState},
		{name: "lossless", modify: focusLossless},
		{name: "ets_demo_status", modify: func(vs *viewState, s engine.Snapshot) {
			demoState(vs, s)
			vs.focus = paneETS
			vs.status = statusLine{text: "applied: PFC on priority 3 now in force on eth0", level: levelOK}
		}},
		{name: "ascii_peers", modify: func(vs *viewState, _ engine.Snapshot) { vs.focus = panePeers }, ascii: true},
	}
	fixtures := []struct {
		name   string
		snap   engine.Snapshot
		states []state
	}{
		{"realistic", realistic(t), all},
		{"lossless_roce", losslessRoCE(t), all},
		{"hostile", hostile(t), []state{all[0], all[5]}},
		{"empty", engine.Snapshot{}, all[:1]},
	}
	// Every size where the layout changes, and a grid between them: every
	// 7th width and 3rd height, or under the race detector (which finds
	// nothing in a render and makes it seven times slower) every 21st and
	// 9th.
	wStep, hStep := 7, 3
	if raceEnabled {
		wStep, hStep = 21, 9
	}
	var widths, heights []int
	for w := 20; w <= 200; w += wStep {
		widths = append(widths, w)
	}
	for h := 5; h <= 60; h += hStep {
		heights = append(heights, h)
	}
	widths = append(widths, minWidth-1, minWidth, narrowWidth-1, narrowWidth, etsCompactW+sepWidth+pfcCompactW)
	heights = append(heights, minHeight-1, minHeight, shortHeight-1, shortHeight)
	for _, f := range fixtures {
		for _, st := range f.states {
			t.Run(f.name+"/"+st.name, func(t *testing.T) {
				t.Parallel()
				styles := DefaultStyles(true)
				if st.ascii {
					styles = styles.ASCII()
				}
				for _, w := range widths {
					for _, h := range heights {
						vs := testState(f.snap, 3*time.Second)
						if st.modify != nil {
							st.modify(&vs, f.snap)
						}
						out := render(f.snap, vs, &styles, ptr(DefaultKeyMap()), w, h)
						if msg := frameError(out, w, h); msg != "" {
							t.Fatalf("%dx%d: %s", w, h, msg)
						}
						if i := strings.IndexFunc(out, func(r rune) bool { return r >= 0x80 }); st.ascii && i >= 0 {
							t.Fatalf("%dx%d: ASCII screen has %q", w, h, out[i:min(len(out), i+4)])
						}
						if refused(w, h) || vs.overview || vs.help || len(f.snap.Interfaces) == 0 {
							continue
						}
						checkRegions(t, newRenderer(f.snap, &vs, &styles, ptr(DefaultKeyMap()), w, h), out)
					}
				}
			})
		}
	}
}

// frameError says how out is not exactly w×h cells, "" when it is.
func frameError(out string, w, h int) string {
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		return fmt.Sprintf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			return fmt.Sprintf("line %d is %d cells wide: %q", i, n, ansi.Strip(l))
		}
	}
	return ""
}

// checkRegions checks that each region the mouse uses starts with its
// pane's title line, and that regions do not overlap.
func checkRegions(t *testing.T, r *renderer, out string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(out), "\n")
	regions := r.regions(r.plan())
	for pn, rc := range regions {
		if rc.w <= 0 || rc.h <= 0 || rc.x+rc.w > r.w || rc.y+rc.h > r.h-1 {
			t.Fatalf("%dx%d: %s region %+v off the body", r.w, r.h, paneNames[pn], rc)
		}
		title := string([]rune(lines[rc.y])[rc.x:])
		if !strings.HasPrefix(strings.TrimLeft(title, " ▶#"), paneNames[pn]) {
			t.Fatalf("%dx%d: %s region %+v, but its first line is %q", r.w, r.h, paneNames[pn], rc, title)
		}
		for on, o := range regions {
			if on != pn && rc.x < o.x+o.w && o.x < rc.x+rc.w && rc.y < o.y+o.h && o.y < rc.y+rc.h {
				t.Fatalf("%dx%d: %s %+v overlaps %s %+v", r.w, r.h, paneNames[pn], rc, paneNames[on], o)
			}
		}
	}
}
