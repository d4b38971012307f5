package session

// The engine goroutine's side of the agent control socket
// (capture/control): it answers each request, so a request never races
// the loop.

import (
	"os"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
)

// handleControl answers a control request on the engine goroutine.
func (r *liveRun) handleControl(c control.Call) control.Response {
	li := r.byName[c.Iface]
	if li == nil || li.agent == nil {
		return control.Errorf("%s: no dcbtop agent on this interface", c.Iface)
	}
	now := r.now()
	switch c.Req.Op {
	case "get":
		return r.controlState(li, nil, nil)
	case "apply":
		next := li.local.Merge(c.Req.Params)
		willing := li.willing
		if c.Req.Willing != nil {
			willing = *c.Req.Willing
		}
		next = next.WithWilling(willing)
		if err := next.Errors(); err != nil {
			return control.Errorf("invalid parameters: %s", control.OneLine(err.Error()))
		}
		if err := agentCheck(li.agent, agent.Advert{Willing: willing, Local: next}); err != nil {
			return control.Errorf("%s: not applied: dcbtop's agent cannot advertise these parameters: %s", li.name, control.OneLine(err.Error()))
		}
		prev := &control.LocalState{Willing: li.willing, Params: li.local.Clone()}
		changed := localChanges(prev.Willing, prev.Params, willing, next)
		r.setAgentLocal(li, willing, next, now)
		r.undo.put(li.name, prev)
		return r.controlState(li, prev, changed)
	case "undo":
		prev := r.undo.get(li.name)
		if prev == nil {
			return control.Errorf("nothing to undo on %s", li.name)
		}
		if err := agentCheck(li.agent, agent.Advert{Willing: prev.Willing, Local: prev.Params}); err != nil {
			return control.Errorf("%s: not undone: dcbtop's agent cannot advertise the earlier parameters: %s", li.name, control.OneLine(err.Error()))
		}
		cur := &control.LocalState{Willing: li.willing, Params: li.local.Clone()}
		changed := localChanges(cur.Willing, cur.Params, prev.Willing, prev.Params)
		r.setAgentLocal(li, prev.Willing, prev.Params, now)
		r.undo.drop(li.name)
		return r.controlState(li, cur, changed)
	}
	return control.Errorf("unknown op %q", c.Req.Op) // unreachable: checked when read
}

// agentCheck checks that an agent can advertise what it is about to be
// given (a variable: tests inject failures).
var agentCheck = (*agent.Agent).Check

// controlState is a successful response with the interface's state.
func (r *liveRun) controlState(li *liveIface, prev *control.LocalState, changed []string) control.Response {
	w := li.willing
	resp := control.Response{OK: true, Interface: li.name, PID: os.Getpid(), Previous: prev,
		Willing: &w, Local: li.local.Clone(), Changed: changed}
	if s, ok := r.eng.Interface(li.name); ok {
		resp.Operational = s.Operational
	}
	if changed != nil && len(changed) == 0 {
		resp.Changed = nil
	}
	return resp
}

// setAgentLocal makes (willing, local) the agent's local state: the engine
// takes it as a local change (a QOS_LOCAL_PARAMETERS_CHANGE indication,
// then the operational parameters are resolved again), apply hands the
// result to the agent, which starts fast transmission, and its first
// LLDPDU goes out now.
func (r *liveRun) setAgentLocal(li *liveIface, willing bool, local *engine.Params, now time.Time) {
	li.willing, li.local = willing, local.Clone()
	r.apply(engine.LocalChanged{Interface: li.name, At: now, Source: engine.SourceAgent, Willing: willing, Params: local.Clone()})
	if li.agent == nil {
		return
	}
	if f, ok := li.agent.Due(now); ok {
		r.send(li, f, now)
	}
}

// localChanges lists what differs between two local states: the
// features of engine's Changes ("ets", "ets_reco", "pfc", "app"; the
// Willing bits aside) and "willing".
func localChanges(w0 bool, p0 *engine.Params, w1 bool, p1 *engine.Params) []string {
	out := []string{}
	for _, c := range p0.WithWilling(false).Changes(p1.WithWilling(false)) {
		if !slices.Contains(out, c.Feature) {
			out = append(out, c.Feature)
		}
	}
	if w0 != w1 {
		out = append(out, "willing")
	}
	return out
}
