// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestLocalEnds: the speakers of an undirected capture's interface are
// read by evidence only, in order: --local-mac (wherever that address
// speaks), System Capabilities (a bridge or router facing a station: the
// station is this host), this host's own addresses, the only willing end;
// two ends without evidence are ambiguous, both readings given (7737732
// took the first to send as this host on no evidence: two switches on a
// mirror port read as host and peer). Anything else is left alone
// (multi-peer stays multi-peer). 54a24de read tcpdump's dcb_ets.pcap (two
// lldpad hosts) as two DCBX peers on one link.
func TestLocalEnds(t *testing.T) {
	a := lldp.MAC{8, 0, 0x27, 0x0d, 0xf1, 0x3c}
	b := lldp.MAC{8, 0, 0x27, 0x42, 0xba, 0x59}
	c := lldp.MAC{2, 0, 0, 0, 0, 3}
	bridge := &lldp.SystemCapabilities{Capabilities: lldp.CapBridge | lldp.CapRouter, Enabled: lldp.CapBridge}
	router := &lldp.SystemCapabilities{Capabilities: lldp.CapRouter, Enabled: lldp.CapRouter}
	station := &lldp.SystemCapabilities{Capabilities: lldp.CapStation, Enabled: lldp.CapStation}
	// lldpd on a host without forwarding: bridge capable, nothing enabled.
	idleHost := &lldp.SystemCapabilities{Capabilities: lldp.CapBridge | lldp.CapRouter | lldp.CapStation}
	type opt func(*LinkEnd)
	willing := func(e *LinkEnd) { e.Willing = true }
	caps := func(s *lldp.SystemCapabilities) opt { return func(e *LinkEnd) { e.Capabilities = s } }
	on := func(iface string) opt { return func(e *LinkEnd) { e.Interface = iface } }
	end := func(m lldp.MAC, msap string, first float64, opts ...opt) LinkEnd {
		e := LinkEnd{Interface: "pcap0", MAC: m, MSAP: msap, First: at(first), DCBX: true}
		for _, o := range opts {
			o(&e)
		}
		return e
	}
	mp := func(m lldp.MAC) *lldp.MAC { return &m }
	decided := func(iface string, first float64, local, peer lldp.MAC, rule string) EndsAssumed {
		return EndsAssumed{Interface: iface, At: at(first), Ends: CaptureEnds{LocalMAC: mp(local), PeerMAC: mp(peer), Rule: rule}}
	}
	ambiguous := func(iface string, first, second lldp.MAC) EndsAssumed {
		return EndsAssumed{Interface: iface, At: at(1), Ends: CaptureEnds{Ambiguous: true, Rule: EndRuleAmbiguous,
			Readings: []EndsReading{{LocalMAC: first, PeerMAC: second}, {LocalMAC: second, PeerMAC: first}}}}
	}
	for _, tt := range []struct {
		name string
		ends []LinkEnd
		ev   EndsEvidence
		want []EndsAssumed
		err  string
	}{
		{name: "two switches, neither willing, neither this host: ambiguous, not the first to send",
			ends: []LinkEnd{end(a, "A", 1, caps(bridge)), end(b, "B", 2, caps(bridge))},
			want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "no evidence at all: ambiguous", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2)},
			want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "ambiguous readings name the first to send first, whatever the order given",
			ends: []LinkEnd{end(b, "B", 2), end(a, "A", 1)},
			want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "System Capabilities: the station is this host", ends: []LinkEnd{end(a, "A", 1, caps(bridge)), end(b, "B", 2, caps(station))},
			want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleCapabilities)}},
		{name: "System Capabilities: a router facing a host that enables nothing",
			ends: []LinkEnd{end(a, "A", 1, caps(idleHost)), end(b, "B", 2, caps(router))},
			want: []EndsAssumed{decided("pcap0", 1, a, b, EndRuleCapabilities)}},
		{name: "System Capabilities beat Willing", ends: []LinkEnd{end(a, "A", 1, caps(station)), end(b, "B", 2, caps(bridge), willing)},
			want: []EndsAssumed{decided("pcap0", 1, a, b, EndRuleCapabilities)}},
		{name: "System Capabilities beat this host's addresses", ends: []LinkEnd{end(a, "A", 1, caps(station)), end(b, "B", 2, caps(bridge))},
			ev: EndsEvidence{HostMACs: []lldp.MAC{c, b}}, want: []EndsAssumed{decided("pcap0", 1, a, b, EndRuleCapabilities)}},
		{name: "one end without System Capabilities: no evidence from them",
			ends: []LinkEnd{end(a, "A", 1, caps(bridge)), end(b, "B", 2)}, want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "two stations: no evidence from them", ends: []LinkEnd{end(a, "A", 1, caps(station)), end(b, "B", 2, caps(station))},
			want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "this host's address", ends: []LinkEnd{end(a, "A", 1, caps(bridge)), end(b, "B", 2, caps(bridge))},
			ev: EndsEvidence{HostMACs: []lldp.MAC{c, b}}, want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleHostMAC)}},
		{name: "this host's address beats Willing", ends: []LinkEnd{end(a, "A", 1, willing), end(b, "B", 2)},
			ev: EndsEvidence{HostMACs: []lldp.MAC{b}}, want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleHostMAC)}},
		{name: "both this host's addresses: no evidence from them", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2)},
			ev: EndsEvidence{HostMACs: []lldp.MAC{a, b}}, want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "the willing end", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2, willing)},
			want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleWilling)}},
		{name: "both willing: no evidence from Willing", ends: []LinkEnd{end(a, "A", 1, willing), end(b, "B", 2, willing)},
			want: []EndsAssumed{ambiguous("pcap0", a, b)}},
		{name: "--local-mac beats every other rule", ends: []LinkEnd{end(a, "A", 1, caps(station), willing), end(b, "B", 2, caps(bridge))},
			ev: EndsEvidence{LocalMAC: &b, HostMACs: []lldp.MAC{a}}, want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleGiven)}},
		{name: "--local-mac of the late speaker", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 900)},
			ev: EndsEvidence{LocalMAC: &b}, want: []EndsAssumed{decided("pcap0", 1, b, a, EndRuleGiven)}},
		{name: "--local-mac among three speakers: its frames this host's, no one peer",
			ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2), end(c, "C", 3)}, ev: EndsEvidence{LocalMAC: &c},
			want: []EndsAssumed{{Interface: "pcap0", At: at(1), Ends: CaptureEnds{LocalMAC: mp(c), Rule: EndRuleGiven}}}},
		{name: "--local-mac alone on its interface", ends: []LinkEnd{end(a, "A", 1)}, ev: EndsEvidence{LocalMAC: &a},
			want: []EndsAssumed{{Interface: "pcap0", At: at(1), Ends: CaptureEnds{LocalMAC: mp(a), Rule: EndRuleGiven}}}},
		{name: "--local-mac on one interface, the rules on another",
			ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2), end(c, "C", 1, on("pcap1")), end(b, "B1", 2, on("pcap1"), willing)},
			ev:   EndsEvidence{LocalMAC: &a},
			want: []EndsAssumed{decided("pcap0", 1, a, b, EndRuleGiven), decided("pcap1", 1, b, c, EndRuleWilling)}},
		{name: "three speakers: multi-peer as ever", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2), end(c, "C", 3)}},
		{name: "two MSAPs from one address: not two ends", ends: []LinkEnd{end(a, "A", 1), end(a, "A2", 2)}},
		{name: "one speaker", ends: []LinkEnd{end(a, "A", 1)}},
		{name: "--local-mac that never speaks", ends: []LinkEnd{end(a, "A", 1), end(b, "B", 2), end(c, "C", 1, on("pcap1"))},
			ev:  EndsEvidence{LocalMAC: mp(lldp.MAC{2, 0, 0, 0, 0, 0x77})},
			err: "--local-mac 02:00:00:00:00:77 never speaks in the capture (its LLDP speakers: pcap0: 08:00:27:0d:f1:3c, 08:00:27:42:ba:59; pcap1: 02:00:00:00:00:03)"},
		{name: "--local-mac of a capture with direction", ev: EndsEvidence{LocalMAC: &a},
			err: "--local-mac 08:00:27:0d:f1:3c: no LLDP speaker in the capture's frames without direction"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LocalEnds(tt.ends, tt.ev)
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
}

