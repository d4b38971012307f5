package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestLocalEnds: two speakers, each with its own address and one MSAP,
// are the two ends of one link, and this host's end is --local-mac's,
// else the only willing one, else the first to send; anything else is
// left alone (multi-peer stays multi-peer). 54a24de read tcpdump's
// dcb_ets.pcap (two lldpad hosts) as two DCBX peers on one link.
func TestLocalEnds(t *testing.T) {
	a := lldp.MAC{8, 0, 0x27, 0x0d, 0xf1, 0x3c}
	b := lldp.MAC{8, 0, 0x27, 0x42, 0xba, 0x59}
	c := lldp.MAC{2, 0, 0, 0, 0, 3}
	end := func(m lldp.MAC, msap string, first float64, willing bool) LinkEnd {
		return LinkEnd{Interface: "pcap0", MAC: m, MSAP: msap, First: at(first), DCBX: true, Willing: willing}
	}
	for _, tt := range []struct {
		name  string
		ends  []LinkEnd
		local *lldp.MAC
		want  []EndsAssumed
		err   string
	}{
		{"the first to send", []LinkEnd{end(a, "A", 1, false), end(b, "B", 2, false)}, nil,
			[]EndsAssumed{{Interface: "pcap0", At: at(1), Local: a, Peer: b, Rule: EndRuleFirst}}, ""},
		{"the willing end", []LinkEnd{end(a, "A", 1, false), end(b, "B", 2, true)}, nil,
			[]EndsAssumed{{Interface: "pcap0", At: at(1), Local: b, Peer: a, Rule: EndRuleWilling}}, ""},
		{"--local-mac", []LinkEnd{end(a, "A", 1, true), end(b, "B", 2, false)}, &b,
			[]EndsAssumed{{Interface: "pcap0", At: at(1), Local: b, Peer: a, Rule: EndRuleGiven}}, ""},
		{"three speakers: multi-peer as ever", []LinkEnd{end(a, "A", 1, false), end(b, "B", 2, false), end(c, "C", 3, false)}, nil, nil, ""},
		{"two MSAPs from one address: not two ends", []LinkEnd{end(a, "A", 1, false), end(a, "A2", 2, false)}, nil, nil, ""},
		{"one speaker", []LinkEnd{end(a, "A", 1, false)}, nil, nil, ""},
		{"--local-mac of neither", []LinkEnd{end(a, "A", 1, false), end(b, "B", 2, false)}, &c, nil,
			"--local-mac 02:00:00:00:00:03 is not an end of the capture's link (pcap0: 08:00:27:0d:f1:3c, 08:00:27:42:ba:59)"},
		{"--local-mac without two ends", []LinkEnd{end(a, "A", 1, false)}, &a, nil, "--local-mac 08:00:27:0d:f1:3c: the capture has no link with two ends"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LocalEnds(tt.ends, tt.local)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Read so, the capture is one peer and this host's own advertisement:
	// the remote parameters valid, no multi-peer.
	e := New(Config{Replay: true})
	e.Apply(EndsAssumed{Interface: "pcap0", At: at(0), Local: a, Peer: b, Rule: EndRuleFirst})
	e.Apply(FrameReceived{Interface: "pcap0", At: at(1), Outgoing: true, Data: frame(t, a, 120, etsA, pfc3)})
	e.Apply(FrameReceived{Interface: "pcap0", At: at(2), Data: frame(t, b, 120, etsA, pfc3)})
	in, _ := e.Interface("pcap0")
	if in.MultiPeer != nil || !in.RemoteValid || in.LocalSource != SourceObserved || in.CaptureEnds == nil || in.CaptureEnds.LocalMAC != a || in.MAC == nil || *in.MAC != a {
		t.Errorf("multi-peer %v, remote valid %v, local source %s, ends %+v, mac %v", in.MultiPeer, in.RemoteValid, in.LocalSource, in.CaptureEnds, in.MAC)
	}
}
