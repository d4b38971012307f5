// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestResolverIEEE has one case per row of the IEEE table of docs/dcbx.md
// "The Willing resolver".
func TestResolverIEEE(t *testing.T) {
	remotePFC := func(willing bool) *PFC { return &PFC{Willing: willing, Cap: 8, Enabled: 1 << 3} }
	adopted := &PFC{Willing: true, Cap: 8, Enabled: 1 << 3}
	recoETS := &ETS{Willing: true, MaxTCs: 8, PrioTC: remoteRec.PrioTC, TCBandwidth: remoteRec.TCBandwidth, TSA: remoteRec.TSA}
	tests := []struct {
		name    string
		in      ResolveInput
		wantETS *ETS
		wantPFC *PFC
		ets     Source
		pfc     Source
	}{
		{name: "ETS local willing off: local admin",
			in:      ResolveInput{Local: localSet(), Willing: false, Remote: &Params{ETS: remoteETS, ETSReco: remoteRec}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "ETS willing, recommendation absent: local admin",
			in:      ResolveInput{Local: localSet(), Willing: true, Remote: &Params{ETS: remoteETS}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "ETS willing, recommendation present: remote recommendation",
			in:      ResolveInput{Local: localSet(), Willing: true, Remote: &Params{ETS: remoteETS, ETSReco: remoteRec}},
			wantETS: recoETS, wantPFC: localPFC, ets: FromRemoteReco, pfc: FromLocal},
		{name: "PFC local willing off: local",
			in:      ResolveInput{Local: localSet(), Willing: false, Remote: &Params{PFC: remotePFC(false)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC willing, remote absent: local",
			in:      ResolveInput{Local: localSet(), Willing: true, Remote: &Params{ETS: remoteETS}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC willing, remote not willing: remote",
			in:      ResolveInput{Local: localSet(), Willing: true, Remote: &Params{PFC: remotePFC(false)}},
			wantETS: localETS, wantPFC: adopted, ets: FromLocal, pfc: FromRemote},
		{name: "PFC both willing, local MAC lower: remote",
			in:      ResolveInput{Local: localSet(), Willing: true, LocalMAC: &lowMAC, RemoteMAC: highMAC, Remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: adopted, ets: FromLocal, pfc: FromRemote},
		{name: "PFC both willing, local MAC higher: local",
			in:      ResolveInput{Local: localSet(), Willing: true, LocalMAC: &highMAC, RemoteMAC: lowMAC, Remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC both willing, local MAC unknown: local",
			in:      ResolveInput{Local: localSet(), Willing: true, RemoteMAC: lowMAC, Remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "no valid remote: local",
			in:      ResolveInput{Local: localSet(), Willing: true},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, r := Resolve(tt.in)
			if diff := cmp.Diff(tt.wantETS, op.ETS); diff != "" {
				t.Errorf("ETS (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPFC, op.PFC); diff != "" {
				t.Errorf("PFC (-want +got):\n%s", diff)
			}
			if r.ETS.Source != tt.ets || r.PFC.Source != tt.pfc || r.ETS.Why == "" || r.PFC.Why == "" {
				t.Errorf("resolution %+v, want ETS from %s, PFC from %s, with reasons", r, tt.ets, tt.pfc)
			}
		})
	}
}

func TestResolverApp(t *testing.T) {
	remote := []App{{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 4}, {Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}
	tests := []struct {
		name    string
		willing bool
		want    []App
		src     Source
	}{
		{"willing: local plus the peer's entries not classified locally", true,
			[]App{{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3}, {Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}, FromMerged},
		{"not willing: local only", false,
			[]App{{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3}}, FromLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, r := Resolve(ResolveInput{Local: localSet(), Willing: tt.willing, Remote: &Params{App: remote}})
			if diff := cmp.Diff(tt.want, op.App); diff != "" {
				t.Errorf("APP (-want +got):\n%s", diff)
			}
			if r.App.Source != tt.src {
				t.Errorf("APP from %s, want %s", r.App.Source, tt.src)
			}
		})
	}
}

func TestResolverLocalUnknown(t *testing.T) {
	op, r := Resolve(ResolveInput{Willing: true, Remote: &Params{ETS: remoteETS}})
	if op != nil || r.ETS.Source != FromNone {
		t.Errorf("operational %+v resolution %+v, want nil / none", op, r)
	}
}

// TestResolverCEE has one case per CEE feature rule (docs/dcbx.md "The
// Willing resolver"), local side willing.
func TestResolverCEE(t *testing.T) {
	peer := func(f CEEFeature) *Params {
		return &Params{
			ETS: remoteETS, PFC: &PFC{Willing: f.Willing, Cap: 8, Enabled: 1 << 3},
			CEE: &CEE{Control: true, PG: &f, PFC: &f},
		}
	}
	waiting := CEEWaiting{PG: "waiting for sequence 1", PFC: "waiting for sequence 1"}
	tests := []struct {
		name string
		f    CEEFeature
		wait CEEWaiting
		pfc  Source
	}{
		{"peer not willing, no error: peer config", CEEFeature{Enable: true}, CEEWaiting{}, FromRemote},
		{"peer feature disabled: local", CEEFeature{Enable: false}, CEEWaiting{}, FromLocal},
		{"peer reports error: local", CEEFeature{Enable: true, Error: true}, CEEWaiting{}, FromLocal},
		{"both willing: compare only, local stays (no MAC tie-break)", CEEFeature{Enable: true, Willing: true}, CEEWaiting{}, FromLocal},
		{"peer not willing, our sequence not acknowledged yet: local", CEEFeature{Enable: true}, waiting, FromLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, r := Resolve(ResolveInput{Local: localSet(), Willing: true, LocalMAC: &lowMAC, RemoteMAC: highMAC,
				Remote: peer(tt.f), Dialect: lldp.DialectCEE, CEEWaiting: tt.wait})
			if r.PFC.Source != tt.pfc || r.ETS.Source != tt.pfc {
				t.Errorf("resolution %+v, want PG and PFC from %s", r, tt.pfc)
			}
			wantEn := PrioSet(0)
			if tt.pfc == FromRemote {
				wantEn = 1 << 3
			}
			if op.PFC.Enabled != wantEn {
				t.Errorf("operational PFC %v, want %v", op.PFC.Enabled.List(), wantEn.List())
			}
		})
	}
	t.Run("waiting: the resolution says for what", func(t *testing.T) {
		_, r := Resolve(ResolveInput{Local: localSet(), Willing: true, Remote: peer(CEEFeature{Enable: true}), Dialect: lldp.DialectCEE, CEEWaiting: waiting})
		want := Choice{FromLocal, "local: the CEE peer's PFC is adopted once it acknowledges dcbtop's agent: waiting for sequence 1"}
		if diff := cmp.Diff(want, r.PFC); diff != "" {
			t.Errorf("PFC (-want +got):\n%s", diff)
		}
	})
	t.Run("feature absent: local", func(t *testing.T) {
		_, r := Resolve(ResolveInput{Local: localSet(), Willing: true, Remote: &Params{CEE: &CEE{Control: true}}, Dialect: lldp.DialectCEE})
		if r.PFC.Source != FromLocal || r.ETS.Source != FromLocal || r.App.Source != FromLocal {
			t.Errorf("resolution %+v, want all local", r)
		}
	})
}

// TestWillingIndications drives local changes through the engine: each
// local change issues a local indication, and each change of the
