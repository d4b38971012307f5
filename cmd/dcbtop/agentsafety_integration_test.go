// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
)

// startAgentIn starts dcbtop's agent on h0 of a new namespace pair, its
// control socket in a run directory of the test's, and waits until the
// socket answers.
func startAgentIn(t *testing.T, prefix string) (host *testbed.NS, run string, agent *proc) {
	t.Helper()
	host, sw := testbed.NewNS(t, prefix+"h"), testbed.NewNS(t, prefix+"s")
	testbed.Veth(t, sw, "p0", host, "h0")
	run = testbed.ShortTempDir(t)
	agent = startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := nsControlErr(run, host, "h0", `{"op":"get"}`); err == nil && resp.OK {
			return host, run, agent
		}
		if agent.exited() || time.Now().After(deadline) {
			t.Fatalf("the agent's control socket did not answer (exit %v); stderr:\n%s", agent.exited(), agent.stderrText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestApplyStoppedAgent: an apply sent to an agent stopped before it
// accepts (SIGSTOP) and resumed (SIGCONT) some seconds later lands if and
// only if dcbtop apply said it did. The request carries its deadline on
// CLOCK_MONOTONIC, 5 s after it was sent: resumed before it, the agent
// applies and answers (exit 0); after it, the agent refuses the request
// it finds in its socket, whether the client still waits (5.5 s: it waits
// a second past the deadline and hears the refusal) or has gone (later).
// 7737732 counted its deadline from the accept, so an apply reported
// failed landed on SIGCONT (3 of 3).
func TestApplyStoppedAgent(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	for _, tc := range []struct {
		resume  time.Duration
		applied bool
	}{
		{2 * time.Second, true},
		{5500 * time.Millisecond, false},
		{6500 * time.Millisecond, false},
		{8 * time.Second, false},
		{12 * time.Second, false},
	} {
		t.Run(fmt.Sprint(tc.resume), func(t *testing.T) {
			t.Parallel()
			host, run, agent := startAgentIn(t, "stop")
			agent.signal(syscall.SIGSTOP)
			stopped := true
			defer func() {
				if stopped {
					agent.signal(syscall.SIGCONT)
				}
			}()
			apply := startProc(t, "dcbtop apply", dcbtopIn(t, host, run, "apply", "-i", "h0", "--willing", "off"))
			exited := make(chan time.Time, 1)
			go func() { <-apply.done; exited <- time.Now() }()
			// The deadline runs from the request (5 s ahead of its
			// Do, just before it connects), not from the process's start,
			// which takes a second on a loaded machine: the resume is timed
			// from its connection (the agent, stopped, has not accepted it:
			// it waits in the backlog).
			start := apply.unixConnected(t, 10*time.Second)
			time.Sleep(time.Until(start.Add(tc.resume)))
			agent.signal(syscall.SIGCONT)
			stopped = false
			code := apply.wait(30 * time.Second)
			took := (<-exited).Sub(start)
			// What the agent holds once it has had the time to get to the
			// request in its socket.
			time.Sleep(2 * time.Second)
			resp, err := nsControlErr(run, host, "h0", `{"op":"get"}`)
			if err != nil || !resp.OK || resp.Willing == nil {
				t.Fatalf("get after the resume: %+v, %v", resp, err)
			}
			applied := !*resp.Willing
			msg := apply.stdout() + apply.stderrText()
			t.Logf("resumed at %v: apply exit %d after %v: %s", tc.resume, code, took.Round(time.Millisecond), msg)
			if (code == 0) != applied || applied != tc.applied {
				t.Errorf("resumed at %v: apply exit %d after %v (%q); the agent's Willing is %v (applied %v); want applied %v, and exit 0 exactly when applied",
					tc.resume, code, took.Round(time.Millisecond), msg, *resp.Willing, applied, tc.applied)
			}
			if !tc.applied && (!strings.Contains(msg, "not applied") || strings.Contains(msg, "may be applied")) {
				t.Errorf("resumed at %v: apply says %q, want a plain not applied", tc.resume, msg)
			}
			if took > 7*time.Second {
				t.Errorf("apply took %v: want its answer within a second past its 5 s deadline", took.Round(time.Millisecond))
			}
		})
	}
}

// nobody runs argv as uid and gid 65534 with no groups and, in its
// ambient set, caps ("+dac_override,+net_admin"; "" none): a real
// unprivileged user (setpriv).
func nobody(caps string, argv ...string) []string {
	pre := []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}
	if caps != "" {
		pre = append(pre, "--inh-caps="+caps, "--ambient-caps="+caps)
	}
	return append(pre, argv...)
}

// pyConnect is a client of its own (python3): it connects to the socket
// argv[1], sends argv[2], and prints what comes back; exit status 2 when
// it cannot connect.
const pyConnect = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(e)
    sys.exit(2)
s.sendall(sys.argv[2].encode())
s.shutdown(socket.SHUT_WR)
print(s.makefile().read(), end="")
`

// pyHold binds and listens on the abstract unix socket argv[1] and waits
// to be killed.
const pyHold = `
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(1)
print("held", flush=True)
time.sleep(600)
`

// TestControlPrivilege: only root or a process with CAP_NET_ADMIN reaches
// the agent, checked with a real unprivileged user (setpriv), and the
// socket is 0600 from its first instant. The run directory is 0755 and
// the agent starts under umask 000, as in the report against 7737732:
// its socket was created under the umask and chmod'ed after, and in 136
// starts an unprivileged user connected 3 times and once had an apply
// accepted. Nobody with CAP_DAC_OVERRIDE (past the file's mode) is
// refused by the agent on its credentials; with CAP_NET_ADMIN it is
// served. A user squatting the agent's lock name cannot keep the agent
// from starting, and is named.
func TestControlPrivilege(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "setpriv")
	t.Parallel()
	host, sw := testbed.NewNS(t, "privh"), testbed.NewNS(t, "privs")
	testbed.Veth(t, sw, "p0", host, "h0")
	run := testbed.ShortTempDir(t)
	if err := os.Chmod(run, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(testbed.NetnsDir, host.Name))
	if err != nil {
		t.Fatal(err)
	}
	sock := nsSocket(run, st, "h0")

	// Squat the lock's name as nobody before the agent starts.
	idx := ifindex(t, host, "h0")
	squat := startProc(t, "python3 squatting the agent lock", append([]string{ipPath(t), "netns", "exec", host.Name},
		nobody("", "/usr/bin/python3", "-c", pyHold, "dcbtop/agent/ifindex/"+idx)...))
	if l, ok := squat.next(10 * time.Second); !ok || l != "held" {
		t.Fatalf("the squatter did not bind: %q; stderr %s", l, squat.stderrText())
	}

	// Watch the socket's mode from its first instant.
	modes := make(chan os.FileMode, 1)
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if fi, err := os.Lstat(sock); err == nil {
				modes <- fi.Mode()
				return
			}
			time.Sleep(200 * time.Microsecond)
		}
		modes <- 0
	}()
	agent := startProc(t, "dcbtop --agent under umask 000 (in "+host.Name+")", append([]string{"sh", "-c", `umask 000; exec "$@"`, "sh"},
		dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s")...))
	if m := <-modes; m&os.ModeSocket == 0 || m.Perm() != 0o600 {
		t.Errorf("the control socket's mode at first sight: %v, want a socket 0600", m)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := nsControlErr(run, host, "h0", `{"op":"get"}`); err == nil && resp.OK {
			break
		}
		if agent.exited() || time.Now().After(deadline) {
			t.Fatalf("the agent did not start beside the squatter (exit %v):\n%s", agent.exited(), agent.stderrText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The warning is written before the control socket answers; the
	// harness reads the agent's stderr on a goroutine of its own, so it
	// may reach stderrText a little later.
	want := fmt.Sprintf("the agent lock @dcbtop/agent/ifindex/%s of h0 is held by pid %d (uid 65534, python3), which is no dcbtop agent", idx, squat.cmd.Process.Pid)
	for end := time.Now().Add(5 * time.Second); !strings.Contains(agent.stderrText(), want) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if w := agent.stderrText(); !strings.Contains(w, want) {
		t.Errorf("the agent's warning about the squatter: %q", w)
	}

	apply := `{"op":"apply","willing":false}`
	for _, tc := range []struct {
		caps string
		code int    // python's exit status
		want string // in what it printed
	}{
		{"", 2, "Permission denied"}, // the file's mode
		{"+dac_override", 0, `permission denied: the dcbtop agent on h0 answers only root or a process with CAP_NET_ADMIN, and pid `},
		{"+dac_override,+net_admin", 0, `"ok":true`},
	} {
		code, out, errOut := runOut(t, nobody(tc.caps, "/usr/bin/python3", "-c", pyConnect, sock, apply)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("nobody with caps %q: exit %d, %q (stderr %q); want exit %d and %q", tc.caps, code, out, errOut, tc.code, tc.want)
		}
		if tc.caps == "+dac_override" && !strings.Contains(out, "(uid 65534, python3): it is not root and holds no CAP_NET_ADMIN") {
			t.Errorf("the refusal does not name the peer: %q", out)
		}
		resp := nsControl(t, run, host, "h0", `{"op":"get"}`)
		if applied := resp.Willing != nil && !*resp.Willing; applied != (tc.caps == "+dac_override,+net_admin") {
			t.Errorf("after nobody with caps %q: Willing %v", tc.caps, *resp.Willing)
		}
	}

	// dcbtop apply as nobody names the cause first: it needs root.
	bin := filepath.Join(testbed.ShortTempDir(t), "dcbtop")
	if b, err := os.ReadFile(dcbtopBin); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{ipPath(t), "netns", "exec", host.Name},
		nobody("", envPath(t), control.EnvRunDir+"="+run, bin, "apply", "-i", "h0", "--willing", "on")...)
	code, out, errOut := runOut(t, argv...)
	for try := 0; try < 5 && strings.Contains(errOut, "Text file busy"); try++ {
		// ETXTBSY: a process another test forked at the moment the copy
		// was written still held its descriptor until it exec'd.
		time.Sleep(100 * time.Millisecond)
		code, out, errOut = runOut(t, argv...)
	}
	if want := "dcbtop: h0: permission denied: dcbtop apply needs root or CAP_NET_ADMIN (the dcbtop agent's control socket " + sock + " is root's"; code != 1 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("dcbtop apply as nobody: exit %d, stdout %q, stderr %q; want 1 and %q...", code, out, errOut, want)
	}
}

// unixConnected waits until p holds a connected unix socket (its
// connection to a control socket; /proc/PID/net/unix lists the
// namespace's unix sockets with their state, 03 SS_CONNECTED, and
// /proc/PID/fd which are p's) and returns when it saw it; the test fails
// after timeout.
func (p *proc) unixConnected(t *testing.T, timeout time.Duration) time.Time {
	t.Helper()
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(timeout)
	for {
		inodes := map[string]bool{}
		if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
			for _, e := range ents {
				if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
					inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
				}
			}
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/unix", pid)); err == nil {
			for _, line := range strings.Split(string(b), "\n")[1:] {
				// Num RefCount Protocol Flags Type St Inode Path
				if f := strings.Fields(line); len(f) >= 7 && f[5] == "03" && inodes[f[6]] {
					return time.Now()
				}
			}
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("%s did not connect within %v (exited %v)", p.name, timeout, p.exited())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
