// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"time"
)

// HostFacts is what deciding an interface's Capabilities needs to know about
// the host beyond the snapshot. The capture layer gathers it.
type HostFacts struct {
	// Replay: the snapshot comes from a recording; nothing is written.
	Replay bool
	// NetAdmin: this process may write DCB netlink (CAP_NET_ADMIN).
	NetAdmin bool
	// OtherAgents are the LLDP agent processes running in this network
	// namespace, as "lldpd (pid 42)".
	OtherAgents []string
	// Now is the snapshot's time, against which a local agent counts as
	// transmitting when seen within recentAgent.
	Now time.Time
}

// recentAgent is how recently another local agent must have been seen
// transmitting to count as running.
const recentAgent = 2 * time.Minute

// A RefusalCode says why an operator's change is not allowed.
type RefusalCode uint8

// The reasons of a Refusal.
const (
	// RefuseNothing: the zero Refusal, which refuses nothing.
	RefuseNothing RefusalCode = iota
	// RefuseReplay: a recording is read-only.
	RefuseReplay
	// RefuseFirmware: the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED):
	// the driver ignores the host's writes (Interface names the NIC for
	// the remedy).
	RefuseFirmware
	// RefuseOtherAgent: another LLDP agent of this host owns what it
	// advertises (Agent names it; Seen: seen transmitting, not found as a
	// process).
	RefuseOtherAgent
	// RefuseNoNetAdmin: writing DCB netlink needs CAP_NET_ADMIN.
	RefuseNoNetAdmin
	// RefuseNoLocalSource: no agent and no driver DCB support: nothing
	// holds local parameters to change.
	RefuseNoLocalSource
	// RefuseUnknownInterface: the interface is not in the snapshot.
	RefuseUnknownInterface
	// RefuseNothingToUndo: no apply since dcbtop started on Interface.
	RefuseNothingToUndo
)

// A Refusal is why a change is not allowed, typed: its code and the
// parameters its words need. The zero value refuses nothing. Its words
// (String) are the one rendering the screen, dcbtop's errors and the
// host layer's answers share.
type Refusal struct {
	Code RefusalCode
	// Interface is the interface concerned (RefuseFirmware,
	// RefuseUnknownInterface, RefuseNothingToUndo).
	Interface string
	// Agent names the other LLDP agent (RefuseOtherAgent): processes
	// ("lldpd (pid 42)"), or the chassis it was seen sending from.
	Agent string
	// Seen: the other agent was seen transmitting on the wire (Agent is
	// its chassis ID), rather than found running in this network
	// namespace.
	Seen bool
	// Undone (RefuseNothingToUndo): the one level of undo was used; the
	// last apply is already undone.
	Undone bool
}

// String says why, in words an operator acts on, with the remedy; "" for
// the zero Refusal.
func (r Refusal) String() string {
	switch r.Code {
	case RefuseReplay:
		return "replay: a recording is read-only"
	case RefuseFirmware:
		return firmwareWhy(r.Interface)
	case RefuseOtherAgent:
		who := "another LLDP agent (" + r.Agent + ")"
		if r.Seen {
			who = "another LLDP agent of this host (" + r.Agent + ")"
		}
		return who + " transmits LLDP here and owns what this host advertises: dcbtop will not run a second agent beside it (the switch would see two peers). " +
			"Change the parameters in that agent (lldptool, lldpcli), or stop it and press a to run dcbtop's agent"
	case RefuseNoNetAdmin:
		return "needs CAP_NET_ADMIN to write DCB netlink (run as root)"
	case RefuseNoLocalSource:
		return "no local DCB source here (no agent, no driver DCB support): press a to run dcbtop's agent, then change its parameters"
	case RefuseUnknownInterface:
		return r.Interface + " is not in the snapshot"
	case RefuseNothingToUndo:
		if r.Undone {
			return "nothing left to undo on " + r.Interface + " (one level: the last apply is already undone)"
		}
		return "nothing to undo on " + r.Interface + " (no apply since dcbtop started)"
	}
	return ""
}

// Capabilities says what the operator may change on an interface, and
// when not, the one typed reason (its words carry the remedy).
type Capabilities struct {
	// CanWrite allows toggling Willing, applying local parameters and
	// undo; WriteNo says why not.
	CanWrite bool
	WriteNo  Refusal
	// CanAgent allows starting or stopping dcbtop's agent; AgentNo says
	// why not.
	CanAgent bool
	AgentNo  Refusal
	// UndoNo, when set, says why there is nothing to undo although
	// writes are allowed (no apply yet): the runtime, which asks the host
	// layer for the undo state, sets it; the engine never does.
	UndoNo Refusal
}

