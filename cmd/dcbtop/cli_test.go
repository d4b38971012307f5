// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/ui"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	fixtureIEEE = "../../engine/lldp/testdata/lldpd-ieee-full.pcap"
	fixtureCEE  = "../../engine/lldp/testdata/lldpd-cee.pcap"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), args, Env{Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // whole line
	}{
		{name: "help", args: []string{"--help"}, code: 0, stdout: "Usage:"},
		{name: "short help", args: []string{"-h"}, code: 0, stdout: "Exit status"},
		{name: "version", args: []string{"--version"}, code: 0, stdout: "dcbtop dev (git unknown)"},
		// No arguments means live capture on every up interface (which a
		// unit test must not do); these live-mode usage errors are caught
		// before any interface is touched.
		{name: "speed in live mode", args: []string{"--speed", "2"}, code: 2, stderr: "dcbtop: --speed applies to replay (-r) only (see dcbtop --help)\n"},
		{name: "local without agent", args: []string{"-i", "h0", "--local", "x.json"}, code: 2, stderr: "dcbtop: --local, --willing and --force need --agent (see dcbtop --help)\n"},
		{name: "-i any with another -i", args: []string{"-i", "any", "-i", "eth0"}, code: 2, stderr: "dcbtop: -i any means every interface: give it alone (see dcbtop --help)\n"},
		{name: "-w - with --events", args: []string{"-i", "h0", "-w", "-", "--events"}, code: 2, stderr: "dcbtop: -w - writes pcapng to standard output: --json, --events and --frames would print there too (see dcbtop --help)\n"},
		{name: "-w with -r names -w", args: []string{"-r", "x.pcap", "-w", "y.pcapng"}, code: 2, stderr: "dcbtop: -w applies to live capture only (a replay records nothing new) (see dcbtop --help)\n"},
		{name: "--agent with -r names --agent", args: []string{"-r", "x.pcap", "--agent"}, code: 2, stderr: "dcbtop: --agent applies to live capture only (see dcbtop --help)\n"},
		{name: "negative duration", args: []string{"--duration", "-1s"}, code: 2, stderr: "dcbtop: --duration must be positive (see dcbtop --help)\n"},
		{name: "tx-interval range", args: []string{"--agent", "-i", "h0", "--tx-interval", "100ms"}, code: 2, stderr: "dcbtop: --tx-interval must be between 1s and 1h (see dcbtop --help)\n"},
		{name: "counters interval too short", args: []string{"-i", "h0", "--counters-interval", "10ms"}, code: 2, stderr: "dcbtop: invalid value \"10ms\" for flag --counters-interval: want 0 (never) or 100ms to 1h (see dcbtop --help)\n"},
		{name: "counters interval not a duration", args: []string{"-i", "h0", "--counters-interval", "often"}, code: 2, stderr: "dcbtop: invalid value \"often\" for flag --counters-interval: want a duration like 1s or 500ms (see dcbtop --help)\n"},
		{name: "counters interval in replay", args: []string{"-r", "x", "--counters-interval", "2s"}, code: 2, stderr: "dcbtop: --counters-interval applies to live capture and the demo only (a capture file has no counters) (see dcbtop --help)\n"},
		{name: "help lists the counters interval", args: []string{"--help"}, code: 0, stdout: "--counters-interval D"},
		{name: "unknown flag", args: []string{"--frobnicate"}, code: 2, stderr: "dcbtop: unknown flag --frobnicate (see dcbtop --help)\n"},
		{name: "unknown flag, one dash", args: []string{"-frobnicate"}, code: 2, stderr: "dcbtop: unknown flag -frobnicate (see dcbtop --help)\n"},
		{name: "duration without a unit", args: []string{"-i", "h0", "--duration", "5"}, code: 2, stderr: "dcbtop: invalid value \"5\" for flag --duration: want a duration like 5s or 2m (see dcbtop --help)\n"},
		{name: "json and events", args: []string{"-r", "x", "--json", "--events"}, code: 2, stderr: "dcbtop: --json and --events are exclusive (see dcbtop --help)\n"},
		{name: "stray argument", args: []string{"-r", "x", "y"}, code: 2, stderr: "dcbtop: unexpected argument \"y\" (see dcbtop --help)\n"},
		{name: "bad speed", args: []string{"-r", "x", "--speed", "-3"}, code: 2, stderr: "dcbtop: invalid value \"-3\" for flag --speed: want a number of 0 or more (see dcbtop --help)\n"},
		{name: "duration in replay", args: []string{"-r", "x", "--duration", "3s"}, code: 2, stderr: "dcbtop: --duration applies to live capture only (see dcbtop --help)\n"},
		{name: "bad color", args: []string{"-r", "x", "--color", "purple"}, code: 2, stderr: "dcbtop: invalid value \"purple\" for flag --color: want auto, always or never (see dcbtop --help)\n"},
		{name: "empty snapshot dir", args: []string{"-r", "x", "--snapshot-dir", ""}, code: 2, stderr: "dcbtop: invalid value \"\" for flag --snapshot-dir: empty directory name (see dcbtop --help)\n"},
		{name: "help lists the screen's flags", args: []string{"--help"}, code: 0, stdout: "--snapshot-dir DIR"},
		{name: "demo help", args: []string{"demo", "-h"}, code: 0, stdout: "Usage: dcbtop demo"},
		{name: "demo json and events", args: []string{"demo", "--json", "--events"}, code: 2, stderr: "dcbtop: demo: --json and --events are exclusive (see dcbtop demo --help)\n"},
		{name: "demo negative duration", args: []string{"demo", "--duration", "-2s"}, code: 2, stderr: "dcbtop: demo: --duration must be positive (see dcbtop demo --help)\n"},
		{name: "demo empty snapshot dir", args: []string{"demo", "--snapshot-dir="}, code: 2, stderr: "dcbtop: demo: invalid value \"\" for flag --snapshot-dir: empty directory name (see dcbtop demo --help)\n"},
		{name: "demo bad color", args: []string{"demo", "--color", "purple"}, code: 2, stderr: "dcbtop: demo: invalid value \"purple\" for flag --color: want auto, always or never (see dcbtop demo --help)\n"},
		{name: "demo bad speed", args: []string{"demo", "--speed", "0.5"}, code: 2, stderr: "dcbtop: demo: invalid value \"0.5\" for flag --speed: want a number from 1 to 16 (see dcbtop demo --help)\n"},
		{name: "demo help lists the scenario", args: []string{"demo", "--help"}, code: 0, stdout: "--duration 25s to see a first-receipt and a change"},
		{name: "demo stray argument", args: []string{"demo", "now"}, code: 2, stderr: "dcbtop: demo: unexpected argument \"now\" (see dcbtop demo --help)\n"},
		{name: "apply unknown flag", args: []string{"apply", "--frobnicate"}, code: 2, stderr: "dcbtop: apply: unknown flag --frobnicate (see dcbtop apply --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", out, tt.stdout)
			}
			if errOut != tt.stderr {
				t.Errorf("stderr = %q, want %q", errOut, tt.stderr)
			}
		})
	}
}

