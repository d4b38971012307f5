//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

func TestApplyUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the whole stderr line
	}{
		{"no interface", []string{"apply", "x.json"}, "dcbtop: apply: name the interface with -i (see dcbtop --help)\n"},
		{"two interfaces", []string{"apply", "-i", "a", "-i", "b", "x.json"}, "dcbtop: apply: exactly one -i (see dcbtop --help)\n"},
		{"nothing to apply", []string{"apply", "-i", "h0"}, "dcbtop: apply: give a PARAMS FILE (- for stdin), --willing on|off, or both (see dcbtop --help)\n"},
		{"two files", []string{"apply", "-i", "h0", "a.json", "b.json"}, "dcbtop: apply: unexpected argument \"b.json\" (one PARAMS FILE at most) (see dcbtop --help)\n"},
		{"bad willing", []string{"apply", "-i", "h0", "--willing", "yes"}, "dcbtop: invalid value \"yes\" for flag -willing: want on or off (see dcbtop --help)\n"},
		{"live flag", []string{"apply", "-i", "h0", "--agent", "x.json"}, "dcbtop: flag provided but not defined: -agent (see dcbtop --help)\n"},
		{"empty interface", []string{"apply", "-i", "", "x.json"}, "dcbtop: invalid value \"\" for flag -i: empty interface name (see dcbtop --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != ExitUsage || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, tt.want)
			}
		})
	}
	code, out, _ := runCLI(t, "apply", "--help")
	if code != 0 || !strings.Contains(out, "dcbtop apply -i IFACE") {
		t.Errorf("apply --help: exit %d, %q", code, out)
	}
}

func TestParseApplyOrder(t *testing.T) {
	// Flags may follow the file.
	for _, args := range [][]string{
		{"-i", "h0", "p.json", "--willing", "off"},
		{"p.json", "-i", "h0", "--willing", "off"},
		{"--willing", "off", "-i", "h0", "p.json"},
	} {
		o, err := parseApply(args)
		if err != nil || o.iface != "h0" || o.file != "p.json" || o.willing == nil || *o.willing {
			t.Errorf("%q: %+v, %v", args, o, err)
		}
	}
}

// A fakeDCB is a driver behind dcbnl, for the kernel path.
type fakeDCB struct {
	state    dcbnl.IEEE
	mode     *dcbnl.Mode
	readErr  error            // IEEE fails with it
	setErr   map[string]error // SetIEEE of "ETS", "PFC" or "APP" fails with it
	delErr   error
	ignore   map[string]bool // accepted but not stored
	mangleBW *[8]uint8       // ETS stored with these bandwidths instead
	calls    []string
}

func newFake() *fakeDCB {
	ets := dcbnl.ETS{ETSCap: 8, TCTxBW: [8]uint8{100}, TCRxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}}
	return &fakeDCB{state: dcbnl.IEEE{ETS: &ets, PFC: &dcbnl.PFC{Cap: 8, Delay: 1234}, App: []dcbnl.App{}},
		setErr: map[string]error{}, ignore: map[string]bool{}}
}

func (f *fakeDCB) IEEE(ifname string) (*dcbnl.IEEE, error) {
	f.calls = append(f.calls, "IEEE_GET")
	if f.readErr != nil {
		return nil, f.readErr
	}
	s := f.state
	if s.ETS != nil {
		e := *s.ETS
		s.ETS = &e
	}
	if s.PFC != nil {
		p := *s.PFC
		s.PFC = &p
	}
	s.App = slices.Clone(s.App)
	s.DCBX = f.mode
	return &s, nil
}

