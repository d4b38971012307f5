// SPDX-License-Identifier: Apache-2.0

package capture

import "slices"

// A LinkTable holds every link's last state by interface index, as the
// link watcher reports them, for the VLAN interfaces on each (ip link add
// link eth0 name eth0.100 type vlan id 100): which VLANs this host uses
// on a port, which the engine compares with the VLANs its peer advertises
// (IEEE 802.1Q Annex D, the VLAN Name TLV). Its zero value is empty; it is
// not safe for concurrent use.
type LinkTable struct {
	byIndex map[int]Link
}

// Note records le and returns the links whose VLAN interfaces it changed:
// the parent it adds a VLAN interface to, moves one from or to, or
// removes one from, as last seen (a parent not seen is left out).
func (t *LinkTable) Note(le LinkEvent) []Link {
	if t.byIndex == nil {
		t.byIndex = map[int]Link{}
	}
	prev, had := t.byIndex[le.Index]
	if le.Removed {
		delete(t.byIndex, le.Index)
	} else {
		t.byIndex[le.Index] = le.Link
	}
	key := func(l Link, there bool) [2]int {
		if !there || l.VLAN == 0 {
			return [2]int{}
		}
		return [2]int{l.VLAN, l.Parent}
	}
	before, after := key(prev, had), key(le.Link, !le.Removed)
	if before == after {
		return nil
	}
	parents := []int{before[1]}
	if after[1] != before[1] {
		parents = append(parents, after[1])
	}
	var out []Link
	for _, parent := range parents {
		if parent == 0 || parent == le.Index {
			continue
		}
		if pl, ok := t.byIndex[parent]; ok {
			out = append(out, pl)
		}
	}
	return out
}

// VLANsOn returns the VLAN IDs of the VLAN interfaces on the interface of
// index idx, sorted; empty (not nil: known, none) when there are none.
func (t *LinkTable) VLANsOn(idx int) []uint16 {
	out := []uint16{}
	for _, l := range t.byIndex {
		if l.VLAN > 0 && l.Parent == idx {
			out = append(out, uint16(l.VLAN))
		}
	}
	slices.Sort(out)
	return out
}
