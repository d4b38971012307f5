// SPDX-License-Identifier: Apache-2.0

package capture_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
)

// TestEndsScan: a scan keeps the speakers, never the frames, and at most
// eight of an interface (a hostile capture of a new MSAP a frame holds
// no more); an interface whose frames say their direction is left out;
// a whole scan reads past the first TTL window, a stream's stops there.
func TestEndsScan(t *testing.T) {
	type speaker struct {
		Interface string
		Last      byte // of the source address
	}
	scan := func(whole bool, frames []capture.Frame) []speaker {
		s := capture.EndsScan{Whole: whole}
		for _, f := range frames {
			if !s.Add(f) {
				break
			}
		}
		var out []speaker
		for _, e := range s.Ends() {
			out = append(out, speaker{e.Interface, e.MAC[5]})
		}
		return out
	}
	frame := func(iface string, sec int, last byte, dir capture.Direction) capture.Frame {
		return capture.Frame{Interface: iface, At: t0.Add(time.Duration(sec) * time.Second), Dir: dir, Data: lldpFrame(last)}
	}
	var hostile []capture.Frame
	for i := range 200 {
		hostile = append(hostile, frame("eth0", i, byte(i), capture.DirectionUnknown))
	}
	var want []speaker
	for i := range 8 {
		want = append(want, speaker{"eth0", byte(i)})
	}
	if diff := cmp.Diff(want, scan(true, hostile)); diff != "" {
		t.Errorf("a new speaker a frame (-want +got):\n%s", diff)
	}

	mixed := []capture.Frame{frame("eth0", 0, 1, capture.DirectionUnknown), frame("eth1", 1, 2, capture.DirectionUnknown),
		frame("eth1", 2, 3, capture.DirectionOutgoing), frame("eth0", 3, 4, capture.DirectionUnknown)}
	if diff := cmp.Diff([]speaker{{"eth0", 1}, {"eth0", 4}}, scan(true, mixed)); diff != "" {
		t.Errorf("an interface with directions (-want +got):\n%s", diff)
	}
	if got := scan(true, []capture.Frame{frame("eth0", 0, 1, capture.DirectionIncoming), frame("eth1", 1, 2, capture.DirectionUnknown)}); got != nil {
		t.Errorf("a capture whose first frame says its direction: %v", got)
	}

	// TTL 120 s: a stream is scanned for 150 s, a file to its end.
	late := []capture.Frame{frame("eth0", 0, 1, capture.DirectionUnknown), frame("eth0", 30, 1, capture.DirectionUnknown),
		frame("eth0", 600, 1, capture.DirectionUnknown), frame("eth0", 601, 2, capture.DirectionUnknown)}
	if diff := cmp.Diff([]speaker{{"eth0", 1}, {"eth0", 2}}, scan(true, late)); diff != "" {
		t.Errorf("whole, a late speaker (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]speaker{{"eth0", 1}}, scan(false, late)); diff != "" {
		t.Errorf("a stream, a late speaker (-want +got):\n%s", diff)
	}
}
