// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

func TestDCBLocal(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fw := dcbnl.ModeLLDManaged | dcbnl.ModeIEEE
	host := dcbnl.ModeHost | dcbnl.ModeIEEE
	tests := []struct {
		name string
		in   func(f *kerneltest.Fake)
		ok   bool
		want engine.LocalChanged
	}{
		{name: "no dcbnl_ops", in: func(f *kerneltest.Fake) {
			f.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
		}},
		{name: "host mode, willing, reco, PFC, IEEE and CEE APP entries", ok: true, in: func(f *kerneltest.Fake) {
			f.Mode = &host
			f.State.ETS = &dcbnl.ETS{Willing: true, ETSCap: 8, TCTxBW: [8]uint8{50, 50}, TCTSA: [8]uint8{2, 2}, PrioTC: [8]uint8{0, 0, 0, 1},
				TCRecoBW: [8]uint8{30, 70}, TCRecoTSA: [8]uint8{2, 2}, RecoPrioTC: [8]uint8{0, 0, 0, 1}}
			f.State.PFC = &dcbnl.PFC{Cap: 8, Enabled: 1 << 3, MBC: 1}
			f.State.App = []dcbnl.App{{Selector: 3, Priority: 3, Protocol: 4791}, {Selector: 0, Priority: 8, Protocol: 0x8906}}
		}, want: engine.LocalChanged{Interface: "eth0", At: now, Source: "dcbnl", Willing: true, Mode: host.String(), Params: &dcb.Params{
			ETS:     &dcb.ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
			ETSReco: &dcb.ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}},
			PFC:     &dcb.PFC{Willing: true, MBC: true, Cap: 8, Enabled: 1 << 3},
			App:     []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}},
		}}},
		{name: "firmware-managed, no recommendation, ets_cap 0 means 8", ok: true, in: func(f *kerneltest.Fake) {
			f.Mode = &fw
			f.State.ETS = &dcbnl.ETS{TCTxBW: [8]uint8{100}, TCTSA: [8]uint8{2}}
			f.State.PFC = nil
		}, want: engine.LocalChanged{Interface: "eth0", At: now, Source: "dcbnl", Mode: fw.String(), FirmwareManaged: true, Params: &dcb.Params{
			ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := kerneltest.NewFake()
			f.State.App = nil
			tt.in(f)
			got, ok := Local(f, "eth0", now)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
