// SPDX-License-Identifier: Apache-2.0

package session

// The live run's side of the screen's Backend (capture/operator's Run):
// requests carried out by the engine goroutine (liveRun.loop), which owns
// the engine, the agents and their control sockets.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

var _ operator.Run = (*liveRun)(nil)

// errStopped answers requests once the engine goroutine has stopped.
var errStopped = errors.New("the capture has stopped: nothing can be changed any more")

// A loopCall is a function the engine goroutine runs for another
// goroutine; done is closed once it has returned.
type loopCall struct {
	fn   func()
	done chan struct{}
}

// do runs fn on the engine goroutine and waits for it.
func (r *liveRun) do(fn func()) error { return r.doCtx(context.Background(), fn) }

// doCtx is do for a goroutine the engine goroutine waits for when it
// stops (the replay's): it gives up, without running fn, once ctx is done
// (the loop stops taking calls then, and waits for that goroutine).
func (r *liveRun) doCtx(ctx context.Context, fn func()) error {
	c := loopCall{fn: fn, done: make(chan struct{})}
	select {
	case r.calls <- c:
	case <-r.stopped:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.done:
		return nil
	case <-r.stopped:
		select {
		case <-c.done:
			return nil
		default:
			return errStopped // fn panicked
		}
	}
}

// Write hands the operator's write (or, with undo, its undo) on iface
// to the host layer on the engine goroutine (host.Write, host.UndoWrite),
// which decides where it goes: dcbtop's agent, answered at once, or the
// kernel, a WriteKernel the run's effects carry out (runEffects); Write
// then waits for the kernel's typed result, which the host layer has
// taken by then (the undo state, the state read back).
func (r *liveRun) Write(iface string, change *dcb.Params, willing *bool, undo bool) (ap host.Applied, kres *engine.WriteResult, err error) {
	w, waited, derr := r.decideAndWait(func() host.Result {
		r.observeHostAgents(r.now(), false) // the host as it is now decides
		var res host.Result
		if undo {
			ap, res, err = hostUndoWrite(r.h, iface, r.now())
		} else {
			ap, res, err = hostWrite(r.h, iface, change, willing, r.now())
		}
		return res
	})
	switch {
	case derr != nil:
		return host.Applied{}, nil, derr
	case waited:
		return ap, &w.kernel, err
	}
	return ap, nil, err
}

// hostWrite and hostUndoWrite are the host's Write and UndoWrite
// (variables: tests inject refusals the wire's limits would give).
var (
	hostWrite     = (*host.Host).Write
	hostUndoWrite = (*host.Host).UndoWrite
)

// WriteQoS hands a host QoS write (undo: the undo of the last one) on
// iface to the host layer (host.WriteQoS), has the run's effects carry
// it out and waits for its typed result, which the host layer has taken
// by then (the QoS undo).
func (r *liveRun) WriteQoS(iface string, c qos.Change, undo bool) (qos.WriteResult, error) {
	var err error
	w, waited, derr := r.decideAndWait(func() host.Result {
		var res host.Result
		res, err = r.h.WriteQoS(iface, c, undo, r.now())
		return res
	})
	switch {
	case derr != nil:
		return qos.WriteResult{}, derr
	case err != nil || !waited:
		return qos.WriteResult{}, err
	}
	return w.qos, nil
}

// decideAndWait runs decide (the host layer's decision on an operator's
// write) on the engine goroutine and carries out its result there; when
// that asks for a write to the kernel, it waits for the write's typed
// result (waited), which the host layer has taken by then. derr says the
// loop has stopped.
func (r *liveRun) decideAndWait(decide func() host.Result) (w written, waited bool, derr error) {
	ans := make(chan written, 1)
	if derr = r.do(func() {
		res := decide()
		r.answer = ans
		r.carryOut(res, false)
		waited, r.answer = r.answer == nil, nil
	}); derr != nil {
		return written{}, false, derr
	}
	if waited {
		w = <-ans
	}
	return w, waited, nil
}

