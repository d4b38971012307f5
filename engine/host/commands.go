// SPDX-License-Identifier: Apache-2.0

package host

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// An AgentPlan is the decision to start dcbtop's agent on an interface,
// made by PlanAgent before the caller claims what an agent needs (its
// control socket, its lock): where it speaks from and what it first
// advertises. StartAgent carries it out.
type AgentPlan struct {
	Interface string
	// Ifindex and MAC are the interface's as the engine last saw them
	// (the agent's chassis ID and source address is MAC).
	Ifindex int
	MAC     lldp.MAC
	// Willing and Local are what the agent starts advertising; From says
	// where they come from: the configured ones (AgentConfig.Local), the
	// ones kept for the port (Kept), the driver's (dcbnl), or the
	// defaults.
	Willing bool
	Local   *dcb.Params
	From    AdoptedFrom
	// Words describes From for the operator ("the driver's (dcbnl)").
	Words string
}

// A Kept is the local state kept for a port across agent restarts (the
// caller's state directory, capture/statedir): what an operator last set
// on dcbtop's agent there. Words says where it is kept, for every surface
// that reports where a starting agent's parameters come from.
type Kept struct {
	Willing bool
	Params  *dcb.Params
	Words   string
}

// A Keep asks the caller to keep an operator's write on dcbtop's agent
// (Apply, UndoApply) for the next agent on Interface: State is the
// agent's local state after it.
type Keep struct {
	Interface string
	State     engine.LocalState
}

func (Keep) isEffect() {}

// AdoptedFrom says where a starting agent's local parameters come from.
type AdoptedFrom uint8

// Where a starting agent's parameters come from, in the order they are
// tried.
const (
	// FromConfig: AgentConfig.Local (the demo host's, a --local file).
	FromConfig AdoptedFrom = iota + 1
	// FromKept: what an operator last set on dcbtop's agent on this port
	// (Kept), so that an apply survives a restart.
	FromKept
	// FromDriver: the driver's valid parameters and Willing state, read
	// through DCB netlink, so that starting the agent changes nothing the
	// host has in force.
	FromDriver
	// FromDefaults: agent.DefaultLocal (100% ETS on TC0, PFC off).
	FromDefaults
)

// PlanAgent decides whether dcbtop's agent may start on iface and with
// what: the engine's capabilities for the interface (from the last
// engine.HostObserved: another LLDP agent of this host, firmware DCBX)
// unless AgentConfig.Force; the configured local parameters (--local
// beats what was kept), else the state kept for the port (kept, nil:
// none; its Willing state too unless the operator gave one), else the
// driver's when they are complete and valid (ETS present, no error, a
// Willing state known; the driver's Willing bit too unless the operator
// gave one, AgentConfig.WillingSet), else the defaults. It changes
// nothing. An agent already running is reported by ok false with no
// error.
func (h *Host) PlanAgent(iface string, kept *Kept) (plan AgentPlan, ok bool, err error) {
	in, known := h.eng.Interface(iface)
	if !known {
		return AgentPlan{}, false, errNotCaptured(iface)
	}
	if p := h.ports[iface]; p != nil && p.agent != nil {
		return AgentPlan{}, false, nil
	}
	if c := in.Caps; !c.CanAgent && !h.cfg.Agent.Force {
		return AgentPlan{}, false, errors.New(c.AgentWhy())
	}
	cfg := h.cfg.Agent
	plan = AgentPlan{Interface: iface, Willing: cfg.Willing, Local: agent.DefaultLocal(), From: FromDefaults,
		Words: "the defaults (100% ETS on TC0, PFC off)"}
	switch {
	case cfg.Local != nil:
		plan.Local, plan.From, plan.Words = cfg.Local.Clone(), FromConfig, cfg.LocalFrom
		if kept != nil {
			plan.Words += " (beating the ones " + kept.Words + ")"
		}
	case kept != nil && kept.Params != nil:
		plan.Local, plan.From, plan.Words = kept.Params.Clone(), FromKept, kept.Words
		if !cfg.WillingSet {
			plan.Willing = kept.Willing
		}
	case in.LocalSource == engine.SourceDCBNL && in.Local != nil && in.Local.ETS != nil && in.Local.Errors() == nil && in.Willing != nil:
		plan.Local, plan.From, plan.Words = in.Local.Clone(), FromDriver, "the driver's (dcbnl)"
		if !cfg.WillingSet {
			plan.Willing = *in.Willing
		}
	}
	plan.Local = plan.Local.WithWilling(plan.Willing)
	if in.MAC != nil {
		plan.MAC = *in.MAC
	}
	if in.Ifindex != nil {
		plan.Ifindex = *in.Ifindex
	}
	if p := h.ports[iface]; p != nil {
		if plan.MAC == (lldp.MAC{}) {
			plan.MAC = p.mac
		}
		if plan.Ifindex == 0 {
			plan.Ifindex = p.ifindex
		}
	}
	return plan, true, nil
}

