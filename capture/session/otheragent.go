package session

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
)

// otherAgentEvery is how often the control sockets of other dcbtop
// agents are asked for their local parameters.
const otherAgentEvery = 2 * time.Second

// otherAgentTimeout bounds one question to another agent's control socket.
const otherAgentTimeout = time.Second

// startOtherAgents asks, for each interface, the control socket of a
// dcbtop agent running in another process (`dcbtop --agent` beside
// `dcbtop check`, `--json` or a second screen) for its local parameters
// and Willing state (op "get"), now and every otherAgentEvery, and feeds
// them to the engine as the agent's (engine.SourceAgent): what that agent
// advertises is this host's local state, as `dcbtop apply` already knows.
// An agent that stops (its socket gone) is withdrawn. This process's own
// agent is never asked: its answers carry this pid. The first round is
// applied before startOtherAgents returns, so a snapshot taken at once
// has them. It returns a stop function.
func (r *liveRun) startOtherAgents(ifaces []*liveIface) (stop func()) {
	if len(ifaces) == 0 {
		return func() {}
	}
	dir := control.RunDir()
	seen := map[string]bool{} // interfaces whose other agent answered last time
	round := func(now time.Time, send func(engine.Event) bool) {
		// One listing of the directory, rather than a stat for each
		// interface: on a switch most have no agent.
		present := map[string]bool{}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				present[e.Name()] = true
			}
		}
		pathOf := control.PathFunc(dir)
		for _, n := range r.ifaceNames() {
			var (
				ev engine.LocalChanged
				ok bool
			)
			if path := pathOf(n); present[filepath.Base(path)] {
				ev, ok = askOtherAgent(path, n, now)
			}
			switch {
			case ok:
				seen[n] = true
			case seen[n]:
				delete(seen, n)
				ev = engine.LocalChanged{Interface: n, At: now, Source: engine.SourceAgent, Withdrawn: true}
			default:
				continue
			}
			if !send(ev) {
				return
			}
		}
	}
	round(r.now(), func(ev engine.Event) bool { r.apply(ev); return true })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.poll(ctx, otherAgentEvery, nil, round)
	}()
	return func() {
		cancel()
		<-done
	}
}

// poll calls round every period, and at once whenever kick has a value
// (nil: never), until ctx is done; round hands its events to the loop with
// send, which says false once ctx is done.
func (r *liveRun) poll(ctx context.Context, every time.Duration, kick <-chan struct{}, round func(now time.Time, send func(engine.Event) bool)) {
	t := time.NewTicker(every)
	defer t.Stop()
	send := func(ev engine.Event) bool {
		select {
		case r.events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
		}
		round(r.now(), send)
	}
}

// askOtherAgent asks the control socket at path, ifname's agent's, for
// its local state; false when it does not answer, it is this process's
// own agent, or it does not answer with parameters.
func askOtherAgent(path, ifname string, now time.Time) (engine.LocalChanged, bool) {
	resp, err := control.Do(path, control.Request{Op: "get"}, otherAgentTimeout)
	if err != nil || !resp.OK || resp.PID == os.Getpid() || resp.Willing == nil {
		return engine.LocalChanged{}, false
	}
	return engine.LocalChanged{Interface: ifname, At: now, Source: engine.SourceAgent, Willing: *resp.Willing, Params: resp.Local}, true
}