func (f *fakeDCB) SetIEEE(ifname string, s *dcbnl.IEEESet) error {
	switch {
	case s.ETS != nil:
		f.calls = append(f.calls, fmt.Sprintf("SET ETS %+v", *s.ETS))
		if err := f.setErr["ETS"]; err != nil {
			return err
		}
		if !f.ignore["ETS"] {
			e := *s.ETS
			if f.mangleBW != nil {
				e.TCTxBW = *f.mangleBW
			}
			f.state.ETS = &e
		}
	case s.PFC != nil:
		f.calls = append(f.calls, fmt.Sprintf("SET PFC %+v", *s.PFC))
		if err := f.setErr["PFC"]; err != nil {
			return err
		}
		if !f.ignore["PFC"] {
			p := *s.PFC
			f.state.PFC = &p
		}
	default:
		f.calls = append(f.calls, fmt.Sprintf("SET APP %+v", s.Apps))
		if err := f.setErr["APP"]; err != nil {
			return err
		}
		if !f.ignore["APP"] {
			f.state.App = append(f.state.App, s.Apps...)
		}
	}
	return nil
}

func (f *fakeDCB) DelApps(ifname string, apps []dcbnl.App) error {
	f.calls = append(f.calls, fmt.Sprintf("DEL APP %+v", apps))
	if f.delErr != nil {
		return f.delErr
	}
	f.state.App = slices.DeleteFunc(f.state.App, func(a dcbnl.App) bool { return slices.Contains(apps, a) })
	return nil
}

func (f *fakeDCB) DCBX(ifname string) (dcbnl.Mode, error) {
	f.calls = append(f.calls, "GDCBX")
	if f.mode == nil {
		return 0, &dcbnl.Error{Op: "GDCBX", Ifname: ifname, Err: syscall.EOPNOTSUPP}
	}
	return *f.mode, nil
}

func mustParams(t *testing.T, s string) *engine.Params {
	t.Helper()
	p, err := engine.ParseParams(strings.NewReader(s))
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
	if got := ieeeApp(engine.App{Selector: lldp.AppSelDSCP, Protocol: 46, Priority: 5}); got != (dcbnl.App{Selector: 5, Priority: 5, Protocol: 46}) {
		t.Errorf("dscp: %+v", got)
	}
}