// QoSUndo returns the change that undoes the last host QoS write on
// iface while it is the last write there (the host's, on the engine
// goroutine).
func (r *liveRun) QoSUndo(iface string) (c qos.Change, ok bool) {
	if err := r.do(func() { c, ok = r.h.QoSUndo(iface) }); err != nil {
		return qos.Change{}, false
	}
	return c, ok
}

// PreviewQoS is qos.PreviewOver each change on iface in the run's engine
// (on the engine goroutine, in one call): a preview, or why not, per
// change; every one fails alike once the loop has stopped.
func (r *liveRun) PreviewQoS(iface string, cs []qos.Change) (pvs []qos.Preview, errs []error) {
	pvs, errs = make([]qos.Preview, len(cs)), make([]error, len(cs))
	if derr := r.do(func() {
		for i, c := range cs {
			// Over the last write read back, which the engine's
			// counters may not show yet (the undo pressed at once).
			pvs[i], errs[i] = qos.PreviewOver(r.h.Engine(), iface, r.h.QoSOver(iface), c)
		}
	}); derr != nil {
		for i := range errs {
			errs[i] = derr
		}
	}
	return pvs, errs
}

// UndoState returns the local state an undo on iface restores, and
// whether there is one (the host's, on the engine goroutine).
func (r *liveRun) UndoState(iface string) (st engine.LocalState, ok bool) {
	if err := r.do(func() { st, ok = r.h.Undo(iface) }); err != nil {
		return engine.LocalState{}, false
	}
	return st, ok
}

// SetAgent starts or stops dcbtop's agent on iface.
func (r *liveRun) SetAgent(iface string, on bool) (change operator.AgentChange, err error) {
	if derr := r.do(func() {
		now := r.now()
		if on {
			change, err = r.startAgent(iface, now) // it observes the host, once
		} else {
			r.observeHostAgents(now, false) // the host as it is now decides
			change, err = r.stopAgent(iface, now)
		}
	}); derr != nil {
		return operator.AgentChange{}, derr
	}
	return change, err
}

// startAgent starts dcbtop's agent on iface (engine goroutine, or Start
// before the loop runs). The host decides whether it may and with which
// parameters (host.PlanAgent, after observing the host as it is now);
// this claims what the agent needs of the system (its lock on a kernel
// interface, its control socket for dcbtop apply, not for the demo,
// which must leave no file behind when killed), then has the host start
// it and carries out the result (the first LLDPDU).
func (r *liveRun) startAgent(iface string, now time.Time) (operator.AgentChange, error) {
	li := r.byName[iface]
	if li == nil {
		return operator.AgentChange{}, fmt.Errorf("%s is not captured", iface)
	}
	r.observeHost(now)
	kept := r.kept(li)
	plan, ok, err := r.h.PlanAgent(iface, kept)
	if err != nil {
		return operator.AgentChange{}, err
	}
	if !ok {
		return operator.AgentChange{Started: true, Unchanged: true}, nil
	}
	if plan.MAC == (lldp.MAC{}) {
		plan.MAC = li.link.MAC
	}
	if plan.Ifindex == 0 {
		plan.Ifindex = li.link.Index
	}
	// One agent per kernel interface and network namespace, whatever the
	// run directory (an in-memory demo link is no kernel interface).
	seat, warn, err := control.Take(control.RunDir(), iface, plan.Ifindex, !r.cfg.NoControl, r.cfg.Open == nil, r.control)
	if err != nil {
		return operator.AgentChange{}, err
	}
	if warn != "" {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s\n", warn)
	}
	started, res, err := r.h.StartAgent(plan, now)
	if err != nil {
		seat.Close()
		return operator.AgentChange{}, err
	}
	seat.Start()
	li.seat = seat
	r.carryOut(res, false)
	if plan.From == host.FromKept && !r.cfg.Screen {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: %s: local parameters %s\n", iface, plan.Words)
	}
	return operator.AgentChange{Started: true, Interval: started.Interval, TTL: started.TTL, Willing: started.Willing, From: started.From}, nil
}

