// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"strings"
	"syscall"
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestApplyNetlink writes through a real dcbnl.Client to the fake driver
// over netlink (nltest), and checks the whole result and the requests
// sent, counted by command: one IEEE_GET before and one after a write,
// one in total when nothing is written; every kind of WriteError the
// kernel path produces.
func TestApplyNetlink(t *testing.T) {
	host := dcbnl.ModeHost | dcbnl.ModeIEEE
	lld := dcbnl.ModeLLDManaged | dcbnl.ModeIEEE
	allETS := [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}
	// The fake's initial state: all priorities on TC0 at 100 %, PFC off,
	// no APP entry.
	initial := &dcb.Params{
		ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: allETS},
		PFC: &dcb.PFC{Cap: 8},
	}
	etsTSA4060 := [8]lldp.TSA{2, 2}
	ets4060After := &dcb.ETS{MaxTCs: 8, PrioTC: prio4060, TCBandwidth: bw4060, TSA: etsTSA4060}
	reco4060After := &dcb.ETSReco{PrioTC: prio4060, TCBandwidth: bw4060, TSA: etsTSA4060}
	roce := []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}
	with := func(p *dcb.Params, f func(p *dcb.Params)) *dcb.Params {
		q := p.Clone()
		f(q)
		return q
	}
	pfc34After := with(initial, func(p *dcb.Params) { p.PFC.Enabled = 0x18 })
	const etsUnchanged = `"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [100,0,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}`
	const invalid = `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`
	state := func(p *dcb.Params) engine.LocalState { return engine.LocalState{Params: p} }

	tests := []struct {
		name    string
		setup   func(f *kerneltest.Fake)
		params  string
		willing *bool
		want    engine.WriteResult
		reqs    []string
	}{
		{name: "PFC and APP written, ETS unchanged", params: `{` + etsUnchanged + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode = &host },
			want: engine.WriteResult{Mode: host.String(), Before: state(initial),
				After:   state(with(pfc34After, func(p *dcb.Params) { p.App = roce })),
				Written: []engine.Feature{engine.FeaturePFC, engine.FeatureApp}, Unchanged: []engine.Feature{engine.FeatureETS}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_SET", "IEEE_GET"}},
		{name: "nothing to write: one read, After is Before", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode, f.State.PFC.Enabled = &host, 0x18 },
			want:  engine.WriteResult{Mode: host.String(), Before: state(pfc34After), After: state(pfc34After), Unchanged: []engine.Feature{engine.FeaturePFC}},
			reqs:  []string{"IEEE_GET"}},
		{name: "willing already so: one read, the note", willing: ptr(false), setup: func(f *kerneltest.Fake) { f.Mode = &host },
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(initial), Unchanged: []engine.Feature{engine.FeatureETS},
				Notes: []engine.WriteNote{{Kind: engine.NoteETSWillingOnly, Already: true}}},
			reqs: []string{"IEEE_GET"}},
		// A driver without getdcbx: the reply has no mode, GDCBX fails,
		// and dcbnl.Client.DCBX sends an IEEE_GET of its own to tell a
		// missing getdcbx from a missing dcbnl_ops.
		{name: "driver without getdcbx", params: `{` + pfc34 + `}`,
			want: engine.WriteResult{Before: state(initial), After: state(pfc34After), Written: []engine.Feature{engine.FeaturePFC}},
			reqs: []string{"IEEE_GET", "GDCBX", "IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{name: "willing set", willing: ptr(true), setup: func(f *kerneltest.Fake) { f.Mode = &host },
			want: engine.WriteResult{Mode: host.String(), Before: state(initial),
				After: engine.LocalState{Willing: true, Params: with(initial, func(p *dcb.Params) {
					p.ETS.Willing, p.PFC.Willing = true, true
				})},
				Written: []engine.Feature{engine.FeatureETS}, Notes: []engine.WriteNote{{Kind: engine.NoteETSWillingOnly, Willing: true}}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{name: "mode not in the reply: GDCBX once", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode, f.ModeNotInReply = &host, true },
			want:  engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(pfc34After), Written: []engine.Feature{engine.FeaturePFC}},
			reqs:  []string{"IEEE_GET", "GDCBX", "IEEE_SET", "IEEE_GET"}},

		{name: "firmware-managed", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode = &lld },
			want: engine.WriteResult{Mode: lld.String(), FirmwareManaged: true, Before: state(initial), After: state(initial),
				Err: &engine.WriteError{Kind: engine.WriteFirmwareManaged, Interface: "eth0"}},
			reqs: []string{"IEEE_GET"}},
		{name: "partial: PFC fails after ETS was written", params: `{` + ets4060 + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) {
				f.Mode = &host
				f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EINVAL, Driver: true}
			},
			want: engine.WriteResult{Mode: host.String(), Before: state(initial),
				After:   state(with(initial, func(p *dcb.Params) { p.ETS, p.ETSReco = ets4060After, reco4060After })),
				Written: []engine.Feature{engine.FeatureETS},
				Err: &engine.WriteError{Kind: engine.WritePartial, Interface: "eth0", Feature: engine.FeaturePFC,
					Written: []engine.Feature{engine.FeatureETS}, NotAttempted: []engine.Feature{engine.FeatureApp},
					Detail: "driver rejected IEEE_SET on eth0: invalid argument"}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_SET", "IEEE_GET"}},
		{name: "rejected: the first feature fails", params: `{` + ets4060 + `,` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.Mode = &host
				f.SetErr["ETS"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.ERANGE, Driver: true}
			},
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(initial),
				Err: &engine.WriteError{Kind: engine.WriteRejected, Interface: "eth0", Feature: engine.FeatureETS,
					NotAttempted: []engine.Feature{engine.FeaturePFC}, Detail: "driver rejected IEEE_SET on eth0: numerical result out of range"}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{name: "read-back mismatch: the driver accepts and ignores", params: `{` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode, f.Ignore["PFC"], f.Ignore["APP"] = &host, true, true },
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(initial),
				Written: []engine.Feature{engine.FeaturePFC, engine.FeatureApp},
				Err: &engine.WriteError{Kind: engine.WriteReadBackMismatch, Interface: "eth0", Written: []engine.Feature{engine.FeaturePFC, engine.FeatureApp},
					Mismatches: []engine.Mismatch{
						{Feature: engine.FeaturePFC, Fields: []engine.FieldDiff{{Field: "enabled", Got: "none", Want: "3,4"}}},
						{Feature: engine.FeatureApp, Missing: roce},
					}}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_SET", "IEEE_GET"}},
		{name: "read back failed", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.Mode = &host
				f.ReadBackErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EIO}
			},
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), Written: []engine.Feature{engine.FeaturePFC},
				Err: &engine.WriteError{Kind: engine.WriteReadBackFailed, Interface: "eth0", Written: []engine.Feature{engine.FeaturePFC},
					Detail: "IEEE_GET eth0: input/output error"}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{name: "no DCB", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
			},
			want: engine.WriteResult{Err: &engine.WriteError{Kind: engine.WriteNoDCB, Interface: "eth0", Op: "read DCB parameters (IEEE_GET)"}},
			reqs: []string{"IEEE_GET"}},
		{name: "read failed", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EBUSY}
			},
			want: engine.WriteResult{Err: &engine.WriteError{Kind: engine.WriteReadFailed, Interface: "eth0", Op: "read DCB parameters (IEEE_GET)",
				Detail: "IEEE_GET eth0: device or resource busy"}},
			reqs: []string{"IEEE_GET"}},
		{name: "permission", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.Mode = &host
				f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EPERM}
			},
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(initial),
				Err: &engine.WriteError{Kind: engine.WritePermission, Interface: "eth0", Op: "set PFC (IEEE_SET)", Feature: engine.FeaturePFC}},
			reqs: []string{"IEEE_GET", "IEEE_SET", "IEEE_GET"}},
		{name: "invalid parameters", params: invalid, setup: func(f *kerneltest.Fake) { f.Mode = &host },
			want: engine.WriteResult{Mode: host.String(), Before: state(initial), After: state(initial),
				Err: &engine.WriteError{Kind: engine.WriteInvalidParams, Interface: "eth0", Detail: mustParams(t, invalid).Errors().Error()}},
			reqs: []string{"IEEE_GET"}},
		{name: "incomplete for the driver: no ETS to keep", willing: ptr(true),
			setup: func(f *kerneltest.Fake) { f.Mode, f.State.ETS = &host, nil },
			want: engine.WriteResult{Mode: host.String(), Before: state(&dcb.Params{PFC: &dcb.PFC{Cap: 8}}), After: state(&dcb.Params{PFC: &dcb.PFC{Cap: 8}}),
				Err: &engine.WriteError{Kind: engine.WriteInvalidParams, Interface: "eth0", Detail: "the driver reports no ETS configuration to keep: give ets too"}},
			reqs: []string{"IEEE_GET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := kerneltest.NewFake()
			if tt.setup != nil {
				tt.setup(f)
			}
			var p *dcb.Params
			if tt.params != "" {
				p = mustParams(t, tt.params)
			}
			got := Apply(f.Netlink(t), "eth0", p, tt.willing)
			want := tt.want
			want.Interface, want.Target = "eth0", engine.WriteKernel
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.reqs, f.Requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			count := map[string]int{}
			for _, r := range f.Requests {
				count[r]++
			}
			// One IEEE_GET before; one after when anything was sent (the
			// dcbnl client's explanation of a GDCBX refusal aside).
			wantGets := 1
			if count["IEEE_SET"]+count["IEEE_DEL"] > 0 {
				wantGets = 2
			}
			if count["GDCBX"] > 0 && !tt.want.FirmwareManaged && tt.want.Mode == "" {
				wantGets++
			}
			if count["IEEE_GET"] != wantGets {
				t.Errorf("%d IEEE_GET, want %d: %v", count["IEEE_GET"], wantGets, f.Requests)
			}
		})
	}
}

// TestApplyNoInterface: an interface that does not exist is named, with
// those that do (the host's, so only the start is checked).
func TestApplyNoInterface(t *testing.T) {
	f := kerneltest.NewFake()
	f.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "nosuch-xyz0", Err: syscall.ENODEV}
	got := Apply(f.Netlink(t), "nosuch-xyz0", mustParams(t, `{`+pfc34+`}`), nil)
	if got.Err == nil || got.Err.Kind != engine.WriteNoInterface || !strings.HasPrefix(got.Err.Error(), "no such interface") || got.Before.Params != nil {
		t.Errorf("result %+v, error %v", got, got.Err)
	}
	if diff := cmp.Diff([]string{"IEEE_GET"}, f.Requests); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
