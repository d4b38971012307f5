// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

func codes(ds []diag.Diagnostic) []diag.Code {
	out := []diag.Code{}
	for _, d := range ds {
		out = append(out, d.Code)
	}
	slices.Sort(out)
	return out
}

// TestDiagnostics checks each engine diagnostic, re-evaluated at snapshot
// time from event tables.
func TestDiagnostics(t *testing.T) {
	local := func(willing bool, pfc dcb.PrioSet, app ...dcb.App) LocalChanged {
		return LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: willing,
			Params: &dcb.Params{ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
				PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc}, App: app}}
	}
	roce := dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}
	link := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lowMAC, Up: true}
	willingPFC3 := &lldp.PFC{Willing: true, Cap: 8, Enabled: 1 << 3}
	tests := []struct {
		name string
		evs  func(t testing.TB) []Event
		want []diag.Code
	}{
		{"clean: local and peer agree, RoCE classified", func(t testing.TB) []Event {
			return []Event{link, local(false, 1<<3, roce), rx(1, frame(t, highMAC, 120, etsA, pfc3))}
		}, []diag.Code{}},
		{"neither willing and PFC differs", func(t testing.TB) []Event {
			return []Event{link, local(false, 1<<4, dcb.App{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 4}), rx(1, frame(t, highMAC, 120, etsA, pfc3))}
		}, []diag.Code{diag.CodeNeitherWilling, diag.CodePFCTCShared}}, // one diagnostic for one fact: not pfc-mismatch too
		// The willing host runs the peer's recommendation, which differs
		// from the peer's own configuration: ETS is asymmetric, no
		// ets-mismatch (issue 13).
		{"both willing", func(t testing.TB) []Event {
			return []Event{link, local(true, 1<<3, roce), rx(1, frame(t, highMAC, 120, etsA, recoA, willingPFC3))}
		}, []diag.Code{diag.CodeBothWilling}},
		{"willing but no recommendation", func(t testing.TB) []Event {
			return []Event{link, local(true, 0), rx(1, frame(t, highMAC, 120, etsA))}
		}, []diag.Code{diag.CodeNoETSReco}},
		{"PFC priority without APP entry and on a TC shared with lossy priorities", func(t testing.TB) []Event {
			return []Event{link, local(false, 1<<0), rx(1, frame(t, highMAC, 120, etsA, &lldp.PFC{Cap: 8, Enabled: 1}))}
		}, []diag.Code{diag.CodePFCPrioNoApp, diag.CodePFCTCShared}},
		{"local unknown", func(t testing.TB) []Event {
			return []Event{rx(1, frame(t, highMAC, 120, etsA, pfc3))}
		}, []diag.Code{diag.CodeLocalUnknown}},
		{"peer stale", func(t testing.TB) []Event {
			return []Event{link, local(false, 1<<3, roce), rx(1, frame(t, highMAC, 120, etsA, pfc3)), Tick{At: at(100)}}
		}, []diag.Code{diag.CodePeerStale}},
		{"dialect conflict and multi-peer", func(t testing.TB) []Event {
			cee := &lldp.CEE{Control: &lldp.CEEControl{}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 8, NumTCs: 8}}
			return []Event{link, local(false, 1<<3, roce), rx(1, frame(t, highMAC, 120, etsA, pfc3)), rx(2, frame(t, macB, 120, cee))}
		}, []diag.Code{diag.CodeDialectConflict, diag.CodeMultiPeer}},
		{"two local agents", func(t testing.TB) []Event {
			out := func(s float64, src lldp.MAC) Event {
				return FrameReceived{Interface: "eth0", At: at(s), Outgoing: true, Data: frame(t, src, 120, etsA, pfc3)}
			}
			return []Event{out(0, lowMAC), out(1, macA)}
		}, []diag.Code{diag.CodeDualLocalAgent, diag.CodePFCPrioNoApp}},
		{"CEE peer reports an error", func(t testing.TB) []Event {
			cee := &lldp.CEE{Control: &lldp.CEEControl{}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true, Error: true}, Enabled: 8, NumTCs: 8}}
			return []Event{link, local(false, 1<<3, roce), rx(1, frame(t, highMAC, 120, cee))}
		}, []diag.Code{diag.CodeCEEPeerError, diag.CodeDialectUnanswered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			run(e, tt.evs(t))
			in := e.Snapshot().Interfaces[0]
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if diff := cmp.Diff(want, codes(in.Diagnostics)); diff != "" {
				t.Errorf("diagnostic codes (-want +got):\n%s\n%+v", diff, in.Diagnostics)
			}
		})
	}
}

