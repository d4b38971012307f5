// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"bytes"
	"slices"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// maxLocalAgents bounds the local chassis IDs remembered per interface.
const maxLocalAgents = 8

// A LocalSource says where an interface's local parameters come from.
type LocalSource string

// Local sources. When several provide parameters, the most authoritative
// is in force: dcbtop's own agent (it transmits what it is given), then
// the kernel's DCB settings (dcbnl: what the NIC applies), then what
// another agent of this host was seen advertising (observed).
const (
	SourceNone     LocalSource = "none"
	SourceAgent    LocalSource = "agent"
	SourceDCBNL    LocalSource = "dcbnl"
	SourceObserved LocalSource = "observed"
)

// Describe says in words where local parameters come from.
func (s LocalSource) Describe() string {
	switch s {
	case SourceAgent:
		return "dcbtop's agent"
	case SourceDCBNL:
		return "the driver (dcbnl)"
	case SourceObserved:
		return "another LLDP agent of this host (its LLDPDUs)"
	}
	return "nowhere (no local agent)"
}

// localPrecedence orders the sources, most authoritative first.
var localPrecedence = [...]LocalSource{SourceAgent, SourceDCBNL, SourceObserved}

// A localState is what one local source provides.
type localState struct {
	set     bool
	willing bool
	params  *dcb.Params
}

// sourceChanged records what source provides now and puts the most
// authoritative source's state in force.
func (e *Engine) sourceChanged(p *port, source LocalSource, st localState) {
	for i, s := range localPrecedence {
		if s == source {
			p.sources[i] = st
		}
	}
	for i, s := range localPrecedence {
		if st := p.sources[i]; st.set {
			e.setLocal(p, s, st.willing, st.params)
			return
		}
	}
	e.setLocal(p, "", false, nil)
}

// setLocal replaces the local parameters and Willing state; a change issues
// a QOS_LOCAL_PARAMETERS_CHANGE indication (WILLING flag set when willing)
// and re-resolves the operational parameters.
func (e *Engine) setLocal(p *port, source LocalSource, willing bool, params *dcb.Params) {
	d := p.local.Diff(params)
	if d == 0 && p.willing == willing && p.localSource == source && (p.local == nil) == (params == nil) {
		return
	}
	p.localSource, p.willing, p.local = source, willing, params.Clone()
	f := configured(params.Configured()) | changed(d)
	if willing {
		f |= FlagWilling
	}
	e.emit(p, StatusLocal, ReasonLocalChange, f, params, nil)
	e.resolveOperational(p, ReasonLocalChange)
}

// outgoing handles an LLDPDU this host transmitted: the observed local
// advertisement of whatever agent runs here (lldpad, lldpd, NIC firmware
// passing frames, another dcbtop). It becomes the local parameters unless
// a better source (dcbnl, dcbtop's agent) provides them.
func (e *Engine) outgoing(p *port, hdr lldp.EthernetHeader, chassis, portID, pdu []byte) {
	// Agents are told apart by MSAP: lldpd and dcbtop both use the port MAC
	// as chassis ID but differ in port ID.
	var a *localAgent
	ai := -1
	for i, x := range p.agents {
		if bytes.Equal(x.chassis, chassis) && bytes.Equal(x.portID, portID) {
			a, ai = x, i
			break
		}
	}
	e.agentSeen = e.now
	if a != nil && a.dst == hdr.Dst && bytes.Equal(a.raw, pdu) {
		a.lastSeen = e.now
		a.frames++
		return
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		e.malformed(p, err)
		return
	}
	switch {
	case du.Shutdown():
		// The agent withdrew: it no longer counts as transmitting here.
		if a != nil {
			p.agents = slices.Delete(p.agents, ai, ai+1)
		}
	default:
		if a == nil {
			if len(p.agents) >= maxLocalAgents {
				p.agents = slices.Delete(p.agents, 0, 1)
			}
			a = &localAgent{chassis: slices.Clone(chassis), portID: slices.Clone(portID)}
			p.agents = append(p.agents, a)
		}
		a.raw, a.src, a.dst, a.lastSeen = append(a.raw[:0], pdu...), hdr.Src, hdr.Dst, e.now
		a.frames++
		a.dialect = lldp.DialectNone
		if hdr.Dst == lldp.NearestBridge {
			a.dialect = du.Dialect()
		}
	}
	if p.mac == nil {
		mac := hdr.Src
		p.mac = &mac
	}
	if du.Shutdown() {
		e.sourceChanged(p, SourceObserved, localState{})
		return
	}
	params := dcb.ParamsFromDU(du)
	if params == nil || hdr.Dst != lldp.NearestBridge {
		return
	}
	e.sourceChanged(p, SourceObserved, localState{set: true, willing: params.Willing(), params: params})
}

