package ui

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/dcbtop/dcbtop/engine"
)

// TestRenderSizes renders every size from 20x5 to 200x60 (every 7th
// column, every 3rd line, and the edges of the layouts) over several
// fixtures and view states: each screen is exactly w×h cells, never a
// panic, and the panes the mouse knows are where the screen draws them.
func TestRenderSizes(t *testing.T) {
	snaps := map[string]engine.Snapshot{
		"realistic": realistic(t), "lossless_roce": losslessRoCE(t), "two_ports": twoPorts(t),
		"hostile": hostile(t), "empty": {},
	}
	states := map[string]func(*viewState, engine.Snapshot){
		"log":      nil,
		"help":     func(vs *viewState, _ engine.Snapshot) { vs.help = true },
		"overview": overviewState,
		"ets":      func(vs *viewState, _ engine.Snapshot) { vs.focus = paneETS },
		"lossless": focusLossless,
		"status_demo": func(vs *viewState, s engine.Snapshot) {
			demoState(vs, s)
			vs.status = statusLine{text: "applied: PFC on priority 3 now in force on eth0", level: levelOK}
		},
	}
	var widths, heights []int
	for w := 20; w <= 200; w += 7 {
		widths = append(widths, w)
	}
	for h := 5; h <= 60; h += 3 {
		heights = append(heights, h)
	}
	widths = append(widths, minWidth-1, minWidth, narrowWidth-1, narrowWidth, 133, 134)
	heights = append(heights, minHeight-1, minHeight, shortHeight-1, shortHeight)
	for sn, s := range snaps {
		for name, modify := range states {
			t.Run(sn+"/"+name, func(t *testing.T) {
				for _, w := range widths {
					for _, h := range heights {
						vs := testState(s, 3*time.Second)
						if modify != nil {
							modify(&vs, s)
						}
						out := render(s, vs, DefaultStyles(true), DefaultKeyMap(), w, h)
						if msg := frameError(out, w, h); msg != "" {
							t.Fatalf("%dx%d: %s", w, h, msg)
						}
						if refused(w, h) || vs.overview || vs.help || len(s.Interfaces) == 0 {
							continue
						}
						r := newRenderer(s, &vs, DefaultStyles(true), DefaultKeyMap(), w, h)
						checkRegions(t, r, out)
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
		if !strings.HasPrefix(strings.TrimLeft(title, " ▶>"), paneNames[pn]) {
			t.Fatalf("%dx%d: %s region %+v, but its first line is %q", r.w, r.h, paneNames[pn], rc, title)
		}
		for on, o := range regions {
			if on != pn && rc.x < o.x+o.w && o.x < rc.x+rc.w && rc.y < o.y+o.h && o.y < rc.y+rc.h {
				t.Fatalf("%dx%d: %s %+v overlaps %s %+v", r.w, r.h, paneNames[pn], rc, paneNames[on], o)
			}
		}
	}
}

// TestShow prints screens (go test -run TestShow -v -show WxH).
func TestShow(t *testing.T) {
	if *show == "" {
		t.Skip()
	}
	var w, h int
	fmt.Sscanf(*show, "%dx%d", &w, &h)
	s := realistic(t)
	vs := testState(s, 3*time.Second)
	if *showFocus >= 0 {
		vs.focus = pane(*showFocus)
	}
	fmt.Println(ansi.Strip(render(s, vs, DefaultStyles(true), DefaultKeyMap(), w, h)))
}

var (
	show      = flag.String("show", "", "")
	showFocus = flag.Int("focus", -1, "")
)
