// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// EnvRequirePriv is the environment variable that turns the harness's skips
// into failures: with DCBTOP_REQUIRE_PRIV=1 (set by .ci/run) RequirePriv and
// RequireCommands call t.Fatalf where they would otherwise call t.Skipf.
const EnvRequirePriv = "DCBTOP_REQUIRE_PRIV"

// HarnessCommands are the external programs the harness runs; RequirePriv
// checks for all of them.
var HarnessCommands = []string{"ip", "lldpd", "lldpcli", "tcpdump", "tshark"}

// debPackage maps a command to the Debian package that provides it, for the
// skip message.
var debPackage = map[string]string{
	"ip":                 "iproute2",
	"lldpd":              "lldpd",
	"lldpcli":            "lldpd",
	"tcpdump":            "tcpdump",
	"tshark":             "tshark",
	"capinfos":           "tshark",
	"tmux":               "tmux",
	"promtool":           "prometheus",
	"prometheus":         "prometheus",
	"setpriv":            "util-linux",
	"unshare":            "util-linux",
	"nsenter":            "util-linux",
	"dpkg-deb":           "dpkg",
	"chroot":             "coreutils",
	"qemu-system-x86_64": "qemu-system-x86",
	"busybox":            "busybox-static",
	"modprobe":           "kmod",
	"make":               "make",
	"gcc":                "gcc",
	"dcb":                "iproute2",
	"ethtool":            "ethtool",
	"lldpad":             "lldpad",
	"lldptool":           "lldpad",
	"rping":              "rdmacm-utils",
	"rdma":               "iproute2",
	"strace":             "strace",
	"systemd-analyze":    "systemd",
}

// RequirePriv skips the test (t.Skipf, with the reason) unless the harness
// can run here: the effective uid is 0, every command in HarnessCommands is
// installed, and a network namespace can actually be created and deleted
// (probed once per process). With DCBTOP_REQUIRE_PRIV=1 it calls t.Fatalf
// with the same reason instead. Under -short (make check) it skips
// whatever the settings: a short run leaves the harness to make test. Call
// it first in every test that uses the harness.
func RequirePriv(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make check): the tests with namespaces and real peers run in make test")
	}
	if euid := os.Geteuid(); euid != 0 {
		skipOrFail(t, fmt.Sprintf("needs root (euid is %d): the testbed creates network namespaces and runs lldpd/tcpdump", euid))
		return
	}
	RequireCommands(t, HarnessCommands...)
	if err := probeNetns(); err != nil {
		skipOrFail(t, fmt.Sprintf("cannot create network namespaces here: %v", err))
	}
}

// RequireCommands skips the test (or, with DCBTOP_REQUIRE_PRIV=1, fails it)
// when one of the named commands is not installed. It searches $PATH and the
// sbin directories.
func RequireCommands(t testing.TB, names ...string) {
	t.Helper()
	var missing, pkgs []string
	seen := map[string]bool{}
	for _, n := range names {
		if _, err := lookCmd(n); err != nil {
			missing = append(missing, n)
			p := debPackage[n]
			if p == "" {
				p = n
			}
			if !seen[p] {
				seen[p] = true
				pkgs = append(pkgs, p)
			}
		}
	}
	if len(missing) > 0 {
		skipOrFail(t, fmt.Sprintf("missing command(s) %s (apt-get install %s, or `make deps`)",
			strings.Join(missing, ", "), strings.Join(pkgs, " ")))
	}
}

func skipOrFail(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(EnvRequirePriv) == "1" {
		t.Fatalf("%s [%s=1: privileged tests may not skip]", reason, EnvRequirePriv)
		return
	}
	t.Skipf("%s [set %s=1 to make this a failure]", reason, EnvRequirePriv)
}

var (
	probeOnce sync.Once
	probeErr  error
)

// probeNetns creates and deletes a throw-away namespace once per process.
func probeNetns() error {
	probeOnce.Do(func() {
		name := "dcbtop-probe-" + randHex(4)
		if err := addNetns(name); err != nil {
			probeErr = err
			return
		}
		if _, err := run("ip", "netns", "del", name); err != nil {
			probeErr = err
		}
	})
	return probeErr
}

// randHex returns 2n random lowercase hex digits.
func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}
