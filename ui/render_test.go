// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestRender compares whole screens, rendered purely from a snapshot built
// by the engine and a view state, with testdata/TestRender/*.golden.
// Regenerate with: go test ./ui -run TestRender -update
func TestRender(t *testing.T) {
	keys := DefaultKeyMap()
	tests := []struct {
		name   string
		snap   func(testing.TB) engine.Snapshot
		w, h   int
		age    time.Duration
		plain  bool // NoColorStyles
		ascii  bool // Styles.ASCII: every byte ASCII
		modify func(*viewState, engine.Snapshot)
	}{
		{name: "no_peer_yet", snap: noPeer, w: 100, h: 30},
		{name: "first_receipt", snap: firstReceipt, w: 100, h: 30, age: 2 * time.Second},
		{name: "mismatch_highlighted", snap: mismatch, w: 100, h: 30, age: 30 * time.Second},
		{name: "multi_peer", snap: multiPeer, w: 100, h: 30, age: time.Second, modify: func(vs *viewState, _ engine.Snapshot) { vs.focus = panePeers }},
		{name: "expired", snap: expired, w: 100, h: 30},
		{name: "shutdown", snap: shutdown, w: 100, h: 30},
		{name: "ttl_critical", snap: firstReceipt, w: 100, h: 30, age: 118 * time.Second},
		{name: "cee_peer", snap: ceePeer, w: 120, h: 40, age: 5 * time.Second},
		{name: "cee_agent", snap: ceeAgent, w: 120, h: 40, age: time.Second},
		{name: "80x24", snap: realistic, w: 80, h: 24, age: 3 * time.Second},
		{name: "120x40", snap: realistic, w: 120, h: 40, age: 3 * time.Second},
		{name: "160x48", snap: realistic, w: 160, h: 48, age: 3 * time.Second},
		{name: "no_color", snap: realistic, w: 80, h: 24, age: 3 * time.Second, plain: true},
		{name: "no_color_160x48", snap: mismatch, w: 160, h: 48, age: 3 * time.Second, plain: true},
		// Below 80x24 the screen degrades: one pane slot under 24 lines,
		// narrower columns under 80; only under 40x8 does it refuse.
		{name: "too_small", snap: realistic, w: 38, h: 6},
		{name: "short_120x20", snap: realistic, w: 120, h: 20, age: 3 * time.Second},
		{name: "narrow_79x40", snap: realistic, w: 79, h: 40, age: 3 * time.Second},
		{name: "small_60x20", snap: realistic, w: 60, h: 20, age: 3 * time.Second},
		{name: "small_40x10", snap: realistic, w: 40, h: 10, age: 3 * time.Second},
		{name: "short_160x20_focus_peers", snap: multiPeer, w: 160, h: 20, age: time.Second, modify: func(vs *viewState, _ engine.Snapshot) { vs.focus = panePeers }},
		// LANG=C: ASCII only.
		{name: "ascii_80x24", snap: realistic, w: 80, h: 24, age: 3 * time.Second, ascii: true},
		{name: "ascii_160x48", snap: losslessRoCE, w: 160, h: 48, ascii: true},
		{name: "ascii_help_80x24", snap: realistic, w: 80, h: 24, ascii: true, plain: true, modify: func(vs *viewState, _ engine.Snapshot) { vs.help = true }},
		{name: "help_overlay", snap: realistic, w: 80, h: 24, modify: func(vs *viewState, _ engine.Snapshot) { vs.help = true }},
		{name: "hostile_strings", snap: hostile, w: 120, h: 40, age: time.Second, modify: func(vs *viewState, _ engine.Snapshot) {
			vs.status = statusLine{text: "apply failed: \x1b]52;c;ZXZpbA==\a", level: levelErr}
		}},
		{name: "empty", snap: func(testing.TB) engine.Snapshot { return engine.Snapshot{} }, w: 80, h: 24},
		{name: "replay_paused_screen", snap: realistic, w: 100, h: 30, age: 3 * time.Second, modify: func(vs *viewState, _ engine.Snapshot) {
			vs.capture = CaptureStatus{Mode: CaptureReplay, Source: "leaf1-flap.pcapng", Position: 65 * time.Second, Duration: 5 * time.Minute, Speed: 4}
			vs.paused, vs.newCount = true, 7
			vs.caps, vs.capsKnown, vs.hasPlayer = engine.ReadOnly(), true, true
		}},
		{name: "filtered_log_second_iface", snap: realistic, w: 100, h: 30, age: 3 * time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			vs.iface, vs.filter, vs.filtering = "eth1", "reason:first", true
		}},
		{name: "pause_counters", snap: losslessSnap, w: 120, h: 40},
		{name: "lossless_80x24", snap: losslessSnap, w: 80, h: 24, modify: focusLossless},
		{name: "lossless_160x48", snap: losslessSnap, w: 160, h: 48, modify: focusLossless},
		{name: "lossless_roce_160x48", snap: losslessRoCE, w: 160, h: 48, modify: focusLossless},
		// With an RDMA device and room, the log shares its place with the
		// Lossless pane: the RoCE path shows without a key press.
		{name: "roce_shared_160x48", snap: losslessRoCE, w: 160, h: 48},
		{name: "roce_shared_120x50", snap: losslessRoCE, w: 120, h: 50},
		{name: "roce_no_room_120x40", snap: losslessRoCE, w: 120, h: 40},
		{name: "overview_roce_160x48", snap: losslessRoCE, w: 160, h: 48, modify: overviewState},
		{name: "demo_100x30", snap: realistic, w: 100, h: 30, age: 3 * time.Second, modify: demoState},
		{name: "demo_80x24", snap: realistic, w: 80, h: 24, age: 3 * time.Second, modify: demoState},
		// At --speed 4 the scenario's clock runs ahead of the wall clock:
		// the log shows scenario time since its start, not times of day.
		{name: "demo_scenario_clock_100x30", snap: realistic, w: 100, h: 30, age: 3 * time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			demoState(vs, s)
			vs.capture.Demo.Speed, vs.capture.Demo.Start = 4, at(-2)
		}},
		// Every port at a glance: names that differ near the end are
		// shown whole at 100 and at 160 columns.
		{name: "overview_100x30", snap: twoPorts, w: 100, h: 30, age: time.Second, modify: overviewState},
		{name: "overview_160x48", snap: twoPorts, w: 160, h: 48, age: time.Second, modify: overviewState},
		{name: "overview_80x24_lossless", snap: losslessSnap, w: 80, h: 24, modify: overviewState},
		// The peer's PFC beside the operational; no peer counted apart
		// from invalid; the remote state whole at 80 columns.
		{name: "overview_ports_80x24", snap: fourPorts, w: 80, h: 24, age: time.Second, modify: overviewState},
		{name: "overview_ports_160x48", snap: fourPorts, w: 160, h: 48, age: time.Second, modify: overviewState},
		// 64 ports (h0..h63) in natural order: what fits, the header
		// saying how many are shown; a filter; the end of the list.
		{name: "overview_64_80x24", snap: ports64, w: 80, h: 24, age: time.Second, modify: overviewState},
		{name: "overview_64_160x48", snap: ports64, w: 160, h: 48, age: time.Second, modify: overviewState},
		{name: "overview_64_filter_80x24", snap: ports64, w: 80, h: 24, age: time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			overviewState(vs, s)
			vs.ovFilter, vs.ovCur = "H1", 2
		}},
		{name: "overview_64_end_160x48", snap: ports64, w: 160, h: 48, age: time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			overviewState(vs, s)
			vs.ovCur = 63
		}},
		{name: "overview_64_no_match_80x24", snap: ports64, w: 80, h: 24, age: time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			overviewState(vs, s)
			vs.ovFilter, vs.ovFiltering = "spine", true
		}},
		{name: "overview_64_ascii_80x24", snap: ports64, w: 80, h: 24, age: time.Second, ascii: true, plain: true, modify: func(vs *viewState, s engine.Snapshot) {
			overviewState(vs, s)
			vs.ovCur = 40
		}},
		// A replay paused after a seek to 0:20 (the engine re-ran up to
		// there): the header says where and that it is paused.
		{name: "replay_seek", snap: realistic, w: 100, h: 30, age: 0, modify: func(vs *viewState, _ engine.Snapshot) {
			vs.capture = CaptureStatus{Mode: CaptureReplay, Source: "demo.pcap", Position: 20 * time.Second, Duration: 62 * time.Second, Speed: 1, Paused: true}
			vs.caps, vs.capsKnown, vs.hasPlayer = engine.ReadOnly(), true, true
		}},
		{name: "peer_detail", snap: nexus, w: 120, h: 48, age: time.Second, modify: func(vs *viewState, _ engine.Snapshot) {
			vs.focus, vs.detail = panePeers, &detailView{kind: detailPeers}
		}},
		// x in the peers' drill-down: the LLDPDU as a hex dump, 16 bytes
		// a line at 80 columns.
		{name: "peer_detail_hex_80x24", snap: nexus, w: 80, h: 24, age: time.Second, modify: func(vs *viewState, _ engine.Snapshot) {
			vs.focus, vs.detail = panePeers, &detailView{kind: detailPeers, hex: true}
		}},
		{name: "diag_detail", snap: nexus, w: 100, h: 30, age: time.Second, modify: func(vs *viewState, s engine.Snapshot) {
			vs.focus, vs.detail = paneDiag, &detailView{kind: detailDiagnostics}
			vs.diagSince = trackDiagnostics(nil, s, s.TakenAt)
		}},
		{name: "log_detail", snap: realistic, w: 100, h: 30, modify: func(vs *viewState, s engine.Snapshot) {
			log := s.Indications
			last := log[len(log)-1]
			var prev *engine.Indication
			for j := len(log) - 2; j >= 0; j-- {
				if log[j].Status == last.Status && log[j].Interface == last.Interface {
					prev = &log[j]
					break
				}
			}
			vs.detail = &detailView{ind: last, prev: prev}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.snap(t)
			vs := testState(s, tt.age)
			if tt.modify != nil {
				tt.modify(&vs, s)
			}
			st := DefaultStyles(true)
			if tt.plain {
				st = NoColorStyles()
			}
			if tt.ascii {
				st = st.ASCII()
			}
			out := render(s, vs, &st, &keys, tt.w, tt.h)
			checkFrame(t, out, tt.w, tt.h)
			if i := strings.IndexFunc(out, func(r rune) bool { return r >= 0x80 }); tt.ascii && i >= 0 {
				t.Errorf("ASCII screen has a byte ≥ 0x80 at %d: %q", i, out[max(0, i-20):min(len(out), i+20)])
			}
			if tt.plain && strings.ContainsRune(out, '\x1b') {
				t.Errorf("NO_COLOR screen contains an escape sequence:\n%q", out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// checkFrame checks that a screen is exactly w×h cells.
func checkFrame(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

// sgr matches the select-graphic-rendition sequences lip gloss emits.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestHostileStrings checks that nothing a peer or a capture file sends
// reaches the terminal as a control sequence, in colour or not, on every
// pane that shows peer strings.
func TestHostileStrings(t *testing.T) {
	s := hostile(t)
	for _, plain := range []bool{false, true} {
		st := DefaultStyles(true)
		if plain {
			st = NoColorStyles()
		}
		for _, focus := range []pane{paneLog, panePeers, paneDiag} {
			for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
				vs := testState(s, time.Second)
				vs.focus = focus
				vs.status = statusLine{text: "x\x1b[2Jy\x07", level: levelErr}
				out := render(s, vs, &st, ptr(DefaultKeyMap()), size[0], size[1])
				rest := sgr.ReplaceAllString(out, "")
				for _, bad := range []string{"\x1b", "\a", "\x9b", "\u202e", "\x7f"} {
					if strings.Contains(rest, bad) {
						t.Fatalf("plain=%v focus=%v %dx%d: screen contains %q:\n%s", plain, focus, size[0], size[1], bad, rest)
					}
				}
				if plain && strings.Contains(out, "\x1b") {
					t.Fatalf("plain screen contains ESC")
				}
			}
		}
		vs := testState(s, time.Second)
		vs.focus = paneLog
		vs.detail = &detailView{ind: s.Indications[len(s.Indications)-1]}
		if rest := sgr.ReplaceAllString(render(s, vs, &st, ptr(DefaultKeyMap()), 100, 30), ""); strings.ContainsAny(rest, "\x1b\a") {
			t.Fatalf("detail overlay leaks a control character")
		}
	}
	// The window title is an OSC sequence itself: the interface name in it
	// must be clean too.
	m := NewModel(nil, WithColor(ColorNever))
	m2, _ := m.Update(snapshotMsg{s})
	if title := m2.(Model).View().WindowTitle; strings.ContainsAny(title, "\x1b\a") {
		t.Errorf("window title %q", title)
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"leaf1", "leaf1"},
		{"a\x1b[2Jb", "a\uFFFD[2Jb"},
		{"\x1b]0;owned\a", "\uFFFD]0;owned\uFFFD"},
		{"c1\u009bx", "c1\uFFFDx"},
		{"del\x7f", "del\uFFFD"},
		{"tab\there", "tab\uFFFDhere"},
		{"bidi\u202eevil\u2066x", "bidi\uFFFDevil\uFFFDx"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"日本語 ok", "日本語 ok"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Width-aware truncation never splits a wide rune or exceeds the width.
	if got := clean("日本語日本語", 7); ansi.StringWidth(got) > 7 {
		t.Errorf("clean: %q is %d cells", got, ansi.StringWidth(got))
	}
}

func TestAppProtocol(t *testing.T) {
	tests := []struct {
		sel   lldp.AppSelector
		proto uint16
		want  string
	}{
		{lldp.AppSelUDP, 4791, "RoCEv2 (UDP 4791)"},
		{lldp.AppSelTCP, 3260, "iSCSI (TCP 3260)"},
		{lldp.AppSelTCP, 4420, "NVMe/TCP (TCP 4420)"},
		{lldp.AppSelEthertype, 0x8906, "FCoE (0x8906)"},
		{lldp.AppSelEthertype, 0x8914, "FIP (0x8914)"},
		{lldp.AppSelEthertype, 0, "default (EtherType 0)"},
		{lldp.AppSelDSCP, 26, "DSCP 26 (AF31)"},
		{lldp.AppSelDSCP, 46, "DSCP 46 (EF)"},
		{lldp.AppSelDSCP, 7, "DSCP 7"},
		{lldp.AppSelPort, 4791, "RoCEv2 (port 4791)"},
		{lldp.AppSelUDP, 9999, "UDP 9999"},
		{lldp.AppSelTCP, 22, "TCP 22"},
		{lldp.AppSelEthertype, 0x1234, "EtherType 0x1234"},
		{lldp.AppSelPort, 3260, "iSCSI (port 3260)"},
		{lldp.AppSelPort, 9, "port 9"},
		{lldp.AppSelector(7), 1, "reserved-7 1"},
	}
	for _, tt := range tests {
		if got := appProtocol(tt.sel, tt.proto); got != tt.want {
			t.Errorf("appProtocol(%v, %d) = %q, want %q", tt.sel, tt.proto, got, tt.want)
		}
	}
}

func TestFlagsCompact(t *testing.T) {
	tests := []struct {
		f    engine.Flags
		want string
	}{
		{engine.FlagETSConfigured | engine.FlagETSChanged | engine.FlagPFCConfigured, "ETS* PFC"},
		{engine.FlagETSChanged | engine.FlagClassificationChanged, "ETS- APP-"},
		{engine.FlagPFCConfigured | engine.FlagWilling, "PFC W"},
		{0, "—"},
	}
	for _, tt := range tests {
		if got := flagsCompact(tt.f); got != tt.want {
			t.Errorf("flagsCompact(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// busy is realistic plus a peer that flaps its PFC every second for 1000
// seconds: a full indication log.
func busy(t testing.TB) engine.Snapshot {
	s := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "")
	for i := range 1000 {
		s.rx(float64(i+1), "eth0", leaf1(40, 60, uint8(1<<3|(i%2)<<4)))
	}
	return s.snap()
}

func BenchmarkRender(b *testing.B) {
	s := busy(b)
	vs := testState(s, time.Second)
	st, keys := DefaultStyles(true), DefaultKeyMap()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				render(s, vs, &st, &keys, size[0], size[1])
			}
		})
	}
}

// demoState makes the view the demo's: step 5 of 12, the next step 7 s
// away, the scenario restarted once (at 20 s: between the log's entries).
func demoState(vs *viewState, s engine.Snapshot) {
	vs.capture = CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{
		Step: 5, Steps: 12, Caption: "leaf-2 joins the same link: two DCBX peers → remote invalid (multi-peer)",
		NextAt: s.TakenAt.Add(vs.age + 7*time.Second), Pass: 2, Restarts: []time.Time{at(20)}, Speed: 1,
	}}
}

// The demo's header: the badge (with the speed, or ENDED), the step line
// with its countdown, a sanitized caption and how the demo runs.
func TestDemoHeader(t *testing.T) {
	snap := realistic(t)
	now := snap.TakenAt.Add(3 * time.Second)
	tests := []struct {
		name  string
		demo  DemoStatus
		done  bool
		badge string
		line  string // the third header line, trimmed
	}{
		{"starting", DemoStatus{Steps: 12, NextAt: now.Add(5 * time.Second)}, false, "◆ DEMO", "starting · next in 5s"},
		{"step", DemoStatus{Step: 4, Steps: 12, Caption: "leaf-1 changes", NextAt: now.Add(6500 * time.Millisecond)}, false, "◆ DEMO", "step 4/12 · leaf-1 changes · next in 7s"},
		{"last second", DemoStatus{Step: 4, Steps: 12, Caption: "c", NextAt: now.Add(10 * time.Millisecond)}, false, "◆ DEMO", "step 4/12 · c · next in 1s"},
		{"next passed", DemoStatus{Step: 4, Steps: 12, Caption: "c", NextAt: now.Add(-time.Second)}, false, "◆ DEMO", "step 4/12 · c"},
		{"unknown next", DemoStatus{Step: 1, Steps: 12, Caption: "c"}, false, "◆ DEMO", "step 1/12 · c"},
		{"faster", DemoStatus{Step: 1, Steps: 12, Caption: "c", Speed: 8}, false, "◆ DEMO ×8", "step 1/12 · c"},
		{"real time", DemoStatus{Step: 1, Steps: 12, Caption: "c", Speed: 1}, false, "◆ DEMO", "step 1/12 · c"},
		{"slower", DemoStatus{Step: 1, Steps: 12, Caption: "c", Speed: 0.5}, false, "◆ DEMO ×0.5", "step 1/12 · c"},
		{"ended", DemoStatus{Step: 1, Steps: 12, Caption: "c", NextAt: now.Add(time.Second), Speed: 8}, true, "■ DEMO ENDED", "step 1/12 · c"},
		{"hostile caption", DemoStatus{Step: 2, Steps: 12, Caption: "a\x1b]0;owned\a\x1b[2Jb\nc"}, false, "◆ DEMO", "step 2/12 · a\ufffd]0;owned\ufffd\ufffd[2Jb\ufffdc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := testState(snap, 3*time.Second)
			d := tt.demo
			vs.capture = CaptureStatus{Mode: CaptureLive, Source: "in-memory link (not root)", Demo: &d, Done: tt.done}
			out := render(snap, vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 100, 30)
			checkFrame(t, out, 100, 30)
			if strings.Contains(out, "\x1b") {
				t.Fatalf("the screen holds an escape sequence: %q", out)
			}
			lines := strings.Split(out, "\n")
			if !strings.HasSuffix(strings.TrimSpace(lines[0]), "  "+tt.badge) {
				t.Errorf("first line %q, want it to end with %q", lines[0], tt.badge)
			}
			if strings.Contains(lines[0], "LIVE") || strings.Contains(lines[0], "in-memory") {
				t.Errorf("a demo says LIVE or names the source in the badge: %q", lines[0])
			}
			// How the demo runs ends the step line.
			if got, want := strings.TrimSpace(lines[2]), tt.line+" · in-memory link (not root)"; got != want {
				t.Errorf("third line %q, want %q", got, want)
			}
		})
	}
	// Not a demo: two header lines, the log's title on the third.
	vs := testState(snap, 3*time.Second)
	out := ansi.Strip(render(snap, vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 100, 30))
	if l := strings.Split(out, "\n")[2]; strings.Contains(l, "step") || !strings.Contains(out, "● LIVE") {
		t.Errorf("live screen: third line %q", l)
	}
	// The snapshot channel closed: ended too.
	vs.capture = CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Step: 1, Steps: 10, Caption: "c", NextAt: now.Add(time.Second)}}
	vs.closed = true
	lines := strings.Split(ansi.Strip(render(snap, vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 100, 30)), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "■ DEMO ENDED") || strings.TrimSpace(lines[2]) != "step 1/10 · c" {
		t.Errorf("closed demo: header\n%s\n%s", lines[0], lines[2])
	}
	// No interface yet: the step line is still the third line.
	empty := engine.Snapshot{}
	vs = testState(empty, 0)
	vs.capture = CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Steps: 10}}
	out = render(empty, vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 80, 24)
	checkFrame(t, out, 80, 24)
	if l := strings.Split(out, "\n")[2]; strings.TrimSpace(l) != "starting" {
		t.Errorf("no interface: third line %q, want the step line", l)
	}
}

