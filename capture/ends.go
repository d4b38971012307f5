// SPDX-License-Identifier: Apache-2.0

package capture

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// scanEndsFrames and scanEndsWindow bound an EndsScan of a stream (not
// Whole): the first frames of a capture, as many as stand within the
// longest TTL heard (every speaker of a link sends at least once a TTL),
// at most this many and this long; the replay keeps them while it
// decides. scanEndsSpeakers and scanEndsInterfaces bound what any scan
// keeps: the first speakers of an interface (more than two are not the
// two ends of one link whatever they are) and the interfaces (the
// engine's MaxInterfaces).
const (
	scanEndsFrames     = 4096
	scanEndsWindow     = 10 * time.Minute
	scanEndsSpeakers   = 8
	scanEndsInterfaces = 1024
)

// An EndsScan collects the LLDP speakers of each interface of a capture
// whose frames do not say their direction (a classic pcap; a pcapng
// without direction flags): one engine.LinkEnd per interface, source
// address and MSAP, in the order first heard, as its first LLDPDU
// describes it (engine.LocalEnds decides which end is this host's). It
// keeps the speakers, never the frames: at most scanEndsSpeakers of an
// interface, scanEndsInterfaces interfaces. Frames with a direction (a
// Linux cooked capture's packet type, PACKET_OUTGOING or another, in
// include/uapi/linux/if_packet.h; pcapng epb_flags inbound or outbound)
// are no speakers to choose from: a capture whose first frame has one
// ends the scan, and an interface with one is left out.
//
// Whole scans a capture file to its end (ScanEnds: a first pass before
// the replay reads it again), so that an agent that starts late is an
// end; otherwise the scan is of a stream read once, and stops after the
// longest TTL heard or scanEndsFrames frames.
type EndsScan struct {
	Whole bool

	out      []engine.LinkEnd
	seen     map[string]bool // interface, source, raw chassis and port IDs of the speakers in out
	speakers map[string]int  // speakers kept per interface
	directed map[string]bool // interfaces with frames that say their direction
	key      []byte          // the key of the frame being added
	// recent are the last speakers a Whole scan met, found again by
	// their frames' leading bytes alone (next the one to replace).
	recent [2]recentSpeaker
	next   int
	n      int
	first  time.Time
	window time.Duration
}

// A recentSpeaker is a speaker a scan met: its interface, and its frames'
// bytes from the source address to the end of the Port ID TLV (EtherType,
// tags, Chassis ID TLV between), which a frame that starts so shares with
// it: the same speaker, already counted.
type recentSpeaker struct {
	iface string
	head  []byte
}

// again reports whether f is from a speaker of s.recent.
func (s *EndsScan) again(f Frame) bool {
	for _, r := range s.recent {
		if len(r.head) > 0 && r.iface == f.Interface && len(f.Data) >= 6+len(r.head) && string(f.Data[6:6+len(r.head)]) == string(r.head) {
			return true
		}
	}
	return false
}

// remember makes f's speaker, whose LLDPDU pdu (in f.Data) starts with
// the Chassis ID and Port ID TLVs chassis and port, one of s.recent.
func (s *EndsScan) remember(f Frame, pdu, chassis, port []byte) {
	end := len(f.Data) - len(pdu) + 4 + len(chassis) + len(port)
	r := &s.recent[s.next]
	r.iface, r.head = f.Interface, append(r.head[:0], f.Data[6:end]...)
	s.next = (s.next + 1) % len(s.recent)
}

// Add takes the capture's next frame and reports whether the scan wants
// more.
func (s *EndsScan) Add(f Frame) bool {
	s.n++
	if s.n == 1 {
		s.first = f.At
		if f.Dir != DirectionUnknown {
			return false
		}
	}
	if !s.Whole && (s.n > scanEndsFrames || (s.window > 0 && f.At.Sub(s.first) > s.window)) {
		return false
	}
	if f.Dir != DirectionUnknown {
		if s.directed == nil {
			s.directed = map[string]bool{}
		}
		if len(s.directed) < scanEndsInterfaces {
			s.directed[f.Interface] = true
		}
		return true
	}
	if s.Whole && s.again(f) {
		return true // the cost of a whole scan is this, most frames
	}
	h, pdu, err := lldp.SplitFrame(f.Data)
	if err != nil {
		return true
	}
	// A speaker heard before is found by its raw chassis and port IDs,
	// read in place: only a new one's LLDPDU is decoded (decoding each
	// frame cost a replay 10 % of its allocations).
	chassis, port, ttl, err := lldp.PeekMSAP(pdu)
	if err != nil || ttl == 0 {
		return true // malformed, or a shutdown: no speaker to count
	}
	if ttl := time.Duration(ttl) * time.Second; ttl > s.window {
		s.window = min(ttl+ttl/4, scanEndsWindow)
	}
	s.key = append(append(append(s.key[:0], f.Interface...), 0), h.Src[:]...)
	s.key = append(append(append(s.key, byte(len(chassis)>>8), byte(len(chassis))), chassis...), port...)
	if s.seen[string(s.key)] {
		s.remember(f, pdu, chassis, port)
		return true
	}
	n, known := s.speakers[f.Interface]
	if n >= scanEndsSpeakers || (!known && len(s.speakers) >= scanEndsInterfaces) {
		// Enough of this interface's speakers, or of interfaces, for
		// good: the counts only grow.
		s.remember(f, pdu, chassis, port)
		return true
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		return true
	}
	e := engine.LinkEnd{Interface: f.Interface, MAC: h.Src, MSAP: du.ChassisID.String() + " / " + du.PortID.String(), First: f.At}
	if p := dcb.ParamsFromDU(du); p != nil && h.Dst == lldp.NearestBridge {
		e.DCBX = true
		e.Willing = (p.ETS != nil && p.ETS.Willing) || (p.PFC != nil && p.PFC.Willing)
	}
	if c := du.SystemCapabilities(); c != nil {
		cc := *c
		e.Capabilities = &cc
	}
	if s.seen == nil {
		s.seen, s.speakers = map[string]bool{}, map[string]int{}
	}
	s.seen[string(s.key)] = true
	s.speakers[f.Interface] = n + 1
	s.out = append(s.out, e)
	s.remember(f, pdu, chassis, port)
	return true
}

// Ends returns the speakers found on the interfaces whose frames say no
// direction.
func (s *EndsScan) Ends() []engine.LinkEnd {
	if len(s.directed) == 0 {
		return s.out
	}
	var out []engine.LinkEnd
	for _, e := range s.out {
		if !s.directed[e.Interface] {
			out = append(out, e)
		}
	}
	return out
}
