// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"bytes"
	"errors"
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A received LLDPDU: its neighbour found or added (IEEE Std 802.1AB-2016,
// 9.2.7.7.2 and 9.2.5.22), decoded only when it changed, and the remote
// parameters resolved from it.

func (p *port) find(dst lldp.MAC, chassis, portID []byte) (int, *neighbor) {
	for i, n := range p.neighbors {
		if n.dst == dst && bytes.Equal(n.chassis, chassis) && bytes.Equal(n.portID, portID) {
			return i, n
		}
	}
	return -1, nil
}

// frame handles one captured frame on port p.
func (e *Engine) frame(p *port, ev FrameReceived) {
	if ev.Outgoing {
		p.counters.FramesOut++
	} else {
		p.counters.FramesIn++
	}
	if ev.Note != "" {
		p.counters.RecordsOdd++
		p.lastNote = ev.Note
	}
	hdr, pdu, err := lldp.SplitFrame(ev.Data)
	if errors.Is(err, lldp.ErrNotLLDP) {
		// Another protocol: no LLDPDU, and no LLDP frame either.
		if ev.Outgoing {
			p.counters.FramesOut--
		} else {
			p.counters.FramesIn--
		}
		p.counters.NotLLDP++
		return
	}
	if err != nil {
		e.malformed(p, err)
		return
	}
	chassis, portID, _, err := lldp.PeekMSAP(pdu)
	if err != nil {
		e.malformed(p, err)
		return
	}
	if ev.Outgoing {
		e.outgoing(p, hdr, chassis, portID, pdu)
		return
	}
	i, n := p.find(hdr.Dst, chassis, portID)
	if n != nil && n.src == hdr.Src && n.scopeAssumed == ev.DstAssumed && n.sameTag(hdr) && bytes.Equal(n.raw, pdu) {
		// Identical to the previous LLDPDU of this MSAP: refresh the TTL
		// only (lldpad rx.c does the same). No decoding, no allocation.
		p.counters.Unchanged++
		// 802.1AB validates every LLDPDU before the identical check
		// (9.2.7.7.2), so its discarded TLVs count again.
		p.counters.TLVsDiscarded += uint64(len(n.du.Discarded))
		n.noteGap(e.now)
		n.lastSeen, n.expires = e.now, e.now.Add(time.Duration(n.du.TTL)*time.Second)
		n.frames++
		e.resolveRemote(p, n)
		return
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		e.malformed(p, err)
		return
	}
	if du.Shutdown() {
		// A shutdown LLDPDU withdraws the MSAP's information at once
		// (IEEE Std 802.1AB-2016, 9.2.7.7.1), and with it any taint.
		if n != nil {
			e.remove(p, i, ReasonShutdown)
			e.checkHoldDown(p)
		}
		return
	}
	if n == nil {
		n = e.addNeighbor(p, hdr.Dst, chassis, portID, du.TTL)
	}
	p.counters.TLVsDiscarded += uint64(len(du.Discarded))
	n.setDU(du, pdu)
	n.src, n.scope = hdr.Src, ScopeOf(hdr.Dst)
	n.scopeAssumed = ev.DstAssumed
	n.vlan = nil
	if hdr.Tagged {
		n.vlan = &VLANTag{ID: hdr.VLAN, PCP: hdr.PCP}
	}
	if n.frames > 0 {
		n.noteGap(e.now)
	}
	n.lastSeen, n.expires = e.now, e.now.Add(time.Duration(du.TTL)*time.Second)
	n.frames++
	if n.frames == 1 {
		e.neighborEvent(p, ReasonPeerNew, n)
	}
	n.params = nil
	if hdr.Dst == lldp.NearestBridge {
		// DCBX runs only on the nearest-bridge agent (lldpad lldp_8021qaz.c).
		n.params = dcb.ParamsFromDU(du)
	}
	e.resolveRemote(p, n)
}

func (e *Engine) malformed(p *port, err error) {
	p.counters.Malformed++
	p.lastBad, p.lastBadAt = err.Error(), e.now
}

// addNeighbor adds an MSAP heard on destination dst. When the table is
// full the least recently seen neighbour (other than the remote peer) is
// evicted, and the tooManyNeighbors condition lasts at least the new
// LLDPDU's TTL (IEEE Std 802.1AB-2016, 9.2.5.22: the timer is set to the
// TTL of the LLDPDU that found no room, so the condition clears once no
// eviction happened for that long).
func (e *Engine) addNeighbor(p *port, dst lldp.MAC, chassis, portID []byte, ttl uint16) *neighbor {
	if len(p.neighbors) >= e.cfg.MaxNeighbors {
		if until := e.now.Add(time.Duration(ttl) * time.Second); until.After(p.tooManyUntil) {
			p.tooManyUntil = until
		}
		victim := -1
		for i, n := range p.neighbors {
			if n != p.remoteFrom && (victim < 0 || n.lastSeen.Before(p.neighbors[victim].lastSeen)) {
				victim = i
			}
		}
		if victim >= 0 {
			e.neighborEvent(p, ReasonEvicted, p.neighbors[victim])
			p.neighbors = slices.Delete(p.neighbors, victim, victim+1)
			p.counters.NeighborsEvicted++
		}
	}
	n := &neighbor{dst: dst, chassis: slices.Clone(chassis), portID: slices.Clone(portID), firstSeen: e.now}
	p.neighbors = append(p.neighbors, n)
	if !slices.Contains(e.newPeers, p.name) {
		e.newPeers = append(e.newPeers, p.name)
	}
	return n
}

// resolveRemote applies the remote-parameter rules of "Indicating Changes
// to the Remote NDIS QoS Parameters" after neighbour n sent an LLDPDU.
func (e *Engine) resolveRemote(p *port, n *neighbor) {
	if !n.dcbx() {
		if p.remoteFrom == n {
			// The peer stopped sending DCBX TLVs: every group it had
			// disappears, which counts as a change.
			if g := p.remote.Groups(); g != 0 {
				p.remote = &dcb.Params{}
				e.emit(p, StatusRemote, ReasonChanged, changed(g), p.remote, n)
				e.resolveOperational(p, ReasonChanged)
			}
		}
		return
	}
	if live := p.liveDCBX(); live >= 2 {
		// Multi-peer: invalidate every remote parameter until the TTL of
		// all DCBX information received meanwhile has expired.
		if !p.multi {
			p.multi, p.multiSince = true, e.now
			e.neighborEvent(p, ReasonMultiPeer, n)
			for _, m := range p.neighbors {
				if m.dcbx() {
					m.taintUntil = m.expires
				}
			}
			if p.remoteFrom != nil {
				e.invalidate(p, ReasonMultiPeer, n)
			}
			p.invalid = ReasonMultiPeer
		}
		n.taintUntil = n.expires
		return
	}
	if p.multi {
		return // hold-down: stays invalid until the tainted information expires
	}
	if p.remoteFrom != n {
		p.remote, p.remoteFrom, p.invalid = n.params, n, ""
		g := n.params.Groups()
		e.emit(p, StatusRemote, ReasonFirstReceipt, configured(n.params.Configured())|changed(g), n.params, n)
		e.resolveOperational(p, ReasonFirstReceipt)
		return
	}
	if p.remote == n.params {
		return
	}
	d := p.remote.Diff(n.params)
	p.remote = n.params
	if d != 0 {
		e.emit(p, StatusRemote, ReasonChanged, configured(n.params.Configured())|changed(d), n.params, n)
	}
	// Also on a flag-only change (CEE seq/ack): the resolution may differ.
	e.resolveOperational(p, ReasonChanged)
}

// sameTag reports whether an LLDPDU arrived with the tag (or no tag) the
// neighbour's last one did.
func (n *neighbor) sameTag(h lldp.EthernetHeader) bool {
	if n.vlan == nil {
		return !h.Tagged
	}
	return h.Tagged && n.vlan.ID == h.VLAN && n.vlan.PCP == h.PCP
}

func msapName(n *neighbor) string {
	if n == nil || n.du == nil {
		return ""
	}
	return n.msap
}

// setDU makes du, received as pdu, the neighbour's last LLDPDU, with what
// snapshots show of it. pdu is copied: the caller's buffer is reused.
func (n *neighbor) setDU(du *lldp.DU, pdu []byte) {
	n.du, n.raw = du, slices.Clone(pdu)
	if n.msap == "" { // the MSAP is the neighbour's key: it never changes
		n.chassisStr, n.portIDStr = du.ChassisID.String(), du.PortID.String()
		n.msap = msapString(n.chassisStr, n.portIDStr)
	}
	n.sysName = textTLV(du, lldp.TLVTypeSystemName)
	n.sysDesc = textTLV(du, lldp.TLVTypeSystemDescription)
	n.portDesc = textTLV(du, lldp.TLVTypePortDescription)
	n.maxFrame, n.vlanNames = 0, nil
	for _, t := range du.TLVs {
		switch t := t.(type) {
		case *lldp.MaxFrameSize:
			n.maxFrame = t.Size
		case *lldp.VLANName:
			n.vlanNames = append(n.vlanNames, t.VID)
		}
	}
}

// msapString names an MSAP as the snapshot does (Interface.RemotePeer,
// MultiPeer.Peers, Indication.Peer): "chassis ID / port ID".
func msapString(chassis, portID string) string { return chassis + " / " + portID }
