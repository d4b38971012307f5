// SPDX-License-Identifier: Apache-2.0

// Package host is the host layer of dcbtop: the Engine together with
// dcbtop's own LLDP agents on this host's interfaces, without I/O. It
// takes every event a run has (a frame, a tick, a link or local change,
// and the operator's commands: start or stop the agent, apply, undo) and
// returns what the event did (the engine's indications) and the effects
// the caller carries out, in order: LLDPDUs to transmit now, an agent's
// control socket to release. It decides every protocol matter of the
// agents (fast transmission for a new neighbour, a returning link and a
// local change, IEEE Std 802.1AB-2016, 9.2.5 and 9.2.7.7.1; the shutdown
// LLDPDU when an agent stops; a new chassis ID when the interface's MAC
// changes; which parameters an agent adopts when it starts; whether an
// apply or undo can be advertised) and holds the agents' state in one
// place. The caller owns the sockets, the goroutines and the timer, which
// it arms for NextWake.
//
// Like the engine, a Host is pure: no I/O, no clock (every event carries
// its time), no goroutines. Its methods must not be called concurrently.
package host

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// AgentConfig is how dcbtop's agents are started on this host.
type AgentConfig struct {
	// SystemName and SystemDesc go into every LLDPDU (the host name, and
	// "dcbtop VERSION host DCBX agent").
	SystemName, SystemDesc string
	// TxInterval is the time between LLDPDUs (agent.DefaultTxInterval
	// when zero).
	TxInterval time.Duration
	// Willing is the Willing state an agent starts with, unless it
	// adopts the driver's parameters and WillingSet is false (the
	// operator did not give one): then the driver's Willing bit.
	Willing    bool
	WillingSet bool
	// Local, when set, are the local parameters every agent starts with
	// (the demo host's, or a --local file), described by LocalFrom
	// ("the demo host's", "from params.json"). Nil: the driver's when it
	// has valid ones (dcbnl), else agent.DefaultLocal.
	Local     *dcb.Params
	LocalFrom string
	// Force starts an agent beside another LLDP agent of this host.
	Force bool
}

// Config is a Host's configuration: the engine's, and its agents'.
type Config struct {
	Engine engine.Config
	Agent  AgentConfig
}

// A Host is the engine and this host's agents. Its methods must not be
// called concurrently; a Result's slices are valid until the next call.
type Host struct {
	cfg   Config
	eng   *engine.Engine
	ports map[string]*port
	// agents counts the ports with a running agent: a frame on a host
	// without one goes straight through (replays).
	agents int
	// names are the interfaces with an agent, sorted (agentNames);
	// namesStale says they are to be made again.
	names      []string
	namesStale bool

	// The Result being built: indications of every engine step the event
	// took (ins is used once a second step copies them), the effects, the
	// interfaces whose status changed.
	res     Result
	ins     []engine.Indication
	notices []diag.Diagnostic
	effects []Effect
	status  []string
}

// A port is the host's side of one interface: its link as last reported,
// and dcbtop's agent on it, if any.
type port struct {
	name    string
	up      bool     // the link's state at the last link event
	down    bool     // a link event said the link is down (up says nothing of a port without one)
	mac     lldp.MAC // the interface's MAC at the last link event
	ifindex int

	agent *agent.Agent // nil: no agent of dcbtop's here
	acfg  agent.Config // its configuration (its MAC follows the link's)
	// withdraw is the shutdown LLDPDU of an MSAP the peer knows that
	// changed while the link was down (ip link set down, name, up: what
	// kernels before 6.2 need to rename), sent when the link comes back,
	// before the new MSAP; nil: none owed.
	withdraw []byte
	local    *dcb.Params
	willing  bool
	// advErr says why the agent cannot advertise the current state (it
	// keeps sending what it sent), "" when it can.
	advErr string
	// undo is the local state before the last apply: one level, of
	// either path (the agent's, or the kernel's through Saved); undone
	// says that level was used (an undo after an apply), so that a second
	// undo is refused for what it is.
	undo   *engine.LocalState
	undone bool
	// qosUndo restores what the last host QoS write changed (QoSWritten),
	// while it is the last write here (one level).
	qosUndo *qos.Change
	// qosOver is the last host QoS write the NIC read back, at
	// qosOverAt, while no counters sample taken since shows it: the
	// previews are made over it (QoSOver).
	qosOver   *qos.Change
	qosOverAt time.Time
	// cee is the agent's DCBX dialect and CEE handshake; nil without an
	// agent.
	cee *ceeSide

	// nicCheck says the NIC's programming is to be looked at when the
	// Result ends (the operational parameters, the NIC's state or the
	// host changed); nicBusy, that a ProgramNIC is being carried out;
	// nicAsked, what the last ProgramNIC asked for (asked once: a driver
	// that reads back other values is shown, not written again and again).
	nicCheck bool
	nicBusy  bool
	nicAsked *dcb.Params
}

