// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

// Integration tests of dcbtop apply and the agent's control socket, with
// dcbtop as a real process in network namespaces (see
// live_integration_test.go): the kernel path against the real kernel's
// answers for a veth (no dcbnl_ops), and the agent path end to end with
// lldpd and tshark on the far side.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// envPath returns the absolute path of env(1).
func envPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("env")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dcbtopIn returns the argv of `dcbtop args...` in ns, with its control
// sockets in runDir and its kept parameters in t's state directory.
func dcbtopIn(t testing.TB, ns *testbed.NS, runDir string, args ...string) []string {
	t.Helper()
	if dcbtopBin == "" {
		t.Fatal("dcbtop binary not built (TestMain builds it only as root)")
	}
	return append([]string{ipPath(t), "netns", "exec", ns.Name, envPath(t), control.EnvRunDir + "=" + runDir,
		statedir.EnvDir + "=" + stateDir(t), dcbtopBin}, args...)
}

// nsControl sends one request to the control socket of ifname's agent in
// ns: the socket is named after the namespace's inode, which the test
// process (in another namespace) reads from the `ip netns` bind mount.
func nsControl(t testing.TB, runDir string, ns *testbed.NS, ifname, req string) control.Response {
	t.Helper()
	resp, err := nsControlErr(runDir, ns, ifname, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// nsControlErr is nsControl returning its error.
func nsControlErr(runDir string, ns *testbed.NS, ifname, req string) (control.Response, error) {
	st, err := os.Stat(filepath.Join(testbed.NetnsDir, ns.Name))
	if err != nil {
		return control.Response{}, err
	}
	path := nsSocket(runDir, st, ifname)
	resp, err := control.DoRaw(path, []byte(req), 5*time.Second)
	if err != nil {
		return resp, fmt.Errorf("%s on %s: %w", req, path, err)
	}
	return resp, nil
}

// nsSocket is the control socket of ifname in runDir for the namespace
// whose bind mount st is.
func nsSocket(runDir string, st os.FileInfo, ifname string) string {
	return filepath.Join(runDir, strconv.FormatUint(st.Sys().(*syscall.Stat_t).Ino, 10)+"-"+ifname+".sock")
}

const noDCB = "dcbtop: h0: no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i h0 to be the DCBX agent\n"

// TestApplyKernelErrors: without an agent, dcbtop apply goes to the
// kernel, whose answers for a veth are one-line errors with exit status 1.
func TestApplyKernelErrors(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	run := testbed.ShortTempDir(t)
	file := testbed.WriteFile(t, "p.json", `{"pfc": {"cap": 8, "enabled": [3]}}`)

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"veth: no dcbnl_ops", []string{"apply", "-i", "h0", file}, noDCB},
		{"willing alone", []string{"apply", "-i", "h0", "--willing", "off"}, noDCB},
		{"no such interface", []string{"apply", "-i", "nosuch0", file}, "dcbtop: nosuch0: no such interface (available: h0, lo)\n"},
		{"bad usage", []string{"apply", "-i", "h0"}, "dcbtop: apply: give a PARAMS FILE (- for stdin), --willing on|off, or both (see dcbtop apply --help)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOut(t, dcbtopIn(t, host, run, tt.args...)...)
			wantCode := 1
			if tt.name == "bad usage" {
				wantCode = 2
			}
			if code != wantCode || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, %q", code, out, errOut, wantCode, tt.want)
			}
		})
	}

	// Without CAP_NET_ADMIN (in a user namespace, where root has no
	// capability over the initial namespace): the kernel checks the
	// capability only for SET commands (dcb_doit: RTM_SETDCB and
	// !netlink_capable(CAP_NET_ADMIN) -> EPERM), and dcbtop reads first
	// (IEEE_GET, no capability needed), which for a veth fails with
	// EOPNOTSUPP (no dcbnl_ops). So the real kernel answers "no DCB
	// support" here; the EPERM message (a driver with dcbnl_ops, a user
	// without CAP_NET_ADMIN) is covered with a fake driver in
	// TestApplyKernel.
	t.Run("without CAP_NET_ADMIN", func(t *testing.T) {
		testbed.RequireCommands(t, "unshare")
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runOut(t, envPath(t), control.EnvRunDir+"="+run, unshare, "-rn", "sh", "-c",
			`"$0" link add h0 type veth peer name h1 && exec "$1" apply -i h0 "$2"`, ipPath(t), dcbtopBin, file)
		if code != 1 || out != "" || errOut != noDCB {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, noDCB)
		}
	})
}

