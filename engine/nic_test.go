// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// What the engine says of the NIC under dcbtop's agent, per feature: the
// operational parameters against the NIC's last DCB netlink reading, on
// what programming sets (not the capability fields), with the reason
// when nothing can be programmed.
func TestNICProgram(t *testing.T) {
	ets := func(bw0 uint8) *dcb.ETS {
		return &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{bw0, 100 - bw0}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}, PrioTC: [8]uint8{0, 0, 0, 1}}
	}
	agentP := &dcb.Params{ETS: ets(50), PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}
	agentLC := LocalChanged{Interface: "eth0", At: at(1), Source: SourceAgent, Willing: false, Params: agentP}
	nic := func(p *dcb.Params, mode string, firmware bool) LocalChanged {
		return LocalChanged{Interface: "eth0", At: at(2), Source: SourceDCBNL, Params: p, Mode: mode, FirmwareManaged: firmware}
	}
	same := &dcb.Params{ETS: ets(50), PFC: &dcb.PFC{Cap: 4, MBC: true, Enabled: 1 << 3}}    // capability fields differ only
	otherPFC := &dcb.Params{ETS: ets(50), PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 4}, App: nil} // PFC on 4, not 3
	type want struct {
		ETS, PFC NICState
		Why      string // a prefix
		Diag     bool
	}
	for _, tt := range []struct {
		name     string
		events   []Event
		netAdmin bool
		want     *want
	}{
		{"no agent: no nic", []Event{nic(same, "host agent, IEEE", false)}, true, nil},
		{"in the NIC (capability fields aside)", []Event{agentLC, nic(same, "host agent, IEEE", false)}, true, &want{NICInForce, NICInForce, "", false}},
		{"PFC differs", []Event{agentLC, nic(otherPFC, "host agent, IEEE", false)}, true, &want{NICInForce, NICDiffers, "", true}},
		{"writing", []Event{agentLC, nic(otherPFC, "host agent, IEEE", false), NICWrite{Interface: "eth0", At: at(3), Pending: true}}, true,
			&want{NICInForce, NICWriting, "", false}},
		{"written, read back other values", []Event{agentLC, nic(otherPFC, "host agent, IEEE", false), NICWrite{Interface: "eth0", At: at(3), Pending: true},
			NICWrite{Interface: "eth0", At: at(4), Err: &WriteError{Kind: WriteReadBackMismatch, Mismatches: []Mismatch{{Feature: FeaturePFC, Fields: []FieldDiff{{Field: "enabled", Got: "4", Want: "3"}}}}}}},
			true, &want{NICInForce, NICDiffers, "the last write: driver accepted PFC but reports different values: enabled 4, want 3", true}},
		{"no DCB in the driver", []Event{agentLC}, true, &want{NICNotProgrammable, NICNotProgrammable, "negotiated, not programmed (no DCB in this driver", false}},
		{"firmware DCBX", []Event{agentLC, nic(otherPFC, "LLD managed, IEEE", true)}, true, &want{NICNotProgrammable, NICNotProgrammable, "the NIC firmware runs DCBX", false}},
		{"no CAP_NET_ADMIN", []Event{agentLC, nic(otherPFC, "host agent, IEEE", false)}, false, &want{NICNotProgrammable, NICNotProgrammable, "negotiated, not programmed: writing DCB netlink needs CAP_NET_ADMIN", false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LinkChanged{Interface: "eth0", At: at(0), MAC: macB, Up: true})
			e.Apply(HostObserved{At: at(0), NetAdmin: tt.netAdmin})
			for _, ev := range tt.events {
				e.Apply(ev)
			}
			in, _ := e.Interface("eth0")
			if tt.want == nil {
				if in.NIC != nil {
					t.Fatalf("nic %+v, want none without dcbtop's agent", in.NIC)
				}
				return
			}
			if in.NIC == nil {
				t.Fatal("no nic under dcbtop's agent")
			}
			got := want{ETS: in.NIC.Of(FeatureETS), PFC: in.NIC.Of(FeaturePFC)}
			if in.NIC.Why != nil {
				got.Why = *in.NIC.Why
			}
			_, got.Diag = in.Diagnostic(diag.CodeNICDiffers)
			if !strings.HasPrefix(got.Why, tt.want.Why) || tt.want.Why == "" && got.Why != "" {
				t.Errorf("why %q, want it to start %q", got.Why, tt.want.Why)
			}
			got.Why = tt.want.Why
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if in.NIC.App != nil {
				t.Errorf("APP %q: no APP is operational", *in.NIC.App)
			}
		})
	}
}

// NICWant writes the negotiated fields on the NIC's own capability
// fields, nothing when the NIC holds them or cannot be programmed; the
// confirmation of a PFC change warns of the link reset.
func TestNICWant(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), MAC: macB, Up: true})
	e.Apply(HostObserved{At: at(0), NetAdmin: true})
	op := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Willing: true, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	e.Apply(LocalChanged{Interface: "eth0", At: at(1), Source: SourceAgent, Willing: true, Params: op})
	e.Apply(LocalChanged{Interface: "eth0", At: at(2), Source: SourceDCBNL, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 4, MBC: true}, App: []dcb.App{}}, Mode: "host agent, IEEE"})
	in, _ := e.Interface("eth0")
	got, ok := NICWant(in)
	want := &dcb.Params{PFC: &dcb.PFC{Cap: 4, MBC: true, Enabled: 1 << 3}, App: op.App}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("NICWant %v (-want +got):\n%s", ok, diff)
	}
	next := op.Clone()
	next.PFC.Enabled = 1<<3 | 1<<4
	if n := NICWriteNote(in, next); !strings.Contains(n, "reset the link on a PFC change") {
		t.Errorf("the note of a PFC change: %q", n)
	}
	if n := NICWriteNote(in, op); n != "" {
		t.Errorf("the note of no change: %q", n)
	}
	e.Apply(LocalChanged{Interface: "eth0", At: at(3), Source: SourceDCBNL, Params: want, Mode: "host agent, IEEE"})
	in, _ = e.Interface("eth0")
	if _, ok := NICWant(in); ok {
		t.Errorf("NICWant with the NIC holding the operational parameters: something to write (%+v)", in.NIC)
	}
}

// Priority groups a CEE peer gave with a priority in PGID 15 (strict)
// have no IEEE traffic class: ETS is not programmable, and says why; the
// rest (PFC) still is.
func TestNICWantCEEStrictPG(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), MAC: macB, Up: true})
	e.Apply(HostObserved{At: at(0), NetAdmin: true})
	ets := &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 15, 0, 0, 0, 0}, TCBandwidth: [8]uint8{100}, FromCEE: true}
	op := &dcb.Params{ETS: ets, PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3, FromCEE: true}}
	e.Apply(LocalChanged{Interface: "eth0", At: at(1), Source: SourceAgent, Willing: false, Params: op})
	e.Apply(LocalChanged{Interface: "eth0", At: at(2), Source: SourceDCBNL, Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8}}, Mode: "host agent, IEEE+CEE"})
	in, _ := e.Interface("eth0")
	if in.NIC == nil || in.NIC.ETS == nil || *in.NIC.ETS != NICNotProgrammable || in.NIC.Why == nil || !strings.Contains(*in.NIC.Why, "PGID 15") {
		t.Fatalf("NIC program %+v, want ETS not programmable for PGID 15", in.NIC)
	}
	got, ok := NICWant(in)
	want := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3, FromCEE: true}}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("NICWant %v (-want +got):\n%s", ok, diff)
	}
}