// WriteWhy, AgentWhy and UndoWhy are the words of WriteNo, AgentNo and
// UndoNo ("" when nothing is refused).
func (c Capabilities) WriteWhy() string { return c.WriteNo.String() }

// AgentWhy is the words of AgentNo.
func (c Capabilities) AgentWhy() string { return c.AgentNo.String() }

// UndoWhy is the words of UndoNo.
func (c Capabilities) UndoWhy() string { return c.UndoNo.String() }

// ReadOnly is the capabilities of a replay: nothing is written.
func ReadOnly() Capabilities {
	r := Refusal{Code: RefuseReplay}
	return Capabilities{WriteNo: r, AgentNo: r}
}

// Capabilities decides what may be written on in, and why not:
//   - dcbtop's own agent (local source agent) takes every write;
//   - the kernel (dcbnl) takes writes unless the NIC firmware runs DCBX
//     (LLD_MANAGED, IEEE 802.1Qaz leaves the agent's location open: the
//     driver then ignores host writes of ETS, PFC and Willing, which every
//     write of the screen sets: FirmwareRefusal) or this process lacks
//     CAP_NET_ADMIN;
//   - another LLDP agent of this host (seen transmitting, or running in
//     this network namespace) owns what is advertised: dcbtop neither
//     writes nor starts a second agent beside it, which the switch would
//     see as a second peer (multi-peer), and says how to hand over;
//   - otherwise dcbtop's agent may be started.
func (in *Interface) Capabilities(h HostFacts) Capabilities {
	if h.Replay {
		return ReadOnly()
	}
	other, ok := in.otherAgent(h)
	var c Capabilities
	switch {
	case in.LocalSource == SourceAgent:
		c.CanWrite, c.CanAgent = true, true // CanAgent: to stop it
		return c
	case in.FirmwareManaged:
		r := Refusal{Code: RefuseFirmware, Interface: in.Name}
		return Capabilities{WriteNo: r, AgentNo: r}
	case ok:
		c.WriteNo, c.AgentNo = other, other
		if in.LocalSource == SourceDCBNL && h.NetAdmin {
			// The kernel's settings are still dcbtop's to write: the
			// other agent advertises, the driver applies.
			c.CanWrite, c.WriteNo = true, Refusal{}
		}
		return c
	}
	c.CanAgent = true
	switch in.LocalSource {
	case SourceDCBNL:
		if h.NetAdmin {
			c.CanWrite = true
		} else {
			c.WriteNo = Refusal{Code: RefuseNoNetAdmin}
		}
	default:
		c.WriteNo = Refusal{Code: RefuseNoLocalSource}
	}
	return c
}

// otherAgent is the refusal for another LLDP agent of this host on in: a
// process in this network namespace, or the chassis of LLDPDUs this host
// sent recently that are not dcbtop's own agent's; false when none.
func (in *Interface) otherAgent(h HostFacts) (Refusal, bool) {
	if len(h.OtherAgents) > 0 {
		return Refusal{Code: RefuseOtherAgent, Agent: strings.Join(h.OtherAgents, ", ")}, true
	}
	for _, a := range in.LocalAgents {
		if in.OwnAgent(a) || (!h.Now.IsZero() && h.Now.Sub(a.LastSeen) >= recentAgent) {
			continue
		}
		return Refusal{Code: RefuseOtherAgent, Agent: a.ChassisID, Seen: true}, true
	}
	return Refusal{}, false
}

// OwnAgent reports whether a local agent seen transmitting on in is
// dcbtop's own: chassis ID the port's MAC, port ID the interface name,
// as engine/agent builds them.
func (in *Interface) OwnAgent(a LocalAgent) bool {
	return in.MAC != nil && a.ChassisID == "mac "+in.MAC.String() && a.PortID == "ifname "+in.Name
}

// firmwareWhy says why nothing is written where the NIC firmware runs
// DCBX, and how to hand DCBX to the host.
func firmwareWhy(ifname string) string {
	return "the NIC firmware runs DCBX (LLD_MANAGED): hand DCBX to the host first (" + firmwareHandOver(ifname) + ")"
}
