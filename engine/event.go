package engine

import "time"

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
}

// A Tick advances the clock without a frame, so information ages out in
// live mode when nothing arrives.
type Tick struct {
	At time.Time
}

func (FrameReceived) isEvent() {}
func (Tick) isEvent()          {}
