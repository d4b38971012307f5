// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/google/go-cmp/cmp"
)

// diagsOf returns the interface's diagnostics of code.
func diagsOf(in Interface, code diag.Code) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range in.Diagnostics {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

// several-lldp-speakers: every LLDP speaker counts, whatever it speaks
// (multi-peer counts the DCBX ones); one MSAP on two addresses is one;
// worded for how many there are.
func TestSeveralSpeakers(t *testing.T) {
	link := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true}
	vm := func(i byte) lldp.MAC { return lldp.MAC{0x52, 0x54, 0, 0, 0, i} }
	for _, tc := range []struct {
		name     string
		evs      func(t testing.TB) []Event
		none     bool
		contains []string
	}{
		{name: "one switch", evs: func(t testing.TB) []Event {
			return []Event{link, rx(1, frame(t, macA, 120, etsA, pfc3))}
		}, none: true},
		{name: "one switch on two addresses", evs: func(t testing.TB) []Event {
			return []Event{link, rx(1, frame(t, macA, 120, etsA, pfc3)), FrameReceived{Interface: "eth0", At: at(2), Data: frameTo(t, lldp.NearestCustomerBridge, macA, 120)}}
		}, none: true},
		{name: "a DCBX switch and a BMC", evs: func(t testing.TB) []Event {
			return []Event{link, rx(1, frame(t, macA, 120, etsA, pfc3)), rx(2, frame(t, macB, 120))}
		}, contains: []string{"2 LLDP speakers on this port", "IEEE 802.1Qaz DCBX", "no DCBX", "the remote parameters come from the one that sends DCBX"}},
		{name: "six VMs through a vSwitch", evs: func(t testing.TB) []Event {
			evs := []Event{link}
			for i := range byte(6) {
				evs = append(evs, rx(float64(i+1), frame(t, vm(i), 120)))
			}
			return evs
		}, contains: []string{"6 LLDP speakers on this port", "and 2 more", "none of them sends DCBX"}},
		{name: "two DCBX switches: multi-peer says it", evs: func(t testing.TB) []Event {
			return []Event{link, rx(1, frame(t, macA, 120, etsA, pfc3)), rx(2, frame(t, macB, 120, pfc3))}
		}, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			run(e, tc.evs(t))
			in, _ := e.Interface("eth0")
			got := diagsOf(in, diag.CodeSeveralSpeakers)
			if tc.none {
				if len(got) > 0 {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != diag.SeverityWarning {
				t.Fatalf("got %+v, want one warning", got)
			}
			for _, s := range tc.contains {
				if !strings.Contains(got[0].Message, s) {
					t.Errorf("message %q lacks %q", got[0].Message, s)
				}
			}
		})
	}
}

// dialect-unanswered: a CEE-only peer and an agent of this host that
// sends IEEE only (dcbtop's, or one seen going out) never negotiate: an
// error, and nothing of the peer's is adopted. A host whose agent sends
// CEE, or whose own frames are not seen, is not judged.
func TestDialectUnanswered(t *testing.T) {
	link := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true}
	params := &dcb.Params{ETS: &dcb.ETS{Willing: true, MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}},
		PFC: &dcb.PFC{Willing: true, Cap: 8}}
	cee := &lldp.CEE{Control: &lldp.CEEControl{SeqNo: 1}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8}}
	out := func(s float64, tlvs ...lldp.TLV) func(t testing.TB) Event {
		return func(t testing.TB) Event {
			return FrameReceived{Interface: "eth0", At: at(s), Outgoing: true, Data: frame(t, lowMAC, 120, tlvs...)}
		}
	}
	for _, tc := range []struct {
		name   string
		source LocalSource
		out    func(t testing.TB) Event
		peer   []lldp.TLV
		want   bool
	}{
		{name: "dcbtop's agent, CEE peer", source: SourceAgent, peer: []lldp.TLV{cee}, want: true},
		{name: "dcbtop's agent, IEEE peer", source: SourceAgent, peer: []lldp.TLV{etsA, pfc3}},
		{name: "an agent seen sending IEEE, CEE peer", source: SourceDCBNL, out: out(0.5, pfc3), peer: []lldp.TLV{cee}, want: true},
		{name: "an agent seen sending CEE, IEEE peer", source: SourceDCBNL, out: out(0.5, cee), peer: []lldp.TLV{pfc3}, want: true},
		{name: "an agent seen sending CEE, CEE peer", source: SourceDCBNL, out: out(0.5, cee), peer: []lldp.TLV{cee}},
		{name: "nothing seen going out, CEE peer", source: SourceDCBNL, peer: []lldp.TLV{cee}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			evs := []Event{link, LocalChanged{Interface: "eth0", At: at(0), Source: tc.source, Willing: true, Params: params}}
			if tc.out != nil {
				evs = append(evs, tc.out(t))
			}
			evs = append(evs, rx(1, frame(t, macA, 120, tc.peer...)))
			run(e, evs)
			in, _ := e.Interface("eth0")
			got := diagsOf(in, diag.CodeDialectUnanswered)
			if !tc.want {
				if len(got) > 0 {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != diag.SeverityError {
				t.Fatalf("got %+v, want one error", got)
			}
			if in.Resolution.PFC.Source != dcb.FromLocal || !strings.Contains(in.Resolution.PFC.Why, "not answered") {
				t.Errorf("resolution %+v: the peer's PFC must not be adopted", in.Resolution.PFC)
			}
			if in.Operational.PFC.Enabled != 0 {
				t.Errorf("operational PFC %v, want this host's own (none)", in.Operational.PFC.Enabled)
			}
		})
	}
}