// TestReplayErrors checks that every bad file gives one line naming the
// file, exit status 1, and never a panic.
func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello, this is not a capture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pcap")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(fixtureIEEE)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, good[:len(good)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pcap")
	tests := []struct {
		name, path, want string
		extra            []string
	}{
		{name: "missing", path: missing, want: "no such file or directory"},
		{name: "not pcap", path: text, want: "not a pcap or pcapng file"},
		{name: "empty", path: empty, want: "empty file"},
		{name: "truncated", path: cut, want: "truncated", extra: []string{"--json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"-r", tt.path}, tt.extra...)...)
			if code != ExitFailure {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.HasPrefix(errOut, "dcbtop: "+tt.path+": ") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr = %q, want one line 'dcbtop: %s: ...%s...'", errOut, tt.path, tt.want)
			}
			if tt.name == "truncated" {
				// What was read before the cut is still reported.
				var s engine.Snapshot
				if err := json.Unmarshal([]byte(out), &s); err != nil {
					t.Fatalf("snapshot before the cut: %v", err)
				}
				if len(s.Interfaces) != 1 || !s.Interfaces[0].RemoteValid {
					t.Errorf("snapshot before the cut lacks the remote parameters: %s", out)
				}
			}
		})
	}
}

// TestReplayJSON compares the snapshot of each fixture capture with a
// golden file (go test -update rewrites them).
func TestReplayJSON(t *testing.T) {
	for _, name := range []string{"lldpd-ieee-full", "lldpd-cee", "lldpd-plain"} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "-r", "../../engine/lldp/testdata/"+name+".pcap", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkGolden(t, filepath.Join("testdata", name+".json.golden"), out)
		})
	}
}

