// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestCheckCaptureEnds: dcbx-peer states how a capture without
// direction was read. Ambiguous (two ends, no evidence which is this
// host), it is UNKNOWN, never OK nor the verdict of the one reading the
// frames give as they came, with both readings and how to choose between
// them (7737732: "OK a valid DCBX peer" for a capture of two switches,
// read as host and peer because one sent first).
func TestCheckCaptureEnds(t *testing.T) {
	mp := func(m lldp.MAC) *lldp.MAC { return &m }
	macC := lldp.MAC{2, 0, 0, 0, 0, 0xc}
	for _, tt := range []struct {
		name   string
		ends   engine.CaptureEnds
		frames []engine.FrameReceived
		want   verdict.Result
	}{
		{
			name: "ambiguous: two switches",
			ends: engine.CaptureEnds{Ambiguous: true, Rule: engine.EndRuleAmbiguous,
				Readings: []engine.EndsReading{{LocalMAC: macA, PeerMAC: macB}, {LocalMAC: macB, PeerMAC: macA}}},
			frames: []engine.FrameReceived{{Data: frame(t, macA, 120, etsA, pfc3)}, {Data: frame(t, macB, 120, etsA, pfc3)}},
			want: verdict.Result{Interface: "eth0", Check: verdict.CheckPeer, Verdict: verdict.Unknown,
				Summary: "ambiguous: two LLDP speakers, and nothing in the capture says which is this host and which the peer",
				Evidence: []string{"peer mac 02:00:00:00:00:0a / ifname swp1", "peer mac 02:00:00:00:00:0b / ifname swp1",
					"read as two peers: 2 DCBX peers on one link: the remote parameters are invalid (multi-peer)",
					"or the two ends of one link: this host 02:00:00:00:00:0a, the peer 02:00:00:00:00:0b",
					"or the two ends of one link: this host 02:00:00:00:00:0b, the peer 02:00:00:00:00:0a"},
				Fix: "say which end is this host: --local-mac 02:00:00:00:00:0a or --local-mac 02:00:00:00:00:0b"},
		},
		{
			name:   "the two ends of one link",
			ends:   engine.CaptureEnds{LocalMAC: mp(macA), PeerMAC: mp(macB), Rule: engine.EndRuleCapabilities},
			frames: []engine.FrameReceived{{Outgoing: true, Data: frame(t, macA, 120, etsA, pfc3)}, {Data: frame(t, macB, 120, etsA, pfc3)}},
			want: verdict.Result{Interface: "eth0", Check: verdict.CheckPeer, Verdict: verdict.OK, Summary: "a valid DCBX peer (ieee)",
				Evidence: []string{"peer leaf-0b (mac 02:00:00:00:00:0b / ifname swp1), TTL 120 s, DCBX ieee", "dialect ieee",
					"the capture read as both ends of one link: this host 02:00:00:00:00:0a, the peer 02:00:00:00:00:0b (" + engine.EndRuleCapabilities + ")"}},
		},
		{
			name: "--local-mac among three speakers: the other two are two peers",
			ends: engine.CaptureEnds{LocalMAC: mp(macC), Rule: engine.EndRuleGiven},
			frames: []engine.FrameReceived{{Outgoing: true, Data: frame(t, macC, 120, etsA, pfc3)}, {Data: frame(t, macA, 120, etsA, pfc3)},
				{Data: frame(t, macB, 120, etsA, pfc3)}},
			want: verdict.Result{Interface: "eth0", Check: verdict.CheckPeer, Verdict: verdict.Critical,
				Summary: "2 DCBX peers on one link: the remote parameters are invalid (multi-peer)",
				Evidence: []string{"peer mac 02:00:00:00:00:0a / ifname swp1", "peer mac 02:00:00:00:00:0b / ifname swp1",
					"the capture's frames from 02:00:00:00:00:0c read as this host's (" + engine.EndRuleGiven + ")", "diagnostic multi-peer"},
				Fix: "leave one DCBX agent on the link (a second switch port, a hypervisor's or NIC firmware agent)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine.New(engine.Config{Replay: true})
			e.Apply(engine.EndsAssumed{Interface: "eth0", At: at(0), Ends: tt.ends})
			for i, f := range tt.frames {
				f.Interface, f.At = "eth0", at(float64(i+1))
				e.Apply(f)
			}
			in, _ := e.Interface("eth0")
			got := Run(&in, Options{Replay: true})[0]
			// The facts and blames are TestKnownBeforeJudged's.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(verdict.Result{}, "Facts", "Blames")); diff != "" {
				t.Errorf("dcbx-peer (-want +got):\n%s", diff)
			}
		})
	}
}
