// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// CommandTimeout bounds every short command the harness runs (ip, lldpcli,
// tshark, sh). Long-running processes (lldpd, tcpdump) are not bounded by it.
const CommandTimeout = 20 * time.Second

// sbinDirs are searched after $PATH: lldpd and tcpdump live in /usr/sbin,
// which is not always in the PATH of a test binary.
var sbinDirs = []string{"/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/bin", "/bin"}

var lookCache sync.Map // name -> string (absolute path, "" when missing)

// lookCmd returns the absolute path of a command, searching $PATH and then
// the usual sbin directories. The result is cached.
func lookCmd(name string) (string, error) {
	v, ok := lookCache.Load(name)
	if !ok {
		v, _ = lookCache.LoadOrStore(name, findCmd(name))
	}
	if p := v.(string); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s: not found in $PATH or %s", name, strings.Join(sbinDirs, ":"))
}

// findCmd is lookCmd without the cache; it returns "" when name is missing.
func findCmd(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		if p, err = filepath.Abs(p); err == nil {
			return p
		}
	}
	for _, d := range sbinDirs {
		c := filepath.Join(d, name)
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return c
		}
	}
	return ""
}

// mustCmd is lookCmd for commands RequirePriv/RequireCommands already
// checked; it falls back to the bare name (so the error shows up at exec).
func mustCmd(name string) string {
	if p, err := lookCmd(name); err == nil {
		return p
	}
	return name
}

// run runs a short command with CommandTimeout and returns its stdout. The
// error names the command line and carries its stderr.
func run(name string, args ...string) (string, error) {
	return runIn(nil, name, args...)
}

// runIn is run with optional stdin.
func runIn(stdin []byte, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mustCmd(name), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	err := spawn(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v: %w", CommandTimeout, err)
		}
		return stdout.String(), fmt.Errorf("%s: %w: %s", cmdline(name, args), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// cmdline renders a command line for error messages.
func cmdline(name string, args []string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t\r\n\"'\\$`|&;<>()*?[]{}~#\x1b") {
			fmt.Fprintf(&b, "%q", a)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// Pdeathsig is delivered when the *thread* that forked the child exits, not
// the process (golang/go#27505), and Go threads do exit: a goroutine that
// ends while locked to its thread (NS.Go) takes the thread with it, and that
// thread may be the one that started lldpd a while earlier. So every child
// with Pdeathsig is started from one goroutine locked to a thread that never
// exits.
var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// spawn runs cmd.Start on the spawner thread.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as the process
			for r := range spawnCh {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnCh <- spawnReq{cmd, done}
	return <-done
}

// proc is a long-running child process (lldpd, tcpdump) with a reaper
// goroutine, so that Wait is called exactly once.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // Wait's result; read only after done is closed
}

// startProc starts cmd (which must not have been started) with
// Pdeathsig=SIGKILL, so that it dies with the test binary even when no
// cleanup runs (unless it changes its user id, as lldpd and tcpdump do,
// which clears Pdeathsig; the watchdog covers those), and in its own process
// group when pgroup is set.
func startProc(cmd *exec.Cmd, pgroup bool) (*proc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: pgroup}
	if err := spawn(cmd); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process (or to its process group when group is
// set). It is a no-op once the process has been reaped, so a recycled pid is
// never signalled.
func (p *proc) signal(sig syscall.Signal, group bool) {
	if p.exited() {
		return
	}
	pid := p.cmd.Process.Pid
	if group {
		pid = -pid
	}
	_ = syscall.Kill(pid, sig)
}

// stop sends sig, waits up to grace for the exit, then SIGKILLs (the
// process group when group is set) and waits again. It returns false when
// the process had to be killed.
func (p *proc) stop(sig syscall.Signal, grace time.Duration, group bool) bool {
	p.signal(sig, false)
	select {
	case <-p.done:
		return true
	case <-time.After(grace):
	}
	p.kill(group)
	return false
}

// kill sends SIGKILL (to the process group when group is set) and waits up
// to 5 s for the exit. It reports whether the process exited.
func (p *proc) kill(group bool) bool {
	p.signal(syscall.SIGKILL, group)
	select {
	case <-p.done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}