// New returns a Host with an empty engine configured by cfg.Engine.
func New(cfg Config) *Host {
	if cfg.Engine.Judge == nil {
		cfg.Engine.Judge = check.Judge
	}
	if cfg.Engine.NameFixes == nil {
		cfg.Engine.NameFixes = qos.NameFixes
	}
	return &Host{cfg: cfg, eng: engine.New(cfg.Engine), ports: map[string]*port{}}
}

// Engine returns the engine, for snapshots and reads. Events go through
// the Host.
func (h *Host) Engine() *engine.Engine { return h.eng }

// Reset starts the engine afresh (a replay sought backwards); the agents,
// of which a replay has none, are kept.
func (h *Host) Reset() { h.eng = engine.New(h.cfg.Engine) }

// port returns the host's state of interface name, creating it.
func (h *Host) port(name string) *port {
	p := h.ports[name]
	if p == nil {
		p = &port{name: name}
		h.ports[name] = p
	}
	return p
}

// A Result is what one event or command did: the engine's outcome (every
// engine step it took, indications in order), the effects the caller
// carries out in order, and the interfaces whose status (AdvertiseErr)
// changed. Its slices are the Host's, valid until the next call.
type Result struct {
	// Indications, Changed and Notices are as in engine.Outcome, over
	// every engine step the event took.
	Indications []engine.Indication
	Changed     bool
	Notices     []diag.Diagnostic
	// Effects are what the caller carries out, in order.
	Effects []Effect
	// Status lists the interfaces whose AdvertiseErr changed: their
	// capture status is to be reported again.
	Status []string
}

// An Effect is something a Result asks the caller to do. The set is
// closed: Transmit, Release, WriteKernel, WriteQoS, ProgramNIC and Keep.
type Effect interface{ isEffect() }

// A Transmit is an LLDPDU (a whole Ethernet frame) to send on Interface
// now. Once it is sent, the caller hands it back to StepFrame as an
// outgoing frame (a packet socket does not see its own frames). Shutdown marks the shutdown LLDPDU of an
// agent that stops or leaves its old MAC (TTL 0, IEEE Std 802.1AB-2016,
// 9.2.7.7.1). The frame is the agent's: the caller does not keep it.
type Transmit struct {
	Interface string
	Frame     []byte
	Shutdown  bool
}

// A Release says dcbtop's agent on Interface stopped: its control socket
// and its lock are the caller's to close, after the Transmits before it.
type Release struct{ Interface string }

func (Transmit) isEffect() {}
func (Release) isEffect()  {}

// begin starts a new Result.
func (h *Host) begin() {
	h.res = Result{}
	h.ins, h.notices, h.effects, h.status = h.ins[:0], h.notices[:0], h.effects[:0], h.status[:0]
}

// step applies one engine event as part of the event being handled, and
// reacts to what it did.
func (h *Host) step(ev engine.Event) {
	h.absorb(h.eng.Step(ev), time.Time{})
}

