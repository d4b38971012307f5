// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

// End-to-end tests of the interactive screen: the dcbtop binary runs in a
// tmux pane (its own tmux server per test, -L), the test types keys with
// send-keys and reads the screen with capture-pane (issue 6).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

var (
	lazyBinOnce sync.Once
	lazyBin     string
	lazyBinErr  error
	lazyBinDir  string
)

// tuiBinary returns the dcbtop binary: the one TestMain built (as root),
// else one built now, once (the replay tests need no privilege).
func tuiBinary(t *testing.T) string {
	t.Helper()
	if dcbtopBin != "" {
		return dcbtopBin
	}
	lazyBinOnce.Do(func() {
		if lazyBinDir, lazyBinErr = os.MkdirTemp("", "dcbtop-cli-test-"); lazyBinErr != nil {
			return
		}
		lazyBin = filepath.Join(lazyBinDir, "dcbtop")
		lazyBinErr = buildDcbtop(lazyBin, raceEnabled)
	})
	if lazyBinErr != nil {
		t.Fatal(lazyBinErr)
	}
	return lazyBin
}

// A tmuxPane is the screen in a tmux pane of its own (testbed.Tmux).
type tmuxPane = testbed.Tmux

// startTmux runs argv in a fresh tmux server's only pane, w x h, with
// the race detector's and a UTF-8 locale's environment and env
// (testbed.StartTmux).
func startTmux(t *testing.T, w, h int, env []string, argv ...string) *tmuxPane {
	t.Helper()
	return testbed.StartTmux(t, w, h, append([]string{raceEnv, utf8Env}, env...), argv...)
}

// line returns the first line of the screen that starts with prefix.
func line(screen, prefix string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// pfcRow returns which priorities a PFC table row (Local, Remote, Oper)
// shows enabled: "3,4".
func pfcRow(screen, row string) string {
	f := strings.Fields(line(screen, row+" "))
	if len(f) < 9 {
		return "?"
	}
	var on []string
	for i, c := range f[1:9] {
		if c == "●" || strings.HasPrefix(c, "●") {
			on = append(on, fmt.Sprint(i))
		}
	}
	return strings.Join(on, ",")
}

// TestTUIReplay replays the lldpd capture on the screen at 100x30: the
// remote ETS bandwidths, the PFC priorities and the log line are there,
// ? shows the help, q quits with status 0 and the terminal is restored.
func TestTUIReplay(t *testing.T) {
	bin := tuiBinary(t)
	t.Parallel()
	fixture, err := filepath.Abs(fixtureIEEE)
	if err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, 100, 30, nil, bin, "-r", fixture)
	s := p.WaitText(15*time.Second, "END", "REMOTE first-receipt")
	// ETS: TC0 40%, TC1 50%, TC2 10% in the remote configuration column.
	for tc, bw := range []string{"40%", "50%", "10%"} {
		l := line(s, fmt.Sprintf(" %d ", tc))
		if f := strings.Fields(l); len(f) < 5 || f[3] != bw {
			t.Errorf("ETS TC%d row %q: remote bandwidth %v, want %s", tc, l, f, bw)
		}
	}
	if got := pfcRow(s, "Remote"); got != "3,4" {
		t.Errorf("PFC remote row %q: priorities %s enabled, want 3,4", line(s, "Remote "), got)
	}
	if !regexp.MustCompile(`23:50:06\.765 pcap0 REMOTE first-receipt ETS\* PFC\* APP\*`).MatchString(s) {
		t.Errorf("no log line with the first receipt's flags:\n%s", s)
	}
	if !strings.Contains(line(s, " dcbtop "), "REPLAY lldpd-ieee-full") {
		t.Errorf("header %q: want the replay and its file", line(s, " dcbtop "))
	}
	if title := p.Display("#{pane_title}"); title != "dcbtop: pcap0" {
		t.Errorf("window title %q, want %q", title, "dcbtop: pcap0")
	}

	// F: the replay's every LLDPDU (judged against tshark by the
	// --frames tests); this capture's first is lldpd's.
	p.Keys("F")
	p.WaitText(5*time.Second, "LLDPDUs on pcap0", "first from this sender")
	p.Keys("Escape")
	p.WaitScreen("frames view closed", 5*time.Second, func(s string) bool { return !strings.Contains(s, "LLDPDUs on pcap0") })

	p.Keys("?")
	p.WaitText(5*time.Second, "dcbtop help", "quit", "willing", "export")
	p.Keys("Escape")
	p.WaitScreen("help closed", 5*time.Second, func(s string) bool { return !strings.Contains(s, "dcbtop help") })
	// Read-only: w says why.
	p.Keys("w")
	p.WaitText(5*time.Second, "replay: a recording is read-only")
	out := p.Quit()
	if strings.Contains(out, "REMOTE first-receipt") {
		t.Errorf("the screen's content stayed on the normal screen:\n%s", out)
	}
}

