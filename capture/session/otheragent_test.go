// SPDX-License-Identifier: Apache-2.0

package session

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// What the run learnt of another agent is stamped with the time the loop
// applies it, never before the engine's clock (a tick applied while the
// round waited for the agent's answer): its indications then carry its
// own time, which a replay, without that tick, gives them too.
func TestLearntNow(t *testing.T) {
	r, err := newLiveRun(&Config{Clock: capture.Clock{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	asked := time.Now().UTC().Add(-time.Second)
	ev := engine.LocalChanged{Interface: "eth0", At: asked, Source: engine.SourceAgent, Willing: true, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}}
	before := time.Now().UTC()
	got := r.learntNow(ev).(engine.LocalChanged)
	if got.At.Before(before) || got.At.After(time.Now().UTC()) {
		t.Errorf("stamped %v, want the time it is applied (after %v)", got.At, before)
	}
	later := time.Now().UTC().Add(time.Hour) // the engine's clock, moved by a tick of a clock ahead
	r.apply(engine.Tick{At: later})
	if got := r.learntNow(ev).(engine.LocalChanged); !got.At.Equal(later) {
		t.Errorf("stamped %v with the engine at %v, want the engine's time", got.At, later)
	}
	got.At = ev.At
	if diff := cmp.Diff(ev, got); diff != "" {
		t.Errorf("the rest of the event changed (-want +got):\n%s", diff)
	}
	r.apply(r.learntNow(ev))
	var in []engine.Indication
	for _, x := range r.h.Engine().Snapshot().Indications {
		if x.Status == engine.StatusLocal {
			in = append(in, x)
		}
	}
	if len(in) != 1 || !in[0].Time.Equal(later) {
		t.Errorf("local indications %+v, want one at %v", in, later)
	}
}