// resolveOperational recomputes the operational parameters; a change
// issues one QOS_OPERATIONAL_PARAMETERS_CHANGE with *_CONFIGURED for each
// group in force and *_CHANGED for each group that changed.
func (e *Engine) resolveOperational(p *port, cause Reason) {
	in := dcb.ResolveInput{Local: p.local, Willing: p.willing, LocalMAC: p.mac, Remote: p.remote}
	if p.remoteFrom != nil {
		in.RemoteMAC, in.Dialect = p.remoteFrom.src, p.remoteFrom.du.Dialect()
		if _, sends, ok := p.unanswered(e.now); ok {
			in.Unanswered = "this host's agent sends " + sends + " only"
		}
		if p.localSource == SourceAgent && p.agentDialect() == lldp.DialectCEE {
			in.CEEWaiting = p.agentDCBX.Control.waiting()
		}
	}
	op, r := dcb.Resolve(in)
	p.resolution = r
	d := p.operational.Diff(op)
	if d == 0 && (p.operational == nil) == (op == nil) {
		return
	}
	p.operational = op
	f := configured(op.Configured()) | changed(d)
	if p.willing {
		f |= FlagWilling
	}
	e.emit(p, StatusOperational, cause, f, op, nil)
}

// msap renders the agent's chassis and port IDs.
func (a *localAgent) msap() (chassis, port string) {
	return lldp.ChassisID{Subtype: lldp.ChassisIDSubtype(a.chassis[0]), ID: a.chassis[1:]}.String(),
		lldp.PortID{Subtype: lldp.PortIDSubtype(a.portID[0]), ID: a.portID[1:]}.String()
}

// PreviewOperational returns the operational parameters and their
// resolution that in would have with the given local Willing state and
// local parameters (nil: the current ones), all else unchanged: the local
// parameters with their Willing bits set to willing, as an apply sets them
// (the agent's dcb.Params.WithWilling, the kernel's read-back). It is pure
// and works on a Snapshot's Interface, so the screen shows what a change
// would do before it is made without asking anyone.
func PreviewOperational(in Interface, willing bool, local *dcb.Params) (*dcb.Params, dcb.Resolution) {
	if local == nil {
		local = in.Local
	}
	if local != nil {
		local = local.WithWilling(willing)
	}
	ri := dcb.ResolveInput{Local: local, Willing: willing, Remote: in.Remote, Dialect: in.Dialect}
	if a := in.AgentDCBX; a != nil && a.Dialect == lldp.DialectCEE && in.LocalSource == SourceAgent {
		ri.CEEWaiting = a.Control.waiting()
	}
	if in.MAC != nil {
		m := *in.MAC
		ri.LocalMAC = &m
	}
	if p := in.PeerInForce(); in.RemoteValid && p != nil {
		ri.RemoteMAC = p.SourceMAC
	} else if !in.RemoteValid || in.RemotePeer == nil {
		ri.Remote = nil
	}
	return dcb.Resolve(ri)
}
