// SPDX-License-Identifier: Apache-2.0

// Package engine is dcbtop's deterministic DCBX state machine. It consumes
// events (captured frames, ticks, local parameters, links, counter
// samples), keeps per-interface neighbour tables and the remote, local and
// operational parameters, issues NDIS-style indications and produces
// immutable snapshots. It performs no I/O, starts no goroutines and never
// reads the clock: time enters only through events, so every rule is
// testable from tables of timestamped events.
//
// What it decides from its per-port state lives here: the neighbour table
// and its expiries, the NDIS indications, local sources, the DCBX
// diagnostics, the capabilities of each port, the writes an operator may
// make, and the snapshot. The vocabularies it decides with are packages of
// their own below it: engine/lldp (the codec), engine/dcb (the parameters
// and the Willing resolver), engine/diag (the diagnostic catalogue) and
// engine/lossless (counter samples, their diagnostics and the RoCE path,
// handed a Port by the engine). What reads only the snapshot lives above
// it: engine/check (the verdicts of `dcbtop check`), engine/metrics
// (Prometheus, the fleet digest) and engine/host.
package engine

import (
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// Defaults of Config.
const (
	DefaultMaxNeighbors = 64
	DefaultLogSize      = 1000
)

// Config bounds the engine's memory.
type Config struct {
	// MaxNeighbors bounds the MSAPs kept per interface; when a new one
	// arrives at the bound, the least recently seen one (never the source of
	// the valid remote parameters) is evicted and a diagnostic raised.
	MaxNeighbors int
	// LogSize bounds the indication log carried in snapshots.
	LogSize int
	// NeighborEvents adds LLDP neighbour events (StatusNeighbor) to the
	// indications and the log: a peer appeared, left, was evicted, a
	// multi-peer hold-down started or ended.
	NeighborEvents bool
	// Replay says the events come from a capture file: advice that needs
	// the live host (local-unknown's) says what a capture can carry.
	Replay bool
	// MaxInterfaces bounds the interfaces kept (DefaultMaxInterfaces when
	// zero); events for others are counted and reported once as the
	// host-wide too-many-interfaces diagnostic, never applied.
	MaxInterfaces int
	// Judge is the lossless-readiness evaluation (engine/check.Judge, a
	// pure function of an interface's snapshot), run once for each
	// interface of each snapshot: Interface.Checks, which the screen,
	// --json, /metrics and dcbtop check all read, so that no surface can
	// say what another does not. Nil leaves Checks nil (the engine's own
	// tests).
	Judge func(in *Interface, replay bool) []verdict.Result
	// NameFixes returns an interface's diagnostics with the screen's fix
	// named in the action of each that has one (engine/qos.NameFixes), in
	// a live run's snapshots; nil names none (the engine's own tests).
	NameFixes func(in Interface) []diag.Diagnostic
}

// An Engine is the state machine. Its methods must not be called
// concurrently; Snapshot results may be shared freely.
type Engine struct {
	cfg   Config
	now   time.Time
	ports map[string]*port
	names []string // port names, sorted when sorted is true
	// sorted says names is in order; a new port appends and clears it,
	// so that adding ports costs no insertion each.
	sorted bool
	// sched orders the ports with a deadline by their next one.
	sched schedule
	// ignored counts the interfaces past cfg.MaxInterfaces.
	ignored ignoredInterfaces
	// agentSeen is when any port last saw a local agent transmit (for
	// TimeSensitive).
	agentSeen time.Time
	// host is the latest HostObserved: what capabilities are decided from;
	// hostObserved reports that one came (a capture file has none).
	host         HostObserved
	hostObserved bool
	// hostSeq counts the changes of what HostObserved says (judgeKey).
	hostSeq uint64
	log     []Indication
	head    int // index of the oldest entry once the log is full
	// logged is the log oldest first as Log last returned it; nil once
	// an indication is added. Snapshots share it: nothing writes to it.
	logged []Indication
	gen    uint64
	// dirty: the clock alone changed what a snapshot shows (a lost peer
	// became long gone); the next Outcome says Changed.
	dirty bool
	out   []Indication // indications of the event being applied
	// newPeers and advertise build the Outcome of the event being applied.
	newPeers, advertise []string
}

// New returns an Engine with cfg's zero fields set to their defaults.
func New(cfg Config) *Engine {
	if cfg.MaxNeighbors <= 0 {
		cfg.MaxNeighbors = DefaultMaxNeighbors
	}
	if cfg.LogSize <= 0 {
		cfg.LogSize = DefaultLogSize
	}
	if cfg.MaxInterfaces <= 0 {
		cfg.MaxInterfaces = DefaultMaxInterfaces
	}
	return &Engine{cfg: cfg, ports: map[string]*port{}, sorted: true}
}

// A neighbor is one MSAP's information as one LLDP agent holds it (IEEE
// Std 802.1AB-2016, 9.2.7.7). An agent exists per destination address
// (7.1, Table 7-1), so the same MSAP heard on two destination addresses
// is two neighbours: the key is destination, chassis ID and port ID.
type neighbor struct {
	dst             lldp.MAC // the destination address: which agent holds it
	chassis, portID []byte   // TLV information strings, subtype included
	du              *lldp.DU
	// raw is the LLDPDU as received, for the identical-frame check;
	// replaced, never written to, so that snapshots share it.
	raw []byte
	// What snapshots show of du, made once per new LLDPDU (setDU) rather
	// than at every snapshot: with 64 peers a snapshot a second, their
	// formatting was a sixth of the screen's CPU.
	chassisStr, portIDStr, msap string
	sysName, sysDesc, portDesc  *string
	src                         lldp.MAC
	scope                       Scope
	scopeAssumed                bool        // the capture did not record the destination
	vlan                        *VLANTag    // the 802.1Q tag the last LLDPDU arrived with
	maxFrame                    uint16      // the Maximum Frame Size TLV's, 0 when du has none
	vlanNames                   []uint16    // the VLAN IDs of du's VLAN Name TLVs (nil: none)
	params                      *dcb.Params // DCBX parameters of du; nil when du has none or scope is not nearest-bridge
	firstSeen                   time.Time
	lastSeen                    time.Time
	// prevSeen is when the LLDPDU before the last arrived (zero after
	// one): the gap between them is the peer's transmit interval.
	prevSeen time.Time
	expires  time.Time
	frames   uint64
	// taintUntil is when the last LLDPDU this MSAP sent while two or more
	// DCBX MSAPs were live expires: the multi-peer hold-down lasts until
	// every neighbour's taintUntil has passed.
	taintUntil time.Time
}

func (n *neighbor) dcbx() bool { return n.params != nil }

// A port is the state of one interface.
type port struct {
	name string
	// judged is the last evaluation of the port's checks and what it read
	// (judgeMemo): the next snapshot that reads the same reuses it.
	judged judgeMemo
	// lost is the last neighbour the port lost to expiry, shutdown or its
	// link going down; lostAt and lostWhy when and why.
	lost    *neighbor
	lostAt  time.Time
	lostWhy Reason
	// lostLong is when the lost DCBX peer has been gone long enough for
	// peer-lost to become an error (zero when no such deadline is
	// pending): a deadline of the schedule, so that the change shows.
	lostLong time.Time
	// due is the next deadline while the port is in the schedule, at
	// index slot (-1 when it is not).
	due       time.Time
	slot      int
	neighbors []*neighbor
	// remote is valid when remoteFrom is set: the parameters of the single
	// live DCBX peer, as last indicated.
	remote     *dcb.Params
	remoteFrom *neighbor
	invalid    Reason // why the remote parameters are invalid, "" when never received
	multi      bool   // multi-peer hold-down in force
	multiSince time.Time
	counters   CaptureCounters
	lossless   *lossless.State // nil until counters are sampled
	replay     bool            // the events come from a capture file (Config.Replay)
	lastBad    string          // the last malformed LLDPDU's error
	lastBadAt  time.Time
	// tooManyUntil is when the tooManyNeighbors condition ends (IEEE Std
	// 802.1AB-2016, 9.2.5.22 tooManyNeighborsTimer): every eviction
	// extends it to at least the TTL of the LLDPDU that found the table
	// full.
	tooManyUntil time.Time
	lastNote     string // the last odd capture record's note

	ifindex    *int
	mac        *lldp.MAC // the interface's own MAC, for the PFC tie-break
	operState  string    // "up", "down", "removed" or "" (unknown)
	mtu        *int      // the interface's MTU, nil when not known; replaced, never written to (snapshots share it)
	vlans      []uint16  // the VLANs of the VLAN interfaces on it (LinkChanged.VLANs); nil when not known; replaced, never written to
	captureErr string    // the capture's current error, "" when fine

	localSource LocalSource // the source in force, "" for none
	// sources holds what each local source provides, by precedence
	// (localPrecedence); the first that is set is in force.
	sources   [len(localPrecedence)]localState
	agentKept string // LocalChanged.Kept of dcbtop's agent's last change
	// agentDCBX is what dcbtop's agent speaks here (AgentDCBX), nil
	// when no agent reported it.
	agentDCBX   *AgentDCBXState
	dcbxMode    string // the NIC's DCBX mode in words, "" when unknown
	firmware    bool   // the NIC's firmware runs DCBX
	local       *dcb.Params
	willing     bool
	operational *dcb.Params
	resolution  dcb.Resolution
	// agents are the local agents seen transmitting (outgoing frames).
	agents []*localAgent
	// ends is how an undirected capture's two ends were read, nil when
	// it was not (EndsAssumed).
	ends *CaptureEnds
	// nic is what dcbtop's agent's writes to the NIC did (NICWrite).
	nic nicState
}

// A localAgent is a chassis ID seen in this host's own outgoing LLDPDUs.
type localAgent struct {
	chassis  []byte
	portID   []byte
	raw      []byte
	src      lldp.MAC
	dst      lldp.MAC // of raw: an identical LLDPDU to another address is not the same
	lastSeen time.Time
	frames   uint64
	// dialect is the DCBX dialect of raw (to the nearest bridge).
	dialect lldp.Dialect
}

// CaptureCounters are an interface's capture counts: the snapshot JSON
// "capture" object.
type CaptureCounters struct {
	FramesIn         uint64 `json:"frames_in"`
	FramesOut        uint64 `json:"frames_out"`
	Malformed        uint64 `json:"lldpdus_malformed"`
	Unchanged        uint64 `json:"lldpdus_unchanged"`
	FramesSent       uint64 `json:"frames_sent"`
	KernelDrops      uint64 `json:"kernel_drops"`
	NeighborsEvicted uint64 `json:"neighbors_evicted"`
	// TLVsDiscarded counts optional TLVs dropped for errors while the
	// rest of their LLDPDU was used (statsTLVsDiscardedTotal, IEEE Std
	// 802.1AB-2016, 9.2.6.2).
	TLVsDiscarded uint64 `json:"tlvs_discarded"`
	// RecordsOdd counts capture records read despite an inconsistency
	// (a capture length over the packet or snapshot length).
	RecordsOdd uint64 `json:"records_odd"`
	// NotLLDP counts frames of another protocol, skipped: a capture file
	// taken without a filter ("tcpdump -w" of all traffic) holds them; a
	// live capture's filter admits only LLDP.
	NotLLDP uint64 `json:"frames_not_lldp"`
}

// portNew returns the state of interface name, creating it, and whether
// it was new to the engine. It returns nil past Config.MaxInterfaces,
// after counting the event as ignored.
func (e *Engine) portNew(name string) (*port, bool) {
	if p, ok := e.ports[name]; ok {
		return p, false
	}
	if len(e.ports) >= e.cfg.MaxInterfaces {
		e.ignored.ignore(name)
		return nil, false
	}
	p := &port{name: name, replay: e.cfg.Replay, slot: -1}
	e.ports[name] = p
	if n := len(e.names); n > 0 && e.names[n-1] > name {
		e.sorted = false
	}
	e.names = append(e.names, name)
	return p, true
}

// rename moves the port of interface was to the name now, when there is
// one under was and none under now (an interface renamed: LinkChanged's
// Was), and reports whether it did. The log keeps the indications issued
// under the old name.
func (e *Engine) rename(was, now string) bool {
	p, ok := e.ports[was]
	if was == "" || was == now || !ok {
		return false
	}
	if _, taken := e.ports[now]; taken {
		return false
	}
	delete(e.ports, was)
	p.name = now
	e.ports[now] = p
	e.names[slices.Index(e.names, was)] = now
	e.sorted = false
	return true
}

// portNames returns the port names in order.
func (e *Engine) portNames() []string {
	if !e.sorted {
		slices.Sort(e.names)
		e.sorted = true
	}
	return e.names
}

// Now returns the engine's clock: the time of the latest event.
func (e *Engine) Now() time.Time { return e.now }

// Apply advances the state machine by one event and returns the
// indications it caused, oldest first; nil when nothing changed. It never
// blocks, sleeps or reads the clock. The returned slice is valid until the
// next call.
func (e *Engine) Apply(ev Event) []Indication { return e.Step(ev).Indications }

// An Outcome is what one event did: the indications it issued, and what
// an LLDP agent on an interface reacts to. Its slices are the engine's
// and valid until the next Step or Apply.
type Outcome struct {
	Indications []Indication
	// NewPeers lists the interfaces on which a neighbour appeared: an
	// agent there starts fast transmission (IEEE Std 802.1AB-2016,
	// 9.2.7.7.1 newNeighbor).
	NewPeers []string
	// Advertise lists the interfaces whose local parameters, local
	// Willing state or operational parameters changed: what an agent
	// there advertises changed (IEEE Std 802.1Q-2018, D.2: the agent
	// advertises its operational configuration).
	Advertise []string
	// Changed reports that the event changed what a snapshot shows other
	// than by the clock moving on: any indication, and a link, local
	// source, capture status or counters sample that differs from what was
	// there. A frame that only refreshes a neighbour (its TTL, LastSeen
	// and frame count) is not a change; the caller decides how often such
	// a refresh is worth a snapshot.
	Changed bool
	// Notices are host-wide diagnostics this event raised for the first
	// time (too-many-interfaces), for a headless caller to say once; the
	// snapshot's Diagnostics keep them up to date.
	Notices []diag.Diagnostic
}

// Step applies ev and returns its Outcome.
func (e *Engine) Step(ev Event) Outcome {
	if fr, ok := ev.(FrameReceived); ok {
		return e.StepFrame(fr)
	}
	e.out, e.newPeers, e.advertise = e.out[:0], e.newPeers[:0], e.advertise[:0]
	return e.finish(e.step(ev))
}

// StepFrame is Step for a frame, which a caller holding a FrameReceived
// can apply without boxing it in an Event (an allocation per frame).
func (e *Engine) StepFrame(ev FrameReceived) Outcome {
	e.out, e.newPeers, e.advertise = e.out[:0], e.newPeers[:0], e.advertise[:0]
	ignored := e.ignored.events
	e.advance(ev.At)
	if p, _ := e.portNew(ev.Interface); p != nil {
		e.frame(p, ev)
		e.reschedule(p)
	}
	return e.finish(e.outcome(false, ignored))
}

// finish completes an event's Outcome with the lists an agent reacts to.
func (e *Engine) finish(o Outcome) Outcome {
	for _, in := range o.Indications {
		if in.Status != StatusRemote && !slices.Contains(e.advertise, in.Interface) {
			e.advertise = append(e.advertise, in.Interface)
		}
	}
	if len(e.advertise) > 0 {
		o.Advertise = e.advertise
	}
	if len(e.newPeers) > 0 {
		o.NewPeers = e.newPeers
	}
	return o
}

// step applies an event other than a frame (StepFrame).
func (e *Engine) step(ev Event) Outcome {
	changed := false
	ignored := e.ignored.events
	switch ev := ev.(type) {
	case Tick:
		e.advance(ev.At)
	case EndsAssumed:
		e.advance(ev.At)
		p, isNew := e.portNew(ev.Interface)
		if p == nil {
			break
		}
		c := ev.Ends.clone()
		changed = isNew || p.ends == nil || !p.ends.equal(c)
		p.ends = &c
		if p.mac == nil && c.LocalMAC != nil {
			m := *c.LocalMAC
			p.mac = &m // this host's end: its address breaks the PFC tie
		}
	case HostObserved:
		e.advance(ev.At)
		changed = ev.NetAdmin != e.host.NetAdmin || !slices.Equal(ev.Agents, e.host.Agents)
		changed = changed || !e.hostObserved
		if changed {
			e.hostSeq++
		}
		e.host, e.hostObserved = HostObserved{NetAdmin: ev.NetAdmin, Agents: slices.Clone(ev.Agents)}, true
	case LocalChanged:
		e.advance(ev.At)
		p, isNew := e.portNew(ev.Interface)
		if p == nil {
			break
		}
		changed = isNew // the local state in force changing issues an indication
		if ev.Source == SourceDCBNL {
			changed = changed || p.dcbxMode != ev.Mode || p.firmware != ev.FirmwareManaged
			p.dcbxMode, p.firmware = ev.Mode, ev.FirmwareManaged
			if p.localSource == SourceAgent {
				// The NIC's state, aside while the agent is in force,
				// shows in its NICProgram.
				old := p.sources[dcbnlSource]
				changed = changed || old.set == ev.Withdrawn || old.params.Diff(ev.Params) != 0 || (old.params == nil) != (ev.Params == nil)
			}
		}
		if ev.Source == SourceAgent {
			changed = changed || p.agentKept != ev.Kept || ev.Withdrawn && p.agentDCBX != nil
			p.agentKept = ev.Kept
			if ev.Withdrawn {
				p.agentDCBX = nil
			}
		}
		e.sourceChanged(p, ev.Source, localState{set: !ev.Withdrawn, willing: ev.Willing, params: ev.Params.Clone()})
	case LinkChanged:
		e.advance(ev.At)
		renamed := e.rename(ev.Was, ev.Interface)
		p, isNew := e.portNew(ev.Interface)
		if p == nil {
			break
		}
		state := "down"
		switch {
		case ev.Removed:
			state = "removed" // deleted: no such interface, not a link down
		case ev.Up:
			state = "up"
		}
		changed = renamed || isNew || p.ifindex == nil || *p.ifindex != ev.Ifindex || p.mac == nil || *p.mac != ev.MAC || p.operState != state ||
			(ev.MTU > 0 && (p.mtu == nil || *p.mtu != ev.MTU))
		wasUp := p.operState == "up"
		idx, mac := ev.Ifindex, ev.MAC
		p.ifindex, p.mac, p.operState = &idx, &mac, state
		if ev.VLANs != nil && (p.vlans == nil || !slices.Equal(ev.VLANs, p.vlans)) { // nil: not known, keep the last
			changed = true
			p.vlans = slices.Clone(ev.VLANs)
		}
		if ev.MTU > 0 && (p.mtu == nil || *p.mtu != ev.MTU) {
			mtu := ev.MTU // a removal's or an old tape's 0 keeps the last known
			p.mtu = &mtu
		}
		if wasUp && state != "up" {
			e.linkDown(p)
		}
	case CaptureStatus:
		e.advance(ev.At)
		p, isNew := e.portNew(ev.Interface)
		if p == nil {
			break
		}
		changed = isNew || p.captureErr != ev.Err || p.counters.KernelDrops != ev.KernelDrops || p.counters.FramesSent != ev.Sent
		p.captureErr = ev.Err
		p.counters.KernelDrops, p.counters.FramesSent = ev.KernelDrops, ev.Sent
	case AgentDCBX:
		e.advance(ev.At)
		if p := e.ports[ev.Interface]; p != nil {
			changed = e.setAgentDCBX(p, &ev.State)
		}
	case NICWrite:
		e.advance(ev.At)
		p := e.ports[ev.Interface]
		if p == nil {
			break
		}
		next := nicState{pending: ev.Pending, err: ev.Err}
		if ev.Pending {
			next.err = p.nic.err // kept until the write ends
		}
		changed = p.nic != next
		p.nic = next
	case CountersSampled:
		e.advance(ev.At)
		p, isNew := e.portNew(ev.Interface)
		if p == nil {
			break
		}
		if p.lossless == nil {
			p.lossless = &lossless.State{}
		}
		changed = p.lossless.Sample(lossless.Sample(ev)) || isNew
	}
	return e.outcome(changed, ignored)
}

// outcome builds an event's Outcome: changed says whether the event
// changed the state other than through indications, ignored is the count
// of ignored events before it.
func (e *Engine) outcome(changed bool, ignored uint64) Outcome {
	var notices []diag.Diagnostic
	if e.ignored.events == 1 && ignored == 0 {
		changed = true // the first ignored interface: the diagnostic appears
		notices = []diag.Diagnostic{diag.Newf(diag.CodeTooManyInterfaces, diag.SeverityWarning, "capture", "",
			"events for more than %d interfaces: the others are ignored and counted (the snapshot's too-many-interfaces diagnostic says how many)", e.cfg.MaxInterfaces)}
	}
	if e.dirty {
		changed, e.dirty = true, false
	}
	if len(e.out) == 0 {
		return Outcome{Changed: changed, Notices: notices}
	}
	e.gen++
	return Outcome{Indications: e.out, Changed: true, Notices: notices}
}

// emit records an indication at the engine's current time.
func (e *Engine) emit(p *port, st Status, r Reason, f Flags, params *dcb.Params, from *neighbor) {
	in := Indication{Time: e.now, Interface: p.name, Status: st, Reason: r, Flags: f, Params: params.Clone()}
	if from != nil {
		in.Peer = msapName(from)
		if name := textTLV(from.du, lldp.TLVTypeSystemName); name != nil {
			in.PeerName = *name
		}
	}
	e.out = append(e.out, in)
	e.logged = nil
	if len(e.log) < e.cfg.LogSize {
		e.log = append(e.log, in)
		return
	}
	e.log[e.head] = in
	e.head = (e.head + 1) % len(e.log)
}

// advance moves the clock to t, first firing, at the instant each was due,
// every expiry and hold-down end that falls at or before t. A t before the
// clock (an out-of-order frame) leaves the clock where it is.
func (e *Engine) advance(t time.Time) {
	for len(e.sched) > 0 {
		dport := e.sched[0]
		due := dport.due
		if due.After(t) {
			break
		}
		if due.After(e.now) {
			e.now = due
		}
		e.expire(dport)
		e.reschedule(dport)
	}
	if t.After(e.now) {
		e.now = t
	}
}

// nextDeadline returns the earliest neighbour expiry or, during a
// multi-peer hold-down, the earliest pending taint expiry.
func (p *port) nextDeadline() (time.Time, bool) {
	var d time.Time
	ok := false
	for _, n := range p.neighbors {
		if !ok || n.expires.Before(d) {
			d, ok = n.expires, true
		}
		if p.multi && !n.taintUntil.IsZero() && n.taintUntil.Before(d) {
			d = n.taintUntil
		}
	}
	if p.multi && !ok {
		return time.Time{}, true // hold-down with nothing left: ends now
	}
	if !p.lostLong.IsZero() && (!ok || p.lostLong.Before(d)) {
		d, ok = p.lostLong, true
	}
	return d, ok
}

// linkDown discards every neighbour of a port that stopped being
// operational (IEEE Std 802.1AB-2016 9.2.9, the receive state machine:
// when portEnabled goes FALSE the port's receive state is re-initialized
// and rxInitializeLLDP deletes all the remote systems information of the
// port; lldpd drops the port's neighbours likewise). Valid remote
// parameters are invalidated with ReasonLinkDown (an NDIS invalidation
// indication); the first LLDPDU after the link returns is a first
// receipt. The multi-peer hold-down ends with the information it held.
func (e *Engine) linkDown(p *port) {
	had := len(p.neighbors) > 0
	for len(p.neighbors) > 0 {
		e.remove(p, len(p.neighbors)-1, ReasonLinkDown)
	}
	p.multi = false
	if had && p.remoteFrom == nil && p.invalid != "" {
		p.invalid = ReasonLinkDown // already invalid (multi-peer): now for this reason
	}
}

// expire removes every neighbour whose information has expired at the
// clock and ends the hold-down when no tainted information remains; a
// lost peer gone for lostLongAfter makes peer-lost an error.
func (e *Engine) expire(p *port) {
	if !p.lostLong.IsZero() && !p.lostLong.After(e.now) {
		p.lostLong = time.Time{}
		if p.remoteFrom == nil {
			e.dirty = true
		}
	}
	for i := 0; i < len(p.neighbors); {
		n := p.neighbors[i]
		if n.expires.After(e.now) {
			if !n.taintUntil.IsZero() && !n.taintUntil.After(e.now) {
				n.taintUntil = time.Time{}
			}
			i++
			continue
		}
		e.remove(p, i, ReasonTTLExpired)
	}
	e.checkHoldDown(p)
}

// remove deletes neighbour i; when it was the source of the valid remote
// parameters they are invalidated with reason r.
func (e *Engine) remove(p *port, i int, r Reason) {
	n := p.neighbors[i]
	p.neighbors = slices.Delete(p.neighbors, i, i+1)
	e.neighborEvent(p, r, n)
	switch r {
	case ReasonTTLExpired, ReasonShutdown, ReasonLinkDown:
		p.lost, p.lostAt, p.lostWhy = n, e.now, r
		if p.remoteFrom == n {
			p.lostLong = e.now.Add(lostLongAfter(n))
		}
	}
	if p.remoteFrom == n {
		e.invalidate(p, r, n)
	}
}

// invalidate withdraws the remote parameters: one indication with zeroed
// parameters and *_CHANGED for every group that was present ("Guidelines
// for Indicating Invalid Remote NDIS QoS Parameters").
func (e *Engine) invalidate(p *port, r Reason, from *neighbor) {
	g := p.remote.Groups()
	p.remote, p.remoteFrom, p.invalid = nil, nil, r
	e.emit(p, StatusRemote, r, changed(g), nil, from)
	e.resolveOperational(p, r)
}

// neighborEvent records an LLDP neighbour event of n (nil: the port's,
// as a hold-down's end) when Config.NeighborEvents asks for them. While
// the neighbour table is full (tooManyNeighbors) new and evicted
// neighbours are not recorded one by one: a flood of new MSAPs would
// flood the log; the too-many-neighbors diagnostic and the eviction count
// say it.
func (e *Engine) neighborEvent(p *port, r Reason, n *neighbor) {
	if !e.cfg.NeighborEvents {
		return
	}
	if (r == ReasonPeerNew || r == ReasonEvicted) && e.now.Before(p.tooManyUntil) {
		return
	}
	e.emit(p, StatusNeighbor, r, 0, nil, n)
}

func (e *Engine) checkHoldDown(p *port) {
	if !p.multi {
		return
	}
	for _, n := range p.neighbors {
		if n.taintUntil.After(e.now) {
			return
		}
	}
	p.multi = false
	e.neighborEvent(p, ReasonHoldDownEnd, nil)
	for _, n := range p.neighbors {
		n.taintUntil = time.Time{}
	}
}

func (p *port) liveDCBX() int {
	c := 0
	for _, n := range p.neighbors {
		if n.dcbx() {
			c++
		}
	}
	return c
}

// TimeSensitive reports whether a snapshot taken later could differ from
// one taken now by the clock alone: a neighbour's information counts down
// to its expiry (and may turn stale, the peer-stale diagnostic), a
// multi-peer hold-down runs, or a local agent was seen within the window
// of the dual-agent check. Without any, a snapshot stays true until the
// next event that reports Outcome.Changed, so a caller publishing
// snapshots needs no periodic refresh.
func (e *Engine) TimeSensitive() bool {
	// A port with neighbours or a hold-down has a deadline: it is in the
	// schedule.
	return len(e.sched) > 0 || (!e.agentSeen.IsZero() && e.now.Sub(e.agentSeen) < dualAgentWindow)
}
