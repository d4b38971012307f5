// SPDX-License-Identifier: Apache-2.0

package host

import (
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// A ProgramNIC asks the caller to program the NIC of Interface with the
// operational parameters dcbtop's agent negotiated, as lldpad does after
// every resolution (lldp_8021qaz.c, set_ieee_hw: DCB_CMD_IEEE_SET): the
// features of Params (engine.NICWant: ETS, PFC, APP as operational, on
// the NIC's own capability fields), written through DCB netlink where
// they differ from what the NIC holds, then read back. The Willing bit
// is not touched. The caller does it off the engine's goroutine (a PFC
// write resets the link on mlx5) and reports with NICProgrammed. One is
// carried out at a time per interface.
type ProgramNIC struct {
	Interface string
	Params    *dcb.Params
}

func (ProgramNIC) isEffect() {}

// programNIC asks for p's NIC to be programmed when the engine says it
// does not hold the operational parameters and can be written
// (engine.NICWant), unless a write is under way (the result looks
// again) or the same parameters were asked for already (a driver that
// reads back other values is shown as differing, not fought).
func (h *Host) programNIC(p *port, at time.Time) {
	p.nicCheck = false
	if p.agent == nil || p.nicBusy {
		return
	}
	in, ok := h.eng.Interface(p.name)
	if !ok {
		return
	}
	want, need := engine.NICWant(in)
	if !need || p.nicAsked != nil && p.nicAsked.Diff(want) == 0 {
		return
	}
	p.nicAsked, p.nicBusy = want.Clone(), true
	h.effects = append(h.effects, ProgramNIC{Interface: p.name, Params: want})
	h.step(engine.NICWrite{Interface: p.name, At: at, Pending: true})
}

// NICProgrammed takes the result of a ProgramNIC carried out at at: the
// state read back becomes the NIC's (DCB netlink's local source, kept
// aside while the agent is in force), and the failure, if any, is
// shown with the feature states (engine.NICProgram). The operational
// parameters may have changed meanwhile: they are looked at again.
func (h *Host) NICProgrammed(w ProgramNIC, res engine.WriteResult, at time.Time) Result {
	h.begin()
	p := h.port(w.Interface)
	p.nicBusy, p.nicCheck = false, true
	if ev, ok := res.LocalChanged(at); ok {
		h.step(ev)
	}
	h.step(engine.NICWrite{Interface: w.Interface, At: at, Err: res.Err})
	return h.end(at)
}
