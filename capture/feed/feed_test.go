// SPDX-License-Identifier: Apache-2.0

package feed

import (
	"slices"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// TestSnapFeedCoalesces publishes faster than anyone reads: publish never
// blocks, the reader gets the latest snapshot, and a concurrent reader
// only ever sees newer ones.
func TestSnapFeedCoalesces(t *testing.T) {
	f := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 1000; i++ {
			f.Publish(engine.Snapshot{Generation: uint64(i)})
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("publish blocked without a reader")
	}
	if s := <-f.C(); s.Generation != 1000 {
		t.Errorf("reader got generation %d, want the latest, 1000", s.Generation)
	}
	select {
	case s := <-f.C():
		t.Errorf("a second snapshot waited: generation %d", s.Generation)
	default:
	}
	if s, ok := f.Snapshot(); !ok || s.Generation != 1000 {
		t.Errorf("latest for the backend: %d, %v", s.Generation, ok)
	}

	// A reader racing the producer: strictly increasing, ending with the
	// last one.
	f = New()
	got := make(chan []uint64)
	go func() {
		var seen []uint64
		for s := range f.C() {
			seen = append(seen, s.Generation)
		}
		got <- seen
	}()
	for i := 1; i <= 20000; i++ {
		f.Publish(engine.Snapshot{Generation: uint64(i)})
	}
	f.Close()
	f.Publish(engine.Snapshot{Generation: 99999}) // after close: ignored
	seen := <-got
	if len(seen) == 0 || seen[len(seen)-1] != 20000 || !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
		t.Errorf("reader saw %d snapshots, last %v; want increasing generations ending with 20000", len(seen), seen[len(seen)-1:])
	}
}