// TestEventsMatchSnapshotLog checks that --events prints, in order, the
// indications the --json snapshot logs, each with its event ID.
func TestEventsMatchSnapshotLog(t *testing.T) {
	for _, f := range []string{fixtureIEEE, fixtureCEE} {
		_, ev, _ := runCLI(t, "-r", f, "--events")
		_, js, _ := runCLI(t, "-r", f, "--json")
		var s engine.Snapshot
		if err := json.Unmarshal([]byte(js), &s); err != nil {
			t.Fatal(err)
		}
		var lines []engine.Indication
		sc := bufio.NewScanner(strings.NewReader(ev))
		for sc.Scan() {
			var in engine.Indication
			if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			lines = append(lines, in)
		}
		if len(lines) == 0 {
			t.Fatalf("%s: no indications", f)
		}
		// Each line carries its event ID; a replay's lines no host.
		for i := range s.Indications {
			s.Indications[i].Stamp("")
		}
		if diff := cmp.Diff(s.Indications, lines); diff != "" {
			t.Errorf("%s: events differ from the snapshot's log (-snapshot +events):\n%s", f, diff)
		}
	}
}

// TestModeSelection: the screen when stdout is a terminal and no headless
// output is asked for; NDJSON (with a notice) when it is not a terminal.
func TestModeSelection(t *testing.T) {
	tests := []struct {
		args              []string
		tty               bool
		tui, events, note bool
		speed             float64
	}{
		{args: []string{"-r", "x"}, tty: true, tui: true, speed: 1},
		{args: []string{"-r", "x", "--speed", "4"}, tty: true, tui: true, speed: 4},
		{args: []string{"-r", "x"}, events: true, note: true, speed: 0},
		{args: []string{"-r", "x", "--events"}, tty: true, events: true},
		{args: []string{"-r", "x", "--json"}, tty: true},
		{args: []string{"-r", "x", "--json"}},
		{args: []string{"-i", "h0"}, tty: true, tui: true},
		{args: []string{"-i", "h0"}, events: true, note: true},
	}
	for _, tt := range tests {
		o, err := parse(tt.args, Env{StdoutTTY: tt.tty})
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if o.tui != tt.tui || o.events != tt.events || o.notTTY != tt.note || o.speed != tt.speed {
			t.Errorf("%q (tty %v): tui %v, events %v, notice %v, speed %v; want %v, %v, %v, %v",
				tt.args, tt.tty, o.tui, o.events, o.notTTY, o.speed, tt.tui, tt.events, tt.note, tt.speed)
		}
	}
	o, err := parse([]string{"-r", "x", "--color", "never", "--snapshot-dir", "snaps"}, Env{StdoutTTY: true})
	if err != nil || o.color != ui.ColorNever || !filepath.IsAbs(o.snapshotDir) || filepath.Base(o.snapshotDir) != "snaps" {
		t.Errorf("--color never --snapshot-dir snaps: %+v, %v", o, err)
	}

	// Not a terminal: NDJSON, the notice once the file is open (not for
	// a file that cannot be).
	code, out, errOut := runCLI(t, "-r", fixtureIEEE)
	_, events, _ := runCLI(t, "-r", fixtureIEEE, "--events")
	if code != 0 || out != events || errOut != notTTYNotice {
		t.Errorf("not a terminal: exit %d, stderr %q, stdout same as --events: %v", code, errOut, out == events)
	}
	code, _, errOut = runCLI(t, "-r", fixtureIEEE+".missing")
	if code != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("missing file: exit %d, stderr %q; want one line", code, errOut)
	}
}

