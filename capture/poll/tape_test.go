// SPDX-License-Identifier: Apache-2.0

package poll

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
// recorded (LearntRecord) and played back (TapePlayer.single) as the
// same engine event: its interface, time, source, Willing, withdrawal
// and parameters; a source this version does not know is read past, and
// parameters that do not decode stop the replay at their record.
func TestLearntRecordReplayed(t *testing.T) {
	p, err := dcb.ParseParams(strings.NewReader(otherParams))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	p2 := NewTapePlayer()
	for _, ev := range []engine.LocalChanged{
		{Interface: "eth0", At: at, Source: engine.SourceAgent, Willing: true, Params: p},
		{Interface: "eth0", At: at, Source: engine.SourceAgent, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}},
		{Interface: "eth1", At: at, Source: engine.SourceAgent, Withdrawn: true},
	} {
		rec, err := LearntRecord(ev)
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
