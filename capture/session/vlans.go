// SPDX-License-Identifier: Apache-2.0

package session

// The VLAN interfaces on the captured ones (capture.LinkTable), told to
// the engine (engine.LinkChanged.VLANs).

import (
	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// vlanChange records le in the link table and appends to evs a
// LinkChanged of each captured interface whose VLAN interfaces it changed,
// with its VLANs now.
func (r *liveRun) vlanChange(le capture.LinkEvent, evs []engine.Event) []engine.Event {
	parents := r.links.Note(le)
	if len(parents) == 0 {
		return evs
	}
	at := r.clk.Stamp(le.At).UTC()
	for _, pl := range parents {
		if r.byName[pl.Name] == nil {
			continue // not captured
		}
		ev := engine.LinkChanged{Interface: pl.Name, At: at, Ifindex: pl.Index, MAC: lldp.MAC(pl.MAC), Up: pl.Up, MTU: pl.MTU, VLANs: r.links.VLANsOn(pl.Index)}
		r.writeTape(ev.At, poll.LinkRecord(ev))
		evs = append(evs, ev)
	}
	return evs
}