// TestTUINotATerminal: with stdout to a pipe and no headless flag, dcbtop
// prints NDJSON, as --events does, and says so once on stderr.
func TestTUINotATerminal(t *testing.T) {
	bin := tuiBinary(t)
	t.Parallel()
	code, out, errOut := runOut(t, bin, "-r", fixtureIEEE)
	if code != 0 || errOut != notTTYNotice {
		t.Errorf("exit %d, stderr %q; want 0, %q", code, errOut, notTTYNotice)
	}
	_, events, _ := runOut(t, bin, "-r", fixtureIEEE, "--events")
	if out != events || out == "" {
		t.Errorf("stdout differs from --events:\n%s\n--events:\n%s", out, events)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var in engine.Indication
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Errorf("not NDJSON: %q: %v", sc.Text(), err)
		}
	}
	// A bad file is still one line.
	code, _, errOut = runOut(t, bin, "-r", fixtureIEEE+".missing")
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

// TestTUILiveWilling runs the screen live with dcbtop's agent (Willing
// off) facing lldpd, then toggles Willing with w and y: operational
// follows the resolver (the peer is not willing: its PFC), the exported
// snapshot says so, and lldpd sees the Willing bits set.
func TestTUILiveWilling(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	_, hostMAC := testbed.Veth(t, sw, "p0", host, "h0")
	l := testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: "sw1", TLVs: swTLVs(swPFC3)})
	dir, run := t.TempDir(), testbed.ShortTempDir(t)
	rec := filepath.Join(t.TempDir(), "rec.pcapng")
	p := startTmux(t, 100, 30, []string{control.EnvRunDir + "=" + run}, ipPath(t), "netns", "exec", host.Name,
		dcbtopBin, "--agent", "-i", "h0", "--willing", "off", "--tx-interval", "1s", "--snapshot-dir", dir, "-w", rec)

	s := p.WaitText(15*time.Second, "peer sw1", "willing OFF", "local dcbtop agent")
	if got := pfcRow(s, "Oper"); got != "" {
		t.Errorf("willing off: operational PFC on %q, want local (none)", got)
	}
	if got := pfcRow(s, "Remote"); got != "3" {
		t.Errorf("remote PFC on %q, want 3", got)
	}
	p.Keys("w")
	p.WaitText(5*time.Second, "Toggle Willing on h0", "Local Willing: OFF → ON", "PFC from local → remote", "y set Willing on")
	p.Keys("y")
	s = p.WaitScreen("willing ON with the peer's PFC", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "willing ON") && pfcRow(s, "Oper") == "3"
	})
	if !strings.Contains(s, "PFC · operational = remote") {
		t.Errorf("the PFC pane does not say where operational comes from:\n%s", s)
	}

	// F: every LLDPDU of the run, the agent's (out) and sw1's (in),
	// each with what changed; Enter shows one in hex and decoded.
	p.Keys("F")
	s = p.WaitText(5*time.Second, "LLDPDUs on h0", "first from this sender")
	if !regexp.MustCompile(` out +`+regexp.QuoteMeta(hostMAC.String())).MatchString(s) || !strings.Contains(s, " in ") {
		t.Errorf("the frames view lacks the agent's outgoing or sw1's incoming LLDPDUs:\n%s", s)
	}
	p.Keys("Home", "Enter")
	p.WaitText(5*time.Second, "LLDPDU 1 on h0", "0000  02 07 04", "Chassis ID")
	p.Keys("Escape") // back to the list (two at once read as alt+esc)
	p.WaitText(5*time.Second, "LLDPDUs on h0")
	p.Keys("Escape")
	p.WaitScreen("frames view closed", 5*time.Second, func(s string) bool { return !strings.Contains(s, "LLDPDUs on h0") })

	p.Keys("s")
	s = p.WaitText(5*time.Second, "snapshot saved to "+dir)
	files, _ := filepath.Glob(filepath.Join(dir, "dcbtop-h0-*.json"))
	if len(files) != 1 || !regexp.MustCompile(`/dcbtop-h0-\d{8}T\d{6}Z\.json$`).MatchString(files[0]) {
		t.Fatalf("exported files %v, want one dcbtop-h0-YYYYMMDDTHHMMSSZ.json; screen:\n%s", files, s)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	in := snaptest.Iface(t, snaptest.Decode(t, files[0], string(b)), "h0")
	if in.Willing == nil || !*in.Willing || in.LocalSource != "agent" {
		t.Errorf("exported: willing %v, local source %q; want true, agent", in.Willing, in.LocalSource)
	}
	if in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != 1<<3 || in.Resolution.PFC.Source != dcb.FromRemote {
		t.Errorf("exported: operational %+v, resolution %+v; want the peer's PFC (priority 3)", in.Operational, in.Resolution.PFC)
	}

	// lldpd sees the Willing bits in dcbtop's ETS Configuration and PFC.
	isDcbtop := chassisIs(hostMAC)
	willingTLV := func(n testbed.Neighbor, subtype uint8) bool {
		for _, u := range n.UnknownTLVs {
			if u.OUI == testbed.OUI8021 && u.Subtype == subtype && len(u.Value) > 0 {
				return u.Value[0]&0x80 != 0
			}
		}
		return false
	}
	l.WaitNeighbors(10*time.Second, func(ns []testbed.Neighbor) bool {
		i := slices.IndexFunc(ns, isDcbtop)
		return i >= 0 && willingTLV(ns[i], 9) && willingTLV(ns[i], 11)
	})

	// q: the agent withdraws (shutdown LLDPDU), the control socket goes.
	p.Quit()
	l.WaitNeighbors(3*time.Second, func(ns []testbed.Neighbor) bool { return !slices.ContainsFunc(ns, isDcbtop) })
	if names, _ := os.ReadDir(run); len(names) != 0 {
		t.Errorf("the control socket directory still holds %v after exit", names)
	}
	// The recording was closed properly: it replays to its end, the
	// shutdown LLDPDU last.
	code, out, errOut := runOut(t, dcbtopBin, "-r", rec, "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("replay of the recording: exit %d, stderr %q", code, errOut)
	}
	if in := snaptest.Iface(t, snaptest.Decode(t, rec, out), "h0"); in.Capture.FramesIn == 0 || in.Capture.FramesOut == 0 || len(in.LocalAgents) != 0 {
		t.Errorf("recording: counters %+v, local agents %+v; want frames both ways, ending with the agent's shutdown", in.Capture, in.LocalAgents)
	}
}