// app-conflict: one selector and protocol on several priorities, in the
// peer's table or this host's; an error where only some of them have
// PFC in force.
func TestAppConflict(t *testing.T) {
	link := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true}
	local := func(app ...dcb.App) LocalChanged {
		return LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Params: &dcb.Params{
			ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}},
			PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: app}}
	}
	dscp := func(d uint16, p uint8) lldp.AppEntry {
		return lldp.AppEntry{Selector: lldp.AppSelDSCP, Protocol: d, Priority: p}
	}
	for _, tc := range []struct {
		name  string
		local LocalChanged
		peer  []lldp.AppEntry
		want  []diag.Severity
		words string
	}{
		{name: "one priority each", local: local(), peer: []lldp.AppEntry{dscp(26, 3), dscp(48, 6)}},
		{name: "the peer maps DSCP 26 to 3 and 4", local: local(), peer: []lldp.AppEntry{dscp(26, 3), dscp(26, 4)},
			want: []diag.Severity{diag.SeverityError}, words: "the peer's APP table maps dscp 26 to priorities 3,4"},
		{name: "both lossy", local: local(), peer: []lldp.AppEntry{dscp(10, 1), dscp(10, 2)},
			want: []diag.Severity{diag.SeverityWarning}, words: "dscp 10 to priorities 1,2"},
		{name: "this host's table", local: local(dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 5}),
			peer: []lldp.AppEntry{dscp(26, 3)}, want: []diag.Severity{diag.SeverityError}, words: "this host's APP table maps udp-port 4791 to priorities 3,5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			run(e, []Event{link, tc.local, rx(1, frame(t, macA, 120, etsA, pfc3, &lldp.AppPriority{Entries: tc.peer}))})
			in, _ := e.Interface("eth0")
			got := diagsOf(in, diag.CodeAppConflict)
			var sevs []diag.Severity
			for _, d := range got {
				sevs = append(sevs, d.Severity)
			}
			if diff := cmp.Diff(tc.want, sevs); diff != "" {
				t.Fatalf("severities (-want +got):\n%s\n%+v", diff, got)
			}
			if len(got) > 0 && !strings.Contains(got[0].Message, tc.words) {
				t.Errorf("message %q lacks %q", got[0].Message, tc.words)
			}
		})
	}
}

// TestRoCEMTUDiagnostic: roce-mtu, a RoCE port on an interface whose MTU gives RoCE less than
// 4096 (iboe_get_mtu), with or without a peer; a warning once RDMA
// traffic flows.
func TestRoCEMTUDiagnostic(t *testing.T) {
	sample := func(s float64, octets uint64) CountersSampled {
		var ndk [lossless.NDKBits]lossless.Reading
		ndk[lossless.NDKRDMAOutOctets] = lossless.Reading{Value: octets, Source: "hw_counters"}
		return CountersSampled{Interface: "eth0", At: at(s), Interval: time.Second,
			RDMA: []lossless.RDMAPortSample{{Device: "mlx5_0", Port: 1, NDK: ndk}},
			RoCE: []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1}}}
	}
	for _, tc := range []struct {
		name    string
		mtu     int
		octets  uint64
		want    diag.Severity
		none    bool
		message string
	}{
		{name: "MTU 1500, idle", mtu: 1500, want: diag.SeverityInfo, message: "run RoCE MTU 1024 (interface MTU 1500"},
		{name: "MTU 1500, carrying RDMA", mtu: 1500, octets: 1 << 20, want: diag.SeverityWarning, message: "RDMA traffic flows"},
		{name: "MTU 4200", mtu: 4200, octets: 1 << 20, none: true},
		{name: "MTU 4191", mtu: 4191, octets: 1 << 20, want: diag.SeverityWarning, message: "RoCE MTU 2048"},
		{name: "MTU unknown", octets: 1 << 20, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			run(e, []Event{LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true, MTU: tc.mtu}, sample(1, tc.octets)})
			in, _ := e.Interface("eth0")
			got := diagsOf(in, diag.CodeRoCEMTU)
			if tc.none {
				if len(got) > 0 {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tc.want || !strings.Contains(got[0].Message, tc.message) {
				t.Fatalf("got %+v, want one %v containing %q", got, tc.want, tc.message)
			}
		})
	}
}

// A peer that sends only the pre-CEE CIN DCBX TLV speaks its own
// dialect: not CEE, its parameters not decoded, nothing adopted.
func TestCINPeer(t *testing.T) {
	cin := &lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x1b, 0x21, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00}}
	e := New(Config{})
	run(e, []Event{LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true},
		LocalChanged{Interface: "eth0", At: at(0), Source: SourceDCBNL, Willing: true, Params: &dcb.Params{PFC: &dcb.PFC{Willing: true, Cap: 8}}},
		rx(1, frame(t, macA, 120, cin))})
	in, _ := e.Interface("eth0")
	if in.Dialect != lldp.DialectCIN || in.Peers[0].DCBX != lldp.DialectCIN {
		t.Errorf("dialect %v, peer %v; want cin", in.Dialect, in.Peers[0].DCBX)
	}
	if !in.RemoteValid || in.RemoteState() != RemoteValid {
		t.Errorf("remote state %v: a CIN peer is a DCBX peer", in.RemoteState())
	}
	if in.Resolution.PFC.Source != dcb.FromLocal || !strings.Contains(in.Resolution.PFC.Why, "CIN") {
		t.Errorf("resolution %+v: nothing of a CIN peer is adopted", in.Resolution.PFC)
	}
}
