// SPDX-License-Identifier: Apache-2.0

package replay

import (
	"context"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/engine"
)

// scanEnds reads the capture file at path to its end for the speakers of
// its interfaces without direction (a capture.EndsScan, Whole): a first pass
// that keeps the speakers, not the frames, before a replay reads the
// file again. A capture whose first frame says its direction, or a
// dcbtop recording (its host packets: it records directions), ends the
// pass at once; a read error ends it with what was read (the replay
// reports the error where it meets it).
func scanEnds(path string) ([]engine.LinkEnd, error) {
	r, err := pcap.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.Borrow() // the scan copies what it keeps
	s := capture.EndsScan{Whole: true}
	ctx := context.Background()
	for {
		f, err := r.ReadFrame(ctx)
		if err != nil || !s.Add(f) {
			return s.Ends(), nil
		}
	}
}
