// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

// TestDumbTerminal runs dcbtop on a terminal (script(1) gives it a pty)
// whose TERM is dumb: no alternate screen, no cursor addressing or
// keyboard-protocol escapes, the indications as plain lines.
func TestDumbTerminal(t *testing.T) {
	testbed.RequireCommands(t, "script")
	bin := tuiBinary(t)
	fixture, err := filepath.Abs(fixtureIEEE)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TERM", "dumb")
	code, out, _ := runOut(t, "script", "-q", "-e", "-c", testbed.ShQuote(bin)+" -r "+testbed.ShQuote(fixture)+" --speed 0", "/dev/null")
	if code != 0 {
		t.Fatalf("exit %d:\n%q", code, out)
	}
	if strings.Contains(out, "\x1b[") || strings.Contains(out, "\x1b]") {
		t.Errorf("escape sequences on a dumb terminal:\n%q", out)
	}
	if !strings.Contains(out, "TERM=dumb: no screen") || !strings.Contains(out, "QOS_REMOTE_PARAMETERS_CHANGE first-receipt") {
		t.Errorf("want the notice and indication lines:\n%s", out)
	}
}

// TestWindowTitleRestored: the screen titles the window "dcbtop: IFACE"
// and gives the terminal its own title back on exit.
func TestWindowTitleRestored(t *testing.T) {
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	bin := tuiBinary(t)
	fixture, err := filepath.Abs(fixtureIEEE)
	if err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, 100, 30, nil, "sh", "-c", `printf '\033]2;before\033\\'; exec "$0" -r "$1"`, bin, fixture)
	p.WaitText(15*time.Second, "REMOTE first-receipt")
	if title := p.Display("#{pane_title}"); !strings.HasPrefix(title, "dcbtop: ") {
		t.Errorf("title while running %q, want dcbtop: IFACE", title)
	}
	p.Quit()
	if title := p.Display("#{pane_title}"); title != "before" {
		t.Errorf("title after exit %q, want the one before (%q)", title, "before")
	}
}
