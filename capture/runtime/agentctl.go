package runtime

// The live run's side of the screen's Backend: requests carried out by the
// engine goroutine (liveRun.loop), which owns the engine, the agents and
// their control sockets.

import (
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
func (r *liveRun) do(fn func()) error {
	c := loopCall{fn: fn, done: make(chan struct{})}
	select {
	case r.calls <- c:
	case <-r.stopped:
		return errStopped
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
func (r *liveRun) setAgent(iface string, on bool) (text string, err error) {
	if derr := r.do(func() {
		now := r.now()
		if on {
			text, err = r.startAgent(iface, now)
		} else {
			text, err = r.stopAgent(iface, now)
		}
	}); derr != nil {
		return "", derr
	}
	return text, err
}

// startAgent starts dcbtop's agent on iface (engine goroutine, or Start
// before the loop runs): with the configured local parameters (the demo's,
// or --local's), else those read from the driver when there are valid
// ones, else the defaults; the configured Willing state; and a control
// socket for dcbtop apply (not for the demo, which must leave no file
// behind when killed).
func (r *liveRun) startAgent(iface string, now time.Time) (string, error) {
	li := r.byName[iface]
	if li == nil {
		return "", fmt.Errorf("%s is not captured", iface)
	}
	if li.agent != nil {
		return "dcbtop's agent already runs here", nil
	}
	in, _ := r.eng.Interface(iface)
	if c := in.Capabilities(engine.Host{NetAdmin: hasNetAdmin(), OtherAgents: otherAgents(), Now: now}); !c.CanAgent && !r.cfg.Force {
		return "", errors.New(c.AgentWhy)
	}
	local, willing, from := agent.DefaultLocal(), r.cfg.Willing, "the defaults (100% ETS on TC0, PFC off)"
	switch {
	case r.cfg.LocalParams != nil: // the demo's host
		local, willing, from = r.cfg.LocalParams.Clone(), r.cfg.Willing, "the demo host's"
	case r.cfg.Local != "": // --local FILE, as when the agent first started
		p, err := loadLocal(r.cfg.Local)
		if err != nil {
			return "", err
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
			return "", err
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
		return "", err
	}
	if srv != nil {
		srv.Start()
	}
	li.agent, li.acfg, li.ctl = a, cfg, srv
	li.local, li.willing = local.Clone(), willing
	r.undo.drop(iface)
	r.apply(engine.LocalChanged{Interface: iface, At: now, Source: engine.SourceAgent, Willing: willing, Params: local})
	if r.tick != nil {
		r.tick.Reset(r.cfg.Clock.Real(agentTick))
	}
	if f, ok := a.Due(now); ok {
		r.send(li, f, now)
	}
	return fmt.Sprintf("dcbtop's agent started: LLDPDUs every %s (TTL %d s), willing %s, local parameters %s",
		r.cfg.TxInterval, a.TTL(), engine.OnOff(willing), from), nil
}

// stopAgent stops dcbtop's agent on iface (engine goroutine): a shutdown
// LLDPDU withdraws its information at the peer, its control socket goes,
// and the local parameters come from DCB netlink, another agent or
// nowhere again.
func (r *liveRun) stopAgent(iface string, now time.Time) (string, error) {
	li := r.byName[iface]
	if li == nil {
		return "", fmt.Errorf("%s is not captured", iface)
	}
	if li.agent == nil {
		return "dcbtop's agent does not run here", nil
	}
	r.send(li, li.agent.Shutdown(), now)
	li.agent = nil
	if li.ctl != nil {
		li.ctl.Close()
		li.ctl = nil
	}
	li.local = nil
	r.undo.drop(iface)
	r.apply(engine.LocalChanged{Interface: iface, At: now, Source: engine.SourceAgent, Withdrawn: true})
	in, _ := r.eng.Interface(iface)
	return "dcbtop's agent stopped: shutdown LLDPDU sent (TTL 0); local parameters now from " + in.LocalSource.Describe(), nil
}
