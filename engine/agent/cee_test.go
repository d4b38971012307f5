// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// CEEFeatures maps IEEE-form local parameters to CEE sub-TLVs: strict
// classes to PGID 15, port selectors to CEE selector 1, DSCP left out,
// one entry per protocol with a priority bitmap.
func TestCEEFeatures(t *testing.T) {
	local := &dcb.Params{
		ETS: &dcb.ETS{MaxTCs: 4, PrioTC: [8]uint8{0, 0, 0, 1, 2, 0, 0, 0}, TCBandwidth: [8]uint8{40, 60},
			TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict, lldp.TSAETS, lldp.TSAETS, lldp.TSAETS, lldp.TSAETS, lldp.TSAETS}},
		PFC: &dcb.PFC{Cap: 4, Enabled: 1 << 3},
		App: []dcb.App{
			{Selector: lldp.AppSelPort, Protocol: 4791, Priority: 3},
			{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 5},
			{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3},
			{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3},
		},
	}
	ctl := lldp.CEEControl{SeqNo: 1}
	pg, pfc, app := CEEFeatures(local, true, ctl, CEEState{Error: [3]bool{false, true, false}})
	f := lldp.CEEFeature{Enable: true, Willing: true}
	fe := f
	fe.Error = true
	want := []any{
		&lldp.CEEPG{CEEFeature: f, PGID: [8]uint8{0, 0, 0, 1, 15, 0, 0, 0}, Bandwidth: [8]uint8{40, 60}, NumTCs: 4},
		&lldp.CEEPFC{CEEFeature: fe, Enabled: 1 << 3, NumTCs: 4},
		&lldp.CEEApp{CEEFeature: f, Entries: []lldp.CEEAppEntry{{Protocol: 4791, Selector: 1, PriorityMap: 1<<3 | 1<<5}, {Protocol: 0x8906, Selector: 0, PriorityMap: 1 << 3}}},
	}
	if diff := cmp.Diff(want, []any{pg, pfc, app}); diff != "" {
		t.Errorf("CEE features (-want +got):\n%s", diff)
	}
}

// An Advert in CEE builds one CEE TLV and no IEEE TLV, which a peer
// decodes back to the local PFC.
func TestBuildDUCEE(t *testing.T) {
	cfg := Config{Ifname: "eth0", MAC: lldp.MAC{2, 0, 0, 0, 0, 1}}
	local := DefaultLocal()
	local.PFC.Enabled = 1 << 3
	a, err := New(cfg, Advert{Willing: true, Local: local, Dialect: lldp.DialectCEE, CEE: CEEState{Control: lldp.CEEControl{SeqNo: 2, AckNo: 7}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	p := a.Advertising()
	if p == nil || p.CEE == nil || p.PFC == nil {
		t.Fatalf("advertising %+v, want CEE parameters", p)
	}
	got := []any{p.CEE.Seq, p.CEE.Ack, p.PFC.Enabled, p.PFC.Willing, p.ETSReco}
	if diff := cmp.Diff([]any{uint32(2), uint32(7), dcb.PrioSet(1 << 3), true, (*dcb.ETSReco)(nil)}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
