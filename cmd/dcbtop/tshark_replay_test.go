// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// TestReplayMatchesTshark checks the issue 2 promise end to end: `dcbtop -r`
// of a capture of lldpd sending ETS, ETS recommendation, PFC and APP reports
// exactly the values tshark (an independent decoder) shows for the last
// frame.
func TestReplayMatchesTshark(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "-r", fixtureIEEE, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s engine.Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	r := s.Interfaces[0].Remote
	if r == nil || r.ETS == nil || r.ETSReco == nil || r.PFC == nil || r.App == nil {
		t.Fatalf("remote parameters incomplete: %+v", r)
	}
	frames := testbed.TsharkLLDP(t, fixtureIEEE)
	last := &frames[len(frames)-1]

	toETS := func(prio, bw [8]uint8, tsa [8]uint8) (out [3][8]int) {
		for i := range 8 {
			out[0][i], out[1][i], out[2][i] = int(prio[i]), int(bw[i]), int(tsa[i])
		}
		return out
	}
	tsaOf := func(v [8]lldp.TSA) (o [8]uint8) {
		for i, x := range v {
			o[i] = uint8(x)
		}
		return o
	}
	cfg, err := last.ETSConfig()
	if err != nil {
		t.Fatal(err)
	}
	maxTCs := cfg.MaxTCs
	if maxTCs == 0 {
		maxTCs = 8
	}
	if diff := cmp.Diff([3][8]int{cfg.PrioTC, cfg.BW, cfg.TSA}, toETS(r.ETS.PrioTC, r.ETS.TCBandwidth, tsaOf(r.ETS.TSA))); diff != "" {
		t.Errorf("ETS tables (-tshark +dcbtop):\n%s", diff)
	}
	if cfg.Willing != r.ETS.Willing || cfg.CBS != r.ETS.CBS || maxTCs != int(r.ETS.MaxTCs) {
		t.Errorf("ETS flags: tshark willing=%v cbs=%v maxtcs=%d, dcbtop %+v", cfg.Willing, cfg.CBS, maxTCs, r.ETS)
	}
	reco, err := last.ETSReco()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([3][8]int{reco.PrioTC, reco.BW, reco.TSA}, toETS(r.ETSReco.PrioTC, r.ETSReco.TCBandwidth, tsaOf(r.ETSReco.TSA))); diff != "" {
		t.Errorf("ETS recommendation (-tshark +dcbtop):\n%s", diff)
	}
	pfc, err := last.PFC()
	if err != nil {
		t.Fatal(err)
	}
	var en [8]bool
	for _, p := range r.PFC.Enabled.List() {
		en[p] = true
	}
	if pfc.Willing != r.PFC.Willing || pfc.MBC != r.PFC.MBC || pfc.Cap != int(r.PFC.Cap) || pfc.Enabled != en {
		t.Errorf("PFC: tshark %+v, dcbtop %+v", pfc, r.PFC)
	}
	apps, err := last.App()
	if err != nil {
		t.Fatal(err)
	}
	var got []testbed.TsharkApp
	for _, a := range r.App {
		got = append(got, testbed.TsharkApp{Prio: int(a.Priority), Sel: int(a.Selector), Proto: int(a.Protocol)})
	}
	if diff := cmp.Diff(apps, got); diff != "" {
		t.Errorf("APP (-tshark +dcbtop):\n%s", diff)
	}
}
