// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// fleetIface is a RoCE port configured as the demo host is: ETS 50/50 on
// TC0/TC3, PFC on 3, APP UDP 4791 and DSCP 26 to 3, a RoCE path on 3.
func fleetIface(name, gid string, pauses uint64) engine.Interface {
	ets := &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 3}, TCBandwidth: [8]uint8{50, 0, 0, 50},
		TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAETS, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict, lldp.TSAStrict}}
	p := &dcb.Params{ETS: ets, PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3},
		App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: lossless.RoCEv2Port, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	willing := true
	val := func(s string) *string { return &s }
	prio := 3
	path := lossless.RoCEPath{Device: "mlx5_" + name, Port: 1, Priority: &prio, Hops: []lossless.PathHop{
		{Hop: lossless.HopGID, Value: val("index 3 " + gid), Verdict: lossless.PathOK},
		{Hop: lossless.HopToS, Value: val("106 (DSCP 26, ECN 2)"), Verdict: lossless.PathOK},
		{Hop: lossless.HopTrust, Value: val("dscp"), Verdict: lossless.PathOK},
		{Hop: lossless.HopPriority, Value: val("3"), Verdict: lossless.PathOK},
		{Hop: lossless.HopTC, Value: val("3"), Verdict: lossless.PathOK},
		{Hop: lossless.HopPFC, Value: val("local on, peer on, operational on"), Verdict: lossless.PathOK},
		{Hop: lossless.HopBuffer, Value: val("buffer 1, 262144 bytes"), Verdict: lossless.PathOK},
		{Hop: lossless.HopETS, Value: val("50%"), Verdict: lossless.PathOK},
		{Hop: lossless.HopPauses, Value: val(strings.Repeat("9", int(pauses%5)) + " pauses received"), Verdict: lossless.PathOK},
		{Hop: lossless.HopECN, Value: val("np on, rp on, CNP DSCP 48, CNP priority 6"), Verdict: lossless.PathOK},
	}}
	return engine.Interface{Name: name, Local: p.Clone(), Remote: p.Clone(), Operational: p.Clone(), RemoteValid: true, Willing: &willing,
		Counters: &lossless.Counters{RoCEPaths: []lossless.RoCEPath{path}}}
}

// TestConfigDigests: hosts configured alike have the same digests whatever
// their names, GIDs, devices and counters; any setting that differs gives
// another hash; the text is pinned (a change of format must change its
// version, and the hash of a configuration with it).
func TestConfigDigests(t *testing.T) {
	a, b := fleetIface("ens1f0", "fe80::1", 1), fleetIface("eth7", "fe80::2", 4)
	da, db := ConfigDigests(&a), ConfigDigests(&b)
	if diff := cmp.Diff(da, db); diff != "" {
		t.Errorf("two ports configured alike differ (-a +b):\n%s", diff)
	}
	if len(da) != 3 {
		t.Fatalf("%d digests, want local, remote and operational", len(da))
	}
	want := `dcbtop-config v1
ets max_tcs=8 cbs=off cee=off prio_tc=0,0,0,3,0,0,0,0 bw=50,0,0,50,0,0,0,0 tsa=ets,strict,strict,ets,strict,strict,strict,strict
ets_reco none
pfc cap=8 mbc=off enabled=3
app dscp:26:3 udp-port:4791:3
roce gid=ok; tos=106 (DSCP 26, ECN 2); trust=dscp; priority=3; tc=3; buffer=buffer 1, 262144 bytes; ets=50%; ecn=np on, rp on, CNP DSCP 48, CNP priority 6
`
	op := da[2]
	if op.Side != SideOperational || op.Text != want {
		t.Errorf("operational digest %s:\n%s\nwant:\n%s", op.Side, op.Text, want)
	}
	if op.Hash != "b3bf305e9292eace" || op.PFC != "3" || op.RoCEPriority != "3" {
		t.Errorf("operational hash %s, pfc %q, roce priority %q; want b3bf305e9292eace, 3, 3", op.Hash, op.PFC, op.RoCEPriority)
	}
	if l := da[0]; l.Side != SideLocal || !strings.HasSuffix(l.Text, "willing on\n") || l.RoCEPriority != "" {
		t.Errorf("local digest: %+v", l)
	}
	if r := da[1]; r.Side != SideRemote || r.Hash == op.Hash || strings.Contains(r.Text, "willing") {
		t.Errorf("remote digest: %+v (the operational one has the RoCE path besides)", r)
	}

	// Each of these makes the operational configuration another one.
	for name, change := range map[string]func(*engine.Interface){
		"PFC":           func(in *engine.Interface) { in.Operational.PFC.Enabled = 1<<3 | 1<<4 },
		"ETS bandwidth": func(in *engine.Interface) { in.Operational.ETS.TCBandwidth = [8]uint8{60, 0, 0, 40} },
		"APP":           func(in *engine.Interface) { in.Operational.App[1].Protocol = 24 },
		"ToS":           func(in *engine.Interface) { *in.Counters.RoCEPaths[0].Hops[1].Value = "96 (DSCP 24, ECN 0)" },
		"trust":         func(in *engine.Interface) { *in.Counters.RoCEPaths[0].Hops[2].Value = "pcp" },
		"GID":           func(in *engine.Interface) { in.Counters.RoCEPaths[0].Hops[0].Verdict = lossless.PathWarning },
		"no RoCE port":  func(in *engine.Interface) { in.Counters = nil },
	} {
		c := fleetIface("ens1f0", "fe80::1", 1)
		change(&c)
		if d := ConfigDigests(&c); d[2].Hash == op.Hash {
			t.Errorf("%s changed, the operational hash did not:\n%s", name, d[2].Text)
		}
	}
	// The APP table's order does not count.
	c := fleetIface("ens1f0", "fe80::1", 1)
	c.Operational.App[0], c.Operational.App[1] = c.Operational.App[1], c.Operational.App[0]
	if d := ConfigDigests(&c); d[2].Hash != op.Hash {
		t.Errorf("the APP table in another order gave another hash")
	}
	// Invalid remote parameters and unknown sides have no digest.
	c.RemoteValid, c.Local = false, nil
	if d := ConfigDigests(&c); len(d) != 1 || d[0].Side != SideOperational {
		t.Errorf("digests %+v, want the operational one only", d)
	}
	if d := ConfigDigests(&engine.Interface{}); len(d) != 0 {
		t.Errorf("an interface with nothing known has digests %+v", d)
	}
}