// TestObservedLocal checks that this host's own outgoing DCBX LLDPDUs
// become the local parameters (local_source "observed").
func TestObservedLocal(t *testing.T) {
	e := New(Config{})
	got := run(e, []Event{
		FrameReceived{Interface: "eth0", At: at(0), Outgoing: true, Data: frame(t, lowMAC, 120, &lldp.ETS{Willing: true, MaxTCs: 8, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}}, &lldp.PFC{Willing: true, Cap: 8})},
		rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3)),
	})
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{0, StatusOperational, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
		{1, StatusOperational, ReasonFirstReceipt, allETS | allPFC | FlagWilling, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
	in := e.Snapshot().Interfaces[0]
	if in.LocalSource != "observed" || in.Willing == nil || !*in.Willing || in.MAC == nil || *in.MAC != lowMAC {
		t.Errorf("local_source %q willing %v mac %v", in.LocalSource, in.Willing, in.MAC)
	}
	if in.Capture.FramesOut != 1 || in.Capture.FramesIn != 1 || len(in.Peers) != 1 {
		t.Errorf("counters %+v peers %d: the local agent must not count as a peer", in.Capture, len(in.Peers))
	}
}

// TestLocalAgents checks that local agents are told apart by chassis and
// port ID, and that a shutdown LLDPDU withdraws one.
func TestLocalAgents(t *testing.T) {
	out := func(s float64, port string, ttl uint16) Event {
		du := &lldp.DU{
			ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: lowMAC[:]},
			PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte(port)},
			TTL:       ttl,
		}
		b, err := lldp.AppendFrame(nil, lldp.NearestBridge, lowMAC, du)
		if err != nil {
			t.Fatal(err)
		}
		return FrameReceived{Interface: "eth0", At: at(s), Outgoing: true, Data: b}
	}
	e := New(Config{})
	run(e, []Event{out(0, "eth0", 121), out(1, "mac-port", 121)})
	in := e.Snapshot().Interfaces[0]
	if len(in.LocalAgents) != 2 || !hasCode(in.Diagnostics, diag.CodeDualLocalAgent) {
		t.Fatalf("agents %+v diagnostics %v: same chassis, different ports must be two agents", in.LocalAgents, codes(in.Diagnostics))
	}
	run(e, []Event{out(2, "mac-port", 0)})
	in = e.Snapshot().Interfaces[0]
	if len(in.LocalAgents) != 1 || hasCode(in.Diagnostics, diag.CodeDualLocalAgent) {
		t.Errorf("after a shutdown: agents %+v diagnostics %v", in.LocalAgents, codes(in.Diagnostics))
	}
}

func TestFirmwareDiagnostic(t *testing.T) {
	e := New(Config{})
	run(e, []Event{LocalChanged{Interface: "eth0", At: at(0), Source: "dcbnl", Willing: true,
		Params: &dcb.Params{ETS: localETS}, Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true}})
	in := e.Snapshot().Interfaces[0]
	if in.DCBXMode == nil || *in.DCBXMode != "firmware-managed (LLD_MANAGED), IEEE" || in.LocalSource != "dcbnl" {
		t.Errorf("dcbx_mode %v local_source %q", in.DCBXMode, in.LocalSource)
	}
	var d *diag.Diagnostic
	for i := range in.Diagnostics {
		if in.Diagnostics[i].Code == diag.CodeFirmwareDCBX {
			d = &in.Diagnostics[i]
		}
	}
	if d == nil || d.Severity != diag.SeverityWarning || !strings.Contains(d.Action, "fw-lldp-agent off") || !strings.Contains(d.Action, "disable-fw-lldp on") {
		t.Errorf("firmware diagnostic %+v", d)
	}
}