// TestApplyAgentLLDPD runs `dcbtop --agent -i h0 --events --tx-interval
// 1s` facing lldpd and changes its parameters with dcbtop apply: the agent
// reports the local (and operational) change, lldpd receives the new
// 802.1Qaz TLVs within a second or two, tshark decodes them, and undo
// through the control socket restores the previous TLVs. A second agent
// on h0 is refused; one on an h0 of another namespace is not.
func TestApplyAgentLLDPD(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	host, hostMAC, l, pcap, stopDump := lldpdSwitch(t, testbed.LLDPDOpts{Hostname: "sw1"})
	run := testbed.ShortTempDir(t)

	d := startProc(t, "dcbtop --agent (in "+host.Name+")", dcbtopIn(t, host, run, "--agent", "-i", "h0", "--events", "--tx-interval", "1s"))
	pid := d.cmd.Process.Pid
	isDcbtop := chassisIs(hostMAC)
	tlvs := func() func([]testbed.Neighbor) []testbed.UnknownTLV {
		return func(ns []testbed.Neighbor) []testbed.UnknownTLV {
			if i := slices.IndexFunc(ns, isDcbtop); i >= 0 {
				return ns[i].UnknownTLVs
			}
			return nil
		}
	}()
	waitTLVs := func(what string, timeout time.Duration, want []testbed.UnknownTLV) {
		t.Helper()
		start := time.Now()
		var last []testbed.UnknownTLV
		for time.Since(start) < timeout {
			ns, err := l.Neighbors()
			if err != nil {
				t.Fatal(err)
			}
			if last = tlvs(ns); cmp.Equal(want, last) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: lldpd did not receive the TLVs within %v (-want +last):\n%s", what, timeout, cmp.Diff(want, last))
	}

	// The defaults: willing, all priorities on TC0 at 100%, PFC off, an
	// empty APP table.
	etsTLV := func(willing bool) []byte {
		b := []byte{0x00, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2}
		if willing {
			b[0] = 0x80
		}
		return b
	}
	reco := []byte{0x00, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2}
	qaz := func(willing bool, pfcEn byte, app []byte) []testbed.UnknownTLV {
		pfc := byte(0x08)
		if willing {
			pfc |= 0x80
		}
		return []testbed.UnknownTLV{
			{OUI: testbed.OUI8021, Subtype: 9, Value: etsTLV(willing)},
			{OUI: testbed.OUI8021, Subtype: 10, Value: reco},
			{OUI: testbed.OUI8021, Subtype: 11, Value: []byte{pfc, pfcEn}},
			{OUI: testbed.OUI8021, Subtype: 12, Value: app},
		}
	}
	roceApp := []byte{0x00, 3<<5 | 3, 0x12, 0xb7, 3<<5 | 5, 0x00, 26}
	waitTLVs("start", 10*time.Second, qaz(true, 0x00, []byte{0x00}))
	for _, st := range []engine.Status{engine.StatusLocal, engine.StatusOperational} {
		if in, line := d.nextIndication(t, 5*time.Second); in.Status != st {
			t.Fatalf("start: %s, want %s", line, st)
		}
	}
	sock := nsControl(t, run, host, "h0", `{"op":"get"}`)
	if !sock.OK || sock.PID != pid || sock.Interface != "h0" {
		t.Fatalf("get: %+v, want ok from pid %d", sock, pid)
	}
	if ents, _ := os.ReadDir(run); len(ents) != 1 {
		t.Errorf("run dir holds %v, want one socket", ents)
	} else if info, err := ents[0].Info(); err != nil || info.Mode().Perm() != 0o600 || info.Mode()&os.ModeSocket == 0 {
		t.Errorf("control socket %s: mode %v (%v), want a socket with mode 0600", ents[0].Name(), info.Mode(), err)
	}

	// Another agent on this h0 is refused; one on another namespace's h0
	// is not.
	code, out, errOut := runOut(t, dcbtopIn(t, host, run, "--agent", "-i", "h0", "--tx-interval", "1s", "--json", "--duration", "3s")...)
	if want := fmt.Sprintf("dcbtop: h0: another dcbtop agent runs here (pid %d, control socket %s/", pid, run); code != 1 || out != "" ||
		!strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, "-h0.sock); stop it first, or change its parameters with dcbtop apply -i h0\n") {
		t.Errorf("second agent: exit %d, stdout %q, stderr %q; want 1 and %q...", code, out, errOut, want)
	}
	// Likewise with another run directory (DCBTOP_RUN_DIR): the lock is
	// the interface's in this network namespace, not the socket file's.
	run2 := t.TempDir()
	code, out, errOut = runOut(t, dcbtopIn(t, host, run2, "--agent", "-i", "h0", "--tx-interval", "1s", "--json", "--duration", "3s")...)
	if want := fmt.Sprintf("dcbtop: h0: another dcbtop agent runs on h0 in this network namespace (pid %d); stop it first, or change its parameters with dcbtop apply -i h0\n", pid); code != 1 || out != "" || errOut != want {
		t.Errorf("second agent, other run directory: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
	if ents, _ := os.ReadDir(run2); len(ents) != 0 {
		t.Errorf("the refused agent left %v in its run directory", ents)
	}
	other, peer := testbed.NewNS(t, "other"), testbed.NewNS(t, "peer")
	testbed.Veth(t, peer, "p0", other, "h0")
	if code, _, errOut := runOut(t, dcbtopIn(t, other, run, "--agent", "-i", "h0", "--tx-interval", "1s", "--json", "--duration", "2s")...); code != 0 || errOut != "" {
		t.Errorf("agent on another namespace's h0: exit %d, stderr %q", code, errOut)
	}

	// New PFC and APP through dcbtop apply.
	file := testbed.WriteFile(t, "new.json", `{"pfc": {"cap": 8, "enabled": [3,4]},
	  "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}, {"selector": "dscp", "protocol": 26, "priority": 3}]}`)
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", file)...)
	applied := time.Now()
	if want := fmt.Sprintf("h0: applied through the running dcbtop agent (pid %d): pfc, app; its LLDP peers see it within 1 s; kept for the next agent on this port (%s/ports/", pid, stateDir(t)); code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
		t.Fatalf("apply: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want)
	}
	wantLocal := agent.DefaultLocal().WithWilling(true)
	wantLocal.PFC.Enabled = 1<<3 | 1<<4
	wantLocal.App = []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}
	fAll := engine.FlagETSConfigured | engine.FlagPFCConfigured | engine.FlagClassificationConfigured
	flags := fAll | engine.FlagPFCChanged | engine.FlagClassificationChanged | engine.FlagWilling
	for _, st := range []engine.Status{engine.StatusLocal, engine.StatusOperational} {
		in, line := d.nextIndication(t, 5*time.Second)
		if in.Status != st || in.Reason != engine.ReasonLocalChange || in.Flags != flags {
			t.Errorf("after apply: %s; want %s local-change %v", line, st, flags)
		}
		checkParams(t, "after apply: "+st.String(), in.Params, wantLocal)
	}
	waitTLVs("apply", 2*time.Second, qaz(true, 0x18, roceApp))
	t.Logf("lldpd had the new TLVs %v after dcbtop apply returned", time.Since(applied).Round(time.Millisecond))

	// Willing off.
	code, out, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", "--willing", "off")...)
	if want := fmt.Sprintf("h0: applied through the running dcbtop agent (pid %d): willing; its LLDP peers see it within 1 s; kept for the next agent on this port (", pid); code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
		t.Fatalf("apply --willing off: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want)
	}
	wantOff := wantLocal.WithWilling(false)
	flags = fAll | engine.FlagETSChanged | engine.FlagPFCChanged
	var offAt time.Time // when the agent took Willing off: later frames say so
	for _, st := range []engine.Status{engine.StatusLocal, engine.StatusOperational} {
		in, line := d.nextIndication(t, 5*time.Second)
		if offAt.IsZero() {
			offAt = in.Time
		}
		if in.Status != st || in.Reason != engine.ReasonLocalChange || in.Flags != flags {
			t.Errorf("after --willing off: %s; want %s local-change %v", line, st, flags)
		}
		checkParams(t, "after --willing off: "+st.String(), in.Params, wantOff)
	}
	waitTLVs("willing off", 2*time.Second, qaz(false, 0x18, roceApp))
	time.Sleep(1500 * time.Millisecond) // a few fast transmissions into the capture

	// Undo through the control socket: willing on again.
	resp := nsControl(t, run, host, "h0", `{"op":"undo"}`)
	if !resp.OK || !cmp.Equal(resp.Changed, []string{"willing"}) || resp.Willing == nil || !*resp.Willing || resp.PID != pid {
		t.Fatalf("undo: %+v", resp)
	}
	checkParams(t, "undo: previous", resp.Previous.Params, wantOff)
	checkParams(t, "undo: local", resp.Local, wantLocal)
	in, line := d.nextIndication(t, 5*time.Second)
	if in.Status != engine.StatusLocal || in.Flags != fAll|engine.FlagETSChanged|engine.FlagPFCChanged|engine.FlagWilling {
		t.Errorf("after undo: %s", line)
	}
	waitTLVs("undo", 2*time.Second, qaz(true, 0x18, roceApp))
	if resp := nsControl(t, run, host, "h0", `{"op":"undo"}`); resp.OK || resp.Error != "nothing left to undo on h0 (one level: the last apply is already undone)" {
		t.Errorf("second undo: %+v", resp)
	}

	// SIGTERM: exit 0, socket removed.
	d.signal(syscall.SIGTERM)
	if code := d.wait(10 * time.Second); code != 0 || d.stderrText() != "" {
		t.Errorf("SIGTERM: exit %d, stderr %q", code, d.stderrText())
	}
	if ents, err := os.ReadDir(run); err != nil || len(ents) != 0 {
		t.Errorf("run dir after exit: %v %v, want empty", ents, err)
	}
	code, _, errOut = runOut(t, dcbtopIn(t, host, run, "apply", "-i", "h0", file)...)
	if code != 1 || errOut != noDCB {
		t.Errorf("apply after the agent stopped: exit %d, stderr %q; want the kernel's answer %q", code, errOut, noDCB)
	}
	stopDump()

	// tshark: the frames sent after --willing off carry the new PFC and
	// APP with Willing 0, in ETS and PFC.
	var checked int
	for _, f := range testbed.TsharkLLDP(t, pcap) {
		if f.Src.String() != hostMAC.String() || f.Time.Before(offAt) || f.Time.After(offAt.Add(time.Second)) {
			continue
		}
		checked++
		if pfc, err := f.PFC(); err != nil || pfc != (testbed.TsharkPFC{Cap: 8, Enabled: [8]bool{3: true, 4: true}}) {
			t.Errorf("frame at %v: PFC %+v (%v), want cap 8, priorities 3 and 4, willing 0", f.Time, pfc, err)
		}
		if ets, err := f.ETSConfig(); err != nil || ets.Willing {
			t.Errorf("frame at %v: ETS %+v (%v), want willing 0", f.Time, ets, err)
		}
		wantApp := []testbed.TsharkApp{{Prio: 3, Sel: 3, Proto: 4791}, {Prio: 3, Sel: 5, Proto: 26}}
		if app, err := f.App(); err != nil || !slices.Equal(app, wantApp) {
			t.Errorf("frame at %v: APP %+v (%v), want %+v", f.Time, app, err, wantApp)
		}
	}
	if checked == 0 {
		t.Error("tshark: no frame from dcbtop in the second after --willing off")
	}
}

// TestApplyQoS runs dcbtop apply's host QoS fields on a veth named as the
// mlx5 fixture's netdev, DCBTOP_SYSFS_ROOT a copy of the fixture's /sys:
// the ToS is previewed (what the RoCE path and check say after it),
// written to rdma_cm's configfs, read back, and undone by the command it
// prints; a dry run writes nothing; trust and DSCP entries are refused
// on a driver without DCB netlink before anything is written.
func TestApplyQoS(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/roce/mlx5")); err != nil {
		t.Fatal(err)
	}
	tosFile := filepath.Join(root, "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos")
	sw, host := testbed.NewNS(t, "qsw"), testbed.NewNS(t, "qhost")
	testbed.Veth(t, sw, "p0", host, "ens3f0np0")
	run := func(args ...string) (int, string, string) {
		return runOut(t, append([]string{ipPath(t), "netns", "exec", host.Name, envPath(t), counters.EnvSysfsRoot + "=" + root,
			control.EnvRunDir + "=" + t.TempDir(), dcbtopBin, "apply", "-i", "ens3f0np0"}, args...)...)
	}
	tos := func() string {
		b, err := os.ReadFile(tosFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	code, out, errOut := run("--roce-tos", "mlx5_0/1=104", "--dry-run")
	for _, want := range []string{
		"ens3f0np0: mlx5_0 port 1 rdma_cm default ToS 106 (DSCP 26, ECT(0)) → 104 (DSCP 26, Not-ECT)\n",
		"ens3f0np0: after it: + roce-tos-ecn warning: rdma_cm's default ToS 104 on mlx5_0 port 1 has ECN Not-ECT",
		"ens3f0np0: dry run: nothing written\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dry run: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
		}
	}
	if got := tos(); got != "106\n" {
		t.Fatalf("the dry run wrote %q", got)
	}

	code, out, errOut = run("--roce-tos", "mlx5_0/1=104")
	if code != 0 || !strings.Contains(out, "ens3f0np0: to undo: dcbtop apply -i ens3f0np0 --roce-tos mlx5_0/1=106\n") ||
		!strings.Contains(out, "ens3f0np0: written and read back: rdma_cm default ToS of mlx5_0 port 1\n") {
		t.Errorf("apply: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := tos(); got != "104\n" {
		t.Errorf("default_roce_tos %q after the apply, want 104", got)
	}
	if code, out, errOut := run("--roce-tos", "mlx5_0/1=106"); code != 0 || tos() != "106\n" {
		t.Errorf("undo: exit %d, stdout %q, stderr %q, default_roce_tos %q", code, out, errOut, tos())
	}

	// The same fields in a file's qos: previewed the same.
	file := testbed.WriteFile(t, "qos.json", `{"qos": {"roce_tos": [{"device": "mlx5_0", "port": 1, "tos": 104}], "dscp_delete": null}}`)
	if code, out, errOut := run(file, "--dry-run"); code != 0 || !strings.Contains(out, "→ 104 (DSCP 26, Not-ECT)") || !strings.Contains(out, "dry run: nothing written") {
		t.Errorf("a qos file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bad := testbed.WriteFile(t, "bad.json", `{"qos": {"trust": ["dscp"], "bogus": 1}}`)
	if code, _, errOut := run(bad); code != 1 || !strings.Contains(errOut, `invalid qos, nothing applied: json: unknown field "bogus"`) {
		t.Errorf("a qos file with an unknown field: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = run("--trust", "dscp,pcp", "--dscp", "26=3")
	if want := "dcbtop: ens3f0np0: not applied: the driver reports no DCB APP table here (no DCB netlink): trust and DSCP entries cannot be set\n"; code != 1 || out != "" || errOut != want {
		t.Errorf("trust on a veth: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
	code, _, errOut = run("--roce-tos", "mlx5_9/1=106")
	if want := "roce tos: mlx5_9 port 1 is not an RDMA port of ens3f0np0"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("an unknown RDMA port: exit %d, stderr %q; want %q", code, errOut, want)
	}
	// A veth has no rate limits, DCBX mode, rewrite table or storm
	// timeout: each is refused in one line before anything is sent.
	for _, tt := range []struct{ flag, value, want string }{
		{"--maxrate", "3:25gbit", "dcbtop: ens3f0np0: not applied: maxrate: the driver reports no rate limits (DCB_ATTR_IEEE_MAXRATE: no ieee_getmaxrate): they cannot be set here\n"},
		{"--dcbx-mode", "host", "dcbtop: ens3f0np0: not applied: dcbx mode: the driver reports no DCBX mode (no getdcbx: DCB_CMD_GDCBX answers EOPNOTSUPP): it cannot be set here\n"},
		{"--rewr-dscp", "3:26", "dcbtop: ens3f0np0: not applied: rewrite: the driver reports no DCB netlink here: rewrite entries cannot be set\n"},
		{"--pfc-storm-timeout", "100", "dcbtop: ens3f0np0: not applied: pfc storm timeout: the driver has no PFC storm prevention timeout (no ethtool tunable pfc-prevention-tout, ETHTOOL_PFC_PREVENTION_TOUT): it cannot be set here\n"},
	} {
		if code, out, errOut := run(tt.flag, tt.value); code != 1 || out != "" || errOut != tt.want {
			t.Errorf("%s %s on a veth: exit %d, stdout %q, stderr %q; want 1 and %q", tt.flag, tt.value, code, out, errOut, tt.want)
		}
	}
}

// A live run reports the interface's MTU and the VLAN interfaces on it
// (the snapshot's mtu and vlans), and follows a VLAN interface added
// while it runs. A kernel without 802.1Q VLAN devices (no 8021q, as on
// the machine this was written on) has none to report: then the VLAN
// half checks that none is made up (TestVLANChange covers the session's
// side).
func TestLiveMTUAndVLANs(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	sw, host := testbed.NewNS(t, "sw"), testbed.NewNS(t, "host")
	testbed.Veth(t, sw, "p0", host, "h0")
	if out, err := host.Run("ip", "link", "set", "h0", "mtu", "9000"); err != nil {
		t.Fatalf("mtu: %v %s", err, out)
	}
	var want []uint16
	out, err := host.Run("ip", "link", "add", "link", "h0", "name", "h0.100", "type", "vlan", "id", "100")
	switch {
	case err != nil && strings.Contains(out+err.Error(), "Unknown device type"):
		t.Log("this kernel has no VLAN devices (8021q): checking that no VLAN is reported")
	case err != nil:
		t.Fatalf("add h0.100: %v %s", err, out)
	default:
		want = []uint16{100, 200}
		go func() {
			time.Sleep(time.Second)
			_, _ = host.Run("ip", "link", "add", "link", "h0", "name", "h0.200", "type", "vlan", "id", "200")
		}()
	}
	code, out, errOut := runOut(t, dcbtopIn(t, host, testbed.ShortTempDir(t), "-i", "h0", "--json", "--duration", "3s")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	in := snaptest.Iface(t, snaptest.Decode(t, "stdout", out), "h0")
	if in.MTU == nil || *in.MTU != 9000 || !slices.Equal(in.VLANs, want) {
		t.Errorf("mtu %v, vlans %v; want 9000 and %v", in.MTU, in.VLANs, want)
	}
}
