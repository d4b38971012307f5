package capture

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// scanEndsFrames and scanEndsWindow bound an EndsScan: the first frames
// of a capture, as many as stand within the longest TTL heard (every
// speaker of a link sends at least once a TTL), at most this many and
// this long; the replay keeps them while it decides.
const (
	scanEndsFrames = 4096
	scanEndsWindow = 10 * time.Minute
)

// An EndsScan collects the LLDP speakers of each interface of a capture
// whose frames do not say their direction (a classic pcap; a pcapng
// without direction flags): one engine.LinkEnd per interface, source
// address and MSAP, in the order first heard (engine.LocalEnds decides
// which end is this host's). Frames with a direction (a Linux cooked
// capture, pcapng flags) are no speakers to choose from: a capture whose
// first frame has one ends the scan.
type EndsScan struct {
	out    []engine.LinkEnd
	seen   map[string]bool // interface, source, raw chassis and port IDs of the speakers in out
	key    []byte          // the key of the frame being added
	n      int
	first  time.Time
	window time.Duration
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
	if s.n > scanEndsFrames || (s.window > 0 && f.At.Sub(s.first) > s.window) {
		return false
	}
	if f.Dir != DirectionUnknown {
		return true
	}
	h, pdu, err := lldp.SplitFrame(f.Data)
	if err != nil {
		return true
	}
	// A speaker heard before is found by its raw chassis and port IDs,
	// read in place: only a new one's LLDPDU is decoded (decoding each
	// of the first 4096 frames cost a replay 10 % of its allocations).
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
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[string(s.key)] = true
	s.out = append(s.out, e)
	return true
}

// Ends returns the speakers found.
func (s *EndsScan) Ends() []engine.LinkEnd { return s.out }
