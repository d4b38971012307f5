// SPDX-License-Identifier: Apache-2.0

//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/demo"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/testbed"
)

func TestApplyUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the whole stderr line
	}{
		{"no interface", []string{"apply", "x.json"}, "dcbtop: apply: name the interface with -i (see dcbtop apply --help)\n"},
		{"two interfaces", []string{"apply", "-i", "a", "-i", "b", "x.json"}, "dcbtop: apply: exactly one -i (see dcbtop apply --help)\n"},
		{"nothing to apply", []string{"apply", "-i", "h0"}, "dcbtop: apply: give a PARAMS FILE (- for stdin), --willing on|off, or both (see dcbtop apply --help)\n"},
		{"two files", []string{"apply", "-i", "h0", "a.json", "b.json"}, "dcbtop: apply: unexpected argument \"b.json\" (one PARAMS FILE at most) (see dcbtop apply --help)\n"},
		{"bad willing", []string{"apply", "-i", "h0", "--willing", "yes"}, "dcbtop: apply: invalid value \"yes\" for flag --willing: want on or off (see dcbtop apply --help)\n"},
		{"live flag", []string{"apply", "-i", "h0", "--agent", "x.json"}, "dcbtop: apply: unknown flag --agent (see dcbtop apply --help)\n"},
		{"empty interface", []string{"apply", "-i", "", "x.json"}, "dcbtop: apply: invalid value \"\" for flag -i: empty interface name (see dcbtop apply --help)\n"},
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

// TestApplyRun runs dcbtop apply through Run: the kernel path with a fake
// driver, the error lines, and the agent path with an in-process agent.
func TestApplyRun(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	t.Setenv(control.EnvRunDir, dir)
	fake := kerneltest.NewFake()
	saved := kernel.Dial
	t.Cleanup(func() { kernel.Dial = saved })
	kernel.Dial = func() (kernel.Client, func(), error) { return fake, func() {}, nil }
	file := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(file, []byte(`{"pfc": {"cap": 8, "enabled": [3,4]}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	// No agent: the kernel.
	code, out, errOut := runCLI(t, "apply", "-i", "eth0", file)
	if code != 0 || errOut != "" || out != "eth0: applied through dcbnl and read back: PFC\n" {
		t.Errorf("kernel path: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Errors are one line, exit 1.
	fake.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "eth0", Err: syscall.EOPNOTSUPP}
	code, out, errOut = runCLI(t, "apply", "-i", "eth0", "--willing", "off")
	if want := "dcbtop: eth0: no DCB netlink support (driver without dcbnl_ops); run dcbtop --agent -i eth0 to be the DCBX agent\n"; code != 1 || out != "" || errOut != want {
		t.Errorf("EOPNOTSUPP: exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, want)
	}
	fake.ReadErr = &dcbnl.Error{Op: "IEEE_GET", Ifname: "nosuch0", Err: syscall.ENODEV}
	code, _, errOut = runCLI(t, "apply", "-i", "nosuch0", file)
	if code != 1 || !strings.HasPrefix(errOut, "dcbtop: nosuch0: no such interface") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("ENODEV: exit %d, stderr %q", code, errOut)
	}
	fake.ReadErr = nil

	// Bad files.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"pfc": {"cap": 8, "enabled": [3]}, "ecn": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "apply", "-i", "eth0", bad)
	if want := "dcbtop: " + bad + ": invalid parameters, nothing applied: parameters JSON: line 1, column 37: unknown field \"ecn\" (want ets, ets_reco, pfc or app)\n"; code != 1 || errOut != want {
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
	fake.State.PFC.Enabled = 0
	code = Run(context.Background(), []string{"apply", "-i", "eth0", "-"}, Env{Stdin: strings.NewReader(`{"pfc": {"cap": 8, "enabled": [3,4]}}`), Stdout: &o, Stderr: &e})
	if code != 0 || o.String() != "eth0: applied through dcbnl and read back: PFC\n" || e.String() != "" {
		t.Errorf("stdin: exit %d, stdout %q, stderr %q", code, o.String(), e.String())
	}

	// A running agent takes the request instead of the kernel: a real
	// runtime, the host's agent on the demo's in-memory link (demo0).
	host, sw := demo.NewMemLink(demo.DefaultHostMAC)
	_ = sw
	rt, err := session.Start(session.Config{Links: []capture.Link{host.Link()},
		Open: func(string) (session.Conn, error) { return host, nil }, Agent: true, Willing: true,
		TxInterval: time.Second, Force: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	loopDone := make(chan error, 1)
	go func() { loopDone <- rt.Loop(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-loopDone
		rt.Close()
	})
	const ifn = demo.MemIfname
	fake.Calls = nil
	code, out, errOut = runCLI(t, "apply", "-i", ifn, file, "--willing", "off")
	if want := fmt.Sprintf("%s: applied through the running dcbtop agent (pid %d): pfc, willing; its LLDP peers see it within 1 s\n", ifn, os.Getpid()); code != 0 || out != want || errOut != "" {
		t.Errorf("agent path: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if len(fake.Calls) != 0 {
		t.Errorf("agent path: the kernel was called: %v", fake.Calls)
	}
	code, out, _ = runCLI(t, "apply", "-i", ifn, file)
	if want := fmt.Sprintf("%s: nothing changed: the running dcbtop agent (pid %d) already advertises these parameters\n", ifn, os.Getpid()); code != 0 || out != want {
		t.Errorf("agent path, again: exit %d, stdout %q", code, out)
	}
	// The file is checked whole before the agent is asked (issue 13).
	badFile := writeTemp(t, `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`)
	code, out, errOut = runCLI(t, "apply", "-i", ifn, badFile)
	if code != 1 || out != "" || errOut != "dcbtop: "+badFile+": invalid parameters, nothing applied: parameters JSON: line 1, column 56: ets.tc_bandwidth: TC bandwidths sum to 90%, want 100%\n" {
		t.Errorf("agent path, invalid: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	resp, err := control.Do(control.Path(dir, ifn), control.Request{Op: "get"}, 5*time.Second)
	if err != nil || resp.Willing == nil || *resp.Willing || resp.Local.PFC.Enabled != 0x18 {
		t.Errorf("agent state after apply: %+v, %v", resp, err)
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
