// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
)

// Issue 13, item 7: what dcbtop reads is bounded, checked as a whole
// first, and waiting for it can be interrupted.

// applyEnv keeps apply away from any agent's control socket of the host.
func applyEnv(t *testing.T) []string {
	return []string{control.EnvRunDir + "=" + t.TempDir()}
}

// runApplyCmd runs dcbtop apply with env and returns its exit code and
// stderr.
func runApplyCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	t.Setenv(control.EnvRunDir, t.TempDir())
	code, _, errOut := runOut(t, append([]string{tuiBinary(t), "apply"}, args...)...)
	return code, errOut
}

// A 2 MiB PARAMS file is refused with the limit, without reading it all.
func TestApplyFileTooLarge(t *testing.T) {
	f := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(f, []byte(`{"app": [`+strings.Repeat(" ", 2<<20)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, errOut := runApplyCmd(t, "-i", "lo", f)
	if code != ExitFailure || !strings.Contains(errOut, f+": larger than 1024 KiB") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one line naming the file and the limit", code, errOut)
	}
}

// Range errors in the file come before anything about where it would be
// applied (lo has no DCB netlink support).
func TestApplyValidatesFirst(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.json")
	body := `{"ets": {"willing": false, "prio_tc": [0,0,0,9,0,0,0,0], "tc_bandwidth": [150,0,0,0,0,0,0,0],
	  "tsa": ["ets","strict","strict","strict","strict","strict","strict","strict"]}}`
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, errOut := runApplyCmd(t, "-i", "lo", f)
	// Every problem, each on its own line at its value.
	if code != ExitFailure || !strings.Contains(errOut, "invalid parameters, nothing applied") || !strings.Contains(errOut, "line 1, column 46: ets.prio_tc[3]: priority 3 maps to TC9") ||
		!strings.Contains(errOut, "line 1, column 75: ets.tc_bandwidth[0]: TC0 bandwidth 150% is over 100%") || strings.Count(errOut, "\n") < 2 ||
		strings.Contains(errOut, "netlink") {
		t.Errorf("exit %d, stderr %q; want the file's range errors, not DCB netlink", code, errOut)
	}
	dup := filepath.Join(t.TempDir(), "dup.json")
	if err := os.WriteFile(dup, []byte(`{"pfc": {"willing": true, "cap": 8, "enabled": [3]}, "pfc": {"willing": true, "cap": 8, "enabled": []}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, errOut := runApplyCmd(t, "-i", "lo", dup); code != ExitFailure || !strings.Contains(errOut, `pfc: key given twice`) {
		t.Errorf("duplicate key: exit %d, stderr %q", code, errOut)
	}
}

// interruptWaiting starts argv, waits until it blocks, sends SIGINT and
// checks that it ends at once with ExitInterrupted and the message.
func interruptWaiting(t *testing.T, what string, argv []string, env []string) {
	t.Helper()
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	p := startProc(t, what, argv)
	// Blocked in open(2) on the FIFO (fs/pipe.c fifo_open waits for a
	// writer): by then the signal handling is in place. A fixed sleep
	// was too short for a binary starting under make test's load.
	// Without root the kernel stacks cannot be read: a fixed wait.
	deadline := time.Now().Add(10 * time.Second)
	if os.Geteuid() != 0 {
		time.Sleep(300 * time.Millisecond)
	}
	for os.Geteuid() == 0 && !blockedInFIFOOpen(p.cmd.Process.Pid) {
		if p.exited() {
			t.Fatalf("%s exited before the signal: %s", what, p.stderrText())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not blocked opening the FIFO within 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.signal(syscall.SIGINT)
	if code := p.wait(2 * time.Second); code != ExitInterrupted {
		t.Errorf("%s: exit %d after SIGINT, want %d", what, code, ExitInterrupted)
	}
	if msg := p.stderrText(); !strings.Contains(msg, "interrupted while waiting for") {
		t.Errorf("%s: stderr %q, want it to say it was interrupted while waiting", what, msg)
	}
}

// blockedInFIFOOpen reports whether a thread of process pid waits in
// fifo_open for the FIFO's other end (its kernel stack, /proc/PID/task/
// TID/stack, which root may read).
func blockedInFIFOOpen(pid int) bool {
	stacks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stack", pid))
	for _, f := range stacks {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "fifo_open") {
			return true
		}
	}
	return false
}

// A FIFO without a writer: apply and -r wait for one, and SIGINT ends
// the wait (open() blocked and ignored it).
func TestFIFOWithoutWriterInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := tuiBinary(t)
	interruptWaiting(t, "dcbtop apply FIFO", []string{bin, "apply", "-i", "lo", fifo}, applyEnv(t))
	interruptWaiting(t, "dcbtop -r FIFO", []string{bin, "-r", fifo, "--json"}, nil)
}

// apply - from a terminal says what it waits for, and Ctrl-C (SIGINT)
// ends it. The signal goes to dcbtop alone: Ctrl-C in the pane would also
// end the pane's shell, which records the exit status.
func TestApplyStdinTerminalInterrupted(t *testing.T) {
	bin := tuiBinary(t)
	p := startTmux(t, 100, 10, applyEnv(t), bin, "apply", "-i", "lo", "-")
	p.WaitText(10*time.Second, "reading parameters from standard input; end with Ctrl-D")
	if err := syscall.Kill(atoi(t, p.CommandPid(bin)), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.ExitStatus(3 * time.Second); code != "130" {
		t.Errorf("exit %s after Ctrl-C, want 130; screen:\n%s", code, p.Screen(false))
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// After kill -9 of a dcbtop agent, its control socket stays and refuses
// connections: apply says the agent no longer runs before what the
// kernel answered (issue 35: it blamed "no DCB netlink support" alone).
func TestApplyDeadAgent(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	t.Setenv(control.EnvRunDir, dir)
	path := control.Path(dir, "lo")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // as a killed process leaves it
	l.Close()
	f := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(f, []byte(`{"pfc": {"willing": false, "cap": 8, "enabled": [3]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runOut(t, tuiBinary(t), "apply", "-i", "lo", f)
	if code != ExitFailure || !strings.Contains(errOut, "the dcbtop agent of lo no longer runs (its control socket "+path+" refuses connections)") ||
		strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want one line naming the dead agent first", code, errOut)
	}
}
