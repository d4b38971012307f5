// SPDX-License-Identifier: Apache-2.0

//go:build linux

package session

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// TestSetAgentRuntime starts and stops dcbtop's agent on an interface of a
// live run from the screen, with the engine goroutine played by a loop
// that serves its requests (no socket: frames are built, not sent).
func TestSetAgentRuntime(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	t.Setenv(control.EnvRunDir, dir)
	r := mustLiveRun(t, &Config{Screen: true, TxInterval: time.Second, Force: true, Willing: true})
	r.pub.Feed = feed.New()
	li := newIface(linkOf("h0", testMAC), nil, nil)
	r.byName["h0"] = li
	now := time.Now().UTC()
	r.apply(engine.LinkChanged{Interface: "h0", At: now, Ifindex: 2, MAC: testMAC, Up: true})
	r.apply(engine.FrameReceived{Interface: "h0", At: now, Data: peerFrame(t, 120)})
	r.flush()
	stop := serveLoop(r)
	b := operator.NewBackend(t.TempDir(), r.pub.Feed.Snapshot, r)
	if c := snaptest.Iface(t, mustSnap(t, r), "h0").Caps; c.CanWrite || !c.CanAgent {
		t.Fatalf("before: %+v, want only the agent allowed", c)
	}
	scans := 0
	defer func(f func(*capture.AgentScan, bool) []engine.HostAgent) { scanAgents = f }(scanAgents)
	scanAgents = func(s *capture.AgentScan, full bool) []engine.HostAgent { scans++; return nil }
	text, err := b.SetAgent("h0", true)
	if err != nil || !strings.HasPrefix(text, "dcbtop's agent started: LLDPDUs every 1s (TTL 5 s), willing on, local parameters the defaults") {
		t.Fatalf("start: %q, %v", text, err)
	}
	if scans != 1 {
		t.Errorf("starting the agent scanned /proc %d times, want once (issue 45: twice, two HostObserved)", scans)
	}
	if c := snaptest.Iface(t, mustSnap(t, r), "h0").Caps; !c.CanWrite || !c.CanAgent {
		t.Errorf("with the agent: %+v", c)
	}
	in := snaptest.Iface(t, mustSnap(t, r), "h0")
	if in.LocalSource != "agent" || in.Willing == nil || !*in.Willing || in.Operational.PFC.Enabled != 1<<3 {
		t.Errorf("with the agent: source %q, willing %v, operational %+v; want agent, willing, the peer's PFC", in.LocalSource, in.Willing, in.Operational)
	}
	// dcbtop apply reaches it through its control socket.
	if resp, err := control.Do(control.Path(dir, "h0"), control.Request{Op: "get"}, 5*time.Second); err != nil || !resp.OK || resp.Interface != "h0" {
		t.Errorf("control socket: %+v, %v", resp, err)
	}
	w := false
	if text, err := b.Apply("h0", &w, nil); err != nil || !strings.HasPrefix(text, "applied to dcbtop's agent, changed willing; now advertising not willing") {
		t.Errorf("willing off: %q, %v", text, err)
	}
	if in := snaptest.Iface(t, mustSnap(t, r), "h0"); in.Operational.PFC.Enabled != 0 || in.Resolution.PFC.Source != dcb.FromLocal {
		t.Errorf("willing off: operational %+v", in.Operational)
	}
	text, err = b.SetAgent("h0", false)
	if err != nil || text != "dcbtop's agent stopped: shutdown LLDPDU sent (TTL 0); no local parameters now (no DCB in the driver, no other agent)" {
		t.Errorf("stop: %q, %v", text, err)
	}
	if in := snaptest.Iface(t, mustSnap(t, r), "h0"); in.LocalSource != "none" || in.Willing != nil {
		t.Errorf("after stop: source %q, willing %v", in.LocalSource, in.Willing)
	}
	if _, err := os.Stat(control.Path(dir, "h0")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control socket still there after stop: %v", err)
	}
	stop()
	if _, err := b.SetAgent("h0", true); !errors.Is(err, errStopped) {
		t.Errorf("after the loop stopped: %v, want errStopped", err)
	}
}

func linkOf(name string, mac lldp.MAC) capture.Link {
	return capture.Link{Name: name, Index: 2, MAC: mac, Up: true}
}

// mustSnap returns the latest snapshot r published.
func mustSnap(t *testing.T, r *liveRun) engine.Snapshot {
	t.Helper()
	s, ok := r.pub.Feed.Snapshot()
	if !ok {
		t.Fatal("no snapshot published")
	}
	return s
}

// serveLoop plays the engine goroutine for r: it serves r's calls and
// control requests, publishing after each, until stop, which returns once
// r has stopped.
func serveLoop(r *liveRun) (stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(r.stopped)
		for {
			select {
			case c := <-r.calls:
				c.fn()
				r.flush()
				close(c.done)
			case c := <-r.control:
				resp := r.handleControl(c)
				r.flush()
				c.Reply <- resp
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-r.stopped
	}
}