// absorb adds an engine outcome to the Result and makes the agents react:
// a new neighbour starts fast transmission (9.2.7.7.1 newNeighbor), and a
// change of what an interface advertises is handed to its agent. at is
// the time a new neighbour appeared (the frame's; zero: the engine's).
func (h *Host) absorb(o engine.Outcome, at time.Time) {
	if h.res.Indications == nil && h.res.Notices == nil && len(h.ins) == 0 {
		// The first step: its lists stand as they are (the common case,
		// without a copy).
		h.res.Indications, h.res.Notices = o.Indications, o.Notices
	} else {
		if len(h.ins) == 0 {
			h.ins = append(h.ins, h.res.Indications...)
			h.notices = append(h.notices, h.res.Notices...)
		}
		h.ins = append(h.ins, o.Indications...)
		h.notices = append(h.notices, o.Notices...)
		h.res.Indications, h.res.Notices = h.ins, h.notices
	}
	h.res.Changed = h.res.Changed || o.Changed
	if h.agents == 0 || (len(o.NewPeers) == 0 && len(o.Advertise) == 0) {
		return
	}
	if at.IsZero() {
		at = h.eng.Now()
	}
	for _, name := range o.NewPeers {
		if p := h.ports[name]; p != nil && p.agent != nil {
			p.agent.PeerAppeared(at)
		}
	}
	for _, name := range o.Advertise {
		if p := h.ports[name]; p != nil && p.agent != nil {
			h.readvertise(p)
			p.nicCheck = true
		}
	}
}

// readvertise hands p's agent what the engine says p advertises now: the
// local Willing state and parameters, and the operational parameters
// (IEEE Std 802.1Q-2018, D.2). When the wire cannot carry it, the agent
// keeps sending what it sent and the reason becomes p's AdvertiseErr
// until an advertisement succeeds.
func (h *Host) readvertise(p *port) {
	s, ok := h.eng.Interface(p.name)
	if !ok || s.Willing == nil {
		return
	}
	msg := ""
	if p.cee != nil {
		p.cee.localChanged(s.Local, *s.Willing)
	}
	if err := agentSet(p.agent, p.advert(*s.Willing, s.Local, s.Operational), h.eng.Now()); err != nil {
		msg = "advertise: " + err.Error() + " (still sending the previous LLDPDU)"
	}
	h.setAdvErr(p, msg)
}

// agentSet and agentCheck are the agent's Set and Check (variables:
// tests inject the refusals an LLDPDU's limits would give).
var (
	agentSet   = (*agent.Agent).Set
	agentCheck = (*agent.Agent).Check
)

// setAdvErr records why p's agent cannot advertise ("" when it can).
func (h *Host) setAdvErr(p *port, msg string) {
	if p.advErr != msg {
		p.advErr = msg
		if !slices.Contains(h.status, p.name) {
			h.status = append(h.status, p.name)
		}
	}
}

// end completes the Result: every agent frame due at now becomes a
// Transmit (fast transmission sends at once, not at the next tick).
func (h *Host) end(now time.Time) Result {
	if h.agents > 0 {
		for _, name := range h.agentNames() {
			p := h.ports[name]
			h.dcbx(p, now)
			if p.nicCheck {
				h.programNIC(p, now)
			}
			// Nothing goes out on a link that is down (the frame due is
			// dropped: the link's return starts fast transmission).
			if f, ok := p.agent.Due(now); ok && !p.down {
				h.effects = append(h.effects, Transmit{Interface: name, Frame: f})
			}
		}
	}
	if len(h.effects) > 0 {
		h.res.Effects = h.effects
	}
	if len(h.status) > 0 {
		h.res.Status = h.status
	}
	return h.res
}

// agentNames returns the interfaces with a running agent, in order (so
// that effects come in an order tests can state).
// The list is kept between calls (a frame on a host with agents does not
// allocate for it) and made again after an agent starts or stops or its
// interface is renamed (namesStale); a caller does not keep it across a
// call that may change the agents.
func (h *Host) agentNames() []string {
	if !h.namesStale {
		return h.names
	}
	h.names = h.names[:0]
	for name, p := range h.ports {
		if p.agent != nil {
			h.names = append(h.names, name)
		}
	}
	slices.Sort(h.names)
	h.namesStale = false
	return h.names
}