// Each restart of the demo's scenario is a separator in the log, before
// the first entry (of those the filter keeps) at or after it; the cursor
// stays on its entry.
func TestRestartMarks(t *testing.T) {
	snap := realistic(t) // log entries at 0 s (4), 1 s (2), 5 s, 31 s (2); eth0's all but 5 s
	logLines := func(restarts []time.Time, pass int, filter string) []string {
		vs := testState(snap, 3*time.Second)
		vs.filter = filter
		vs.capture = CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Step: 1, Steps: 12, Pass: pass, Restarts: restarts}}
		r := newRenderer(snap, &vs, ptr(NoColorStyles()), ptr(DefaultKeyMap()), 120, 40)
		c := r.logContent(120)
		var out []string
		for i, l := range c.body {
			l = strings.TrimSpace(ansi.Strip(l))
			switch f := strings.Fields(l); {
			case strings.HasPrefix(l, "──"):
				out = append(out, l)
			case i == c.cursor:
				out = append(out, "> "+f[1])
			default:
				out = append(out, f[0])
			}
		}
		return out
	}
	const (
		s0, s1, s5, s31 = "10:00:00.000", "10:00:01.000", "10:00:05.000", "10:00:31.000"
		cur             = "> " + s31
	)
	mark := func(pass int) string { return fmt.Sprintf("── demo scenario restarts: pass %d ──", pass) }
	tests := []struct {
		name     string
		restarts []time.Time
		pass     int
		filter   string
		want     []string
	}{
		{"none", nil, 1, "", []string{s0, s0, s0, s0, s1, s1, s5, s31, cur}},
		{"before all", []time.Time{at(-1)}, 2, "", []string{mark(2), s0, s0, s0, s0, s1, s1, s5, s31, cur}},
		{"at an entry's time", []time.Time{at(1)}, 2, "", []string{s0, s0, s0, s0, mark(2), s1, s1, s5, s31, cur}},
		{"between", []time.Time{at(3), at(20)}, 4, "", []string{s0, s0, s0, s0, s1, s1, mark(3), s5, mark(4), s31, cur}},
		{"filtered", []time.Time{at(3), at(20)}, 4, "if:eth0", []string{s0, s0, s1, s1, mark(3), mark(4), s31, cur}},
		{"after all", []time.Time{at(1000)}, 2, "", []string{s0, s0, s0, s0, s1, s1, s5, s31, cur, mark(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, logLines(tt.restarts, tt.pass, tt.filter)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

func focusLossless(vs *viewState, _ engine.Snapshot) { vs.focus = paneLossless }

// BenchmarkLossless is a second of the Lossless pane with 8 ports whose
// counters are sampled every second, after a minute of such samples: the
// engine takes the 8 samples, and the screen draws the snapshot at
// 160x48 with the pane focused.
func BenchmarkLossless(b *testing.B) {
	const ports = 8
	s := newScenario(b)
	names := make([]string, ports)
	for i := range names {
		names[i] = fmt.Sprintf("eth%d", i)
		mac := macLocal0
		mac[5] += byte(i)
		s.link(0, names[i], mac)
	}
	var samples [61]engine.CountersSampled // made once: the sampler's work is not the screen's
	for i := range samples {
		samples[i] = losslessSample(i)
	}
	sample := func(sec int) {
		for _, name := range names {
			ev := samples[sec%len(samples)]
			ev.Interface, ev.Interval = name, time.Second
			s.counters(float64(1+sec), ev)
		}
	}
	for sec := range 60 {
		sample(sec)
	}
	st, keys := DefaultStyles(true), DefaultKeyMap()
	b.ReportAllocs()
	sec := 60
	for b.Loop() {
		sample(sec)
		sec++
		snap := s.snap()
		vs := testState(snap, 0)
		vs.focus = paneLossless
		render(snap, vs, &st, &keys, 160, 48)
	}
}

// BenchmarkRenderOverview64 draws the overview of 64 ports with a peer
// each (ports64) at 160x48 and 80x24: redraw draws the same state again
// (a key press, a snapshot that changed nothing on screen), tick a second
// later each time (every TTL countdown changes). The rows are cached as
// the Model caches them.
func BenchmarkRenderOverview64(b *testing.B) {
	s := ports64(b)
	st, keys := DefaultStyles(true), DefaultKeyMap()
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		for _, ticking := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d/redraw", size[0], size[1])
			if ticking {
				name = fmt.Sprintf("%dx%d/tick", size[0], size[1])
			}
			b.Run(name, func(b *testing.B) {
				vs := testState(s, time.Second)
				overviewState(&vs, s)
				vs.ovCache = newRowCache()
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					if ticking {
						vs.age = time.Duration(n%60) * time.Second
						n++
					}
					render(s, vs, &st, &keys, size[0], size[1])
				}
			})
		}
	}
}

// A diagnostic's [code] is never broken across lines, even where
// word-wrapping would break it at its hyphens.
func TestWrapTagged(t *testing.T) {
	for _, tc := range []struct {
		text, tag string
		w         int
		want      []string
	}{
		{"→ or make TC 3 strict", "[cnp-priority-lossy]", 25, []string{"→ or make TC 3 strict", "[cnp-priority-lossy]"}},
		{"→ fix it", "[local-unknown]", 30, []string{"→ fix it [local-unknown]"}},
		{"", "[local-unknown]", 30, []string{"[local-unknown]"}},
		{"", "[a-very-long-code]", 8, []string{"[a-very-", "long-cod", "e]"}},
	} {
		if diff := cmp.Diff(tc.want, wrapTagged(tc.text, tc.tag, tc.w)); diff != "" {
			t.Errorf("wrapTagged(%q, %q, %d) (-want +got):\n%s", tc.text, tc.tag, tc.w, diff)
		}
	}
}
