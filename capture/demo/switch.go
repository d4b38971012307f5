// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// SwitchConfig is a simulated switch's identity and initial configuration
// (what a start step gives).
type SwitchConfig struct {
	// Name names the switch in the scenario and in Events.
	Name string
	// ChassisMAC is the Chassis ID (subtype MAC address) and the source
	// MAC of its frames.
	ChassisMAC lldp.MAC
	// Port is the Port ID (subtype interface name), e.g. "swp1".
	Port string
	// SystemName and SystemDesc go into the System Name and System
	// Description TLVs.
	SystemName string
	SystemDesc string
	// TxInterval is the time between LLDPDUs (at least 1 s); the TTL
	// advertised is 4 x TxInterval + 1 s.
	TxInterval time.Duration
	// ReactDelay is how long the switch's control plane takes to act on a
	// received LLDPDU (0: at once).
	ReactDelay time.Duration
	// Willing is the switch's DCBX Willing state.
	Willing bool
	// Params are the switch's local parameters.
	Params *dcb.Params
}

func (c *SwitchConfig) clone() SwitchConfig {
	out := *c
	out.Params = c.Params.Clone()
	return out
}

// A Switch is one simulated DCBX switch port, a real DCBX peer: it
// transmits the LLDPDUs dcbtop's own agent code builds (Chassis ID = its
// MAC, Port ID = its port name, System Name and Description, the IEEE
// 802.1Qaz ETS Configuration, ETS Recommendation, PFC and Application
// Priority TLVs with its Willing bit), and it runs a dcbtop engine on the
// LLDPDUs it receives from the host, exactly as dcbtop's agent does: the
// ETS Configuration and PFC it advertises are its operational values, so
// a willing switch adopts the host's PFC when the host is not willing, or
// when both are and the switch has the lower MAC; it adopts the host's ETS
// recommendation and merges the host's APP entries.
//
// The caller owns the clock: every method takes the current time, which
// must not go backwards. A Switch is not safe for concurrent use.
type Switch struct {
	cfg     SwitchConfig // Params and Willing are the current local state
	observe func(Event)
	state   switchState
	eng     *engine.Engine // nil unless transmitting
	ag      *agent.Agent   // nil unless transmitting
	pending []received     // LLDPDUs waiting out ReactDelay
}

type received struct {
	due  time.Time
	data []byte
}

// NewSwitch returns a switch that sends its first LLDPDU at now, followed
// by fast transmissions. observe, if not nil, receives the switch's
// Events (what it hears from the host, what it adopts).
func NewSwitch(cfg SwitchConfig, now time.Time, observe func(Event)) (*Switch, error) {
	if cfg.Params == nil {
		return nil, fmt.Errorf("switch %s: no parameters", cfg.Name)
	}
	if err := cfg.Params.Errors(); err != nil {
		return nil, fmt.Errorf("switch %s: %w", cfg.Name, err)
	}
	cfg = cfg.clone()
	cfg.Params = cfg.Params.WithWilling(cfg.Willing)
	s := &Switch{cfg: cfg, observe: observe}
	if err := s.boot(now); err != nil {
		return nil, err
	}
	return s, nil
}

// boot starts the switch's LLDP agent and DCBX engine afresh (at start,
// and when its link comes back): it knows nothing of the host yet.
func (s *Switch) boot(now time.Time) error {
	port := s.cfg.Port
	s.eng = engine.New(engine.Config{MaxNeighbors: 16, LogSize: 64})
	s.eng.Apply(engine.LinkChanged{Interface: port, At: now, Ifindex: 1, MAC: s.cfg.ChassisMAC, Up: true})
	s.eng.Apply(engine.LocalChanged{Interface: port, At: now, Source: engine.SourceAgent, Willing: s.cfg.Willing, Params: s.cfg.Params})
	ag, err := agent.New(agent.Config{Ifname: port, MAC: s.cfg.ChassisMAC, SystemName: s.cfg.SystemName,
		SystemDesc: s.cfg.SystemDesc, TxInterval: s.cfg.TxInterval}, s.Advert(), now)
	if err != nil {
		s.eng = nil
		return fmt.Errorf("switch %s: %w", s.cfg.Name, err)
	}
	s.ag, s.state, s.pending = ag, stateOn, nil
	return nil
}

// Name returns the switch's name.
func (s *Switch) Name() string { return s.cfg.Name }

