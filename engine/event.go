// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// An Event is an input to the Engine. Each carries its own time: the
// engine never reads the clock. The set of events is closed.
type Event interface{ isEvent() }

// A FrameReceived is one captured Ethernet frame carrying an LLDPDU.
type FrameReceived struct {
	Interface string
	At        time.Time
	// Outgoing marks a frame this host transmitted (PACKET_OUTGOING): the
	// advertisement of a local agent, not a peer's.
	Outgoing bool
	// Data is the whole Ethernet frame. The engine copies what it keeps.
	Data []byte
	// DstAssumed reports that the capture did not record the destination
	// address (a Linux cooked capture, "tcpdump -i any"): Data's
	// destination is the capture's assumption from the packet type, and
	// the peer's scope is marked assumed in the snapshot.
	DstAssumed bool
	// Note, when not empty, is what was odd about the capture record
	// although it was read ("record 7 at offset 412: capture length 70
	// exceeds packet length 60; read as captured").
	Note string
}

// A Tick advances the clock without a frame, so information ages out in
// live mode when nothing arrives.
type Tick struct {
	At time.Time
}

// A LocalChanged sets an interface's local parameters and local DCBX
// Willing state, as read from the kernel (dcbnl), configured for dcbtop's
// own agent, or applied by the operator.
type LocalChanged struct {
	Interface string
	At        time.Time
	// Source says who provides the parameters: SourceAgent or SourceDCBNL
	// (SourceObserved comes from this host's outgoing LLDPDUs). The engine
	// keeps each source's latest and puts the most authoritative in force
	// (see LocalSource).
	Source  LocalSource
	Willing bool
	// Params are the local parameters; nil means unknown.
	Params *dcb.Params
	// Mode describes the NIC's DCBX mode in words when known (from
	// DCB_CMD_GDCBX, e.g. "host agent, IEEE"); "" when unknown.
	Mode string
	// FirmwareManaged reports that the NIC's firmware runs DCBX
	// (DCB_CAP_DCBX_LLD_MANAGED): the host may never see LLDP frames and
	// local parameters must not be written.
	FirmwareManaged bool
	// Kept, for SourceAgent, says in words where the parameters were kept
	// when dcbtop's agent started from the state kept for the port
	// (engine/host Kept: "saved for eth0 (…) on … in …"); "" otherwise,
	// and any later change of the agent's parameters clears it.
	Kept string
	// Withdrawn says the source no longer provides local parameters
	// (dcbtop's agent stopped): the next source in precedence, if any,
	// takes over.
	Withdrawn bool
}

// A LinkChanged reports an interface's identity and link state.
type LinkChanged struct {
	Interface string
	At        time.Time
	Ifindex   int
	MAC       lldp.MAC
	Up        bool
	// Removed marks an interface that was deleted; it stays in the
	// snapshot as down and its peers age out normally.
	Removed bool
	// Was, when set, is the interface's name before a rename (the same
	// interface index under a new name, ip link set name): the port and
	// everything it holds (peers, local parameters, counters) is the
	// interface's under its new name from now on, as the kernel's
	// interface is the same one.
	Was string
	// MTU is the interface's MTU (IFLA_MTU), 0 when not known: the
	// largest frame it sends is MTU+18 bytes untagged (IEEE Std 802.3
	// clause 3.1.1: header 14, FCS 4), which the peer's Maximum Frame
	// Size TLV must allow.
	MTU int
	// VLANs are the 802.1Q VLAN IDs of the VLAN interfaces on this one
	// (the VLANs this host uses on the port), sorted; nil when not known
	// (a recording made before they were recorded), empty when none.
	VLANs []uint16
}

// A CaptureStatus reports the health of an interface's capture: the
// current socket error ("" when capturing) and counters the capture keeps.
type CaptureStatus struct {
	Interface   string
	At          time.Time
	Err         string
	KernelDrops uint64 // frames the kernel dropped for the socket (accumulated)
	Sent        uint64 // LLDPDUs transmitted by dcbtop's agent
}

// A HostObserved reports what the host around the interfaces allows: the
// LLDP agent processes running in this network namespace (which own what
// the host advertises) and whether this process may write DCB netlink.
// The capture layer sends one at start and one whenever it changes, so
// that the capabilities in every snapshot are current (an agent that
// exits stops blocking writes at the next snapshot).
type HostObserved struct {
	At time.Time
	// NetAdmin: this process may write DCB netlink (CAP_NET_ADMIN).
	NetAdmin bool
	// Agents are the LLDP agent processes of this network namespace.
	Agents []HostAgent
}

// A HostAgent is an LLDP agent process of this host.
type HostAgent struct {
	Name string `json:"name"` // "lldpd", "lldpad"
	PID  int    `json:"pid"`
	// Transmits is false for an agent that only receives (lldpd -r):
	// it advertises nothing, so dcbtop's agent may run beside it.
	Transmits bool `json:"transmits"`
}

// String names the agent as operators see it: "lldpd (pid 42)".
func (a HostAgent) String() string { return fmt.Sprintf("%s (pid %d)", a.Name, a.PID) }

func (FrameReceived) isEvent() {}
func (Tick) isEvent()          {}
func (LocalChanged) isEvent()  {}
func (LinkChanged) isEvent()   {}
func (CaptureStatus) isEvent() {}
func (HostObserved) isEvent()  {}

// CountersSampled is one sample of an interface's lossless counters (see
// lossless.Sample), as the capture layer takes them.
type CountersSampled lossless.Sample

func (CountersSampled) isEvent() {}