// An AgentStarted is the answer to StartAgent: the running agent's
// transmit interval, TTL and Willing state, and where its parameters come
// from.
type AgentStarted struct {
	Interval time.Duration
	TTL      uint16
	Willing  bool
	From     string
}

// StartAgent starts dcbtop's agent as plan says (PlanAgent), at at: the
// engine takes its parameters as the local ones (source agent), and its
// first LLDPDU is due at once, followed by fast transmission (a new agent
// is a local change, IEEE Std 802.1AB-2016, 9.2.5). An error (parameters
// no LLDPDU can carry) changes nothing.
func (h *Host) StartAgent(plan AgentPlan, at time.Time) (AgentStarted, Result, error) {
	h.begin()
	p := h.port(plan.Interface)
	if p.agent != nil {
		return AgentStarted{}, h.end(at), fmt.Errorf("%s: dcbtop's agent already runs here", plan.Interface)
	}
	cfg := agent.Config{Ifname: plan.Interface, MAC: plan.MAC, SystemName: h.cfg.Agent.SystemName,
		SystemDesc: h.cfg.Agent.SystemDesc, TxInterval: h.cfg.Agent.TxInterval}
	a, err := agent.New(cfg, agent.Advert{Willing: plan.Willing, Local: plan.Local}, at)
	if err != nil {
		return AgentStarted{}, h.end(at), err
	}
	p.agent, p.acfg, p.local, p.willing, p.undo = a, cfg, plan.Local.Clone(), plan.Willing, nil
	p.cee = newCEESide(plan.Local, plan.Willing)
	p.nicAsked, p.nicCheck = nil, true
	h.agents++
	h.namesStale = true
	kept := ""
	if plan.From == FromKept {
		kept = plan.Words
	}
	h.step(engine.LocalChanged{Interface: plan.Interface, At: at, Source: engine.SourceAgent, Willing: plan.Willing, Params: plan.Local.Clone(), Kept: kept})
	interval := cfg.TxInterval
	if interval <= 0 {
		interval = agent.DefaultTxInterval
	}
	return AgentStarted{Interval: interval, TTL: a.TTL(), Willing: plan.Willing, From: plan.Words}, h.end(at), nil
}

// StopAgent stops dcbtop's agent on iface at at: its shutdown LLDPDU
// withdraws its information at the peer (TTL 0, IEEE Std 802.1AB-2016,
// 9.2.7.7.1), the caller releases its control socket, and the local
// parameters come from DCB netlink, another agent or nowhere again. ran
// is false when no agent ran there (nothing happens).
func (h *Host) StopAgent(iface string, at time.Time) (ran bool, res Result) {
	h.begin()
	p := h.ports[iface]
	if p == nil || p.agent == nil {
		return false, h.end(at)
	}
	h.effects = append(h.effects, Transmit{Interface: iface, Frame: p.agent.Shutdown(), Shutdown: true}, Release{Interface: iface})
	p.agent, p.local, p.undo, p.cee = nil, nil, nil, nil
	h.agents--
	h.namesStale = true
	h.setAdvErr(p, "")
	h.step(engine.LocalChanged{Interface: iface, At: at, Source: engine.SourceAgent, Withdrawn: true})
	return true, h.end(at)
}

// StopAll stops every agent (the run ends): their shutdown LLDPDUs, in
// interface order.
func (h *Host) StopAll(at time.Time) Result {
	h.begin()
	for _, name := range slices.Clone(h.agentNames()) {
		p := h.ports[name]
		h.effects = append(h.effects, Transmit{Interface: name, Frame: p.agent.Shutdown(), Shutdown: true}, Release{Interface: name})
		p.agent, p.local, p.undo, p.cee = nil, nil, nil, nil
		h.agents--
	}
	h.namesStale = true
	// The engine keeps the agents' parameters: the final snapshot shows
	// what was in force while the run lasted.
	return h.end(at)
}

