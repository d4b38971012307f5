// SPDX-License-Identifier: Apache-2.0

package control

import (
	"os"
	"path/filepath"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// OtherAgentTimeout bounds one question to another agent's control
// socket.
const OtherAgentTimeout = time.Second

// An OtherAgents asks, for each interface, the control socket of a dcbtop
// agent running in another process (`dcbtop --agent` beside `dcbtop
// check`, `--json` or a second screen) for its local parameters and
// Willing state (op "get"), and makes them the engine's events: that
// agent's local state (engine.SourceAgent), what it advertises being
// this host's local state, as `dcbtop apply` already knows. An agent that
// stops answering (its socket gone) is withdrawn. This process's own
// agent is never asked: its answers carry this pid. An OtherAgents is
// used by one goroutine at a time.
type OtherAgents struct {
	dir  string
	seen map[string]bool // interfaces whose other agent answered last time
}

// NewOtherAgents returns an OtherAgents for the agents whose sockets are
// in dir (RunDir).
func NewOtherAgents(dir string) *OtherAgents {
	return &OtherAgents{dir: dir, seen: map[string]bool{}}
}

// Round asks the agents of the interfaces names at now and hands their
// events to send, in the order of names, until send returns false: an
// agent's local state, or its withdrawal when it answered the last round
// and no longer does.
func (o *OtherAgents) Round(names []string, now time.Time, send func(engine.Event) bool) {
	// One listing of the directory, rather than a stat for each
	// interface: on a switch most have no agent.
	present := map[string]bool{}
	if entries, err := os.ReadDir(o.dir); err == nil {
		for _, e := range entries {
			present[e.Name()] = true
		}
	}
	pathOf := PathFunc(o.dir)
	for _, n := range names {
		var (
			ev engine.LocalChanged
			ok bool
		)
		if path := pathOf(n); present[filepath.Base(path)] {
			ev, ok = askOtherAgent(path, n, now)
		}
		switch {
		case ok:
			o.seen[n] = true
		case o.seen[n]:
			delete(o.seen, n)
			ev = engine.LocalChanged{Interface: n, At: now, Source: engine.SourceAgent, Withdrawn: true}
		default:
			continue
		}
		if !send(ev) {
			return
		}
	}
}

// askOtherAgent asks the control socket at path, ifname's agent's, for
// its local state; false when it does not answer, it is this process's
// own agent, or it does not answer with parameters.
func askOtherAgent(path, ifname string, now time.Time) (engine.LocalChanged, bool) {
	resp, err := Do(path, Request{Op: "get"}, OtherAgentTimeout)
	if err != nil || !resp.OK || resp.PID == os.Getpid() || resp.Willing == nil {
		return engine.LocalChanged{}, false
	}
	return engine.LocalChanged{Interface: ifname, At: now, Source: engine.SourceAgent, Willing: *resp.Willing, Params: resp.Local}, true
}
