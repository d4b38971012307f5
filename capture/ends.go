package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// scanEndsFrames and scanEndsWindow bound ScanEnds: it reads the first
// frames of a capture, as many as stand within the longest TTL heard (every
// speaker of a link sends at least once a TTL) and at most this many.
const (
	scanEndsFrames = 20000
	scanEndsWindow = 10 * time.Minute
)

// ScanEnds reads the start of a capture file for the LLDP speakers of
// each interface whose frames do not say their direction (a classic
// pcap; a pcapng without direction flags): one engine.LinkEnd per
// interface, source address and MSAP, in the order first heard. Frames
// with a direction (a Linux cooked capture, pcapng flags) are not
// speakers to choose from. It reads until the longest TTL heard has
// passed since the first frame, scanEndsFrames or the end; a record the
// replay cannot read ends the scan (the replay itself reports it).
func ScanEnds(path string) ([]engine.LinkEnd, error) {
	r, err := OpenReplay(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	var out []engine.LinkEnd
	at := map[string]int{} // interface, source, MSAP -> index in out
	var first time.Time
	window := time.Duration(0)
	ctx := context.Background()
	for n := 0; n < scanEndsFrames; n++ {
		f, err := r.ReadFrame(ctx)
		if err != nil {
			break
		}
		if n == 0 {
			first = f.At
		}
		if window > 0 && f.At.Sub(first) > window {
			break
		}
		if f.Dir != DirectionUnknown {
			continue
		}
		h, pdu, err := lldp.SplitFrame(f.Data)
		if err != nil {
			continue
		}
		du, err := lldp.Parse(pdu)
		if err != nil || du.Shutdown() {
			continue
		}
		if ttl := time.Duration(du.TTL) * time.Second; ttl > window {
			window = min(ttl+ttl/4, scanEndsWindow)
		}
		msap := du.ChassisID.String() + " / " + du.PortID.String()
		key := f.Interface + "\x00" + h.Src.String() + "\x00" + msap
		i, ok := at[key]
		if !ok {
			e := engine.LinkEnd{Interface: f.Interface, MAC: h.Src, MSAP: msap, First: f.At}
			if p := engine.ParamsFromDU(du); p != nil && h.Dst == lldp.NearestBridge {
				e.DCBX = true
				e.Willing = (p.ETS != nil && p.ETS.Willing) || (p.PFC != nil && p.PFC.Willing)
			}
			i = len(out)
			at[key] = i
			out = append(out, e)
		}
		out[i].Frames++
	}
	return out, nil
}
