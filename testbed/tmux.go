// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Tmux is a tmux server of its own (-L) with one session, "main",
// whose pane runs a command: the end-to-end tests of the screen type
// keys with send-keys and read the screen with capture-pane.
type Tmux struct {
	t    testing.TB
	sock string
	exit string // the file the command's exit status is written to
}

// StartTmux runs argv (with env, a list of NAME=VALUE) in a fresh tmux
// server's only pane, w x h, through sh: when the command ends, its exit
// status is written to a file (ExitStatus), "dcbtop-exited" is printed
// and the pane stays open. The server is killed at the end of the test.
func StartTmux(t testing.TB, w, h int, env []string, argv ...string) *Tmux {
	t.Helper()
	RequireCommands(t, "tmux")
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	p := &Tmux{t: t, sock: fmt.Sprintf("dcbtop-test-%d-%s", os.Getpid(), hex.EncodeToString(b)),
		exit: filepath.Join(t.TempDir(), "exit")}
	words := []string{"env"}
	for _, e := range env {
		words = append(words, ShQuote(e))
	}
	for _, a := range argv {
		words = append(words, ShQuote(a))
	}
	script := fmt.Sprintf("%s; echo EXIT:$? >%s; echo dcbtop-exited; exec sleep 600", strings.Join(words, " "), ShQuote(p.exit))
	// No configuration file.
	p.Run("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	socket := p.Display("#{socket_path}")
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", p.sock, "kill-server").Run()
		if strings.Contains(socket, p.sock) {
			os.Remove(socket) // tmux leaves it behind
		}
	})
	return p
}

// ShQuote quotes s for sh.
func ShQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Run runs a tmux command on the server and returns its output.
func (p *Tmux) Run(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Screen returns the pane's text (with escapes: its attributes too).
func (p *Tmux) Screen(escapes bool) string {
	p.t.Helper()
	args := []string{"capture-pane", "-p", "-t", "main"}
	if escapes {
		args = append(args, "-e")
	}
	return p.Run(args...)
}

// Display returns a tmux format's value for the pane.
func (p *Tmux) Display(format string) string {
	p.t.Helper()
	return strings.TrimSuffix(p.Run("display-message", "-p", "-t", "main", format), "\n")
}

// Keys types keys (tmux send-keys names: "Enter", "Escape", "Home").
func (p *Tmux) Keys(keys ...string) {
	p.t.Helper()
	p.Run(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// WaitScreen polls the screen until cond holds and returns it (and logs
// it when DCBTOP_TUI_DEBUG is set).
func (p *Tmux) WaitScreen(what string, timeout time.Duration, cond func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.Screen(false)
		if cond(s) {
			if os.Getenv("DCBTOP_TUI_DEBUG") != "" {
				p.t.Logf("screen (%s):\n%s", what, s)
			}
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen: %s: not within %v; the screen:\n%s", what, timeout, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitText waits until the screen holds every one of texts.
func (p *Tmux) WaitText(timeout time.Duration, texts ...string) string {
	p.t.Helper()
	return p.WaitScreen(strings.Join(texts, ", "), timeout, func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// ExitStatus waits for the command to end and returns its exit status.
func (p *Tmux) ExitStatus(timeout time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(p.exit); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(strings.TrimPrefix(string(b), "EXIT:"))
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the command did not exit within %v; the screen:\n%s", timeout, p.Screen(false))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Quit presses q (and y when dcbtop's agent asks first), checks exit
// status 0 and that the terminal is back to the normal screen, and
// returns that screen.
func (p *Tmux) Quit() string {
	p.t.Helper()
	p.Keys("q")
	// While dcbtop is the host agent, q asks first (quit and withdraw?).
	time.Sleep(300 * time.Millisecond)
	if strings.Contains(p.Screen(false), "quit and withdraw?") {
		p.Keys("y")
	}
	if code := p.ExitStatus(20 * time.Second); code != "0" {
		p.t.Fatalf("exit status %s after q, want 0; the screen:\n%s", code, p.Screen(false))
	}
	s := p.WaitText(5*time.Second, "dcbtop-exited")
	if alt := p.Display("#{alternate_on}"); alt != "0" {
		p.t.Errorf("the alternate screen is still on after exit (alternate_on %q)", alt)
	}
	return s
}

// CommandPid returns the pid of the pane's process running bin (the
// pane's shell's child).
func (p *Tmux) CommandPid(bin string) string {
	p.t.Helper()
	shell := p.Display("#{pane_pid}")
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
		for _, pid := range strings.Fields(string(b)) {
			if exe, err := os.Readlink("/proc/" + pid + "/exe"); err == nil && exe == bin {
				return pid
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no child of the pane's shell (pid %s) runs %s", shell, bin)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
