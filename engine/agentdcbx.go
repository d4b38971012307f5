// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// An AgentDCBX reports which DCBX dialect dcbtop's agent on Interface
// speaks and, for CEE, where its control handshake stands (engine/host
// runs the agent's engine/cee control state machine and chooses the
// dialect as lldpad does: docs/dcbx.md, "The CEE control handshake").
// The engine takes it into the resolution: a CEE peer's configuration of
// a feature is adopted only once the peer acknowledged the sequence
// number the agent announced that feature with (CEE DCBX 1.01, Control
// sub-TLV; lldpad run_feature_protocol "Wait for Peer to synch"). A
// LocalChanged withdrawing the agent forgets it.
type AgentDCBX struct {
	Interface string
	At        time.Time
	State     AgentDCBXState
}

func (AgentDCBX) isEvent() {}

// AgentDCBXState is what dcbtop's agent speaks on an interface: the
// snapshot's "agent_dcbx" object.
type AgentDCBXState struct {
	// Dialect is lldp.DialectIEEE or lldp.DialectCEE.
	Dialect lldp.Dialect `json:"dialect"`
	// Why says in words why the agent speaks Dialect ("the peer speaks
	// only CEE DCBX (1.01)").
	Why string `json:"why"`
	// Control is the CEE Control sub-TLV the agent sends (its SeqNo and
	// the peer's SeqNo it acknowledges); null while it speaks IEEE.
	Control *AgentCEEControl `json:"cee_control"`
}

// AgentCEEControl is the CEE side of AgentDCBXState: the numbers the agent
// sends and, per feature, why the peer's configuration is not adopted
// ("" when the peer acknowledged the feature's sequence number).
type AgentCEEControl struct {
	Seq     uint32 `json:"seq"`
	Ack     uint32 `json:"ack"`
	PGWait  string `json:"pg_waiting"`
	PFCWait string `json:"pfc_waiting"`
	AppWait string `json:"app_waiting"`
	// PeerAck is the peer's AckNo: how far it acknowledged the agent.
	PeerAck uint32 `json:"peer_ack"`
}

// waiting returns the per-feature waits as dcb.ResolveInput takes them.
func (c *AgentCEEControl) waiting() dcb.CEEWaiting {
	if c == nil {
		return dcb.CEEWaiting{}
	}
	return dcb.CEEWaiting{PG: c.PGWait, PFC: c.PFCWait, App: c.AppWait}
}

// agentDialect returns the dialect dcbtop's agent speaks on p:
// lldp.DialectIEEE unless the host reported CEE.
func (p *port) agentDialect() lldp.Dialect {
	if p.agentDCBX != nil && p.agentDCBX.Dialect == lldp.DialectCEE {
		return lldp.DialectCEE
	}
	return lldp.DialectIEEE
}

// setAgentDCBX records what the agent speaks on p and reports whether it
// changed; the operational parameters are resolved again.
func (e *Engine) setAgentDCBX(p *port, st *AgentDCBXState) bool {
	if sameAgentDCBX(p.agentDCBX, st) {
		return false
	}
	if st != nil {
		c := *st
		if st.Control != nil {
			ctl := *st.Control
			c.Control = &ctl
		}
		st = &c
	}
	p.agentDCBX = st
	if p.localSource == SourceAgent {
		e.resolveOperational(p, ReasonCEEHandshake)
	}
	return true
}

func sameAgentDCBX(a, b *AgentDCBXState) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Dialect != b.Dialect || a.Why != b.Why || (a.Control == nil) != (b.Control == nil) {
		return false
	}
	return a.Control == nil || *a.Control == *b.Control
}

// PeerDCBX is what the peer in force on an interface sends of DCBX, as
// dcbtop's agent needs it to choose its dialect and run the CEE control
// handshake (engine/host).
type PeerDCBX struct {
	// Source is the peer's source MAC: a new one is a new peer.
	Source lldp.MAC
	// Dialect is what its last LLDPDU speaks (IEEE precedence:
	// lldp.DU.Dialect).
	Dialect lldp.Dialect
	// Control is the Control sub-TLV of its CEE DCBX TLV; nil when it
	// sends none (or no CEE TLV). It is the engine's: not to be changed.
	Control *lldp.CEEControl
	// Remote are its parameters, the engine's (never changed once made).
	Remote *dcb.Params
}

// PeerDCBX returns what the peer in force on iface sends of DCBX, and
// false when no single peer is in force (none, expired, shut down, or
// several DCBX peers: lldpad's TOO_MANY_NGHBRS, when its CEE machine
// acknowledges nothing). It does not allocate.
func (e *Engine) PeerDCBX(iface string) (PeerDCBX, bool) {
	p := e.ports[iface]
	if p == nil || p.remoteFrom == nil || p.remoteFrom.du == nil {
		return PeerDCBX{}, false
	}
	n := p.remoteFrom
	d := PeerDCBX{Source: n.src, Dialect: n.du.Dialect(), Remote: p.remote}
	if c := n.du.CEE(); c != nil {
		d.Control = c.Control
	}
	return d, true
}
