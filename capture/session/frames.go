// SPDX-License-Identifier: Apache-2.0

package session

import (
	"sync"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/frames"
)

// A FrameLog is a run's every LLDPDU within a bounded ring
// (engine/frames.Ring): each with its time, sender and what changed
// against that sender's previous one, for the screen's frames view and
// dcbtop -r FILE --frames. The engine goroutine adds to it where frames
// enter the engine (applyFrame); the screen reads it from its own, hence
// the lock. Adding an LLDPDU identical to its sender's previous one does
// not allocate.
type FrameLog struct {
	mu   sync.Mutex
	ring *frames.Ring
}

// newFrameLog returns an empty log within the default bounds.
func newFrameLog() *FrameLog { return &FrameLog{ring: frames.NewRing(frames.Limits{})} }

// add records the frame fr (engine goroutine); false for a frame that
// is not an LLDP frame.
func (l *FrameLog) add(fr engine.FrameReceived) (frames.Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ring.Add(frames.Frame{At: fr.At, Interface: fr.Interface, Outgoing: fr.Outgoing, Data: fr.Data})
}

// reset empties the log: a replay's seek re-runs the file from its
// start.
func (l *FrameLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring.Reset()
}

// Since returns the records the log holds whose Number is greater than
// after, oldest first, the number of LLDPDUs the run has had (the last
// one's Number) and the Number of the oldest it still holds (0: none).
// A nil log has none.
func (l *FrameLog) Since(after uint64) (recs []frames.Record, total, oldest uint64) {
	if l == nil {
		return nil, 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ring.Len() > 0 {
		oldest = l.ring.At(0).Number
	}
	return l.ring.Since(nil, after), l.ring.Total(), oldest
}
