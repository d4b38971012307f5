// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// dcbtopBin is the dcbtop binary TestMain builds for the integration tests
// (with -race when the tests are), "" when not running as root.
var dcbtopBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	// What an agent keeps per port goes to a directory of this run's, not
	// the machine's /var/lib/dcbtop (in-process runs; each subprocess gets
	// its test's own, stateDir).
	state, err := os.MkdirTemp("", "dcbtop-cli-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(state)
	os.Setenv(statedir.EnvDir, state)
	if os.Geteuid() == 0 {
		dir, err := os.MkdirTemp("", "dcbtop-cli-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "dcbtop")
		if err := buildDcbtop(bin, raceEnabled); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		dcbtopBin = bin
	}
	code := m.Run()
	if lazyBinDir != "" { // built by tuiBinary
		os.RemoveAll(lazyBinDir)
	}
	if leaked := testbed.Leaked(); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "leaked network namespaces: %s\n", strings.Join(leaked, ", "))
		code = 1
	}
	return code
}

// buildDcbtop runs `go build -trimpath -o bin ./cmd/dcbtop` from the
// module root, with -race when race says so, else with CGO_ENABLED=0.
func buildDcbtop(bin string, race bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	// -trimpath as make test builds the tests: the packages the test
	// binary already compiled come from the build cache, whatever the
	// checkout's directory (Makefile, TRIMPATH).
	args := []string{"build", "-trimpath"}
	if race {
		args = append(args, "-race")
	}
	// No VCS stamp: the binary says "dev", as the test process does
	// (version), whatever the checkout (versionInfo would report the
	// module version and revision).
	args = append(args, "-buildvcs=false", "-o", bin, "./cmd/dcbtop")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if !race {
		// As the package builds it (Makefile, deb): the static binary
		// that ships, and the same compiled packages as that build and
		// vet, from the cache.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// ipPath returns the absolute path of ip(8), which may live in /usr/sbin.
func ipPath(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("ip"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("ip not found")
	return ""
}

// raceEnv makes a race-enabled dcbtop stop at the first data race with exit
// status 66 (and the report on stderr), so no test can pass over one.
const raceEnv = "GORACE=halt_on_error=1 exitcode=66"

// utf8Env gives dcbtop a UTF-8 locale whatever the test's: the screens
// the tests read are drawn in Unicode (under LANG=C dcbtop draws ASCII).
const utf8Env = "LC_ALL=C.UTF-8"

// A proc is a process started by the tests (dcbtop, usually in a network
// namespace), with its stdout read line by line.
type proc struct {
	t     testing.TB
	name  string
	cmd   *exec.Cmd
	lines chan string // stdout lines; closed at EOF

	mu     sync.Mutex
	out    []string // every stdout line so far
	stderr bytes.Buffer

	done chan struct{} // closed once the process has exited and been reaped
	code int           // exit status; -1 when killed by a signal
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// stateDirs holds each test's state directory (stateDir).
var stateDirs sync.Map // testing.TB -> string

// stateDir is t's state directory for the dcbtop processes it starts
// (DCBTOP_STATE_DIR): one per test, so that an agent restarted within a
// test finds what the first one kept, and no test finds another's.
func stateDir(t testing.TB) string {
	if d, ok := stateDirs.Load(t); ok {
		return d.(string)
	}
	d := t.TempDir()
	stateDirs.Store(t, d)
	t.Cleanup(func() { stateDirs.Delete(t) })
	return d
}

// startDcbtop starts `ip netns exec NS dcbtop args...`.
func startDcbtop(t testing.TB, ns *testbed.NS, args ...string) *proc {
	t.Helper()
	if dcbtopBin == "" {
		t.Fatal("dcbtop binary not built (TestMain builds it only as root)")
	}
	return startProc(t, "dcbtop "+strings.Join(args, " ")+" (in "+ns.Name+")",
		append([]string{ipPath(t), "netns", "exec", ns.Name, dcbtopBin}, args...))
}

// startProc starts argv. A t.Cleanup kills it if it still runs, checks it
// reported no data race, and logs its output when the test failed.
func startProc(t testing.TB, name string, argv []string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), raceEnv, utf8Env, statedir.EnvDir+"="+stateDir(t))
	cmd.WaitDelay = 5 * time.Second
	p := &proc{t: t, name: name, cmd: cmd, lines: make(chan string, 4096), done: make(chan struct{})}
	cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", strings.Join(argv, " "), err)
	}
	go func() {
		defer cancel()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.out = append(p.out, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default: // nobody reads them: kept in p.out
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(p.lines)
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Kill()
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				t.Errorf("%s: still running 10 s after SIGKILL", p.name)
			}
		}
		if strings.Contains(p.stderrText(), "DATA RACE") {
			t.Errorf("%s: data race:\n%s", p.name, p.stderrText())
		} else if t.Failed() {
			t.Logf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", p.name, p.code, p.stdout(), p.stderrText())
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.out) == 0 {
		return ""
	}
	return strings.Join(p.out, "\n") + "\n"
}

func (p *proc) stdoutLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.out...)
}

func (p *proc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// next returns the next stdout line, or false at EOF or after timeout.
func (p *proc) next(timeout time.Duration) (string, bool) {
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(timeout):
		return "", false
	}
}

