// SPDX-License-Identifier: Apache-2.0

package session

// The VLAN interfaces on the captured ones (ip link add link eth0 name
// eth0.100 type vlan id 100): which VLANs this host uses on a port, for
// the engine's comparison with the VLANs its peer advertises
// (engine.LinkChanged.VLANs).

import (
	"slices"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// vlanChange records le in lastLinks and, when it adds, moves or removes
// a VLAN interface, appends to evs a LinkChanged of each captured
// interface it sits on, with its VLANs now.
func (r *liveRun) vlanChange(le capture.LinkEvent, evs []engine.Event) []engine.Event {
	if r.lastLinks == nil {
		r.lastLinks = map[int]capture.Link{}
	}
	prev, had := r.lastLinks[le.Index]
	if le.Removed {
		delete(r.lastLinks, le.Index)
	} else {
		r.lastLinks[le.Index] = le.Link
	}
	key := func(l capture.Link, there bool) [2]int {
		if !there || l.VLAN == 0 {
			return [2]int{}
		}
		return [2]int{l.VLAN, l.Parent}
	}
	before, after := key(prev, had), key(le.Link, !le.Removed)
	if before == after {
		return evs
	}
	at := r.clk.Stamp(le.At).UTC()
	parents := []int{before[1]}
	if after[1] != before[1] {
		parents = append(parents, after[1])
	}
	for _, parent := range parents {
		if parent == 0 || parent == le.Index {
			continue
		}
		pl, ok := r.lastLinks[parent]
		if !ok || r.byName[pl.Name] == nil {
			continue // not captured
		}
		ev := engine.LinkChanged{Interface: pl.Name, At: at, Ifindex: pl.Index, MAC: lldp.MAC(pl.MAC), Up: pl.Up, MTU: pl.MTU, VLANs: r.vlansOn(parent)}
		r.writeTape(ev.At, poll.LinkRecord(ev))
		evs = append(evs, ev)
	}
	return evs
}

// vlansOn returns the VLAN IDs of the VLAN interfaces on the interface of
// index idx, sorted; empty (not nil: known, none) when there are none.
func (r *liveRun) vlansOn(idx int) []uint16 {
	out := []uint16{}
	for _, l := range r.lastLinks {
		if l.VLAN > 0 && l.Parent == idx {
			out = append(out, uint16(l.VLAN))
		}
	}
	slices.Sort(out)
	return out
}