// TestEndsAssumed: read as two ends, the capture is one peer and this
// host's own advertisement (the remote parameters valid, no multi-peer);
// ambiguous, its frames stay as they came (two peers: multi-peer, the
// remote parameters invalid), no address is taken as this interface's,
// and the snapshot gives both readings.
func TestEndsAssumed(t *testing.T) {
	a, b := lldp.MAC{2, 0, 0, 0, 0, 0xa}, lldp.MAC{2, 0, 0, 0, 0, 0xb}
	e := New(Config{Replay: true})
	e.Apply(EndsAssumed{Interface: "pcap0", At: at(0), Ends: CaptureEnds{LocalMAC: &a, PeerMAC: &b, Rule: EndRuleWilling}})
	e.Apply(FrameReceived{Interface: "pcap0", At: at(1), Outgoing: true, Data: frame(t, a, 120, etsA, pfc3)})
	e.Apply(FrameReceived{Interface: "pcap0", At: at(2), Data: frame(t, b, 120, etsA, pfc3)})
	in, _ := e.Interface("pcap0")
	if in.MultiPeer != nil || !in.RemoteValid || in.LocalSource != SourceObserved || in.CaptureEnds == nil || *in.CaptureEnds.LocalMAC != a || in.MAC == nil || *in.MAC != a {
		t.Errorf("multi-peer %v, remote valid %v, local source %s, ends %+v, mac %v", in.MultiPeer, in.RemoteValid, in.LocalSource, in.CaptureEnds, in.MAC)
	}

	e = New(Config{Replay: true})
	readings := []EndsReading{{LocalMAC: a, PeerMAC: b}, {LocalMAC: b, PeerMAC: a}}
	e.Apply(EndsAssumed{Interface: "pcap0", At: at(0), Ends: CaptureEnds{Ambiguous: true, Rule: EndRuleAmbiguous, Readings: readings}})
	readings[0] = EndsReading{} // the engine keeps its own copy
	e.Apply(FrameReceived{Interface: "pcap0", At: at(1), Data: frame(t, a, 120, etsA, pfc3)})
	e.Apply(FrameReceived{Interface: "pcap0", At: at(2), Data: frame(t, b, 120, etsA, pfc3)})
	in, _ = e.Interface("pcap0")
	if in.MultiPeer == nil || in.RemoteValid || in.LocalSource != SourceNone || in.MAC != nil {
		t.Errorf("ambiguous: multi-peer %v, remote valid %v, local source %q, mac %v: want the frames as they came", in.MultiPeer, in.RemoteValid, in.LocalSource, in.MAC)
	}
	if diff := cmp.Diff([]string{"multi-peer info"}, diagWords(in)); diff != "" {
		t.Errorf("ambiguous: diagnostics (-want +got):\n%s: two peers is one reading, not a finding", diff)
	}
	got, err := json.Marshal(in.CaptureEnds)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ambiguous":true,"local_mac":null,"peer_mac":null,"rule":"` + EndRuleAmbiguous + `","readings":[` +
		`{"local_mac":"02:00:00:00:00:0a","peer_mac":"02:00:00:00:00:0b"},{"local_mac":"02:00:00:00:00:0b","peer_mac":"02:00:00:00:00:0a"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("capture_ends (-want +got):\n%s", diff)
	}
	// A third speaker is none of the two ends: multi-peer is a finding.
	e.Apply(FrameReceived{Interface: "pcap0", At: at(3), Data: frame(t, lldp.MAC{2, 0, 0, 0, 0, 0xc}, 120, etsA, pfc3)})
	in, _ = e.Interface("pcap0")
	if diff := cmp.Diff([]string{"multi-peer error"}, diagWords(in)); diff != "" {
		t.Errorf("a third speaker: diagnostics (-want +got):\n%s", diff)
	}
}

// diagWords are in's diagnostics as "code severity".
func diagWords(in Interface) []string {
	var out []string
	for _, d := range in.Diagnostics {
		out = append(out, string(d.Code)+" "+d.Severity.String())
	}
	return out
}