// TestTUIHostileStrings faces the live screen with an lldpd whose system
// name and description carry terminal escapes: they show as replacement
// characters and do nothing (no clear screen, no title change, no colour).
func TestTUIHostileStrings(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{
		Hostname: "sw\x1b[31mred\x1b]0;owned\x07x",
		SysDescr: "\x1b[2J\x1b]0;owned\a\x1b[5mdesc\x9b2J",
		TLVs:     swTLVs(swPFC3),
	})
	p := startTmux(t, 120, 40, nil, ipPath(t), "netns", "exec", host.Name, dcbtopBin, "-i", "h0", "--color", "never")

	s := p.WaitText(15*time.Second, "peer sw", "first-receipt")
	if !strings.Contains(s, "sw\ufffd[31mred\ufffd]0;owned\ufffdx") {
		t.Errorf("the system name is not shown with replacement characters for its escapes:\n%s", s)
	}
	// The description is in the peers pane.
	s = p.WaitText(10*time.Second, "\ufffd[2J\ufffd]0;owned\ufffd\ufffd[5mdesc")
	if title := p.Display("#{pane_title}"); title != "dcbtop: h0" {
		t.Errorf("window title %q, want %q (the peer set it?)", title, "dcbtop: h0")
	}
	// Not cleared: the header, the panes and the footer are all there.
	for _, want := range []string{" dcbtop ", "ETS", "PFC", "Log", "q quit"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q (cleared?):\n%s", want, s)
		}
	}
	// No colour anywhere (--color never): an SGR colour would be the
	// peer's; nor blinking.
	esc := p.Screen(true)
	if m := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|38;[0-9;]+|5)m`).FindString(esc); m != "" {
		t.Errorf("the pane has attribute %q: the peer's escape took effect", m)
	}
	p.Quit()
}

// TestTUISignals ends the screen with SIGTERM and SIGINT (and Ctrl-C as a
// key): exit status 0 and the terminal restored each time.
func TestTUISignals(t *testing.T) {
	bin := tuiBinary(t)
	t.Parallel()
	fixture, err := filepath.Abs(fixtureIEEE)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"SIGTERM", "SIGINT", "ctrl+c"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			p := startTmux(t, 100, 30, nil, bin, "-r", fixture)
			p.WaitText(15*time.Second, "REMOTE first-receipt")
			if how == "ctrl+c" {
				p.Keys("C-c")
			} else {
				pid := p.CommandPid(bin)
				if err := exec.Command("kill", "-"+strings.TrimPrefix(how, "SIG"), pid).Run(); err != nil {
					t.Fatal(err)
				}
			}
			if code := p.ExitStatus(20 * time.Second); code != "0" {
				t.Fatalf("exit status %s after %s, want 0; the screen:\n%s", code, how, p.Screen(false))
			}
			p.WaitText(5*time.Second, "dcbtop-exited")
			if alt := p.Display("#{alternate_on}"); alt != "0" {
				t.Errorf("the alternate screen is still on after %s", how)
			}
		})
	}
}
