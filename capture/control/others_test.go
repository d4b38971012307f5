// SPDX-License-Identifier: Apache-2.0

//go:build unix

package control

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// agentAt serves ifname's control socket in dir as another process's
// agent would (its pid is pid), answering "get" with local, willing on;
// stop closes it.
func agentAt(t *testing.T, dir, ifname string, pid int, local *dcb.Params) (stop func()) {
	t.Helper()
	calls := make(chan Call)
	s, err := Listen(dir, ifname, calls)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range calls {
			w := true
			c.Reply <- Response{OK: true, Interface: c.Iface, PID: pid, Willing: &w, Local: local.Clone()}
		}
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			s.Close()
			close(calls)
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

// Each round asks the agents of other processes for their local state:
// an agent answering is the interface's local source, one that stops is
// withdrawn once, this process's own agent and an interface without one
// give nothing.
func TestOtherAgents(t *testing.T) {
	dir := t.TempDir()
	local := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}
	stopH0 := agentAt(t, dir, "h0", os.Getpid()+1, local)
	agentAt(t, dir, "h1", os.Getpid(), local) // this process's own
	o := NewOtherAgents(dir)
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	round := func() []engine.Event {
		var evs []engine.Event
		o.Round([]string{"h0", "h1", "h2"}, now, func(ev engine.Event) bool { evs = append(evs, ev); return true })
		return evs
	}
	answer := engine.LocalChanged{Interface: "h0", At: now, Source: engine.SourceAgent, Willing: true, Params: local}
	withdrawn := engine.LocalChanged{Interface: "h0", At: now, Source: engine.SourceAgent, Withdrawn: true}
	for i, want := range [][]engine.Event{{answer}, {answer}, {withdrawn}, nil} {
		if i == 2 {
			stopH0()
		}
		if diff := cmp.Diff(want, round()); diff != "" {
			t.Errorf("round %d (-want +got):\n%s", i+1, diff)
		}
	}
}