// TestPeerLost: a DCBX peer that expired, shut down or went with the
// link is a finding (54a24de showed "no problems found" under EXPIRED):
// a warning, an error once gone for two of its TTLs or where the willing
// host's fallback changed the PFC in force (engine/check's TestPeerLostCheck:
// dcbtop check's dcbx-peer says the same). A new peer ends it.
func TestPeerLost(t *testing.T) {
	local := func(willing bool, pfc dcb.PrioSet) LocalChanged {
		return LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Willing: willing,
			Params: &dcb.Params{ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, TCBandwidth: [8]uint8{100}}, PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc}}}
	}
	up := LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true}
	down := up
	down.At, down.Up = at(30), false
	for _, tt := range []struct {
		name    string
		evs     []Event
		sev     diag.Severity // 0xff: none
		message string
	}{
		{"expired, not willing", []Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), Tick{At: at(20)}},
			diag.SeverityWarning, "its information expired (no LLDPDU within its TTL); this host was not willing"},
		{"expired, gone two TTLs", []Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), Tick{At: at(20)}, Tick{At: at(31)}},
			diag.SeverityError, "over 20s"},
		{"shutdown, willing: PFC fell back", []Event{local(true, 0), rx(1, frame(t, macB, 120, etsA, pfc3)), rx(2, frame(t, macB, 0))},
			diag.SeverityError, "it sent a shutdown LLDPDU (its LLDP agent stopped); the operational parameters fell back to this host's own: PFC on none now, where the peer ran priority 3"},
		{"link down, willing, same PFC", []Event{up, local(true, 1<<3), rx(1, frame(t, macB, 120, etsA, pfc3)), down},
			diag.SeverityWarning, "the link went down; the operational parameters fell back to this host's own"},
		{"a new peer ends it", []Event{local(false, 1<<3), rx(1, frame(t, macB, 10, etsA, pfc3)), Tick{At: at(20)}, rx(21, frame(t, macB, 120, etsA, pfc3))},
			0xff, ""},
		{"never a DCBX peer: nothing lost", []Event{local(false, 1<<3), rx(1, frame(t, macB, 10)), Tick{At: at(20)}},
			0xff, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			for _, ev := range tt.evs {
				e.Apply(ev)
			}
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodePeerLost)
			switch {
			case tt.sev == 0xff && ok:
				t.Fatalf("peer-lost %+v, want none", d)
			case tt.sev != 0xff && (!ok || d.Severity != tt.sev || !strings.Contains(d.Message, tt.message)):
				t.Fatalf("peer-lost %+v (%v), want %s saying %q", d, ok, tt.sev, tt.message)
			}
		})
	}
}

// TestETSDiffersFromReco: a host that is not willing and runs an ETS
// other than the peer's recommendation gets an information line saying
// both; willing, equal or without a recommendation, none.
func TestETSDiffersFromReco(t *testing.T) {
	mine := &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}}, PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}
	same := &lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}}
	for _, tt := range []struct {
		name    string
		willing bool
		tlvs    []lldp.TLV
		want    string
	}{
		{"not willing, other recommendation", false, []lldp.TLV{etsA, recoA, pfc3},
			"runs its own ETS (bandwidth 50/50/0/0/0/0/0/0, priority→TC 00010000), not the peer's recommendation (bandwidth 30/70/0/0/0/0/0/0, priority→TC 00010000)"},
		{"willing", true, []lldp.TLV{etsA, recoA, pfc3}, ""},
		{"the same", false, []lldp.TLV{etsA, same, pfc3}, ""},
		{"no recommendation", false, []lldp.TLV{etsA, pfc3}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LocalChanged{Interface: "eth0", At: at(0), Source: SourceAgent, Willing: tt.willing, Params: mine})
			e.Apply(rx(1, frame(t, macB, 120, tt.tlvs...)))
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodeETSDiffersFromReco)
			if tt.want == "" {
				if ok {
					t.Fatalf("got %+v, want none", d)
				}
				return
			}
			if !ok || d.Severity != diag.SeverityInfo || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("got %+v (%v), want info saying %q", d, ok, tt.want)
			}
		})
	}
}

// local-unknown's advice for a replay says what the capture lacks: a
// plain capture ("record with dcbtop -w"), a dcbtop -w recording (its
// host showed no local parameters either: recording again would not
// help).
func TestLocalUnknownAdvice(t *testing.T) {
	for _, tt := range []struct {
		name      string
		recording bool
		want      string
	}{{"a plain capture", false, "record with dcbtop -w"}, {"a dcbtop -w recording", true, "the recording's host showed no local parameters"}} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{Replay: true})
			if tt.recording {
				e.Apply(HostObserved{At: at(0)})
			}
			e.Apply(rx(1, frame(t, macA, 120, etsA, pfc3)))
			in, _ := e.Interface("eth0")
			d, ok := in.Diagnostic(diag.CodeLocalUnknown)
			if !ok || !strings.Contains(d.Action, tt.want) {
				t.Errorf("local-unknown %+v, want its action to say %q", d, tt.want)
			}
		})
	}
}