// Transmitting reports whether the switch is sending LLDPDUs (started,
// not silent, not shut down).
func (s *Switch) Transmitting() bool { return s.state == stateOn }

// PFC returns the priorities on which the switch runs PFC (its
// operational PFC, which a willing switch may have adopted from the host);
// none while it does not transmit.
func (s *Switch) PFC() dcb.PrioSet {
	if s.state != stateOn {
		return 0
	}
	p := s.cfg.Params
	if in, ok := s.eng.Interface(s.cfg.Port); ok && in.Operational != nil {
		p = in.Operational
	}
	if p == nil || p.PFC == nil {
		return 0
	}
	return p.PFC.Enabled
}

// MSAP returns the switch's MSAP as dcbtop names peers:
// "mac 02:dc:b0:00:00:01 / ifname swp1".
func (s *Switch) MSAP() string {
	return lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: s.cfg.ChassisMAC[:]}.String() + " / " +
		lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(s.cfg.Port)}.String()
}

// Advert returns what the switch advertises: its Willing state, its local
// parameters and its operational parameters (which its ETS Configuration
// and PFC TLVs carry).
func (s *Switch) Advert() agent.Advert {
	ad := agent.Advert{Willing: s.cfg.Willing, Local: s.cfg.Params.Clone(), Operational: s.cfg.Params.Clone()}
	if s.eng == nil {
		return ad
	}
	if in, ok := s.eng.Interface(s.cfg.Port); ok && in.Operational != nil {
		ad.Operational = in.Operational
	}
	return ad
}

// View returns the switch's own DCBX view of its port: the host as its
// peer, its remote, local and operational parameters and why. ok is false
// while the switch does not transmit (it then knows nothing).
func (s *Switch) View() (in engine.Interface, ok bool) {
	if s.eng == nil {
		return engine.Interface{}, false
	}
	return s.eng.Interface(s.cfg.Port)
}

// Receive hands the switch a frame heard on its link at time at. It is
// acted on after ReactDelay, at a later Poll. A switch that does not
// transmit (silent: its link is cut; shut down) hears nothing.
func (s *Switch) Receive(frame []byte, at time.Time) {
	if s.state != stateOn {
		return
	}
	s.pending = append(s.pending, received{due: at.Add(s.cfg.ReactDelay), data: bytes.Clone(frame)})
}

// Next returns when the switch next needs a Poll: its next transmission or
// the end of a received LLDPDU's ReactDelay. ok is false when it needs
// none (silent or shut down).
func (s *Switch) Next() (t time.Time, ok bool) {
	if s.state != stateOn {
		return time.Time{}, false
	}
	t = s.ag.Next()
	if len(s.pending) > 0 && s.pending[0].due.Before(t) {
		t = s.pending[0].due
	}
	return t, true
}

// Poll brings the switch to now: it acts on the received LLDPDUs whose
// ReactDelay has passed, ages out what it knows of the host, and returns
// the frame to transmit, if one is due.
func (s *Switch) Poll(now time.Time) ([]byte, bool) {
	if s.state != stateOn {
		return nil, false
	}
	for len(s.pending) > 0 && !s.pending[0].due.After(now) {
		r := s.pending[0]
		s.pending = s.pending[1:]
		s.apply(engine.FrameReceived{Interface: s.cfg.Port, At: r.due, Data: r.data}, r.due)
	}
	s.apply(engine.Tick{At: now}, now)
	return s.ag.Due(now)
}

// apply feeds the switch's engine and keeps its advertisement in step with
// its operational parameters.
func (s *Switch) apply(ev engine.Event, at time.Time) {
	o := s.eng.Step(ev)
	if len(o.NewPeers) > 0 {
		// A new neighbour: announce ourselves at once (IEEE Std
		// 802.1AB-2016, 9.2.7.7.1 newNeighbor).
		s.ag.PeerAppeared(at)
	}
	for _, in := range o.Indications {
		switch in.Status {
		case engine.StatusRemote:
			s.emit(in.Time, EventPeer, s.heard(in))
		case engine.StatusOperational:
			if in.Reason != engine.ReasonLocalChange {
				s.emit(in.Time, EventOperational, s.adopted(in))
			}
		}
	}
	if len(o.Advertise) > 0 {
		// Set builds the frame before any state changes, and the
		// advertisement was accepted at start: it cannot fail here.
		_ = s.ag.Set(s.Advert(), at)
	}
}

