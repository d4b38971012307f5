// SPDX-License-Identifier: Apache-2.0

//go:build unix

package kernel

import (
	"fmt"
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

func mustParams(t *testing.T, s string) *dcb.Params {
	t.Helper()
	p, err := dcb.ParseParams(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	ets4060 = `"ets": {"prio_tc": [0,0,0,1,0,0,0,0], "tc_bandwidth": [40,60,0,0,0,0,0,0],
	                   "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]}`
	pfc34   = `"pfc": {"cap": 8, "enabled": [3,4]}`
	appRoCE = `"app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}, {"selector": "dscp", "protocol": 26, "priority": 3}]`
)

var (
	tsa4060  = [8]uint8{2, 2, 0, 0, 0, 0, 0, 0}
	prio4060 = [8]uint8{0, 0, 0, 1, 0, 0, 0, 0}
	bw4060   = [8]uint8{40, 60, 0, 0, 0, 0, 0, 0}
)

// TestIEEEMapping maps PARAMS onto struct ieee_ets, ieee_pfc and dcb_app.
func TestIEEEMapping(t *testing.T) {
	cur := &dcbnl.ETS{Willing: true, ETSCap: 4, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2},
		TCRecoBW: [8]uint8{100}, TCRecoTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}}
	reco := `"ets_reco": {"prio_tc": [0,1,2,3,4,5,6,7], "tc_bandwidth": [10,10,10,10,10,10,10,30], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}`
	tests := []struct {
		name    string
		cur     *dcbnl.ETS
		params  string
		willing *bool
		want    *dcbnl.ETS
		err     string
	}{
		{name: "ets: tx = rx = tc_bandwidth, reco from ets, willing and cap kept", cur: cur, params: `{` + ets4060 + `}`,
			want: &dcbnl.ETS{Willing: true, ETSCap: 4, TCTxBW: bw4060, TCRxBW: bw4060, TCTSA: tsa4060, PrioTC: prio4060,
				TCRecoBW: bw4060, TCRecoTSA: tsa4060, RecoPrioTC: prio4060}},
		{name: "ets and ets_reco", cur: cur, params: `{` + ets4060 + `,` + reco + `}`, willing: ptr(false),
			want: &dcbnl.ETS{ETSCap: 4, TCTxBW: bw4060, TCRxBW: bw4060, TCTSA: tsa4060, PrioTC: prio4060,
				TCRecoBW: [8]uint8{10, 10, 10, 10, 10, 10, 10, 30}, TCRecoTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}, RecoPrioTC: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}}},
		{name: "ets_reco alone keeps the configuration", cur: cur, params: `{` + reco + `}`,
			want: &dcbnl.ETS{Willing: true, ETSCap: 4, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2},
				TCRecoBW: [8]uint8{10, 10, 10, 10, 10, 10, 10, 30}, TCRecoTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}, RecoPrioTC: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}}},
		{name: "willing alone", cur: cur, params: `{}`, willing: ptr(false),
			want: &dcbnl.ETS{ETSCap: 4, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2},
				TCRecoBW: [8]uint8{100}, TCRecoTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}}},
		{name: "the file's willing is not used; cbs is", cur: cur, params: `{"ets": {"willing": false, "cbs": true, "max_tcs": 8, "prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [100,0,0,0,0,0,0,0], "tsa": ["ets","cbs","strict","vendor","strict","strict","strict","strict"]}}`,
			want: &dcbnl.ETS{Willing: true, ETSCap: 4, CBS: true, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 1, 0, 255},
				TCRecoBW: [8]uint8{100}, TCRecoTSA: [8]uint8{2, 1, 0, 255}}},
		{name: "no ETS from the driver: max_tcs as ets_cap", cur: nil, params: `{` + ets4060 + `}`,
			want: &dcbnl.ETS{ETSCap: 8, TCTxBW: bw4060, TCRxBW: bw4060, TCTSA: tsa4060, PrioTC: prio4060,
				TCRecoBW: bw4060, TCRecoTSA: tsa4060, RecoPrioTC: prio4060}},
		{name: "no ETS from the driver, willing alone", cur: nil, params: `{}`, willing: ptr(true),
			err: "the driver reports no ETS configuration to keep: give ets too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ieeeETS(tt.cur, mustParams(t, tt.params), tt.willing)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ieee_ets (-want +got):\n%s", diff)
			}
		})
	}

	pfcTests := []struct {
		params string
		cur    *dcbnl.PFC
		want   *dcbnl.PFC
	}{
		{`{"cap": 8, "enabled": [3,4]}`, &dcbnl.PFC{Cap: 4, Enabled: 1, MBC: 1, Delay: 7, Requests: [8]uint64{5}}, &dcbnl.PFC{Cap: 8, Enabled: 0x18, Delay: 7}},
		{`{"cap": 4, "mbc": true, "enabled": []}`, nil, &dcbnl.PFC{Cap: 4, MBC: 1}},
		{`{"willing": true, "cap": 8, "enabled": [0,7]}`, &dcbnl.PFC{}, &dcbnl.PFC{Cap: 8, Enabled: 0x81}},
	}
	for _, tt := range pfcTests {
		p := mustParams(t, `{"pfc": `+tt.params+`}`)
		if diff := cmp.Diff(tt.want, ieeePFC(tt.cur, p.PFC)); diff != "" {
			t.Errorf("%s: ieee_pfc (-want +got):\n%s", tt.params, diff)
		}
	}

	appTests := []struct {
		sel  string
		want dcbnl.App
	}{
		{"ethertype", dcbnl.App{Selector: 1, Priority: 3, Protocol: 0x8906}},
		{"tcp-port", dcbnl.App{Selector: 2, Priority: 3, Protocol: 0x8906}},
		{"udp-port", dcbnl.App{Selector: 3, Priority: 3, Protocol: 0x8906}},
		{"port", dcbnl.App{Selector: 4, Priority: 3, Protocol: 0x8906}},
	}
	for _, tt := range appTests {
		p := mustParams(t, fmt.Sprintf(`{"app": [{"selector": %q, "protocol": %d, "priority": 3}]}`, tt.sel, 0x8906))
		if got := ieeeApp(p.App[0]); got != tt.want {
			t.Errorf("%s: dcb_app %+v, want %+v", tt.sel, got, tt.want)
		}
	}
	if got := ieeeApp(dcb.App{Selector: lldp.AppSelDSCP, Protocol: 46, Priority: 5}); got != (dcbnl.App{Selector: 5, Priority: 5, Protocol: 46}) {
		t.Errorf("dscp: %+v", got)
	}
}

