// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// An lldpad is Debian's lldpad running in a namespace of the test's own
// on one interface: the real DCBX agent on the other end of the DCB test
// device, programming its end of the pair as it does a NIC.
type lldpad struct {
	ns     *testbed.NS // nil: this host's network namespace
	ifname string
}

// inNS runs a command in ns (nil: here) and returns its combined output.
func inNS(ns *testbed.NS, args ...string) (string, error) {
	if ns == nil {
		return runErr(args[0], args[1:]...)
	}
	return ns.Run(args...)
}

// startLldpad starts lldpad in ns on ifname (its state records removed
// first, no PID file, its configuration in a file of the test's own),
// enables LLDP there and stops it when t ends.
func startLldpad(t *testing.T, ns *testbed.NS, ifname string) *lldpad {
	t.Helper()
	if err := os.MkdirAll("/var/lib/lldpad", 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "lldpad.conf")
	if out, err := inNS(ns, "lldpad", "-s"); err != nil {
		t.Logf("lldpad -s: %v: %s", err, out)
	}
	if out, err := inNS(ns, "lldpad", "-d", "-p", "-t", "-f", conf); err != nil {
		t.Fatalf("lldpad -d: %v: %s", err, out)
	}
	l := &lldpad{ns: ns, ifname: ifname}
	var pid int
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := inNS(ns, "lldptool", "-p")
		if err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(out)); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("lldpad does not answer lldptool -p: %v: %s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for range 50 {
			if syscall.Kill(pid, 0) != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
	l.tool(t, "set-lldp", "-i", ifname, "adminStatus=rxtx")
	return l
}