// Set changes the switch's local parameters (the features change gives;
// nil: none) and, when willing is not nil, its Willing state. A switch
// that transmits re-resolves its operational parameters and, when its
// LLDPDU changes, starts fast transmission.
func (s *Switch) Set(change *dcb.Params, willing *bool, now time.Time) error {
	w := s.cfg.Willing
	if willing != nil {
		w = *willing
	}
	p := s.cfg.Params.Merge(change).WithWilling(w)
	if err := p.Errors(); err != nil {
		return fmt.Errorf("switch %s: %w", s.cfg.Name, err)
	}
	s.cfg.Params, s.cfg.Willing = p, w
	if s.state == stateOn {
		s.apply(engine.LocalChanged{Interface: s.cfg.Port, At: now, Source: engine.SourceAgent, Willing: w, Params: p}, now)
	}
	return nil
}

// Silence stops the switch's transmissions without a shutdown LLDPDU, as
// a cut link does; the switch stops hearing the host and forgets it.
func (s *Switch) Silence(now time.Time) {
	if s.state != stateOn {
		return
	}
	s.state, s.eng, s.ag, s.pending = stateSilent, nil, nil, nil
	s.emit(now, EventPeer, s.cfg.Name+": link down, stops transmitting and forgets the host")
}

// Resume ends a silence: the switch's agent starts afresh, with a first
// LLDPDU at now and fast transmission.
func (s *Switch) Resume(now time.Time) error {
	if s.state != stateSilent {
		return fmt.Errorf("switch %s: resume: it is %s, not silent", s.cfg.Name, s.state)
	}
	return s.boot(now)
}

// Shutdown stops the switch's LLDP agent and returns the shutdown LLDPDU
// (TTL 0) to send; nil when the switch was not transmitting (a silent
// switch's frame would not reach the host).
func (s *Switch) Shutdown(now time.Time) []byte {
	var f []byte
	if s.state == stateOn {
		f = s.ag.Shutdown()
	}
	if s.state != stateAbsent {
		s.emit(now, EventPeer, s.cfg.Name+": LLDP agent shut down")
	}
	s.state, s.eng, s.ag, s.pending = stateAbsent, nil, nil, nil
	return f
}

func (s *Switch) emit(at time.Time, kind EventKind, text string) {
	if s.observe != nil {
		s.observe(Event{At: at, Switch: s.cfg.Name, Kind: kind, Text: text})
	}
}

// heard describes a remote indication of the switch's engine: what the
// switch learnt about the host.
func (s *Switch) heard(in engine.Indication) string {
	who := in.Peer
	if who == "" {
		who = "the host"
	}
	switch in.Reason {
	case engine.ReasonFirstReceipt:
		return fmt.Sprintf("%s hears %s: %s", s.cfg.Name, who, in.Params.String())
	case engine.ReasonChanged:
		return fmt.Sprintf("%s: %s changed %s: %s", s.cfg.Name, who, groupNames(in.Flags), in.Params.String())
	case engine.ReasonTTLExpired:
		return fmt.Sprintf("%s: what %s advertised has expired", s.cfg.Name, who)
	case engine.ReasonShutdown:
		return fmt.Sprintf("%s: %s shut its LLDP agent down", s.cfg.Name, who)
	case engine.ReasonMultiPeer:
		return fmt.Sprintf("%s: more than one DCBX peer on %s", s.cfg.Name, s.cfg.Port)
	case engine.ReasonLinkDown:
		return fmt.Sprintf("%s: %s went down, what %s advertised is discarded", s.cfg.Name, s.cfg.Port, who)
	}
	return fmt.Sprintf("%s: %s %s", s.cfg.Name, in.Reason, who)
}

// adopted describes an operational change of the switch.
func (s *Switch) adopted(in engine.Indication) string {
	msg := fmt.Sprintf("%s now runs %s", s.cfg.Name, in.Params.String())
	if v, ok := s.View(); ok {
		msg += fmt.Sprintf(" (ETS: %s; PFC: %s; APP: %s)", v.Resolution.ETS.Why, v.Resolution.PFC.Why, v.Resolution.App.Why)
	}
	return msg
}

// groupNames names the groups of a flag set's *_CHANGED flags.
func groupNames(f engine.Flags) string {
	var out []string
	for _, g := range []struct {
		f    engine.Flags
		name string
	}{{engine.FlagETSChanged, "ETS"}, {engine.FlagPFCChanged, "PFC"}, {engine.FlagClassificationChanged, "APP"}} {
		if f&g.f != 0 {
			out = append(out, g.name)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}