// stopAgent stops dcbtop's agent on iface (engine goroutine): the host
// has its shutdown LLDPDU sent and its control socket released, and the
// local parameters come from DCB netlink, another agent or nowhere again.
func (r *liveRun) stopAgent(iface string, now time.Time) (operator.AgentChange, error) {
	if r.byName[iface] == nil {
		return operator.AgentChange{}, fmt.Errorf("%s is not captured", iface)
	}
	ran, res := r.h.StopAgent(iface, now)
	if !ran {
		return operator.AgentChange{Unchanged: true}, nil
	}
	r.carryOut(res, false)
	in, _ := r.h.Engine().Interface(iface)
	return operator.AgentChange{From: in.LocalSource.Describe()}, nil
}

// hostAgents lists the LLDP agent processes of this network namespace,
// and netAdmin whether this process may write DCB netlink: what the
// engine decides capabilities from (engine.HostObserved). Variables for
// tests.
var (
	hostAgents = func() []engine.HostAgent { return capture.LLDPAgents("/proc") }
	netAdmin   = capture.NetAdmin
	// scanAgents is the scan of /proc an observation of the host makes.
	scanAgents = (*capture.AgentScan).Scan
)

// observeHost tells the engine what the host allows now (engine
// goroutine): the LLDP agents running here and CAP_NET_ADMIN. Every
// snapshot's capabilities come from the last such event.
func (r *liveRun) observeHost(now time.Time) { r.observeHostAgents(now, true) }

// observeHostAgents is observeHost; full reads the name of every process
// (capture.AgentScan), else only of those new since the last look.
func (r *liveRun) observeHostAgents(now time.Time, full bool) {
	if r.agentScan == nil {
		r.agentScan = &capture.AgentScan{ProcRoot: "/proc"}
	}
	ev := engine.HostObserved{At: now, NetAdmin: netAdmin(), Agents: scanAgents(r.agentScan, full)}
	r.writeTape(now, poll.ObservedRecord(ev))
	r.apply(ev)
}

// kept returns the local state kept for li's port (its permanent MAC,
// else its MAC: statedir.KeyOf), nil when there is none or the run keeps
// nothing; a kept file that cannot be used is a warning, and the agent
// starts as if there were none.
func (r *liveRun) kept(li *liveIface) *host.Kept {
	if r.cfg.State == nil {
		return nil
	}
	key, _ := statedir.KeyOf(li.link.PermMAC, li.link.MAC)
	s, err := r.cfg.State.Load(key)
	if err != nil {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s: the kept local parameters are not used: %v\n", li.Name(), err)
		return nil
	}
	if s == nil {
		return nil
	}
	return &host.Kept{Willing: s.Willing, Params: s.Params, Words: s.Describe()}
}

// keep saves an operator's write on li's agent for the next agent on its
// port (a host.Keep effect); a failure is a warning: the write is in
// force, it is only not kept.
func (r *liveRun) keep(li *liveIface, st engine.LocalState, now time.Time) {
	if r.cfg.State == nil {
		return
	}
	key, _ := statedir.KeyOf(li.link.PermMAC, li.link.MAC)
	s, err := r.cfg.State.Save(statedir.Saved{Key: key, Interface: li.Name(), At: now, Willing: st.Willing, Params: st.Params})
	if err != nil {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s: in force, but not kept for the next agent: %v\n", li.Name(), err)
		r.kept1 = keptResult{err: control.OneLine(err.Error())}
		return
	}
	r.kept1 = keptResult{file: s.File}
}

// A keptResult is what the last Keep effect did: the file it saved, or
// why it could not (for the control socket's answer).
type keptResult struct{ file, err string }