// An Applied is the typed answer to Apply and Undo on dcbtop's agent:
// the local state before and after (what the agent advertises now), and
// what changed between them.
type Applied struct {
	Interface string
	// Target is where the write went (Write, UndoWrite): dcbtop's agent,
	// or the kernel, whose states a KernelWritten brings.
	Target engine.WriteTarget
	Before engine.LocalState
	After  engine.LocalState
	// Changed lists what differs, in order: the features of
	// dcb.Params.Changes ("ets", "ets_reco", "pfc", "app", the Willing
	// bits aside) and "willing". Empty: nothing changed.
	Changed []string
	// Advertised is what dcbtop's agent now advertises, read back from
	// the LLDPDU it transmits next (agent.Agent.Advertising): the
	// operational ETS and PFC with the local Willing bit, which a willing
	// host took from the peer; nil for a kernel write.
	Advertised *dcb.Params
}

// Apply changes what dcbtop's agent on iface advertises at at: the given
// features of change merged into its local parameters (nil: none), and
// the Willing state when willing is set. The result is validated
// (dcb.Params.Errors) and must fit an LLDPDU (agent.Check) before
// anything changes; then the engine takes it as a local change (a
// QOS_LOCAL_PARAMETERS_CHANGE indication, the operational parameters
// resolved again), the agent starts fast transmission, and the state
// before is kept for Undo.
func (h *Host) Apply(iface string, change *dcb.Params, willing *bool, at time.Time) (Applied, Result, error) {
	h.begin()
	p := h.ports[iface]
	if p == nil || p.agent == nil {
		return Applied{}, h.end(at), fmt.Errorf("%s: %w", iface, ErrNoAgent)
	}
	w := p.willing
	if willing != nil {
		w = *willing
	}
	next := p.local.Merge(change).WithWilling(w)
	if err := next.Errors(); err != nil {
		return Applied{}, h.end(at), fmt.Errorf("invalid parameters: %w", err)
	}
	if err := agentCheck(p.agent, p.advert(w, next, nil)); err != nil {
		return Applied{}, h.end(at), fmt.Errorf("%s: not applied: dcbtop's agent cannot advertise these parameters: %w", iface, err)
	}
	before := engine.LocalState{Willing: p.willing, Params: p.local.Clone()}
	ap := h.setLocal(p, before, engine.LocalState{Willing: w, Params: next}, at)
	p.undo, p.undone, p.qosUndo = &before, false, nil
	h.keep(ap)
	res := h.end(at) // the agent takes the resolved state here
	ap.Advertised = p.agent.Advertising()
	return ap, res, nil
}

// UndoApply restores on dcbtop's agent on iface the local state before
// the last Apply, when the agent can still advertise it.
func (h *Host) UndoApply(iface string, at time.Time) (Applied, Result, error) {
	h.begin()
	p := h.ports[iface]
	if p == nil || p.agent == nil {
		return Applied{}, h.end(at), fmt.Errorf("%s: %w", iface, ErrNoAgent)
	}
	if p.undo == nil {
		return Applied{}, h.end(at), errors.New(engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: iface, Undone: p.undone}.String())
	}
	prev := *p.undo
	if err := agentCheck(p.agent, p.advert(prev.Willing, prev.Params, nil)); err != nil {
		return Applied{}, h.end(at), fmt.Errorf("%s: not undone: dcbtop's agent cannot advertise the earlier parameters: %w", iface, err)
	}
	cur := engine.LocalState{Willing: p.willing, Params: p.local.Clone()}
	ap := h.setLocal(p, cur, prev, at)
	p.undo, p.undone, p.qosUndo = nil, true, nil
	h.keep(ap)
	res := h.end(at)
	ap.Advertised = p.agent.Advertising()
	return ap, res, nil
}

// setLocal makes next the agent's local state: the engine takes it as a
// local change, and the resolved state reaches the agent (absorb), whose
// next LLDPDU is due at once.
func (h *Host) setLocal(p *port, before, next engine.LocalState, at time.Time) Applied {
	p.willing, p.local = next.Willing, next.Params.Clone()
	h.step(engine.LocalChanged{Interface: p.name, At: at, Source: engine.SourceAgent, Willing: next.Willing, Params: next.Params.Clone()})
	return Applied{Interface: p.name, Target: engine.WriteAgent, Before: before, After: engine.LocalState{Willing: p.willing, Params: p.local.Clone()},
		Changed: LocalChanges(before, next)}
}

// keep asks the caller to keep the agent's local state after an
// operator's write that changed it (a Keep effect).
func (h *Host) keep(ap Applied) {
	if len(ap.Changed) > 0 {
		h.effects = append(h.effects, Keep{Interface: ap.Interface, State: engine.LocalState{Willing: ap.After.Willing, Params: ap.After.Params.Clone()}})
	}
}

