// SPDX-License-Identifier: Apache-2.0

package vm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/testbed"
)

// EnvUpdate, set to 1, copies the kernel replies the guest recorded
// (testbed/realkernel TestRecordedReplies) into the source tree's
// testdata/kernel/ directories, as -update does for golden files.
const EnvUpdate = "DCBTOP_VM_UPDATE"

// EnvRun passes a -test.run pattern to the guest's tests (one real-kernel
// test alone: docs/development.md).
const EnvRun = "DCBTOP_VM_RUN"

// goBuild runs the go command with args in the module's root.
func goBuild(ctx context.Context, args ...string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// moduleRoot returns the module's root directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}

// lineWriter hands each complete line written to it to fn.
type lineWriter struct {
	mu  sync.Mutex
	buf []byte
	fn  func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		w.fn(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
}

var failLine = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)

// TestRealKernel boots the installed Debian kernel once (testbed/vm) and
// runs testbed/realkernel's tests in it against testbed/kmod's DCB test
// device: dcbtop, built here, against the real kernel's DCB netlink and
// ethtool, judged by iproute2's dcb and ethtool. Each guest test that
// fails fails this one, named; the guest's whole output is in the log.
func TestRealKernel(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "qemu-system-x86_64", "busybox", "modprobe", "make", "gcc", "dcb", "ethtool", "lldpad", "lldptool", "rping", "ib_send_bw", "rdma", "tcpdump")
	k, err := FindKernel()
	if err != nil {
		if os.Getenv(testbed.EnvRequirePriv) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	root := moduleRoot(t)
	// The module, dcbtop and the guest's tests, built at once.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	wg.Go(func() {
		ko, err := k.BuildModule(ctx, filepath.Join(root, "testbed/kmod"), filepath.Join(dir, "kmod"), "dcbtest")
		if err == nil {
			err = copyFile(ko, filepath.Join(out, "dcbtest.ko"), 0o644)
		}
		errs[0] = err
	})
	wg.Go(func() {
		errs[1] = goBuild(ctx, "build", "-trimpath", "-buildvcs=false", "-o", filepath.Join(out, "dcbtop"), "./cmd/dcbtop")
	})
	wg.Go(func() {
		errs[2] = goBuild(ctx, "test", "-c", "-trimpath", "-tags", "realkernel", "-o", filepath.Join(out, "realkernel.test"), "./testbed/realkernel")
	})
	wg.Go(func() { errs[3] = k.Initramfs(ctx, filepath.Join(dir, "initrd")) })
	wg.Wait()
	// What the tree recorded from a real kernel (testbed/realkernel
	// TestRecordedReplies compares with it: the netlink replies, the
	// Soft-RoCE sysfs tree) goes with the binaries: the guest's /tmp is
	// its own, and the tree may be under this /tmp.
	recorded, err := filepath.Glob(filepath.Join(root, "capture", "*", "testdata", "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(recorded, filepath.Join(root, "capture", "counters", "testdata", "sysfs", "rxe")) {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			dst := filepath.Join(out, "src", rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return copyFile(path, dst, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	run := ""
	if r := os.Getenv(EnvRun); r != "" {
		run = " -test.run '" + strings.ReplaceAll(r, "'", "") + "'"
	}
	// The binaries run from the guest's tmpfs: the output directory is
	// 9p without a page cache, from which each of dcbtop's starts read
	// its 27 MB anew (1.5 s under TCG; 0.1 s from tmpfs).
	script := fmt.Sprintf(`mkdir /tmp/bin && cp /tmp/out/dcbtop /tmp/out/realkernel.test /tmp/out/dcbtest.ko /tmp/bin/ || exit 1
cd /tmp/out
export DCBTOP_BIN=/tmp/bin/dcbtop DCBTOP_KMOD=/tmp/bin/dcbtest.ko DCBTOP_REQUIRE_PRIV=1 DCBTOP_SRC=/tmp/out/src
/tmp/bin/realkernel.test -test.v -test.timeout 6m%s > /tmp/out/go-test.log 2>&1
echo $? > /tmp/out/rc
cat /tmp/out/go-test.log
`, run)
	var failed []string
	var mu sync.Mutex
	console := &lineWriter{fn: func(line string) {
		t.Log(line)
		if m := failLine.FindStringSubmatch(line); m != nil {
			mu.Lock()
			failed = append(failed, m[1])
			mu.Unlock()
		}
	}}
	res, err := Boot{Kernel: k, Initrd: filepath.Join(dir, "initrd"), Out: out, Script: script, Console: console}.Run(ctx)
	console.Write([]byte("\n"))
	if err != nil {
		t.Fatalf("guest (%s, %v): %v", k.Release, res.Took.Round(time.Second), err)
	}
	rc, err := os.ReadFile(filepath.Join(out, "rc"))
	if err != nil {
		t.Fatalf("the guest's tests left no exit status: %v", err)
	}
	t.Logf("guest %s under %s: %v", k.Release, res.Accel, res.Took.Round(100*time.Millisecond))
	if os.Getenv(EnvUpdate) == "1" {
		recorded := filepath.Join(out, "kernel")
		err := filepath.WalkDir(recorded, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(recorded, path)
			t.Logf("recorded: %s", rel)
			dst := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return copyFile(path, dst, 0o644)
		})
		if err != nil {
			t.Errorf("%s=1: %v", EnvUpdate, err)
		}
	}
	for _, name := range failed {
		t.Errorf("real kernel: %s failed (its output above)", name)
	}
	if code := strings.TrimSpace(string(rc)); code != "0" {
		t.Errorf("the guest's go test exited %s", code)
	}
	if log, err := os.Open(filepath.Join(out, "go-test.log")); err == nil {
		defer log.Close()
		passed := 0
		sc := bufio.NewScanner(log)
		for sc.Scan() {
			if strings.HasPrefix(strings.TrimSpace(sc.Text()), "--- PASS: ") {
				passed++
			}
		}
		if passed == 0 && len(failed) == 0 {
			t.Error("no guest test ran")
		}
	}
}
