// SPDX-License-Identifier: Apache-2.0

//go:build realkernel

package realkernel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// The guest's environment, set by testbed/vm's TestRealKernel.
var (
	dcbtopBin = os.Getenv("DCBTOP_BIN")  // the dcbtop binary under test
	kmodPath  = os.Getenv("DCBTOP_KMOD") // testbed/kmod's dcbtest.ko
)

func TestMain(m *testing.M) {
	if os.Getenv("DCBTOP_IN_VM") != "1" || dcbtopBin == "" || kmodPath == "" {
		fmt.Fprintln(os.Stderr, "realkernel: these tests run in testbed/vm's guest (go test ./testbed/vm -run TestRealKernel), which sets DCBTOP_IN_VM, DCBTOP_BIN and DCBTOP_KMOD")
		os.Exit(2)
	}
	// An agent's kept parameters (capture/statedir) in a directory of
	// this run's: no test starts from what another kept.
	state, err := os.MkdirTemp("", "dcbtop-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("DCBTOP_STATE_DIR", state)
	os.Exit(m.Run())
}

// run runs a command, failing t with its output when it fails.
func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := runErr(name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// dcbSet runs iproute2's dcb to change a setting, once more if it fails:
// under load this dcb (libmnl) has been seen to give up on a set with
// "Attribute write: Protocol error", a reply it did not match, once in
// many runs; the second failure fails t.
func dcbSet(t testing.TB, args ...string) {
	t.Helper()
	if out, err := runErr("dcb", args...); err != nil {
		t.Logf("dcb %s: %v: %s (again)", strings.Join(args, " "), err, out)
		run(t, "dcb", args...)
	}
}

// runErr runs a command for at most a minute and returns its combined
// output.
func runErr(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

// freshDevice loads the DCB test device afresh (pairs dcbt0/dcbt1 and
// dcbt2/dcbt3, every setting its default), brings dcbt0 and dcbt1 up and
// unloads it when t ends.
func freshDevice(t *testing.T) { freshPairs(t, 2) }

// freshPairs is freshDevice with n pairs (dcbt0/dcbt1 ... dcbt2n-2/dcbt2n-1).
func freshPairs(t *testing.T, n int) {
	t.Helper()
	if _, err := os.Stat("/sys/module/dcbtest"); err == nil {
		run(t, "rmmod", "dcbtest")
	}
	run(t, "insmod", kmodPath, fmt.Sprintf("pairs=%d", n))
	t.Cleanup(func() {
		if out, err := runErr("rmmod", "dcbtest"); err != nil {
			t.Errorf("rmmod dcbtest: %v: %s", err, out)
		}
	})
	for _, dev := range []string{"dcbt0", "dcbt1"} {
		run(t, "ip", "link", "set", dev, "up")
	}
}

// debugfs writes v to the DCB test device's debugfs knob of dev.
func debugfs(t *testing.T, dev, knob, v string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("/sys/kernel/debug/dcbtest", dev, knob), []byte(v), 0); err != nil {
		t.Fatalf("debugfs %s/%s <- %q: %v", dev, knob, v, err)
	}
}

// readDebugfs returns what the DCB test device's debugfs file of dev
// reads.
func readDebugfs(t *testing.T, dev, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/sys/kernel/debug/dcbtest", dev, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dcbJSON returns what `dcb -j OBJECT show dev DEV` says, decoded into v.
func dcbJSON(t *testing.T, v any, object, dev string) { dcbJSONIn(t, nil, v, object, dev) }

// dcbJSONIn is dcbJSON in the network namespace ns (nil: this one).
func dcbJSONIn(t *testing.T, ns *testbed.NS, v any, object, dev string) {
	t.Helper()
	out, err := inNS(ns, "dcb", "-j", object, "show", "dev", dev)
	if err != nil {
		t.Fatalf("dcb -j %s show dev %s: %v: %s", object, dev, err, out)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("dcb -j %s show dev %s: %v: %s", object, dev, err, out)
	}
}

// inNS runs a command in ns (nil: here) and returns its combined output.
func inNS(ns *testbed.NS, args ...string) (string, error) {
	if ns == nil {
		return runErr(args[0], args[1:]...)
	}
	return ns.Run(args...)
}

// snapshot runs dcbtop with args (--json and a second's duration added:
// the DCB state and the first counters sample are read at the start) and
// returns the interface dev of its snapshot, held to the JSON contract
// (snaptest.Decode).
func snapshot(t *testing.T, dev string, args ...string) engine.Interface {
	t.Helper()
	return snapshotFor(t, dev, time.Second, args...)
}

// snapshotFor is snapshot for a run of d.
func snapshotFor(t *testing.T, dev string, d time.Duration, args ...string) engine.Interface {
	t.Helper()
	return startSnapshot(t, dev, d, args...)(false)
}

// startSnapshot starts what snapshotFor runs and returns at once; the
// function it returns waits for the run's end, or with interrupt ends it
// at once (SIGINT: dcbtop prints its snapshot as at the end of its
// duration), and returns the snapshot (call it on the test's goroutine).
func startSnapshot(t *testing.T, dev string, d time.Duration, args ...string) (wait func(interrupt bool) engine.Interface) {
	t.Helper()
	return startSnapshotIn(t, nil, dev, d, args...)
}

// startSnapshotIn is startSnapshot in the network namespace ns (nil:
// this one).
func startSnapshotIn(t *testing.T, ns *testbed.NS, dev string, d time.Duration, args ...string) (wait func(interrupt bool) engine.Interface) {
	t.Helper()
	args = append([]string{"--json", "-i", dev, "--duration", d.String()}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	cmd := exec.CommandContext(ctx, dcbtopBin, args...)
	if ns != nil {
		cmd = exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, dcbtopBin}, args...)...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("dcbtop %s: %v", strings.Join(args, " "), err)
	}
	return func(interrupt bool) engine.Interface {
		t.Helper()
		defer cancel()
		if interrupt {
			_ = cmd.Process.Signal(os.Interrupt) // ip netns exec execs dcbtop: the same process
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("dcbtop %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return snaptest.Iface(t, snaptest.Decode(t, "dcbtop "+strings.Join(args, " "), stdout.String()), dev)
	}
}

// dcbtop runs dcbtop with args and returns its exit code, standard output
// and standard error.
func dcbtop(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, dcbtopBin, args...)
	var o, e bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), o.String(), e.String()
	}
	if err != nil {
		t.Fatalf("dcbtop %s: %v", strings.Join(args, " "), err)
	}
	return 0, o.String(), e.String()
}

// jsonUnmarshal decodes the JSON text s into v.
func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
