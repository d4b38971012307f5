// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/testbed"
)

// TestTUIOverviewMouse runs the screen on two veth ports with long names,
// each cabled to its own lldpd: it opens in the overview with both names
// whole, a click on the second row (an SGR mouse report typed into the
// pane, as a terminal sends it) selects it, a second click opens its port.
func TestTUIOverviewMouse(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	host := testbed.NewNS(t, "ovh")
	const a, b = "enp129s0f0np0", "enp129s0f1np1"
	for i, ifn := range []string{a, b} {
		sw := testbed.NewNS(t, fmt.Sprintf("ovs%d", i))
		testbed.Veth(t, sw, "p0", host, ifn)
		testbed.StartLLDPD(t, sw, "p0", testbed.LLDPDOpts{Hostname: fmt.Sprintf("leaf%d", i+1), TLVs: swTLVs(swPFC3)})
	}
	env := []string{control.EnvRunDir + "=" + testbed.ShortTempDir(t)}
	p := startTmux(t, 120, 30, env, ipPath(t), "netns", "exec", host.Name, dcbtopBin, "-i", a, "-i", b)
	s := p.WaitText(20*time.Second, "all ports", a, b, "leaf1", "leaf2")
	row := -1
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, b) {
			row = i
		}
	}
	// SGR mouse report: button 0 pressed at column 5, row+1 (1-based).
	click := fmt.Sprintf("\x1b[<0;5;%dM\x1b[<0;5;%dm", row+1, row+1)
	p.Run("send-keys", "-t", "main", "-l", click)
	p.WaitScreen("the second row selected", 5*time.Second, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "▸ "+b) {
				return true
			}
		}
		return false
	})
	p.Run("send-keys", "-t", "main", "-l", click)
	p.WaitScreen("the port view of "+b, 5*time.Second, func(s string) bool {
		return !strings.Contains(s, "all ports") && strings.Contains(s, b+" (2/2)") && strings.Contains(s, "leaf2")
	})
	p.Quit()
}
