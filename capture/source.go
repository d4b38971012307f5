// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"context"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// Direction tells whether a captured frame was received from the wire or
// sent by this host. Classic pcap files of Ethernet frames carry no
// direction and report DirectionUnknown; Linux cooked captures and pcapng
// direction flags do carry one.
type Direction uint8

// Directions of a Frame.
const (
	DirectionUnknown  Direction = iota // replay without direction information
	DirectionIncoming                  // received from the link partner
	DirectionOutgoing                  // transmitted by this host (PACKET_OUTGOING)
)

// String returns "unknown", "in" or "out".
func (d Direction) String() string {
	switch d {
	case DirectionIncoming:
		return "in"
	case DirectionOutgoing:
		return "out"
	default:
		return "unknown"
	}
}

// A Frame is one captured Ethernet frame, link-layer header included.
// Data is owned by the receiver of the Frame: a Source never reuses it.
type Frame struct {
	// Interface is the name the frame was captured on; for a replayed file
	// it is the name the Source gives the file's interface (e.g. "pcap0").
	Interface string
	// At is the capture timestamp: the engine's only "now" for frames.
	At time.Time
	// Dir is the direction of the frame, when known.
	Dir Direction
	// Data is the Ethernet frame starting at the destination MAC.
	Data []byte
	// DstAssumed reports that the capture did not record the destination
	// address (a Linux cooked capture) and Data's destination is the one
	// dcbtop assumed from the packet type: the nearest-bridge group address
	// 01:80:c2:00:00:0e for an LLDP frame (EtherType 0x88cc, possibly
	// behind one or two 802.1Q or 802.1ad tags) whose packet type is
	// PACKET_MULTICAST (2, received for a multicast group) or
	// PACKET_OUTGOING (4, sent by this host); 00:00:00:00:00:00, which
	// means unknown, for any other packet type or EtherType. Either way
	// Data's destination is a stand-in, not what was on the wire, and an
	// LLDP scope derived from it is an assumption.
	//
	// The packet type decides alone: pcapng direction flags, which may
	// override Dir, do not change the destination. DstAssumed is false for
	// frames whose capture records the destination (Ethernet records, live
	// capture). See the package documentation for the reasoning, and
	// https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html and
	// https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html for the
	// packet types.
	DstAssumed bool
	// Note, when not empty, says what was odd about the record although it
	// was read (one line, e.g. "record 7 at offset 412: capture length 70
	// exceeds packet length 60; read as captured").
	//
	// A Replay sets it for a record whose capture length exceeds its
	// original packet length or the snapshot length of its file (classic
	// pcap) or interface (pcapng), which the formats forbid but tshark
	// reads anyway; Data then holds every captured byte. Live capture
	// never sets it.
	Note string
}

// Event returns the engine's event for f, captured on iface and stamped
// at: the run's time of the frame (its kernel timestamp f.At on the
// run's clock, or, replayed, the capture's timestamp).
func (f Frame) Event(iface string, at time.Time) engine.FrameReceived {
	return engine.FrameReceived{Interface: iface, At: at, Outgoing: f.Dir == DirectionOutgoing, Data: f.Data,
		DstAssumed: f.DstAssumed, Note: f.Note}
}

// A Source yields Frames until ctx is done or it is exhausted, in which case
// ReadFrame returns io.EOF.
type Source interface {
	ReadFrame(ctx context.Context) (Frame, error)
	Close() error
}