// signal sends sig to the process (ip netns exec has exec'd dcbtop, so the
// pid is dcbtop's).
func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("%s: signal %v: %v", p.name, sig, err)
	}
}

// wait waits for the exit and returns the exit status; the test fails if
// the process is still running after timeout.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("%s: did not exit within %v", p.name, timeout)
		return -1
	}
}

// stop sends SIGINT and checks for exit status 0 and an empty stderr.
func (p *proc) stop(t testing.TB) {
	t.Helper()
	p.signal(syscall.SIGINT)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("%s: exit status %d after SIGINT, want 0; stderr:\n%s", p.name, code, p.stderrText())
	}
	if e := p.stderrText(); e != "" {
		t.Errorf("%s: stderr after SIGINT: %q", p.name, e)
	}
}

// waitSocket waits until the process has an AF_PACKET socket bound to
// ifname of ns: dcbtop has started capturing there (and has installed its
// signal handler).
func (p *proc) waitSocket(t testing.TB, ns *testbed.NS, ifname string) {
	t.Helper()
	idx := ifindex(t, ns, ifname)
	deadline := time.Now().Add(20 * time.Second)
	for !p.hasPacketSocket(idx) {
		if p.exited() {
			t.Fatalf("%s: exited (status %d) before capturing on %s; stderr:\n%s", p.name, p.code, ifname, p.stderrText())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no packet socket on %s after 20 s", p.name, ifname)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasPacketSocket reports whether the process holds a packet socket bound
// to interface index ifindex: /proc/PID/net/packet lists its namespace's
// packet sockets (sk RefCnt Type Proto Iface R Rmem User Inode), and
// /proc/PID/fd tells which are its own.
func (p *proc) hasPacketSocket(ifindex string) bool {
	pid := p.cmd.Process.Pid
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/packet", pid))
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 9 && f[4] == ifindex {
			inodes["socket:["+f[8]+"]"] = true
		}
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && inodes[l] {
			return true
		}
	}
	return false
}

// ifindex returns the interface index of ifname in ns, as a string.
func ifindex(t testing.TB, ns *testbed.NS, ifname string) string {
	t.Helper()
	out, err := ns.Run("cat", "/sys/class/net/"+ifname+"/ifindex")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// nextIndication reads the next NDJSON line and decodes it.
func (p *proc) nextIndication(t testing.TB, timeout time.Duration) (engine.Indication, string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		line, ok := p.next(time.Until(deadline))
		if !ok {
			t.Fatalf("%s: no indication within %v (exited: %v); stdout so far:\n%s\nstderr:\n%s",
				p.name, timeout, p.exited(), p.stdout(), p.stderrText())
		}
		var in engine.Indication
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("%s: not an indication: %q: %v", p.name, line, err)
		}
		if in.Status == engine.StatusNeighbor {
			continue // LLDP neighbour events: the NDIS indications are what these tests follow
		}
		return in, line
	}
}

// expect reads the next indication and checks that it is a remote one
// with reason r and exactly flags f.
func (p *proc) expect(t testing.TB, timeout time.Duration, r engine.Reason, f engine.Flags) engine.Indication {
	t.Helper()
	in, line := p.nextIndication(t, timeout)
	if in.Status != engine.StatusRemote || in.Reason != r || in.Flags != f {
		t.Fatalf("%s: got %s %s %v, want %s %s %v\nline: %s", p.name, in.Status, in.Reason, in.Flags, engine.StatusRemote, r, f, line)
	}
	return in
}

// snapshot decodes a --json run's stdout.
func (p *proc) snapshot(t testing.TB) engine.Snapshot {
	t.Helper()
	return snaptest.Decode(t, p.name, p.stdout())
}

func hasDiag(in engine.Interface, code diag.Code) bool {
	for _, d := range in.Diagnostics {
		if d.Code == code {
			return true
		}
	}
	return false
}

// runOut runs a command to completion (bounded) and returns its exit
// status, stdout and stderr.
func runOut(t testing.TB, argv ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), raceEnv, utf8Env)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	if strings.Contains(e.String(), "DATA RACE") {
		t.Errorf("%s: data race:\n%s", strings.Join(argv, " "), e.String())
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// lldpdSwitch starts lldpd as a switch on p0 in a namespace of its own,
// cabled to h0 in another (host), with tcpdump recording what p0 sees into
// pcap until stopDump.
func lldpdSwitch(t *testing.T, opts testbed.LLDPDOpts) (host *testbed.NS, hostMAC net.HardwareAddr, l *testbed.LLDPD, pcap string, stopDump func()) {
	sw := testbed.NewNS(t, "sw")
	host = testbed.NewNS(t, "host")
	_, hostMAC = testbed.Veth(t, sw, "p0", host, "h0")
	pcap = filepath.Join(t.TempDir(), "sw.pcap")
	stopDump = testbed.Tcpdump(t, sw, "p0", pcap)
	return host, hostMAC, testbed.StartLLDPD(t, sw, "p0", opts), pcap, stopDump
}

// chassisIs matches the lldpd neighbours whose chassis ID is mac: dcbtop's
// agent, seen from the switch.
func chassisIs(mac net.HardwareAddr) func(testbed.Neighbor) bool {
	return func(n testbed.Neighbor) bool { return n.ChassisID == mac.String() }
}