// TestSysfsRootInvalid checks that a DCBTOP_SYSFS_ROOT that is not a
// directory is a one-line error before anything opens.
func TestSysfsRootInvalid(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	t.Setenv("DCBTOP_SYSFS_ROOT", missing)
	code, _, errOut := runCLI(t, "-i", "h0", "--json", "--duration", "1s")
	if want := "dcbtop: DCBTOP_SYSFS_ROOT=" + missing + ": not a directory (it replaces /sys for the counters)\n"; code != 1 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, errOut, want)
	}
}

// TestEthtoolRootInvalid: so is a DCBTOP_ETHTOOL_ROOT that is not a
// directory, for a live run and for check.
func TestEthtoolRootInvalid(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	t.Setenv("DCBTOP_ETHTOOL_ROOT", missing)
	want := "DCBTOP_ETHTOOL_ROOT=" + missing + ": not a directory (recorded ethtool -i and -S outputs, one directory per interface)\n"
	if code, _, errOut := runCLI(t, "-i", "h0", "--json", "--duration", "1s"); code != 1 || errOut != "dcbtop: "+want {
		t.Errorf("live: exit %d, stderr %q; want 1, %q", code, errOut, "dcbtop: "+want)
	}
	if code, _, errOut := runCLI(t, "check", "-i", "h0", "--wait", "1s"); code != 3 || errOut != "dcbtop check: UNKNOWN: "+want {
		t.Errorf("check: exit %d, stderr %q; want 3, %q", code, errOut, "dcbtop check: UNKNOWN: "+want)
	}
}

// dcbtop apply --help is apply's own help.
func TestApplyHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		var out, errOut strings.Builder
		code := Run(context.Background(), []string{"apply", arg}, Env{Stdout: &out, Stderr: &errOut})
		if code != ExitOK || !strings.HasPrefix(out.String(), "usage: dcbtop apply -i IFACE") || errOut.Len() != 0 {
			t.Errorf("apply %s: exit %d, stdout %q, stderr %q", arg, code, out.String(), errOut.String())
		}
	}
}

// -i any is every interface, as tcpdump takes it: what no -i gives.
func TestIfaceAny(t *testing.T) {
	o, err := parse([]string{"-i", "any", "--events"}, Env{})
	if err != nil || o.ifaces != nil {
		t.Errorf("dcbtop -i any: ifaces %q, %v; want none named (every interface)", o.ifaces, err)
	}
	c, err := parseCheck([]string{"-i", "any"})
	if err != nil || c.ifaces != nil {
		t.Errorf("dcbtop check -i any: ifaces %q, %v", c.ifaces, err)
	}
	if code, _, errOut := runCLI(t, "apply", "-i", "any", "x.json"); code != 2 || !strings.Contains(errOut, "-i any: apply changes one interface at a time") {
		t.Errorf("apply -i any: exit %d, %q", code, errOut)
	}
}

// checkGolden compares got with the golden file path, which -update
// rewrites with it first.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got; go test ./cmd/dcbtop -run %s -update):\n%s", path, t.Name(), diff)
	}
}
