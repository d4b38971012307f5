// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"slices"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/verdict"
)

// A judgeKey is what a port's checks (Config.Judge) read, as identities
// and values that change whenever what they read does: the parameter
// sets by identity (the engine replaces one that changes and never writes
// to it), the counters by their sample's identity (lossless.State.Current:
// a new sample is a new one), what the host observed by its count of
// changes, and the rest by value. The diagnostics, which are made again
// for every snapshot (those of time: peer-stale, peer-lost, the hold-down),
// and the peers' and local agents' identities are compared beside it.
type judgeKey struct {
	name                       string
	local, remote, operational *dcb.Params
	resolution                 dcb.Resolution
	localSource                LocalSource
	willing                    bool
	dcbxMode                   string
	firmware                   bool
	remoteState                RemoteState
	remoteValid                bool
	remoteInvalid              Reason
	dialect                    lldp.Dialect
	multiPeers                 int
	sample                     *lossless.Sample
	hostSeq                    uint64
	hostObserved               bool
	ends                       *CaptureEnds
}

// A peerKey is what the checks read of a peer: who it is and what it
// speaks (its TTL too), not its frame count or its time left.
type peerKey struct {
	msap, systemName string
	named            bool
	ttl              uint16
	dcbx             lldp.Dialect
}

// A judgeMemo is a port's last evaluation and what it read; the spare
// slices are where the next snapshot's peers and agents are gathered to
// be compared (then swapped in), so that a hit allocates nothing.
type judgeMemo struct {
	ok                  bool
	key                 judgeKey
	diags               []diag.Diagnostic
	peers, sparePeers   []peerKey
	agents, spareAgents []string
	result              []verdict.Result
}

// checks returns in's verdicts: the last evaluation's where it read what
// in holds, else judge's, kept for the next. A switch of 64 ports whose
// peers send the same LLDPDU every second is judged again only when
// something its checks read changes (BenchmarkSnapshot64 in
// engine/check), with the same results a new evaluation would give
// (TestJudgeMemo).
func (m *judgeMemo) checks(in *Interface, p *port, hostSeq uint64, judge func() []verdict.Result) []verdict.Result {
	key := judgeKey{name: in.Name, local: in.Local, remote: in.Remote, operational: in.Operational, resolution: in.Resolution,
		localSource: in.LocalSource, dcbxMode: deref(in.DCBXMode), firmware: in.FirmwareManaged, remoteState: in.RemoteStatus,
		remoteValid: in.RemoteValid, remoteInvalid: deref(in.RemoteInvalidReason), dialect: in.Dialect, sample: p.lossless.Current(), hostSeq: hostSeq,
		hostObserved: in.HostAgents != nil, ends: in.CaptureEnds}
	if in.Willing != nil {
		key.willing = *in.Willing
	}
	if in.MultiPeer != nil {
		key.multiPeers = len(in.MultiPeer.Peers) + 1 // 0: no hold-down
	}
	peers := m.sparePeers[:0]
	for i := range in.Peers {
		pk := peerKey{msap: in.Peers[i].MSAP(), ttl: in.Peers[i].TTL, dcbx: in.Peers[i].DCBX}
		if n := in.Peers[i].SystemName; n != nil {
			pk.systemName, pk.named = *n, true
		}
		peers = append(peers, pk)
	}
	agents := m.spareAgents[:0]
	for i := range in.LocalAgents {
		agents = append(agents, msapString(in.LocalAgents[i].ChassisID, in.LocalAgents[i].PortID))
	}
	hit := m.ok && m.key == key && slices.Equal(m.diags, in.Diagnostics) && slices.Equal(m.peers, peers) && slices.Equal(m.agents, agents)
	m.peers, m.sparePeers = peers, m.peers
	m.agents, m.spareAgents = agents, m.agents
	if !hit {
		m.ok, m.key, m.diags, m.result = true, key, in.Diagnostics, judge()
	}
	return m.result
}

func deref[T any](p *T) T {
	var z T
	if p != nil {
		return *p
	}
	return z
}
