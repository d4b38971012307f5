package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

var (
	localETS  = &ETS{Willing: true, MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}}
	remoteETS = &ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{60, 40}, TSA: [8]lldp.TSA{2, 2}}
	remoteRec = &ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}}
	localPFC  = &PFC{Willing: true, Cap: 8, Enabled: 0}
	lowMAC    = lldp.MAC{0x02, 0, 0, 0, 0, 0x01}
	highMAC   = lldp.MAC{0x02, 0, 0, 0, 0, 0xff}
)

func localSet() *Params {
	return &Params{ETS: localETS, PFC: localPFC, App: []App{{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3}}}
}

// TestResolverIEEE has one case per row of the IEEE table of docs/dcbx.md
// "The Willing resolver".
func TestResolverIEEE(t *testing.T) {
	remotePFC := func(willing bool) *PFC { return &PFC{Willing: willing, Cap: 8, Enabled: 1 << 3} }
	adopted := &PFC{Willing: true, Cap: 8, Enabled: 1 << 3}
	recoETS := &ETS{Willing: true, MaxTCs: 8, PrioTC: remoteRec.PrioTC, TCBandwidth: remoteRec.TCBandwidth, TSA: remoteRec.TSA}
	tests := []struct {
		name    string
		in      resolveInput
		wantETS *ETS
		wantPFC *PFC
		ets     Source
		pfc     Source
	}{
		{name: "ETS local willing off: local admin",
			in:      resolveInput{local: localSet(), willing: false, remote: &Params{ETS: remoteETS, ETSReco: remoteRec}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "ETS willing, recommendation absent: local admin",
			in:      resolveInput{local: localSet(), willing: true, remote: &Params{ETS: remoteETS}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "ETS willing, recommendation present: remote recommendation",
			in:      resolveInput{local: localSet(), willing: true, remote: &Params{ETS: remoteETS, ETSReco: remoteRec}},
			wantETS: recoETS, wantPFC: localPFC, ets: FromRemoteReco, pfc: FromLocal},
		{name: "PFC local willing off: local",
			in:      resolveInput{local: localSet(), willing: false, remote: &Params{PFC: remotePFC(false)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC willing, remote absent: local",
			in:      resolveInput{local: localSet(), willing: true, remote: &Params{ETS: remoteETS}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC willing, remote not willing: remote",
			in:      resolveInput{local: localSet(), willing: true, remote: &Params{PFC: remotePFC(false)}},
			wantETS: localETS, wantPFC: adopted, ets: FromLocal, pfc: FromRemote},
		{name: "PFC both willing, local MAC lower: remote",
			in:      resolveInput{local: localSet(), willing: true, localMAC: &lowMAC, remoteMAC: highMAC, remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: adopted, ets: FromLocal, pfc: FromRemote},
		{name: "PFC both willing, local MAC higher: local",
			in:      resolveInput{local: localSet(), willing: true, localMAC: &highMAC, remoteMAC: lowMAC, remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "PFC both willing, local MAC unknown: local",
			in:      resolveInput{local: localSet(), willing: true, remoteMAC: lowMAC, remote: &Params{PFC: remotePFC(true)}},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
		{name: "no valid remote: local",
			in:      resolveInput{local: localSet(), willing: true},
			wantETS: localETS, wantPFC: localPFC, ets: FromLocal, pfc: FromLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, r := resolve(tt.in)
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
			op, r := resolve(resolveInput{local: localSet(), willing: tt.willing, remote: &Params{App: remote}})
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
	op, r := resolve(resolveInput{willing: true, remote: &Params{ETS: remoteETS}})
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
	tests := []struct {
		name string
		f    CEEFeature
		pfc  Source
	}{
		{"peer not willing, no error: peer config", CEEFeature{Enable: true}, FromRemote},
		{"peer feature disabled: local", CEEFeature{Enable: false}, FromLocal},
		{"peer reports error: local", CEEFeature{Enable: true, Error: true}, FromLocal},
		{"both willing: compare only, local stays (no MAC tie-break)", CEEFeature{Enable: true, Willing: true}, FromLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, r := resolve(resolveInput{local: localSet(), willing: true, localMAC: &lowMAC, remoteMAC: highMAC,
				remote: peer(tt.f), dialect: lldp.DialectCEE})
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
	t.Run("feature absent: local", func(t *testing.T) {
		_, r := resolve(resolveInput{local: localSet(), willing: true, remote: &Params{CEE: &CEE{Control: true}}, dialect: lldp.DialectCEE})
		if r.PFC.Source != FromLocal || r.ETS.Source != FromLocal || r.App.Source != FromLocal {
			t.Errorf("resolution %+v, want all local", r)
		}
	})
}

// TestWillingIndications drives local changes through the engine: each
// local change issues a local indication, and each change of the
// operational set one operational indication with the same flag scheme.
func TestWillingIndications(t *testing.T) {
	e := New(Config{})
	mac := lowMAC
	local := &Params{ETS: localETS, PFC: &PFC{Cap: 8}}
	evs := []Event{
		LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: mac, Up: true},
		LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: false, Params: local},
		rx(1, frame(t, highMAC, 120, etsA, recoA, pfc3)),
		LocalChanged{Interface: "eth0", At: at(2), Source: "agent", Willing: true, Params: local},
		LocalChanged{Interface: "eth0", At: at(3), Source: "agent", Willing: true, Params: local}, // no change
		LocalChanged{Interface: "eth0", At: at(4), Source: "agent", Willing: false, Params: local},
	}
	got := run(e, evs)
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagETSChanged | FlagPFCConfigured | FlagPFCChanged, true},
		{0, StatusOperational, ReasonLocalChange, allETS | allPFC, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
		// Willing off: operational stays local, nothing to indicate.
		{2, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagPFCConfigured | FlagWilling, true},
		// Willing on: ETS from the recommendation, PFC from the peer (not willing).
		{2, StatusOperational, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{4, StatusLocal, ReasonLocalChange, FlagETSConfigured | FlagPFCConfigured, true},
		{4, StatusOperational, ReasonLocalChange, allETS | allPFC, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
}

// TestOperationalFollowsRemote checks that remote changes and
// invalidations move the operational set when willing.
func TestOperationalFollowsRemote(t *testing.T) {
	e := New(Config{})
	local := &Params{ETS: localETS, PFC: &PFC{Willing: true, Cap: 8}}
	got := run(e, []Event{
		LocalChanged{Interface: "eth0", At: at(0), Source: "agent", Willing: true, Params: local},
		rx(1, frame(t, highMAC, 4, etsA, pfc3)),
		rx(2, frame(t, highMAC, 4, etsA, pfc34)),
		Tick{At: at(10)},
	})
	want := []ind{
		{0, StatusLocal, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{0, StatusOperational, ReasonLocalChange, allETS | allPFC | FlagWilling, true},
		{1, StatusRemote, ReasonFirstReceipt, allETS | allPFC, true},
		{1, StatusOperational, ReasonFirstReceipt, FlagETSConfigured | allPFC | FlagWilling, true},
		{2, StatusRemote, ReasonChanged, FlagETSConfigured | allPFC, true},
		{2, StatusOperational, ReasonChanged, FlagETSConfigured | allPFC | FlagWilling, true},
		{6, StatusRemote, ReasonTTLExpired, FlagETSChanged | FlagPFCChanged, false},
		{6, StatusOperational, ReasonTTLExpired, FlagETSConfigured | allPFC | FlagWilling, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indications (-want +got):\n%s", diff)
	}
	in := e.Snapshot().Interfaces[0]
	if in.Resolution.PFC.Source != FromLocal || in.Operational.PFC.Enabled != 0 {
		t.Errorf("after expiry: resolution %+v operational PFC %v", in.Resolution, in.Operational.PFC)
	}
}
