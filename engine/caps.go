package engine

import (
	"strings"
	"time"
)

// Host is what deciding an interface's Capabilities needs to know about
// the host beyond the snapshot. The capture layer gathers it.
type Host struct {
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

// Capabilities says what the operator may change on an interface, and
// when not, the one reason and its remedy, in words an operator acts on.
type Capabilities struct {
	// CanWrite allows toggling Willing, applying local parameters and
	// undo; WriteWhy says why not.
	CanWrite bool
	WriteWhy string
	// CanAgent allows starting or stopping dcbtop's agent; AgentWhy says
	// why not.
	CanAgent bool
	AgentWhy string
	// UndoWhy, when set, says why there is nothing to undo although
	// writes are allowed (no apply yet): the runtime, which keeps the undo
	// state, sets it; the engine never does.
	UndoWhy string
}

// Capabilities decides what may be written on in, and why not:
//   - dcbtop's own agent (local source agent) takes every write;
//   - the kernel (dcbnl) takes writes unless the NIC firmware runs DCBX
//     (LLD_MANAGED, IEEE 802.1Qaz leaves the agent's location open: the
//     driver then ignores host writes) or this process lacks
//     CAP_NET_ADMIN;
//   - another LLDP agent of this host (seen transmitting, or running in
//     this network namespace) owns what is advertised: dcbtop neither
//     writes nor starts a second agent beside it, which the switch would
//     see as a second peer (multi-peer), and says how to hand over;
//   - otherwise dcbtop's agent may be started.
func (in *Interface) Capabilities(h Host) Capabilities {
	if h.Replay {
		const why = "replay: a recording is read-only"
		return Capabilities{WriteWhy: why, AgentWhy: why}
	}
	fw := in.FirmwareManaged
	other := in.otherAgent(h)
	var c Capabilities
	switch {
	case in.LocalSource == SourceAgent:
		c.CanWrite, c.CanAgent = true, true // CanAgent: to stop it
		return c
	case fw:
		why := firmwareWhy(in.Name)
		return Capabilities{WriteWhy: why, AgentWhy: why}
	case other != "":
		why := other + " transmits LLDP here and owns what this host advertises: dcbtop will not run a second agent beside it (the switch would see two peers). " +
			"Change the parameters in that agent (lldptool, lldpcli), or stop it and press a to run dcbtop's agent"
		c.WriteWhy, c.AgentWhy = why, why
		if in.LocalSource == SourceDCBNL && h.NetAdmin {
			// The kernel's settings are still dcbtop's to write: the
			// other agent advertises, the driver applies.
			c.CanWrite, c.WriteWhy = true, ""
		}
		return c
	}
	c.CanAgent = true
	switch in.LocalSource {
	case SourceDCBNL:
		if h.NetAdmin {
			c.CanWrite = true
		} else {
			c.WriteWhy = "needs CAP_NET_ADMIN to write DCB netlink (run as root)"
		}
	default:
		c.WriteWhy = "no local DCB source here (no agent, no driver DCB support): press a to run dcbtop's agent, then change its parameters"
	}
	return c
}

// otherAgent names another LLDP agent of this host on in: a process in
// this network namespace, or the chassis of LLDPDUs this host sent
// recently that are not dcbtop's own agent's; "" when none.
func (in *Interface) otherAgent(h Host) string {
	if len(h.OtherAgents) > 0 {
		return "another LLDP agent (" + strings.Join(h.OtherAgents, ", ") + ")"
	}
	for _, a := range in.LocalAgents {
		if in.OwnAgent(a) || (!h.Now.IsZero() && h.Now.Sub(a.LastSeen) >= recentAgent) {
			continue
		}
		return "another LLDP agent of this host (" + a.ChassisID + ")"
	}
	return ""
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
