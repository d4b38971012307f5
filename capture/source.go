package capture

import (
	"context"
	"time"
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
}

// A Source yields Frames until ctx is done or it is exhausted, in which case
// ReadFrame returns io.EOF.
type Source interface {
	ReadFrame(ctx context.Context) (Frame, error)
	Close() error
}
