// SPDX-License-Identifier: Apache-2.0

package check

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// The policy's trust and RoCE DSCP parts are held to the sampled facts;
// what is not sampled (the CNP's marking) is UNKNOWN, never OK; the
// presets parse.
func TestPolicyRoCE(t *testing.T) {
	local := &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS}},
		PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}
	sample := mlxSample(t0, 0)
	sample.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, Source: "dcbnl IEEE_GET"}
	dscp, prio := uint8(48), uint8(6)
	marked := &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3, CNPDSCP: &dscp, CNPPriority: &prio}
	for _, tt := range []struct {
		policy string
		want   verdict.Verdict
		says   string
		ecn    *lossless.ECNSample // the DCQCN settings sampled (mlxSample's none when nil)
	}{
		{`{"trust":"dscp","roce":{"dscp":26},"pfc":{"enabled":[3]}}`, verdict.OK, "meet the policy", nil},
		{`{"trust":"pcp"}`, verdict.Critical, "the NIC trusts dscp first, expected pcp", nil},
		{`{"roce":{"dscp":24}}`, verdict.Critical, "rdma_cm's default DSCP is 26, expected 24", nil},
		{`{"cnp":{"dscp":4}}`, verdict.Unknown, "cnp.dscp: not read here (mlxconfig -d DEV q CNP_DSCP_P1 CNP_802P_PRIO_P1)", nil},
		{`{"cnp":{"dscp":48,"priority":6}}`, verdict.OK, "meet the policy", marked},
		{`{"cnp":{"dscp":4,"priority":6}}`, verdict.Critical, "cnp.dscp is 48, expected 4", marked},
		{`{"cnp":{"priority":3}}`, verdict.Critical, "cnp.priority is 6, expected 3", marked},
	} {
		e := engine.New(engine.Config{})
		e.Apply(engine.LocalChanged{Interface: "eth0", At: t0, Source: engine.SourceDCBNL, Params: local})
		s := sample
		if tt.ecn != nil {
			s.ECN = tt.ecn
		}
		e.Apply(s)
		in, _ := e.Interface("eth0")
		pol, err := ParsePolicy([]byte(tt.policy))
		if err != nil {
			t.Fatal(err)
		}
		var got *verdict.Result
		for _, r := range Run(&in, Options{Policy: pol}) {
			if r.Check == verdict.CheckPolicy {
				got = &r
			}
		}
		if got == nil || got.Verdict != tt.want || !strings.Contains(got.Summary, tt.says) {
			t.Errorf("%s: %+v; want %v saying %q", tt.policy, got, tt.want, tt.says)
		}
	}
	for name := range PolicyPresets {
		if p, ok := PresetPolicy(name); !ok || p == nil {
			t.Errorf("preset %s", name)
		}
	}
	if p, _ := PresetPolicy("roce-k8s"); *p.Trust != "dscp" || *p.CNP.DSCP != 4 || *p.CNP.Priority != 6 || p.PFC.Enabled[0] != 3 {
		t.Errorf("roce-k8s: %+v", p)
	}
	if p, _ := PresetPolicy("azure-local"); *p.Willing || p.PFC.Enabled[0] != 3 {
		t.Errorf("azure-local: %+v", p)
	}
	if _, ok := PresetPolicy("nope"); ok {
		t.Error("an unknown preset")
	}
}
