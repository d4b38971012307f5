// SPDX-License-Identifier: Apache-2.0

package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
)

// otherParams are an agent's local parameters with every IEEE feature.
const otherParams = `{
  "ets": {"willing": true, "cbs": false, "max_tcs": 8, "prio_tc": [0,0,0,1,0,1,0,0], "tc_bandwidth": [50,50,0,0,0,0,0,0],
          "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "ets_reco": {"prio_tc": [0,0,0,1,0,0,0,0], "tc_bandwidth": [60,40,0,0,0,0,0,0],
               "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "pfc": {"willing": true, "mbc": false, "cap": 8, "enabled": [3, 5]},
  "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}, {"selector": "dscp", "protocol": 26, "priority": 3}]
}`

// What the run learnt of another agent (control.OtherAgents' events) is
// recorded (learntRecord) and played back (tapePlayer.single) as the
// same engine event: its interface, time, source, Willing, withdrawal
// and parameters; a source this version does not know is read past, and
// parameters that do not decode stop the replay at their record.
func TestLearntRecordReplayed(t *testing.T) {
	p, err := dcb.ParseParams(strings.NewReader(otherParams))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	p2 := newTapePlayer()
	for _, ev := range []engine.LocalChanged{
		{Interface: "eth0", At: at, Source: engine.SourceAgent, Willing: true, Params: p},
		{Interface: "eth0", At: at, Source: engine.SourceAgent, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}},
		{Interface: "eth1", At: at, Source: engine.SourceAgent, Withdrawn: true},
	} {
		rec, err := learntRecord(ev)
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := tape.DecodeHost(tape.AppendHost(nil, rec))
		if err != nil {
			t.Fatal(err)
		}
		got, err := p2.single(at, decoded)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]engine.Event{ev}, got); diff != "" {
			t.Errorf("%s, withdrawn %v: the replayed event (-live +replay):\n%s", ev.Interface, ev.Withdrawn, diff)
		}
	}
	if got, err := p2.single(at, tape.Local{Ifname: "eth0", Source: "a later source", Params: []byte("{}")}); err != nil || got != nil {
		t.Errorf("a source this version does not know: %v, %v; want nothing", got, err)
	}
	if _, err := p2.single(at, tape.Local{Ifname: "eth0", Source: "agent", Params: []byte(`{"pfc":`)}); !errors.Is(err, tape.ErrMalformed) {
		t.Errorf("parameters cut short: %v, want tape.ErrMalformed", err)
	}
}

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