// LocalChanges lists what differs between two local states: the features
// of dcb.Params.Changes ("ets", "ets_reco", "pfc", "app"; the Willing
// bits aside) and "willing".
func LocalChanges(a, b engine.LocalState) []string {
	out := []string{}
	for _, c := range a.Params.WithWilling(false).Changes(b.Params.WithWilling(false)) {
		if !slices.Contains(out, c.Feature) {
			out = append(out, c.Feature)
		}
	}
	if a.Willing != b.Willing {
		out = append(out, "willing")
	}
	return out
}

// A WriteKernel asks the caller to write local parameters to the kernel
// through DCB netlink: the given features of Params (nil: none) and the
// Willing state when set, as an operator's apply (or, with Undo, the
// state before the last one). The caller does it where a slow driver
// blocks nobody (a PFC write flaps the link on mlx5), then reports the
// typed result with KernelWritten.
type WriteKernel struct {
	Interface string
	Params    *dcb.Params
	Willing   *bool
	Undo      bool
}

func (WriteKernel) isEffect() {}

// Write decides where the operator's write on iface goes, and does it or
// asks for it: to dcbtop's agent when one runs there (Apply, answered at
// once with its Applied, Target engine.WriteAgent), else to the kernel
// when the engine's capabilities allow it (the NIC firmware does not run
// DCBX, this process has CAP_NET_ADMIN, another agent does not own the
// interface), as a WriteKernel in the Result's effects (Applied has
// Target engine.WriteKernel and no states: KernelWritten brings them).
// One rule for the screen and every other caller.
func (h *Host) Write(iface string, change *dcb.Params, willing *bool, at time.Time) (Applied, Result, error) {
	if p := h.ports[iface]; p != nil && p.agent != nil {
		return h.Apply(iface, change, willing, at)
	}
	h.begin()
	if err := h.kernelWritable(iface); err != nil {
		return Applied{}, h.end(at), err
	}
	h.effects = append(h.effects, WriteKernel{Interface: iface, Params: change.Clone(), Willing: willing})
	h.port(iface).qosUndo = nil // the last write here is this one
	return Applied{Interface: iface, Target: engine.WriteKernel}, h.end(at), nil
}

// UndoWrite restores on iface the state before the last write, by the
// path Write would take: dcbtop's agent (UndoApply), else the kernel (a
// WriteKernel with Undo set, of the state the last KernelWritten found
// before its write).
func (h *Host) UndoWrite(iface string, at time.Time) (Applied, Result, error) {
	p := h.ports[iface]
	if p != nil && p.agent != nil {
		return h.UndoApply(iface, at)
	}
	h.begin()
	if err := h.kernelWritable(iface); err != nil {
		return Applied{}, h.end(at), err
	}
	if p == nil || p.undo == nil {
		return Applied{}, h.end(at), errors.New(engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: iface, Undone: p != nil && p.undone}.String())
	}
	w := p.undo.Willing
	h.effects = append(h.effects, WriteKernel{Interface: iface, Params: p.undo.Params.Clone(), Willing: &w, Undo: true})
	p.qosUndo = nil
	return Applied{Interface: iface, Target: engine.WriteKernel}, h.end(at), nil
}

// kernelWritable says why the kernel's parameters of iface may not be
// written (nil when they may): the engine's capabilities.
func (h *Host) kernelWritable(iface string) error {
	in, ok := h.eng.Interface(iface)
	if !ok {
		return errNotCaptured(iface)
	}
	if !in.Caps.CanWrite {
		return errors.New(in.Caps.WriteWhy())
	}
	return nil
}

// KernelWritten takes the result of a WriteKernel carried out at at: the
// state read before the write becomes the one level of undo (also after
// a partial failure: undo writes back what changed), or, after an undo
// that succeeded, there is nothing left to undo; the state read back
// becomes the engine's local parameters from DCB netlink.
func (h *Host) KernelWritten(w WriteKernel, res engine.WriteResult, at time.Time) Result {
	h.begin()
	if res.Before.Params == nil {
		return h.end(at) // nothing read, nothing written
	}
	p := h.port(w.Interface)
	switch {
	case w.Undo && res.Err == nil:
		p.undo, p.undone = nil, true
	case !w.Undo:
		p.undo, p.undone = &engine.LocalState{Willing: res.Before.Willing, Params: res.Before.Params.Clone()}, false
	}
	if ev, ok := res.LocalChanged(at); ok {
		h.step(ev)
	}
	return h.end(at)
}