func TestAppChanges(t *testing.T) {
	a := func(sel, prio uint8, proto uint16) dcbnl.App {
		return dcbnl.App{Selector: sel, Priority: prio, Protocol: proto}
	}
	cur := []dcbnl.App{a(3, 3, 4791), a(5, 3, 26), a(5, 4, 46), a(255, 1, 1), a(0, 0x08, 0x8906), a(1, 0x18, 3260)}
	want := []dcb.App{
		{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3},
		{Selector: lldp.AppSelDSCP, Protocol: 46, Priority: 5}, // moved: the old entry goes first
		{Selector: lldp.AppSelTCP, Protocol: 3260, Priority: 4},
		{Selector: lldp.AppSelTCP, Protocol: 3260, Priority: 4}, // duplicate
	}
	del, add := appChanges(cur, want)
	// PCP (255) and CEE entries (selector 0, or a priority bitmap) are not
	// the IEEE table's and stay.
	if diff := cmp.Diff([]dcbnl.App{a(3, 3, 4791), a(5, 4, 46)}, del); diff != "" {
		t.Errorf("delete (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]dcbnl.App{a(5, 5, 46), a(2, 4, 3260)}, add); diff != "" {
		t.Errorf("add (-want +got):\n%s", diff)
	}
}

// TestApplyKernel drives the kernel path against fake drivers.
func TestApplyKernel(t *testing.T) {
	lld := dcbnl.ModeLLDManaged | dcbnl.ModeIEEE
	host := dcbnl.ModeHost | dcbnl.ModeIEEE
	tests := []struct {
		name    string
		setup   func(f *kerneltest.Fake)
		params  string
		willing *bool
		lines   []string              // Lines: the notes, then the summary on success
		kind    engine.WriteErrorKind // 0 for success
		err     string                // the whole error message ("" for success; a prefix when it ends in ": ")
		calls   []string              // the writes, in order (reads left out)
	}{
		{name: "no dcbnl_ops", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
			},
			kind: engine.WriteNoDCB, err: "no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i eth0 to be the DCBX agent"},
		{name: "no permission", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EPERM}
			},
			kind: engine.WritePermission, err: "set PFC (IEEE_SET): permission denied (needs CAP_NET_ADMIN: run as root)",
			calls: []string{"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}"}},
		{name: "firmware runs DCBX", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode = &lld },
			kind:  engine.WriteFirmwareManaged, err: "the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags eth0 fw-lldp-agent off; i40e: ethtool --set-priv-flags eth0 disable-fw-lldp on; mlx5: dcbtop apply -i eth0 --dcbx-mode host), or configure the switch"},
		{name: "firmware runs DCBX: willing refused too", willing: ptr(false),
			setup: func(f *kerneltest.Fake) { f.Mode = &lld },
			kind:  engine.WriteFirmwareManaged, err: "the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags eth0 fw-lldp-agent off; i40e: ethtool --set-priv-flags eth0 disable-fw-lldp on; mlx5: dcbtop apply -i eth0 --dcbx-mode host), or configure the switch"},
		{name: "firmware runs DCBX: APP goes to the driver", params: `{` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode = &lld },
			lines: []string{"applied through dcbnl and read back: APP"},
			calls: []string{"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]"}},
		{name: "invalid: nothing sent", params: `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`,
			kind: engine.WriteInvalidParams, err: "invalid parameters, nothing sent: ets: "},
		{name: "all three", params: `{` + ets4060 + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.Mode = &host },
			lines: []string{"applied through dcbnl and read back: ETS, PFC, APP"},
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
				"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]",
			}},
		{name: "PFC unchanged is not rewritten", params: `{` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.State.PFC.Enabled = 0x18 },
			lines: []string{"applied through dcbnl and read back: APP; PFC unchanged (not rewritten)"},
			calls: []string{"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]"}},
		{name: "nothing changes", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) { f.State.PFC.Enabled = 0x18 },
			lines: []string{"nothing to change: the driver already has these parameters (nothing rewritten)"}},
		{name: "APP replaces: old entries removed first", params: `{"app": [{"selector": "dscp", "protocol": 26, "priority": 4}]}`,
			setup: func(f *kerneltest.Fake) {
				f.State.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 3, Priority: 3, Protocol: 4791}, {Selector: 255, Priority: 1, Protocol: 1}}
			},
			lines: []string{"applied through dcbnl and read back: APP"},
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26} {Selector:3 Priority:3 Protocol:4791}]", "SET APP [{Selector:5 Priority:4 Protocol:26}]"}},
		{name: "empty APP clears the table", params: `{"app": []}`,
			setup: func(f *kerneltest.Fake) { f.State.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}} },
			lines: []string{"applied through dcbnl and read back: APP"},
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26}]"}},
		{name: "willing: ETS only, and said so", willing: ptr(true),
			lines: []string{
				"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on",
				"applied through dcbnl and read back: ETS",
			},
			calls: []string{"SET ETS {Willing:true ETSCap:8 CBS:false TCTxBW:[100 0 0 0 0 0 0 0] TCRxBW:[100 0 0 0 0 0 0 0] TCTSA:[2 2 2 2 2 2 2 2] PrioTC:[0 0 0 0 0 0 0 0] TCRecoBW:[0 0 0 0 0 0 0 0] TCRecoTSA:[0 0 0 0 0 0 0 0] RecoPrioTC:[0 0 0 0 0 0 0 0]}"}},
		{name: "willing already so", willing: ptr(false),
			lines: []string{
				"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing already off",
				"nothing to change: the driver already has these parameters (nothing rewritten)",
			}},
		{name: "ETS applied, PFC rejected, APP not attempted", params: `{` + ets4060 + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) {
				f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EINVAL, Driver: true, Status: 234}
			},
			kind: engine.WritePartial, err: "ETS applied; PFC failed: driver rejected IEEE_SET on eth0: invalid argument; APP not attempted",
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
			}},
		{name: "ETS rejected first", params: `{` + ets4060 + `,` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.SetErr["ETS"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.ERANGE, Driver: true}
			},
			kind: engine.WriteRejected, err: "ETS failed: driver rejected IEEE_SET on eth0: numerical result out of range; PFC not attempted",
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
			}},
		{name: "APP add fails after the removal", params: `{"app": [{"selector": "dscp", "protocol": 26, "priority": 4}]}`,
			setup: func(f *kerneltest.Fake) {
				f.State.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}}
				f.SetErr["APP"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EINVAL, Driver: true}
			},
			kind: engine.WriteRejected, err: "APP failed: driver rejected IEEE_SET on eth0: invalid argument (after removing APP entries no longer wanted: 1)",
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26}]", "SET APP [{Selector:5 Priority:4 Protocol:26}]"}},
		{name: "driver accepted ETS but stored other bandwidths", params: `{` + ets4060 + `}`,
			setup: func(f *kerneltest.Fake) { f.MangleBW = &[8]uint8{50, 50} },
			kind:  engine.WriteReadBackMismatch, err: "driver accepted ETS but reports different values: tc_bandwidth 50/50/0/0/0/0/0/0, want 40/60/0/0/0/0/0/0",
			calls: []string{"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}"}},
		{name: "driver ignores PFC and APP", params: `{` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *kerneltest.Fake) { f.Ignore["PFC"], f.Ignore["APP"] = true, true },
			kind:  engine.WriteReadBackMismatch, err: "driver accepted PFC but reports different values: enabled none, want 3,4; " +
				"driver accepted APP but reports different values: missing udp-port 4791 priority 3, dscp 26 priority 3",
			calls: []string{
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
				"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]",
			}},
		{name: "driver ignores willing", willing: ptr(true),
			setup: func(f *kerneltest.Fake) { f.Ignore["ETS"] = true },
			lines: []string{"PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on"},
			kind:  engine.WriteReadBackMismatch, err: "driver accepted ETS but reports different values: willing off, want on",
			calls: []string{"SET ETS {Willing:true ETSCap:8 CBS:false TCTxBW:[100 0 0 0 0 0 0 0] TCRxBW:[100 0 0 0 0 0 0 0] TCTSA:[2 2 2 2 2 2 2 2] PrioTC:[0 0 0 0 0 0 0 0] TCRecoBW:[0 0 0 0 0 0 0 0] TCRecoTSA:[0 0 0 0 0 0 0 0] RecoPrioTC:[0 0 0 0 0 0 0 0]}"}},
		{name: "driver lacks ieee_setpfc", params: `{` + pfc34 + `}`,
			setup: func(f *kerneltest.Fake) {
				f.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EOPNOTSUPP, Driver: true}
			},
			kind: engine.WriteRejected, err: "PFC failed: driver rejected IEEE_SET on eth0: operation not supported",
			calls: []string{"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}"}},
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
			res := Apply(f, "eth0", p, tt.willing)
			var kind engine.WriteErrorKind
			msg := ""
			if res.Err != nil {
				kind, msg = res.Err.Kind, res.Err.Error()
			}
			if kind != tt.kind {
				t.Errorf("error kind %v, want %v", kind, tt.kind)
			}
			if msg != tt.err && (!strings.HasSuffix(tt.err, ": ") || !strings.HasPrefix(msg, tt.err)) {
				t.Errorf("error\n  %s\nwant\n  %s", msg, tt.err)
			}
			if diff := cmp.Diff(tt.lines, res.Lines()); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			var writes []string
			for _, c := range f.Calls {
				if c != "IEEE_GET" && c != "GDCBX" {
					writes = append(writes, c)
				}
			}
			if diff := cmp.Diff(tt.calls, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKernelErrorENODEV(t *testing.T) {
	err := refusal("nosuch-xyz0", "read", 0, &dcbnl.Error{Op: "IEEE_GET", Ifname: "nosuch-xyz0", Err: syscall.ENODEV})
	if err == nil || err.Kind != engine.WriteNoInterface || !strings.HasPrefix(err.Error(), "no such interface") {
		t.Errorf("%v", err)
	}
	if err != nil && err.Kind == engine.WritePermission {
		t.Error("ENODEV is not a permission error")
	}
}

func ptr[T any](v T) *T { return &v }
