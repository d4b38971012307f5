// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// How long dcbtop check waits: until every interface is ready to judge
// (readiness), or --wait runs out.

// checkCountersGrace is how long, once every peer is known, a check waits
// for interfaces' second counter sample: an interface without counters
// has none to wait for.
const checkCountersGrace = 2500 * time.Millisecond

// readiness follows the snapshots of a live check and says when what it
// needs has been seen.
type readiness struct {
	names   []string             // the interfaces asked for; nil: all
	samples map[string]time.Time // each interface's latest sample
	counts  map[string]int       // and how many were seen
	peersAt time.Time            // when every peer was known (zero: not yet)
	pending bool                 // interfaces still wait for samples
	// unsettled and unsampled name, as of the last snapshot, the
	// interfaces without a settled peer and those awaiting samples.
	unsettled, unsampled []string
}

func newReadiness(names []string) *readiness {
	return &readiness{names: names, samples: map[string]time.Time{}, counts: map[string]int{}}
}

// see takes a snapshot seen at now and reports whether the check may end.
func (w *readiness) see(s engine.Snapshot, now time.Time) bool {
	allPeers := true
	w.pending = false
	w.unsettled, w.unsampled = w.unsettled[:0], w.unsampled[:0]
	n := 0
	for i := range s.Interfaces {
		in := &s.Interfaces[i]
		if w.names != nil && !slices.Contains(w.names, in.Name) {
			continue
		}
		n++
		if c := in.Counters; c != nil && !c.SampledAt.Equal(w.samples[in.Name]) {
			w.samples[in.Name] = c.SampledAt
			w.counts[in.Name]++
		}
		if w.counts[in.Name] < 2 {
			w.pending = true
			w.unsampled = append(w.unsampled, in.Name)
		}
		if !in.RemoteSettled() {
			allPeers = false
			w.unsettled = append(w.unsettled, in.Name)
		}
	}
	if n == 0 || (w.names != nil && n < len(w.names)) {
		allPeers = false
	}
	if allPeers && w.peersAt.IsZero() {
		w.peersAt = now
	}
	if !allPeers {
		w.peersAt = time.Time{}
	}
	return w.done(now)
}

// waitingFor says what the check still waits for, "" when nothing: the
// interfaces without a settled DCBX peer ("a DCBX peer on eth0, eth1"),
// else their counters ("counters on eth0").
func (w *readiness) waitingFor() string {
	if len(w.unsettled) > 0 {
		return "a DCBX peer on " + strings.Join(w.unsettled, ", ")
	}
	if w.pending {
		return "counters on " + strings.Join(w.unsampled, ", ")
	}
	return ""
}

// fmtWait renders a wait as whole seconds ("12s").
func fmtWait(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

// done reports whether, at now, every peer is known and the counters have
// been sampled twice or had their grace.
func (w *readiness) done(now time.Time) bool {
	return !w.peersAt.IsZero() && (!w.pending || now.Sub(w.peersAt) >= checkCountersGrace)
}