func TestAppChanges(t *testing.T) {
	a := func(sel, prio uint8, proto uint16) dcbnl.App {
		return dcbnl.App{Selector: sel, Priority: prio, Protocol: proto}
	}
	cur := []dcbnl.App{a(3, 3, 4791), a(5, 3, 26), a(5, 4, 46), a(255, 1, 1), a(0, 0x08, 0x8906), a(1, 0x18, 3260)}
	want := []engine.App{
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
		setup   func(f *fakeDCB)
		params  string
		willing *bool
		lines   []string
		err     string   // the whole error ("" for success)
		calls   []string // the writes, in order (reads left out)
	}{
		{name: "no dcbnl_ops", params: `{` + pfc34 + `}`,
			setup: func(f *fakeDCB) {
				f.readErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
			},
			err: "eth0 has no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i eth0 to be the DCBX agent"},
		{name: "no permission", params: `{` + pfc34 + `}`,
			setup: func(f *fakeDCB) {
				f.setErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EPERM}
			},
			err:   "eth0: set PFC (IEEE_SET): permission denied (needs CAP_NET_ADMIN: run as root)",
			calls: []string{"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}"}},
		{name: "firmware runs DCBX", params: `{` + pfc34 + `}`,
			setup: func(f *fakeDCB) { f.mode = &lld },
			err:   "eth0: the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags eth0 fw-lldp-agent off; i40e: ethtool --set-priv-flags eth0 disable-fw-lldp on), or configure the switch"},
		{name: "firmware runs DCBX: willing refused too", willing: ptr(false),
			setup: func(f *fakeDCB) { f.mode = &lld },
			err:   "eth0: the NIC firmware runs DCBX (DCB_CAP_DCBX_LLD_MANAGED), so ETS and PFC cannot be set from the host; hand DCBX to the host first (ice: ethtool --set-priv-flags eth0 fw-lldp-agent off; i40e: ethtool --set-priv-flags eth0 disable-fw-lldp on), or configure the switch"},
		{name: "firmware runs DCBX: APP goes to the driver", params: `{` + appRoCE + `}`,
			setup: func(f *fakeDCB) { f.mode = &lld },
			lines: []string{"eth0: applied through dcbnl and read back: APP"},
			calls: []string{"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]"}},
		{name: "invalid: nothing sent", params: `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`,
			err: "eth0: invalid parameters, nothing sent: ets: "},
		{name: "all three", params: `{` + ets4060 + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *fakeDCB) { f.mode = &host },
			lines: []string{"eth0: applied through dcbnl and read back: ETS, PFC, APP"},
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
				"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]",
			}},
		{name: "PFC unchanged is not rewritten", params: `{` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *fakeDCB) { f.state.PFC.Enabled = 0x18 },
			lines: []string{"eth0: applied through dcbnl and read back: APP; PFC unchanged (not rewritten)"},
			calls: []string{"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]"}},
		{name: "nothing changes", params: `{` + pfc34 + `}`,
			setup: func(f *fakeDCB) { f.state.PFC.Enabled = 0x18 },
			lines: []string{"eth0: nothing to change: the driver already has these parameters (nothing rewritten)"}},
		{name: "APP replaces: old entries removed first", params: `{"app": [{"selector": "dscp", "protocol": 26, "priority": 4}]}`,
			setup: func(f *fakeDCB) {
				f.state.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 3, Priority: 3, Protocol: 4791}, {Selector: 255, Priority: 1, Protocol: 1}}
			},
			lines: []string{"eth0: applied through dcbnl and read back: APP"},
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26} {Selector:3 Priority:3 Protocol:4791}]", "SET APP [{Selector:5 Priority:4 Protocol:26}]"}},
		{name: "empty APP clears the table", params: `{"app": []}`,
			setup: func(f *fakeDCB) { f.state.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}} },
			lines: []string{"eth0: applied through dcbnl and read back: APP"},
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26}]"}},
		{name: "willing: ETS only, and said so", willing: ptr(true),
			lines: []string{
				"eth0: PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on",
				"eth0: applied through dcbnl and read back: ETS",
			},
			calls: []string{"SET ETS {Willing:true ETSCap:8 CBS:false TCTxBW:[100 0 0 0 0 0 0 0] TCRxBW:[100 0 0 0 0 0 0 0] TCTSA:[2 2 2 2 2 2 2 2] PrioTC:[0 0 0 0 0 0 0 0] TCRecoBW:[0 0 0 0 0 0 0 0] TCRecoTSA:[0 0 0 0 0 0 0 0] RecoPrioTC:[0 0 0 0 0 0 0 0]}"}},
		{name: "willing already so", willing: ptr(false),
			lines: []string{
				"eth0: PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing already off",
				"eth0: nothing to change: the driver already has these parameters (nothing rewritten)",
			}},
		{name: "ETS applied, PFC rejected, APP not attempted", params: `{` + ets4060 + `,` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *fakeDCB) {
				f.setErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EINVAL, Driver: true, Status: 234}
			},
			err: "eth0: ETS applied; PFC failed: driver rejected IEEE_SET on eth0: invalid argument; APP not attempted",
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
			}},
		{name: "ETS rejected first", params: `{` + ets4060 + `,` + pfc34 + `}`,
			setup: func(f *fakeDCB) {
				f.setErr["ETS"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.ERANGE, Driver: true}
			},
			err: "eth0: ETS failed: driver rejected IEEE_SET on eth0: numerical result out of range; PFC not attempted",
			calls: []string{
				"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}",
			}},
		{name: "APP add fails after the removal", params: `{"app": [{"selector": "dscp", "protocol": 26, "priority": 4}]}`,
			setup: func(f *fakeDCB) {
				f.state.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}}
				f.setErr["APP"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EINVAL, Driver: true}
			},
			err:   "eth0: APP failed: driver rejected IEEE_SET on eth0: invalid argument (after removing APP entries no longer wanted: 1)",
			calls: []string{"DEL APP [{Selector:5 Priority:3 Protocol:26}]", "SET APP [{Selector:5 Priority:4 Protocol:26}]"}},
		{name: "driver accepted ETS but stored other bandwidths", params: `{` + ets4060 + `}`,
			setup: func(f *fakeDCB) { f.mangleBW = &[8]uint8{50, 50} },
			err:   "eth0: driver accepted ETS but reports different values: tc_bandwidth 50/50/0/0/0/0/0/0, want 40/60/0/0/0/0/0/0",
			calls: []string{"SET ETS {Willing:false ETSCap:8 CBS:false TCTxBW:[40 60 0 0 0 0 0 0] TCRxBW:[40 60 0 0 0 0 0 0] TCTSA:[2 2 0 0 0 0 0 0] PrioTC:[0 0 0 1 0 0 0 0] TCRecoBW:[40 60 0 0 0 0 0 0] TCRecoTSA:[2 2 0 0 0 0 0 0] RecoPrioTC:[0 0 0 1 0 0 0 0]}"}},
		{name: "driver ignores PFC and APP", params: `{` + pfc34 + `,` + appRoCE + `}`,
			setup: func(f *fakeDCB) { f.ignore["PFC"], f.ignore["APP"] = true, true },
			err: "eth0: driver accepted PFC but reports different values: enabled none, want 3,4; " +
				"driver accepted APP but reports different values: missing udp-port 4791 priority 3, dscp 26 priority 3",
			calls: []string{
				"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}",
				"SET APP [{Selector:3 Priority:3 Protocol:4791} {Selector:5 Priority:3 Protocol:26}]",
			}},
		{name: "driver ignores willing", willing: ptr(true),
			setup: func(f *fakeDCB) { f.ignore["ETS"] = true },
			lines: []string{"eth0: PFC willing exists only in dcbtop's own agent (ieee_pfc has no willing field); ETS willing set on"},
			err:   "eth0: driver accepted ETS but reports different values: willing off, want on",
			calls: []string{"SET ETS {Willing:true ETSCap:8 CBS:false TCTxBW:[100 0 0 0 0 0 0 0] TCRxBW:[100 0 0 0 0 0 0 0] TCTSA:[2 2 2 2 2 2 2 2] PrioTC:[0 0 0 0 0 0 0 0] TCRecoBW:[0 0 0 0 0 0 0 0] TCRecoTSA:[0 0 0 0 0 0 0 0] RecoPrioTC:[0 0 0 0 0 0 0 0]}"}},
		{name: "driver lacks ieee_setpfc", params: `{` + pfc34 + `}`,
			setup: func(f *fakeDCB) {
				f.setErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EOPNOTSUPP, Driver: true}
			},
			err:   "eth0: PFC failed: driver rejected IEEE_SET on eth0: operation not supported",
			calls: []string{"SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			if tt.setup != nil {
				tt.setup(f)
			}
			var p *engine.Params
			if tt.params != "" {
				p = mustParams(t, tt.params)
			}
			lines, err := applyKernel(f, "eth0", p, tt.willing)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err) || (!strings.HasSuffix(tt.err, ": ") && err.Error() != tt.err)):
				t.Errorf("error\n  %v\nwant\n  %s", err, tt.err)
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			var writes []string
			for _, c := range f.calls {
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

// TestApplyRun runs dcbtop apply through Run: the kernel path with a fake
// driver, the error lines, and the agent path with an in-process agent.
func TestApplyRun(t *testing.T) {
	dir := shortTempDir(t)
	t.Setenv(control.EnvRunDir, dir)
	fake := newFake()
	saved := dialDCB
	t.Cleanup(func() { dialDCB = saved })
	dialDCB = func() (dcbClient, func(), error) { return fake, func() {}, nil }
	file := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(file, []byte(`{`+pfc34+`}`), 0o600); err != nil {
		t.Fatal(err)
	}

	// No agent: the kernel.
	code, out, errOut := runCLI(t, "apply", "-i", "eth0", file)
	if code != 0 || errOut != "" || out != "eth0: applied through dcbnl and read back: PFC\n" {
		t.Errorf("kernel path: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Errors are one line, exit 1.
	fake.readErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
	code, out, errOut = runCLI(t, "apply", "-i", "eth0", "--willing", "off")
	if want := "dcbtop: eth0 has no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i eth0 to be the DCBX agent\n"; code != 1 || out != "" || errOut != want {
		t.Errorf("EOPNOTSUPP: exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, want)
	}
	fake.readErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "nosuch0", Err: syscall.ENODEV}
	code, _, errOut = runCLI(t, "apply", "-i", "nosuch0", file)
	if code != 1 || !strings.HasPrefix(errOut, "dcbtop: nosuch0: no such interface") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("ENODEV: exit %d, stderr %q", code, errOut)
	}
	fake.readErr = nil

	// Bad files.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"pfc": {"cap": 8, "enabled": [3]}, "ecn": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "apply", "-i", "eth0", bad)
	if want := "dcbtop: " + bad + ": parameters JSON: json: unknown field \"ecn\"\n"; code != 1 || errOut != want {
		t.Errorf("bad file: exit %d, stderr %q, want %q", code, errOut, want)
	}
	code, _, errOut = runCLI(t, "apply", "-i", "eth0", bad+".missing")
	if want := "dcbtop: " + bad + ".missing: no such file or directory\n"; code != 1 || errOut != want {
		t.Errorf("missing file: exit %d, stderr %q, want %q", code, errOut, want)
	}
	code, _, errOut = runCLI(t, "apply", "-i", "eth0", writeTemp(t, `{}`))
	if code != 1 || !strings.HasSuffix(errOut, ": no feature given (ets, ets_reco, pfc or app)\n") {
		t.Errorf("empty object: exit %d, stderr %q", code, errOut)
	}

	// stdin.
	var o, e bytes.Buffer
	fake.state.PFC.Enabled = 0
	code = Run(context.Background(), []string{"apply", "-i", "eth0", "-"}, Env{Stdin: strings.NewReader(`{` + pfc34 + `}`), Stdout: &o, Stderr: &e})
	if code != 0 || o.String() != "eth0: applied through dcbnl and read back: PFC\n" || e.String() != "" {
		t.Errorf("stdin: exit %d, stdout %q, stderr %q", code, o.String(), e.String())
	}

	// A running agent on h0 takes the request instead of the kernel.
	ta := startTestAgent(t, dir, agent.DefaultLocal(), true)
	fake.calls = nil
	code, out, errOut = runCLI(t, "apply", "-i", "h0", file, "--willing", "off")
	if want := fmt.Sprintf("h0: applied through the running dcbtop agent (pid %d): pfc, willing; its LLDP peers see it within 1 s\n", os.Getpid()); code != 0 || out != want || errOut != "" {
		t.Errorf("agent path: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if len(fake.calls) != 0 {
		t.Errorf("agent path: the kernel was called: %v", fake.calls)
	}
	code, out, _ = runCLI(t, "apply", "-i", "h0", file)
	if want := fmt.Sprintf("h0: nothing changed: the running dcbtop agent (pid %d) already advertises these parameters\n", os.Getpid()); code != 0 || out != want {
		t.Errorf("agent path, again: exit %d, stdout %q", code, out)
	}
	code, out, errOut = runCLI(t, "apply", "-i", "h0", writeTemp(t, `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`))
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "dcbtop: h0: the running dcbtop agent refused: invalid parameters: ets: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("agent path, invalid: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if resp := ta.call(`{"op":"get"}`); resp.Willing == nil || *resp.Willing || resp.Local.PFC.Enabled != 0x18 {
		t.Errorf("agent state after apply: %+v", resp)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestKernelErrorENODEV(t *testing.T) {
	err := kernelError("nosuch-xyz0", "read", &dcbnl.Error{Op: "IEEE_GET", Ifname: "nosuch-xyz0", Err: syscall.ENODEV})
	if !strings.HasPrefix(err.Error(), "nosuch-xyz0: no such interface") {
		t.Errorf("%v", err)
	}
	if errors.Is(err, os.ErrPermission) {
		t.Error("ENODEV is not a permission error")
	}
}
