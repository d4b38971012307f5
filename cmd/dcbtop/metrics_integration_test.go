// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

// nsGet sends method /metrics to addr from inside ns.
func nsGet(t *testing.T, ns *testbed.NS, method, addr string) (int, string, error) {
	t.Helper()
	return ns.HTTP(t, addr, testbed.HTTPRequest{Method: method, Path: "/metrics"})
}

// TestMetricsSocketActivation: under systemd socket activation
// (systemd-socket-activate, which passes its listening socket as systemd
// does: LISTEN_FDS, sd_listen_fds(3)), dcbtop demo --web.systemd-socket
// serves /metrics on that socket, and refuses DELETE. Without a socket
// passed, it says so in one line and exits 1; with an address too, it is
// bad usage.
func TestMetricsSocketActivation(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "systemd-socket-activate")
	if dcbtopBin == "" {
		t.Fatal("dcbtop binary not built (TestMain builds it only as root)")
	}
	t.Parallel()
	ns := testbed.NewNS(t, "sockact")
	const addr = "127.0.0.1:9424"
	p := startProc(t, "dcbtop demo under systemd-socket-activate", []string{ipPath(t), "netns", "exec", ns.Name,
		"systemd-socket-activate", "-l", addr, dcbtopBin, "demo", "--events", "--web.systemd-socket", "--duration", "60s"})
	var code int
	var body string
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, body, err = nsGet(t, ns, http.MethodGet, addr); err == nil && code == 200 {
			break
		}
	}
	if err != nil || code != 200 || !strings.Contains(body, "dcbtop_build_info") {
		t.Fatalf("GET /metrics on the passed socket: %d %v\n%.300s", code, err, body)
	}
	if code, _, err := nsGet(t, ns, http.MethodDelete, addr); err != nil || code != 405 {
		t.Errorf("DELETE /metrics: %d %v, want 405", code, err)
	}
	p.signal(syscall.SIGTERM)
	if c := p.wait(15 * time.Second); c != 0 {
		t.Errorf("after SIGTERM: exit %d", c)
	}

	alone := startProc(t, "dcbtop demo --web.systemd-socket without a socket", []string{ipPath(t), "netns", "exec", ns.Name,
		dcbtopBin, "demo", "--events", "--web.systemd-socket", "--duration", "10s"})
	if c := alone.wait(15 * time.Second); c != 1 {
		t.Errorf("without a socket: exit %d, want 1", c)
	}
	if lines := strings.Split(strings.TrimSpace(alone.stderrText()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "no listening socket passed") {
		t.Errorf("without a socket: stderr %q, want one line saying none was passed", alone.stderrText())
	}
	both := startProc(t, "dcbtop demo --web.systemd-socket --metrics", []string{dcbtopBin, "demo", "--web.systemd-socket", "--metrics", addr})
	if c := both.wait(15 * time.Second); c != 2 {
		t.Errorf("--web.systemd-socket with --metrics: exit %d, want 2 (bad usage): %s", c, both.stderrText())
	}
}