// Step applies an engine event: a frame, a tick, a link change, a local
// change (from DCB netlink), a capture status or what the host allows. A
// link that comes back up starts its agent's fast transmission, as a new
// neighbour does; a changed MAC gives the agent a new chassis ID (the
// old one is withdrawn with a shutdown LLDPDU).
func (h *Host) Step(ev engine.Event) Result {
	if fr, ok := ev.(engine.FrameReceived); ok {
		return h.StepFrame(fr)
	}
	h.begin()
	lc, isLink := ev.(engine.LinkChanged)
	if isLink {
		h.link(lc)
	}
	h.step(ev)
	switch ev := ev.(type) {
	case engine.LocalChanged:
		// The NIC's state (read through DCB netlink) or the local one.
		if p := h.ports[ev.Interface]; p != nil {
			p.nicCheck = true
		}
	case engine.CountersSampled:
		// A sample read after a host QoS write holds what it wrote.
		if p := h.ports[ev.Interface]; p != nil && p.qosOver != nil && !ev.At.Before(p.qosOverAt) {
			p.qosOver = nil
		}
	case engine.HostObserved:
		// CAP_NET_ADMIN may have come or gone.
		for _, p := range h.ports {
			p.nicCheck = true
		}
	}
	return h.end(h.eng.Now())
}

// StepFrame is Step for a frame, without boxing it in an engine.Event.
// On a host without agents (a replay) it is the engine's StepFrame and
// nothing more: no allocation, no copy.
func (h *Host) StepFrame(fr engine.FrameReceived) Result {
	o := h.eng.StepFrame(fr)
	if h.agents == 0 {
		return Result{Indications: o.Indications, Changed: o.Changed, Notices: o.Notices}
	}
	h.begin()
	h.absorb(o, fr.At)
	return h.end(h.eng.Now())
}

// link follows an interface's link before the engine sees the event: an
// agent whose link comes back announces itself at once, and one whose
// interface has a new MAC or a new name (renamed: Was) speaks from it.
func (h *Host) link(lc engine.LinkChanged) {
	was := lc.Interface // the name the engine knows the port by
	if old := h.ports[lc.Was]; lc.Was != "" && old != nil && h.ports[lc.Interface] == nil {
		delete(h.ports, lc.Was)
		h.namesStale = true
		old.name, was = lc.Interface, lc.Was
		h.ports[lc.Interface] = old
	}
	p := h.port(lc.Interface)
	wasUp := p.up
	p.up = lc.Up && !lc.Removed
	p.down = !p.up
	if lc.Removed {
		return
	}
	p.ifindex = lc.Ifindex
	if lc.MAC != (lldp.MAC{}) {
		p.mac = lc.MAC
	}
	if p.agent == nil {
		return
	}
	cfg := p.acfg
	if lc.MAC != (lldp.MAC{}) {
		cfg.MAC = lc.MAC
	}
	cfg.Ifname = lc.Interface
	if cfg != p.acfg {
		h.newMSAP(p, was, cfg, lc.At)
	}
	if p.up && !wasUp {
		// The link came back: withdraw an MSAP that changed meanwhile,
		// then announce ourselves at once, as to a new neighbour
		// (9.2.7.7.1).
		if p.withdraw != nil {
			h.effects = append(h.effects, Transmit{Interface: p.name, Frame: p.withdraw, Shutdown: true})
			p.withdraw = nil
		}
		p.agent.PeerAppeared(lc.At)
	}
}

