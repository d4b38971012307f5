// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// SchemaVersion identifies the snapshot JSON contract.
//
// v2: "capture" holds the frame counts (v1's "counters"); "counters" is
// the lossless-Ethernet counters object.
const SchemaVersion = "dcbtop.snapshot/v2"

// A Snapshot is an immutable deep copy of the engine's state: the snapshot
// JSON contract (assets/snapshot.schema.json; docs/usage.md "Indications"). Slices are sorted, never maps, so the output
// is stable.
type Snapshot struct {
	Schema     string      `json:"schema"`
	TakenAt    time.Time   `json:"taken_at"`
	Generation uint64      `json:"generation"`
	Interfaces []Interface `json:"interfaces"`
	// Indications is the bounded recent log, oldest first.
	Indications []Indication `json:"indications"`
	// Diagnostics are the host-wide ones, which concern no single
	// interface (too-many-interfaces); empty when there are none.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

// An Interface is one interface's state in a Snapshot.
type Interface struct {
	Name    string    `json:"name"`
	Ifindex *int      `json:"ifindex"`
	MAC     *lldp.MAC `json:"mac"`
	// OperState is "up", "down", "removed" (the interface was deleted:
	// it stays listed, its peers age out) or "unknown".
	OperState string `json:"oper_state"`
	// MTU is the interface's MTU; null when not known (a replay of a
	// recording made before it was recorded, a capture file).
	MTU *int `json:"mtu"`
	// VLANs are the 802.1Q VLAN IDs of the VLAN interfaces on this one
	// (the VLANs this host uses here), sorted; [] when none, null when
	// not known.
	VLANs       []uint16    `json:"vlans"`
	LocalSource LocalSource `json:"local_source"`
	// LocalKept says where the local parameters were kept when dcbtop's
	// agent started from the state kept for the port (an operator's
	// earlier apply: capture/statedir), while they are in force; omitted
	// otherwise.
	LocalKept string `json:"local_kept,omitempty"`
	// AgentDCBX is the DCBX dialect dcbtop's agent speaks here and, for
	// CEE, its control handshake, while dcbtop's agent is the local
	// source; omitted otherwise.
	AgentDCBX *AgentDCBXState `json:"agent_dcbx,omitempty"`
	// DCBXMode is the NIC's DCBX mode in words (dcbnl GDCBX), null when
	// unknown.
	DCBXMode *string `json:"dcbx_mode"`
	// FirmwareManaged reports that the NIC's firmware runs DCBX
	// (LLD_MANAGED): nothing local may be written. Not part of the JSON
	// contract: the firmware-dcbx diagnostic says it there.
	FirmwareManaged bool        `json:"-"`
	Willing         *bool       `json:"willing"`
	Local           *dcb.Params `json:"local"`
	Remote          *dcb.Params `json:"remote"`
	Operational     *dcb.Params `json:"operational"`
	RemoteValid     bool        `json:"remote_valid"`
	// RemoteStatus says in one word what state the remote parameters are
	// in (RemoteState): no-peer, valid, no-dcbx (a peer without DCBX
	// TLVs), multi-peer, expired, shutdown, link-down or invalid.
	RemoteStatus RemoteState `json:"remote_state"`
	// RemoteInvalidReason is "ttl-expired", "shutdown", "multi-peer" or
	// "link-down" while the remote parameters are invalid after having
	// been received.
	RemoteInvalidReason *Reason `json:"remote_invalid_reason"`
	// RemotePeer names the MSAP the remote parameters come from.
	RemotePeer *string `json:"remote_peer"`
	// Resolution says, per feature, where the operational value came from
	// and why.
	Resolution dcb.Resolution `json:"resolution"`
	// LocalAgents lists the chassis IDs seen in this host's own outgoing
	// LLDPDUs (more than one is a dual-agent problem).
	LocalAgents []LocalAgent `json:"local_agents"`
	// HostAgents are the LLDP agent processes of this host's network
	// namespace at the last look (HostObserved; a dcbtop -w recording
	// carries them): [] when there are none, null when the host was
	// never looked at (a capture file).
	HostAgents []HostAgent `json:"host_agents"`
	// CaptureEnds, for a capture that does not say which frames this
	// host sent, says how its speakers were read: which end was taken as
	// this host and why, or that no evidence tells (ambiguous: both
	// readings) (engine.LocalEnds); null otherwise.
	CaptureEnds *CaptureEnds `json:"capture_ends"`
	Dialect     lldp.Dialect `json:"dialect"`
	MultiPeer   *MultiPeer   `json:"multi_peer"`
	Peers       []Peer       `json:"peers"`
	// LastPeer is the last peer the interface lost (expired, shut down,
	// link down), null when none was.
	LastPeer    *LostPeer         `json:"last_peer"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
	// Capture counts the frames dcbtop captured and sent.
	Capture CaptureCounters `json:"capture"`
	// Counters are the lossless-Ethernet counters (RDMA, PFC pauses,
	// congestion) as last sampled; null in replays and where nothing was
	// sampled.
	Counters *lossless.Counters `json:"counters"`
	// NIC says, per operational feature, whether the NIC holds what
	// dcbtop's agent negotiated (in-nic, differs, writing,
	// not-programmable); null unless dcbtop's agent is the local source.
	NIC *NICProgram `json:"nic"`
	// Caps says what may be changed here and why not, decided when the
	// snapshot was taken (Engine.Snapshot) from the host's last
	// HostObserved. Not part of the JSON contract.
	Caps Capabilities `json:"-"`
	// Checks are the verdicts of lossless readiness on the interface, one
	// per check (engine/check), decided once when the snapshot was taken
	// (Config.Judge): what the screen's diagnostics and badge, the
	// overview, /metrics and dcbtop check say. Null where nothing judges
	// (an engine without Judge).
	Checks []verdict.Result `json:"checks"`
}

// MultiPeer describes a multi-peer hold-down in force.
type MultiPeer struct {
	Since time.Time `json:"since"`
	// HoldDownMs is how long, at the latest, until every piece of DCBX
	// information received during the condition has expired (peers that
	// keep sending extend it).
	HoldDownMs int64 `json:"hold_down_ms"`
	// Peers lists the MSAPs whose information holds the condition.
	Peers []string `json:"peers"`
}

// A LostPeer is the last peer an interface lost, to expiry, a shutdown
// LLDPDU or its link going down: who it was, what it last sent, and when
// and why it went. The screen keeps naming it instead of "no peer".
type LostPeer struct {
	ChassisID  string       `json:"chassis_id"`
	PortID     string       `json:"port_id"`
	SystemName *string      `json:"system_name"`
	SourceMAC  lldp.MAC     `json:"source_mac"`
	DCBX       lldp.Dialect `json:"dcbx"`
	// Params are the DCBX parameters it last sent, null without DCBX.
	Params   *dcb.Params `json:"params"`
	LastSeen time.Time   `json:"last_seen"`
	GoneAt   time.Time   `json:"gone_at"`
	// Reason is ttl-expired, shutdown or link-down.
	Reason Reason `json:"reason"`
	// LLDPDU is its last LLDPDU (the drill-down); not in the JSON.
	LLDPDU []byte `json:"-"`
}

// A Peer is one MSAP seen on an interface by one LLDP agent (an MSAP
// heard on two destination addresses is two peers).
type Peer struct {
	ChassisID string `json:"chassis_id"`
	PortID    string `json:"port_id"`
	// SystemName, SystemDescription and PortDescription are null when the
	// LLDPDU has no such TLV ("" when the TLV is there and empty).
	SystemName        *string  `json:"system_name"`
	SystemDescription *string  `json:"system_description"`
	PortDescription   *string  `json:"port_description"`
	SourceMAC         lldp.MAC `json:"source_mac"`
	Scope             Scope    `json:"scope"`
	// ScopeAssumed is true when the capture did not record the destination
	// address (a Linux cooked capture) and Scope is assumed from the
	// packet type.
	ScopeAssumed bool `json:"scope_assumed"`
	// VLAN is the 802.1Q tag the last LLDPDU arrived with; null untagged.
	VLAN *VLANTag `json:"vlan"`
	// DiscardedTLVs lists the optional TLVs of the last LLDPDU dropped for
	// errors (the rest of the LLDPDU was used).
	DiscardedTLVs []DiscardedTLV `json:"discarded_tlvs"`
	TTL           uint16         `json:"ttl_s"`
	ExpiresInMs   int64          `json:"expires_in_ms"`
	// TxIntervalMs is the interval the peer is expected to send at: what
	// its TTL implies (802.1AB: TTL = msgTxInterval × 4 + 1), or the gap
	// between its last two LLDPDUs where longer: what Freshness counts
	// missed LLDPDUs by (fast start's faster LLDPDUs do not shorten it).
	TxIntervalMs int64 `json:"tx_interval_ms"`
	// Freshness grades the peer at the snapshot's time (FreshnessAt
	// grades it later): fresh, late (two LLDPDUs missed), stale (three).
	Freshness Freshness    `json:"freshness"`
	FirstSeen time.Time    `json:"first_seen"`
	LastSeen  time.Time    `json:"last_seen"`
	Frames    uint64       `json:"frames"`
	DCBX      lldp.Dialect `json:"dcbx"`
	// Params are this peer's DCBX parameters as last received, shown for
	// every peer (only a single live peer's count as the remote set).
	Params *dcb.Params `json:"params"`
	// LLDPDU is the peer's last LLDPDU as received, for a screen's
	// drill-down (every TLV decoded); not part of the JSON contract.
	LLDPDU []byte `json:"-"`
}

// PeerInForce returns the peer the remote parameters come from (the single
// live DCBX peer), nil when none is.
func (in *Interface) PeerInForce() *Peer {
	if in.RemotePeer == nil {
		return nil
	}
	for i := range in.Peers {
		if in.Peers[i].MSAP() == *in.RemotePeer {
			return &in.Peers[i]
		}
	}
	return nil
}

// ShownPeer returns the peer a one-line summary of the interface names:
// the one in force, else the first heard, else nil.
func (in *Interface) ShownPeer() *Peer {
	if p := in.PeerInForce(); p != nil {
		return p
	}
	if len(in.Peers) > 0 {
		return &in.Peers[0]
	}
	return nil
}

// MSAP names the peer as Interface.RemotePeer, MultiPeer.Peers and
// Indication.Peer do: "chassis ID / port ID".
func (p *Peer) MSAP() string { return msapString(p.ChassisID, p.PortID) }

// A LocalAgent is an LLDP agent of this host seen transmitting.
type LocalAgent struct {
	ChassisID string    `json:"chassis_id"`
	PortID    string    `json:"port_id"`
	SourceMAC lldp.MAC  `json:"source_mac"`
	LastSeen  time.Time `json:"last_seen"`
	Frames    uint64    `json:"frames"`
}

// Snapshot returns the state at the engine's clock: a copy of what
// changes, sharing what nothing writes to (parameter sets, the log, a
// port's counters, a neighbour's text). A snapshot is read, never
// written. Like every method of the engine it belongs to the engine's
// goroutine: taking one keeps what later ones reuse (the log's copy, each
// port's judged checks).
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{Schema: SchemaVersion, TakenAt: e.now, Generation: e.gen,
		Interfaces: make([]Interface, 0, len(e.names)), Indications: e.Log(), Diagnostics: e.Diagnostics()}
	h := e.hostNow()
	for _, name := range e.portNames() {
		s.Interfaces = append(s.Interfaces, e.interfaceSnapshot(e.ports[name], h))
	}
	return s
}

// Log returns the indication log, oldest first. It is shared with the
// snapshots taken since the last indication and must not be written to;
// each indication's parameters are the engine's own copy (emit), which
// nothing changes, so they are not copied again for every snapshot.
func (e *Engine) Log() []Indication {
	if e.logged == nil {
		out := make([]Indication, 0, len(e.log))
		out = append(out, e.log[e.head:]...)
		e.logged = append(out, e.log[:e.head]...)
	}
	return e.logged
}

func (p *port) snapshot(now time.Time) Interface {
	in := Interface{Name: p.name, OperState: "unknown", LocalSource: SourceNone,
		Remote: p.remote, RemoteValid: p.remoteFrom != nil,
		Peers: []Peer{}, Diagnostics: p.diagnostics(now), Capture: p.counters, Counters: p.lossless.Snapshot(),
		Local: p.local, Operational: p.operational, Resolution: p.resolution,
		LocalAgents: []LocalAgent{}, MTU: p.mtu, VLANs: p.vlans}
	if in.Resolution == (dcb.Resolution{}) {
		// Nothing has been resolved yet: say why.
		_, in.Resolution = dcb.Resolve(dcb.ResolveInput{Local: p.local, Willing: p.willing})
	}
	if p.ifindex != nil {
		idx := *p.ifindex
		in.Ifindex = &idx
	}
	if p.mac != nil {
		m := *p.mac
		in.MAC = &m
	}
	if p.operState != "" {
		in.OperState = p.operState
	}
	if p.dcbxMode != "" {
		m := p.dcbxMode
		in.DCBXMode = &m
	}
	in.FirmwareManaged = p.firmware
	in.CaptureEnds = p.ends
	if p.localSource != "" {
		in.LocalSource = p.localSource
		w := p.willing
		in.Willing = &w
	}
	if p.localSource == SourceAgent {
		in.LocalKept = p.agentKept
		if a := p.agentDCBX; a != nil {
			c := *a
			if a.Control != nil {
				ctl := *a.Control
				c.Control = &ctl
			}
			in.AgentDCBX = &c
		}
	}
	for _, a := range p.agents {
		c, pid := a.msap()
		in.LocalAgents = append(in.LocalAgents, LocalAgent{ChassisID: c, PortID: pid, SourceMAC: a.src, LastSeen: a.lastSeen, Frames: a.frames})
	}
	if p.invalid != "" && p.remoteFrom == nil {
		r := p.invalid
		in.RemoteInvalidReason = &r
	}
	if p.remoteFrom != nil {
		name := msapName(p.remoteFrom)
		in.RemotePeer = &name
		in.Dialect = p.remoteFrom.du.Dialect()
	}
	if p.multi {
		mp := &MultiPeer{Since: p.multiSince, Peers: []string{}}
		for _, n := range p.neighbors {
			if n.taintUntil.After(now) {
				mp.Peers = append(mp.Peers, msapName(n))
				if ms := n.taintUntil.Sub(now).Milliseconds(); ms > mp.HoldDownMs {
					mp.HoldDownMs = ms
				}
			}
		}
		in.MultiPeer = mp
	}
	for _, n := range p.neighbors {
		in.Peers = append(in.Peers, n.peer(now))
	}
	if p.lost != nil {
		lp := p.lost.peer(now)
		in.LastPeer = &LostPeer{ChassisID: lp.ChassisID, PortID: lp.PortID, SystemName: lp.SystemName, SourceMAC: lp.SourceMAC,
			DCBX: lp.DCBX, Params: lp.Params, LastSeen: lp.LastSeen, GoneAt: p.lostAt, Reason: p.lostWhy, LLDPDU: lp.LLDPDU}
	}
	if in.Counters != nil && in.Counters.RoCEPaths == nil {
		in.Counters.RoCEPaths = lossless.Paths(in.LosslessPort(), in.Counters, in.Diagnostics)
	}
	in.RemoteStatus = in.RemoteState()
	return in
}

// textTLV returns the value of du's first text TLV of kind k, nil when
// there is none.
// peer is the neighbour as the snapshot shows it at now.
func (n *neighbor) peer(now time.Time) Peer {
	du := n.du
	var vlan *VLANTag
	if n.vlan != nil {
		v := *n.vlan
		vlan = &v
	}
	// The strings, the text TLVs and the LLDPDU are shared with the
	// neighbour (setDU made them; nothing writes to them).
	return Peer{
		ChassisID: n.chassisStr, PortID: n.portIDStr,
		SystemName: n.sysName, SystemDescription: n.sysDesc,
		PortDescription: n.portDesc, SourceMAC: n.src, Scope: n.scope,
		ScopeAssumed: n.scopeAssumed, VLAN: vlan, DiscardedTLVs: discardedTLVs(du),
		TTL: du.TTL, ExpiresInMs: n.expires.Sub(now).Milliseconds(),
		TxIntervalMs: n.interval().Milliseconds(), Freshness: freshnessOf(now.Sub(n.lastSeen), n.interval()),
		FirstSeen: n.firstSeen, LastSeen: n.lastSeen, Frames: n.frames,
		DCBX: du.Dialect(), Params: n.params, LLDPDU: n.raw,
	}
}

func textTLV(du *lldp.DU, k lldp.TLVType) *string {
	for _, t := range du.TLVs {
		if x, ok := t.(*lldp.Text); ok && x.Kind == k {
			v := x.Value
			return &v
		}
	}
	return nil
}

// A DiscardedTLV is an optional TLV of a peer's last LLDPDU that was
// dropped for an error in it (IEEE Std 802.1AB-2016, 9.2.7.7.2).
type DiscardedTLV struct {
	Offset int    `json:"offset"` // of the TLV header in the LLDPDU
	TLV    string `json:"tlv"`    // "PFC", "Org 00-80-c2/11", "System Capabilities"
	Error  string `json:"error"`
}

// discardedTLVs describes du's discarded TLVs; an empty list when none.
func discardedTLVs(du *lldp.DU) []DiscardedTLV {
	out := make([]DiscardedTLV, 0, len(du.Discarded))
	for _, d := range du.Discarded {
		out = append(out, DiscardedTLV{Offset: d.Offset, TLV: discardedName(d), Error: discardedError(d)})
	}
	return out
}

// hostNow is what the engine was last told of the host (HostObserved), as
// Capabilities takes it: the transmitting agents by name.
func (e *Engine) hostNow() HostFacts {
	h := HostFacts{Replay: e.cfg.Replay, NetAdmin: e.host.NetAdmin, Now: e.now}
	for _, a := range e.host.Agents {
		if a.Transmits {
			h.OtherAgents = append(h.OtherAgents, a.String())
		}
	}
	return h
}

// interfaceSnapshot is p's snapshot with its capabilities decided from the
// host h: once per snapshot, so that every reader of the snapshot sees the
// same, current answer.
func (e *Engine) interfaceSnapshot(p *port, h HostFacts) Interface {
	in := p.snapshot(e.now)
	if e.hostObserved {
		in.HostAgents = e.host.Agents
		if in.HostAgents == nil {
			in.HostAgents = []HostAgent{}
		}
	}
	in.Caps = in.Capabilities(h)
	if in.NIC = p.nicProgram(h); in.NIC != nil {
		if d, ok := nicDiagnostic(&in); ok {
			in.Diagnostics = append(in.Diagnostics, d)
		}
	}
	if !e.cfg.Replay {
		if e.cfg.NameFixes != nil {
			in.Diagnostics = e.cfg.NameFixes(in)
		}
	} else if e.hostObserved {
		in.Diagnostics = recordingAdvice(in.Diagnostics)
	}
	if e.cfg.Judge != nil {
		in.Checks = p.judged.checks(&in, p, e.hostSeq, func() []verdict.Result { return e.cfg.Judge(&in, e.cfg.Replay) })
	}
	return in
}

// Interface returns the snapshot of one interface, and false when the
// engine has not seen it.
func (e *Engine) Interface(name string) (Interface, bool) {
	p, ok := e.ports[name]
	if !ok {
		return Interface{}, false
	}
	return e.interfaceSnapshot(p, e.hostNow()), true
}

// NeighborCount returns the number of MSAPs live on an interface.
func (e *Engine) NeighborCount(name string) int {
	if p, ok := e.ports[name]; ok {
		return len(p.neighbors)
	}
	return 0
}

// Diagnostic returns the interface's first diagnostic of code, and
// whether it has one.
func (in *Interface) Diagnostic(code diag.Code) (diag.Diagnostic, bool) {
	for _, d := range in.Diagnostics {
		if d.Code == code {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// LosslessPort is what the lossless evaluation (the RoCE path) reads of
// the interface.
func (in *Interface) LosslessPort() lossless.Port {
	return lossless.Port{Name: in.Name, Local: in.Local, Operational: in.Operational, Remote: in.Remote,
		RemoteValid: in.RemoteValid, Resolution: in.Resolution, KernelTable: in.LocalSource == SourceDCBNL}
}

// RoCEPorts returns in's RDMA ports (the last counters sample's), none
// when unknown.
func (in *Interface) RoCEPorts() []lossless.RoCEPortSample {
	if in.Counters == nil {
		return nil
	}
	return in.Counters.RoCE
}