// tool runs lldptool in the lldpad's namespace.
func (l *lldpad) tool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := inNS(l.ns, append([]string{"lldptool"}, args...)...)
	if err != nil {
		t.Fatalf("lldptool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out
}

// ieee configures lldpad's IEEE 802.1Qaz ETS and PFC TLVs on its
// interface: ETS 50/50 with priority 3 on TC1 (recommended too), PFC on
// pfc with the Willing bits given.
func (l *lldpad) ieee(t *testing.T, willing bool, pfc int) {
	t.Helper()
	w := map[bool]string{true: "yes", false: "no"}[willing]
	tsa := "tsa=0:ets,1:ets,2:strict,3:strict,4:strict,5:strict,6:strict,7:strict"
	up2tc := "up2tc=0:0,1:0,2:0,3:1,4:0,5:0,6:0,7:0"
	l.tool(t, "-T", "-i", l.ifname, "-V", "ETS-CFG", "enableTx=yes", "willing="+w, tsa, up2tc, "tcbw=50,50,0,0,0,0,0,0")
	l.tool(t, "-T", "-i", l.ifname, "-V", "ETS-REC", "enableTx=yes", tsa, up2tc, "tcbw=50,50,0,0,0,0,0,0")
	l.tool(t, "-T", "-i", l.ifname, "-V", "PFC", "enableTx=yes", "willing="+w, "enabled="+strconv.Itoa(pfc))
}

// nicPFC returns the PFC iproute2's dcb reads in the lldpad's NIC.
func (l *lldpad) nicPFC(t *testing.T) dcb.PrioSet {
	t.Helper()
	out, err := inNS(l.ns, "dcb", "-j", "pfc", "show", "dev", l.ifname)
	if err != nil {
		t.Fatalf("dcb pfc show: %v: %s", err, out)
	}
	var p dcbPFC
	if err := jsonUnmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return p.enabled()
}

// pairWithLldpad loads the DCB test device afresh, moves dcbt1 into a
// namespace of its own and starts lldpad there.
func pairWithLldpad(t *testing.T) *lldpad {
	t.Helper()
	freshDevice(t)
	sw := testbed.NewNS(t, "lldpad")
	run(t, "ip", "link", "set", "dcbt1", "netns", sw.Name)
	if out, err := sw.Run("ip", "link", "set", "dcbt1", "up"); err != nil {
		t.Fatalf("ip link set dcbt1 up: %v: %s", err, out)
	}
	return startLldpad(t, sw, "dcbt1")
}

// waitPFC polls until get returns want or d has passed, and returns the
// last value.
func waitPFC(d time.Duration, want dcb.PrioSet, get func() dcb.PrioSet) dcb.PrioSet {
	deadline := time.Now().Add(d)
	for {
		got := get()
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// dcbtop's IEEE agent against lldpad, Debian's DCBX agent, over the real
// kernel: in each Willing combination they converge as IEEE 802.1Qaz and
// lldpad's tie-break say, each programs its NIC (iproute2's dcb reads
// both ends), and dcbtop's snapshot says what is in force and why.
func TestAgainstLldpadIEEE(t *testing.T) {
	local4 := `{"ets": {"willing": true, "cbs": false, "max_tcs": 8, "prio_tc": [0,0,0,0,1,0,0,0], "tc_bandwidth": [60,40,0,0,0,0,0,0],
		"tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
		"pfc": {"willing": true, "mbc": false, "cap": 8, "enabled": [4]}}`
	for _, tt := range []struct {
		name                 string
		dcbtopWill, padWill  bool
		wantHost, wantLldpad func(hostMAC, padMAC string) dcb.PrioSet
		wantDiag             diag.Code
	}{
		{name: "dcbtop willing", dcbtopWill: true, padWill: false,
			wantHost: func(string, string) dcb.PrioSet { return 1 << 3 }, wantLldpad: func(string, string) dcb.PrioSet { return 1 << 3 }},
		{name: "lldpad willing", dcbtopWill: false, padWill: true,
			wantHost: func(string, string) dcb.PrioSet { return 1 << 4 }, wantLldpad: func(string, string) dcb.PrioSet { return 1 << 4 }},
		{name: "both willing", dcbtopWill: true, padWill: true, wantDiag: diag.CodeBothWilling,
			// lldpad's tie-break (lldp_8021qaz.c): the end with the lower
			// MAC adopts its peer's PFC.
			wantHost: func(h, p string) dcb.PrioSet {
				if h < p {
					return 1 << 3
				}
				return 1 << 4
			},
			wantLldpad: func(h, p string) dcb.PrioSet {
				if h < p {
					return 1 << 3
				}
				return 1 << 4
			}},
		{name: "neither willing", dcbtopWill: false, padWill: false, wantDiag: diag.CodeNeitherWilling,
			wantHost: func(string, string) dcb.PrioSet { return 1 << 4 }, wantLldpad: func(string, string) dcb.PrioSet { return 1 << 3 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pad := pairWithLldpad(t)
			pad.ieee(t, tt.padWill, 3)
			hostMAC := strings.TrimSpace(run(t, "cat", "/sys/class/net/dcbt0/address"))
			padMAC, err := inNS(pad.ns, "cat", "/sys/class/net/dcbt1/address")
			if err != nil {
				t.Fatal(err)
			}
			padMAC = strings.TrimSpace(padMAC)
			local := testbed.WriteFile(t, "local.json", local4)
			wait := startSnapshot(t, "dcbt0", 6*time.Second, "--agent", "--local", local,
				"--willing", map[bool]string{true: "on", false: "off"}[tt.dcbtopWill], "--tx-interval", "1s")
			wantHost, wantPad := tt.wantHost(hostMAC, padMAC), tt.wantLldpad(hostMAC, padMAC)
			gotHost := waitPFC(5*time.Second, wantHost, func() dcb.PrioSet {
				var p dcbPFC
				dcbJSON(t, &p, "pfc", "dcbt0")
				return p.enabled()
			})
			gotPad := waitPFC(3*time.Second, wantPad, func() dcb.PrioSet { return pad.nicPFC(t) })
			in := wait()
			if gotHost != wantHost {
				t.Errorf("dcb reads PFC %v in this host's NIC, want %v (host %s, lldpad %s)", gotHost, wantHost, hostMAC, padMAC)
			}
			if gotPad != wantPad {
				t.Errorf("dcb reads PFC %v in lldpad's NIC, want %v (host %s, lldpad %s)\n%s", gotPad, wantPad, hostMAC, padMAC,
					pad.tool(t, "-t", "-i", "dcbt1", "-V", "PFC"))
			}
			if in.Dialect != lldp.DialectIEEE {
				t.Errorf("the peer's dialect %q, want ieee", in.Dialect)
			}
			if in.Operational == nil || in.Operational.PFC == nil || in.Operational.PFC.Enabled != wantHost {
				t.Errorf("operational PFC %+v, want %v", in.Operational, wantHost)
			}
			if in.NIC == nil || in.NIC.PFC == nil || *in.NIC.PFC != engine.NICInForce {
				t.Errorf("NIC program %+v, want PFC in-nic", in.NIC)
			}
			if tt.wantDiag != "" && !slices.ContainsFunc(in.Diagnostics, func(d diag.Diagnostic) bool { return d.Code == tt.wantDiag }) {
				t.Errorf("no %s diagnostic: %v", tt.wantDiag, codes(in.Diagnostics))
			}
		})
	}
}

func codes(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s(%s)", d.Code, d.Severity))
	}
	return out
}

// lldpad as this host's DCBX agent (willing, its default) programs the NIC
// with the PFC a switch (lldpd) sends; a read-only dcbtop on that NIC
// shows who decided: lldpad among the host's LLDP agents and the sender
// of this host's LLDPDUs, the NIC's parameters (DCB netlink) as the local
// ones, which are what dcb reads and what the switch sent.
func TestReadOnlyBesideLldpad(t *testing.T) {
	freshDevice(t)
	sw := testbed.NewNS(t, "sw")
	run(t, "ip", "link", "set", "dcbt1", "netns", sw.Name)
	if out, err := sw.Run("ip", "link", "set", "dcbt1", "up"); err != nil {
		t.Fatalf("ip link set dcbt1 up: %v: %s", err, out)
	}
	testbed.StartLLDPD(t, sw, "dcbt1", testbed.LLDPDOpts{Hostname: "leaf1", TxInterval: 1, TLVs: []testbed.UnknownTLV{
		{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}}, // PFC: not willing, capability 8, priority 3
	}})
	pad := startLldpad(t, nil, "dcbt0")
	pad.tool(t, "-T", "-i", "dcbt0", "-V", "PFC", "enableTx=yes", "willing=yes")
	pad.tool(t, "-T", "-i", "dcbt0", "-V", "ETS-CFG", "enableTx=yes", "willing=yes")
	got := waitPFC(15*time.Second, 1<<3, func() dcb.PrioSet { return pad.nicPFC(t) })
	if got != 1<<3 {
		t.Fatalf("lldpad did not program the switch's PFC: dcb reads %v\n%s", got, pad.tool(t, "-t", "-i", "dcbt0", "-V", "PFC"))
	}
	in := snapshotFor(t, "dcbt0", 4*time.Second)
	if !slices.ContainsFunc(in.HostAgents, func(a engine.HostAgent) bool { return a.Name == "lldpad" }) {
		t.Errorf("host agents %+v, want lldpad", in.HostAgents)
	}
	if len(in.LocalAgents) == 0 {
		t.Errorf("no local agent seen sending on dcbt0 (lldpad sends every 30 s, fast start at first)")
	}
	if in.LocalSource != "dcbnl" || in.Local == nil || in.Local.PFC == nil || in.Local.PFC.Enabled != 1<<3 {
		t.Errorf("local (%s) %+v, want the NIC's PFC on priority 3, which lldpad programmed", in.LocalSource, in.Local)
	}
	if in.Remote == nil || in.Remote.PFC == nil || in.Remote.PFC.Enabled != 1<<3 {
		t.Errorf("remote %+v, want the switch's PFC on priority 3", in.Remote)
	}
}