// newMSAP keeps an agent's chassis ID and source MAC those of its
// interface (ip link set address, or the interface re-created) and its
// port ID the interface's name (ip link set name): cfg is the agent's
// configuration with the interface's MAC and name, the engine knows the
// port as engineName until it sees the event. The old MSAP is withdrawn
// with a shutdown LLDPDU (when the link is down, once it is up again:
// port.withdraw) and the new one announced with fast transmission (IEEE
// Std 802.1AB-2016, 9.2.7.7.1: a new MSAP is a new neighbour to the
// peer).
func (h *Host) newMSAP(p *port, engineName string, cfg agent.Config, at time.Time) {
	s, ok := h.eng.Interface(engineName)
	if !ok || s.Willing == nil {
		return
	}
	a, err := agent.New(cfg, p.advert(*s.Willing, s.Local, s.Operational), at)
	if err != nil {
		return // unreachable: the same configuration was accepted before
	}
	old := p.agent
	p.agent, p.acfg = a, cfg
	switch {
	case p.up:
		h.effects = append(h.effects, Transmit{Interface: p.name, Frame: old.Shutdown(), Shutdown: true})
	case p.withdraw == nil:
		// Nothing goes out on a link that is down: the shutdown waits for
		// the link. Changed again meanwhile, the MSAP the peer knows is
		// still the first (the others never went out).
		p.withdraw = old.Shutdown()
	}
}

// NextWake returns when the Host next has something to do without an
// event: the engine's next deadline (a TTL, a hold-down) or an agent's
// next LLDPDU; false when nothing is scheduled.
func (h *Host) NextWake() (time.Time, bool) {
	t, ok := h.eng.NextDeadline()
	for _, p := range h.ports {
		if p.agent == nil {
			continue
		}
		if n := p.agent.Next(); !ok || n.Before(t) {
			t, ok = n, true
		}
	}
	return t, ok
}

// AdvertiseErr says why the agent on iface cannot advertise the current
// state ("" when it can, or there is no agent): part of the interface's
// capture status.
func (h *Host) AdvertiseErr(iface string) string {
	if p := h.ports[iface]; p != nil {
		return p.advErr
	}
	return ""
}

// Agent returns the local state dcbtop's agent on iface advertises, and
// whether one runs there.
func (h *Host) Agent(iface string) (engine.LocalState, bool) {
	p := h.ports[iface]
	if p == nil || p.agent == nil {
		return engine.LocalState{}, false
	}
	return engine.LocalState{Willing: p.willing, Params: p.local.Clone()}, true
}

// AgentFrame returns the LLDPDU dcbtop's agent on iface sends now (nil
// without an agent): for tests and recording.
func (h *Host) AgentFrame(iface string) []byte {
	if p := h.ports[iface]; p != nil && p.agent != nil {
		return p.agent.Frame()
	}
	return nil
}

// UndoUsed reports whether the one level of undo on iface was used: an
// apply was made and undone, and nothing was applied since.
func (h *Host) UndoUsed(iface string) bool {
	p := h.ports[iface]
	return p != nil && p.undo == nil && p.undone
}

// Undo returns the local state an undo on iface restores, and whether
// there is one.
func (h *Host) Undo(iface string) (engine.LocalState, bool) {
	p := h.ports[iface]
	if p == nil || p.undo == nil {
		return engine.LocalState{}, false
	}
	return engine.LocalState{Willing: p.undo.Willing, Params: p.undo.Params.Clone()}, true
}

// Saved records the state before a write that did not go through dcbtop's
// agent (the kernel's, through DCB netlink), for the next undo: one
// level, shared with the agent's path.
func (h *Host) Saved(iface string, before engine.LocalState) {
	p := h.port(iface)
	p.undo, p.undone = &engine.LocalState{Willing: before.Willing, Params: before.Params.Clone()}, false
}

// Undone forgets iface's undo state (an undo through the kernel
// succeeded).
func (h *Host) Undone(iface string) {
	if p := h.ports[iface]; p != nil {
		p.undo, p.undone = nil, true
	}
}

// ErrNoAgent answers an apply or undo for dcbtop's agent on an interface
// where it does not run.
var ErrNoAgent = errors.New("no dcbtop agent on this interface")

// errNotCaptured is the answer for an interface the engine does not know.
func errNotCaptured(iface string) error { return fmt.Errorf("%s is not captured", iface) }

// Transmitting names the LLDP agents of agents that transmit ("lldpd
// (pid 42)"): a receive-only one (lldpd -r) advertises nothing, so
// dcbtop's agent may run beside it.
func Transmitting(agents []engine.HostAgent) []string {
	var out []string
	for _, a := range agents {
		if a.Transmits {
			out = append(out, a.String())
		}
	}
	return out
}
