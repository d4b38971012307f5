package session

// The live run's side of the screen's Backend: requests carried out by the
// engine goroutine (liveRun.loop), which owns the engine, the agents and
// their control sockets.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
)

var _ liveControl = (*liveRun)(nil)

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

// agentCall hands a control request to the engine goroutine, as a
// control socket connection does.
func (r *liveRun) agentCall(iface string, req control.Request) (control.Response, error) {
	c := control.Call{Iface: iface, Req: req, Reply: make(chan control.Response, 1)}
	select {
	case r.control <- c:
	case <-r.stopped:
		return control.Response{}, errStopped
	}
	var resp control.Response
	select {
	case resp = <-c.Reply:
	case <-r.stopped:
		select {
		case resp = <-c.Reply:
		default:
			return control.Response{}, errStopped
		}
	}
	if !resp.OK {
		return resp, errors.New(resp.Error)
	}
	return resp, nil
}

// undos returns the run's undo store.
func (r *liveRun) undos() *undoStore { return r.undo }

// localChanged feeds local parameters to the engine.
func (r *liveRun) localChanged(ev engine.LocalChanged) error {
	return r.do(func() { r.apply(ev) })
}

// setAgent starts or stops dcbtop's agent on iface.
func (r *liveRun) setAgent(iface string, on bool) (change AgentChange, err error) {
	if derr := r.do(func() {
		now := r.now()
		if on {
			change, err = r.startAgent(iface, now)
		} else {
			change, err = r.stopAgent(iface, now)
		}
	}); derr != nil {
		return AgentChange{}, derr
	}
	return change, err
}

// An AgentChange is what starting or stopping dcbtop's agent on an
// interface did.
type AgentChange struct {
	// Started: the agent runs now (false: it stopped, or did not run).
	Started bool
	// Unchanged: it already ran (start) or did not run (stop).
	Unchanged bool
	// Interval and TTL are a started agent's transmit interval and the
	// TTL of its LLDPDUs; Willing its Willing state.
	Interval time.Duration
	TTL      uint16
	Willing  bool
	// From says where the local parameters in force come from now.
	From string
}

// String is the one-line account the screen shows.
func (c AgentChange) String() string {
	switch {
	case c.Started && c.Unchanged:
		return "dcbtop's agent already runs here"
	case c.Started:
		return fmt.Sprintf("dcbtop's agent started: LLDPDUs every %s (TTL %d s), willing %s, local parameters %s",
			c.Interval, c.TTL, engine.OnOff(c.Willing), c.From)
	case c.Unchanged:
		return "dcbtop's agent does not run here"
	}
	return "dcbtop's agent stopped: shutdown LLDPDU sent (TTL 0); local parameters now from " + c.From
}

// startAgent starts dcbtop's agent on iface (engine goroutine, or Start
// before the loop runs): with the configured local parameters (the demo's,
// or --local's), else those read from the driver when there are valid
// ones, else the defaults; the configured Willing state; and a control
// socket for dcbtop apply (not for the demo, which must leave no file
// behind when killed).
func (r *liveRun) startAgent(iface string, now time.Time) (AgentChange, error) {
	li := r.byName[iface]
	if li == nil {
		return AgentChange{}, fmt.Errorf("%s is not captured", iface)
	}
	if li.agent != nil {
		return AgentChange{Started: true, Unchanged: true}, nil
	}
	r.observeHost(now) // the engine decides from the host as it is now
	in, _ := r.eng.Interface(iface)
	if c := in.Caps; !c.CanAgent && !r.cfg.Force {
		return AgentChange{}, errors.New(c.AgentWhy)
	}
	local, willing, from := agent.DefaultLocal(), r.cfg.Willing, "the defaults (100% ETS on TC0, PFC off)"
	switch {
	case r.cfg.LocalParams != nil: // the demo's host
		local, willing, from = r.cfg.LocalParams.Clone(), r.cfg.Willing, "the demo host's"
	case r.cfg.Local != "": // --local FILE, as when the agent first started
		p, err := loadLocal(r.cfg.Local)
		if err != nil {
			return AgentChange{}, err
		}
		local, willing, from = p, r.cfg.Willing, "from "+r.cfg.Local
	case in.LocalSource == engine.SourceDCBNL && in.Local != nil && in.Local.ETS != nil && in.Local.Errors() == nil && in.Willing != nil:
		local, willing, from = in.Local.Clone(), *in.Willing, "the driver's (dcbnl)"
	}
	local = local.WithWilling(willing)
	mac := li.link.MAC
	if in.MAC != nil {
		mac = *in.MAC
	}
	var srv *control.Server
	if !r.cfg.NoControl {
		var err error
		if srv, err = control.Listen(control.RunDir(), iface, r.control); err != nil {
			return AgentChange{}, err
		}
	}
	var lock *control.AgentLock
	if r.cfg.Open == nil {
		// A kernel interface: one agent on it per network namespace,
		// whatever the run directory (an in-memory demo link is no
		// kernel interface). The control socket's error, when it has
		// one, names the socket too.
		idx := li.link.Index
		if in.Ifindex != nil {
			idx = *in.Ifindex
		}
		var err error
		if lock, err = control.LockAgent(idx, iface); err != nil {
			if srv != nil {
				srv.Close()
			}
			return AgentChange{}, err
		}
	}
	host, _ := os.Hostname()
	cfg := agent.Config{Ifname: iface, MAC: mac, SystemName: host,
		SystemDesc: "dcbtop " + r.cfg.Version + " host DCBX agent", TxInterval: r.cfg.TxInterval}
	a, err := agent.New(cfg, agent.Advert{Willing: willing, Local: local}, now)
	if err != nil {
		if srv != nil {
			srv.Close()
		}
		lock.Release()
		return AgentChange{}, err
	}
	if srv != nil {
		srv.Start()
	}
	li.agent, li.acfg, li.ctl, li.lock = a, cfg, srv, lock
	li.local, li.willing = local.Clone(), willing
	r.undo.drop(iface)
	r.apply(engine.LocalChanged{Interface: iface, At: now, Source: engine.SourceAgent, Willing: willing, Params: local})
	if r.tick != nil {
		r.tick.Reset(r.clk.Real(agentTick))
	}
	if f, ok := a.Due(now); ok {
		r.send(li, f, now)
	}
	return AgentChange{Started: true, Interval: r.cfg.TxInterval, TTL: a.TTL(), Willing: willing, From: from}, nil
}

// stopAgent stops dcbtop's agent on iface (engine goroutine): a shutdown
// LLDPDU withdraws its information at the peer, its control socket goes,
// and the local parameters come from DCB netlink, another agent or
// nowhere again.
func (r *liveRun) stopAgent(iface string, now time.Time) (AgentChange, error) {
	li := r.byName[iface]
	if li == nil {
		return AgentChange{}, fmt.Errorf("%s is not captured", iface)
	}
	if li.agent == nil {
		return AgentChange{Unchanged: true}, nil
	}
	r.send(li, li.agent.Shutdown(), now)
	li.agent = nil
	li.closeControl()
	li.local = nil
	r.undo.drop(iface)
	r.apply(engine.LocalChanged{Interface: iface, At: now, Source: engine.SourceAgent, Withdrawn: true})
	in, _ := r.eng.Interface(iface)
	return AgentChange{From: in.LocalSource.Describe()}, nil
}
