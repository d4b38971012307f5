// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// startLldpad starts lldpad in ns on ifname (its state on a /dev/shm of
// its own, no PID file, its configuration in a file of the test's own),
// enables LLDP there and stops it when t ends.
func startLldpad(t *testing.T, ns *testbed.NS, ifname string) *lldpad {
	t.Helper()
	if err := os.MkdirAll("/var/lib/lldpad", 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "lldpad.conf")
	// In the foreground, its log kept; its state records (POSIX shared
	// memory, lldpad_shm.c: /dev/shm/lldpad.state) on a /dev/shm of its
	// own: lldpads of tests run side by side keep theirs apart (lldpad
	// refuses to start beside the pid another left there), and none
	// starts from another's. Line-buffered (stdbuf): to a pipe lldpad's
	// log is block-buffered, and a failed test's log lost its last lines.
	args := []string{"unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs lldpad-shm /dev/shm && exec stdbuf -oL -eL lldpad -p -t -f "$1"`, "sh", conf}
	if ns != nil {
		args = append([]string{"ip", "netns", "exec", ns.Name}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	var log bytes.Buffer
	var logMu sync.Mutex
	w := writerFunc(func(b []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return log.Write(b) })
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatalf("lldpad: %v", err)
	}
	var exitErr error
	exited := make(chan struct{})
	go func() { exitErr = cmd.Wait(); close(exited) }()
	logText := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("lldpad's log:\n%s", logText())
		}
	})
	l := &lldpad{ns: ns, ifname: ifname}
	deadline := time.Now().Add(time.Minute) // a loaded guest under TCG is slow to start it
	for {
		out, err := inNS(ns, "lldptool", "-p")
		if err == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("lldpad exited (%v) before answering lldptool -p:\n%s", exitErr, logText())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("lldpad does not answer lldptool -p: %v: %s\n%s", err, out, logText())
		}
		time.Sleep(200 * time.Millisecond)
	}
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

// pairWithLldpad puts pair i of the DCB test device (dcbt2i, dcbt2i+1)
// into two namespaces of the test's own, this host's end and lldpad's,
// and starts lldpad on its end. It returns this host's namespace and
// interface.
func pairWithLldpad(t *testing.T, i int) (host *testbed.NS, hostIf string, pad *lldpad) {
	t.Helper()
	hostIf, padIf := fmt.Sprintf("dcbt%d", 2*i), fmt.Sprintf("dcbt%d", 2*i+1)
	host, sw := testbed.NewNS(t, "host"), testbed.NewNS(t, "lldpad")
	for _, end := range []struct {
		ns  *testbed.NS
		dev string
	}{{host, hostIf}, {sw, padIf}} {
		run(t, "ip", "link", "set", end.dev, "netns", end.ns.Name)
		if out, err := end.ns.Run("ip", "link", "set", end.dev, "up"); err != nil {
			t.Fatalf("ip link set %s up: %v: %s", end.dev, err, out)
		}
	}
	return host, hostIf, startLldpad(t, sw, padIf)
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
	freshPairs(t, 4)
	for i, tt := range []struct {
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
		// Side by side, each on a pair of its own in namespaces of its own.
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host, hostIf, pad := pairWithLldpad(t, i)
			pad.ieee(t, tt.padWill, 3)
			mac := func(ns *testbed.NS, dev string) string {
				out, err := inNS(ns, "cat", "/sys/class/net/"+dev+"/address")
				if err != nil {
					t.Fatal(err)
				}
				return strings.TrimSpace(out)
			}
			hostMAC, padMAC := mac(host, hostIf), mac(pad.ns, pad.ifname)
			local := testbed.WriteFile(t, "local.json", local4)
			wait := startSnapshotIn(t, host, hostIf, 30*time.Second, "--agent", "--local", local,
				"--willing", map[bool]string{true: "on", false: "off"}[tt.dcbtopWill], "--tx-interval", "1s")
			wantHost, wantPad := tt.wantHost(hostMAC, padMAC), tt.wantLldpad(hostMAC, padMAC)
			gotHost := waitPFC(25*time.Second, wantHost, func() dcb.PrioSet {
				var p dcbPFC
				dcbJSONIn(t, host, &p, "pfc", hostIf)
				return p.enabled()
			})
			gotPad := waitPFC(25*time.Second, wantPad, func() dcb.PrioSet { return pad.nicPFC(t) })
			// Both NICs hold what they should; a few more of lldpad's
			// LLDPDUs (its fast start after dcbtop's first) reach dcbtop
			// before its snapshot.
			time.Sleep(3 * time.Second)
			in := wait(true)
			if gotHost != wantHost {
				t.Errorf("dcb reads PFC %v in this host's NIC, want %v (host %s, lldpad %s)", gotHost, wantHost, hostMAC, padMAC)
			}
			if gotPad != wantPad {
				t.Errorf("dcb reads PFC %v in lldpad's NIC, want %v (host %s, lldpad %s)\n%s", gotPad, wantPad, hostMAC, padMAC,
					pad.tool(t, "-t", "-i", pad.ifname, "-V", "PFC"))
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
	testbed.StartLLDPD(t, sw, "dcbt1", testbed.LLDPDOpts{Hostname: "leaf1", TxInterval: 1, StartupTimeout: time.Minute, TLVs: []testbed.UnknownTLV{
		{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{0x08, 0x08}}, // PFC: not willing, capability 8, priority 3
	}})
	pad := startLldpad(t, nil, "dcbt0")
	pad.tool(t, "-T", "-i", "dcbt0", "-V", "PFC", "enableTx=yes", "willing=yes")
	pad.tool(t, "-T", "-i", "dcbt0", "-V", "ETS-CFG", "enableTx=yes", "willing=yes")
	got := waitPFC(40*time.Second, 1<<3, func() dcb.PrioSet { return pad.nicPFC(t) })
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

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
