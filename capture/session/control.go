// SPDX-License-Identifier: Apache-2.0

package session

// The engine goroutine's side of the agent control socket
// (capture/control): it hands each request to the host layer
// (engine/host), which decides, and carries out the result, so a request
// never races the loop.

import (
	"bytes"
	"os"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/host"
)

// handleControl answers a control request on the engine goroutine.
func (r *liveRun) handleControl(c control.Call) control.Response {
	if !c.Claim() {
		// Past its deadline (a process stopped and resumed), or its
		// client gone: never carried out late.
		return control.Errorf("%s: not applied: the request's deadline passed before the agent got to it, or its client went away; it is never carried out", c.Iface)
	}
	if c.View {
		return r.controlView(c)
	}
	cur, ok := r.h.Agent(c.Iface)
	if r.byName[c.Iface] == nil || !ok {
		return control.Errorf("%s: no dcbtop agent on this interface", c.Iface)
	}
	var (
		ap  host.Applied
		res host.Result
		err error
	)
	switch c.Req.Op {
	case "get":
		return r.controlState(c.Iface, cur, nil, nil)
	case "show":
		return r.controlShow(c.Iface, cur)
	case "apply":
		ap, res, err = hostWrite(r.h, c.Iface, c.Req.Params, c.Req.Willing, r.now())
	case "undo":
		ap, res, err = hostUndoWrite(r.h, c.Iface, r.now())
	default:
		return control.Errorf("unknown op %q", c.Req.Op) // unreachable: checked when read
	}
	r.kept1 = keptResult{}
	r.carryOut(res, false) // a Keep effect records what it did in r.kept1
	if err != nil {
		return control.Errorf("%s", control.OneLine(err.Error()))
	}
	prev := &ap.Before
	resp := r.controlState(c.Iface, ap.After, prev, ap.Changed)
	resp.Kept, resp.KeptError = r.kept1.file, r.kept1.err
	return resp
}

// controlState is a successful response with the interface's state.
func (r *liveRun) controlState(iface string, st engine.LocalState, prev *engine.LocalState, changed []string) control.Response {
	w := st.Willing
	resp := control.Response{OK: true, Interface: iface, PID: os.Getpid(), Previous: prev,
		Willing: &w, Local: st.Params.Clone(), Changed: changed}
	if s, ok := r.h.Engine().Interface(iface); ok {
		resp.Operational = s.Operational
	}
	if len(resp.Changed) == 0 {
		resp.Changed = nil
	}
	return resp
}

// controlView answers a call on a view socket (control.ListenView): "get"
// with the pid (control.Probe), "show" with the interface's snapshot, the
// local state whoever provides it.
func (r *liveRun) controlView(c control.Call) control.Response {
	in, ok := r.h.Engine().Interface(c.Iface)
	if !ok {
		return control.Errorf("%s: not captured", c.Iface)
	}
	if c.Req.Op == "get" {
		return control.Response{OK: true, Interface: c.Iface, PID: os.Getpid()}
	}
	st := engine.LocalState{Params: in.Local}
	if in.Willing != nil {
		st.Willing = *in.Willing
	}
	return r.showOf(r.controlState(c.Iface, st, nil, nil), in)
}

// controlShow answers "show": the state "get" gives and the interface's
// snapshot as the engine has it now (dcbtop show: an answer at once from
// the running agent, with the peers it heard).
func (r *liveRun) controlShow(iface string, cur engine.LocalState) control.Response {
	in, ok := r.h.Engine().Interface(iface)
	if !ok {
		return control.Errorf("%s: not captured", iface)
	}
	return r.showOf(r.controlState(iface, cur, nil, nil), in)
}

// showOf adds the interface's snapshot object, and when, to resp.
func (r *liveRun) showOf(resp control.Response, in engine.Interface) control.Response {
	b, err := engine.MarshalOutput(in, false)
	if err != nil {
		return control.Errorf("%s: %s", in.Name, control.OneLine(err.Error()))
	}
	resp.Snapshot, resp.At = bytes.TrimSuffix(b, []byte("\n")), r.now()
	return resp
}
