// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// envNetnsWorker makes the test binary a worker of TestNetnsFreshRun.
const envNetnsWorker = "DCBTOP_TESTBED_NETNS_WORKER"

// locklessIP is an `ip` that runs `ip netns add NAME` the way iproute2 did
// before it took an flock around making /run/netns a mount point (Debian
// bug 949235), and before that step was recursive (2017): check whether
// /run/netns is a mount point, and if not, bind-mount it onto itself. The
// window between the check and the bind mount, microseconds in C, is
// widened to 150 ms so that workers started 50 ms apart hit it every time.
// Everything else goes to the real ip (%s).
const locklessIP = `#!/bin/sh
if [ "$1 $2" = "netns add" ] && [ $# = 3 ]; then
	d=/run/netns
	mkdir -p "$d" || exit 1
	if ! mount --make-rshared "$d" 2>/dev/null; then
		sleep 0.15
		mount --bind "$d" "$d" && mount --make-rshared "$d" || exit 1
	fi
	set -C
	: >"$d/$3" || exit 1
	exec unshare --net="$d/$3" true
fi
exec %s "$@"
`

// freshRunScript runs in a mount namespace of its own: an empty tmpfs on
// /run (no /run/netns), then the workers ($1 of them, 50 ms apart) with
// PATH as given ($2), then the checks: nothing left in /run/netns, and
// /run/netns mounted exactly once (one shared mount point, not a stack).
const freshRunScript = `mount -t tmpfs -o mode=0755 dcbtop-fresh-run /run || exit 1
mounts() { awk '$5 == "/run/netns"' /proc/self/mountinfo | wc -l; }
before=$(mounts)
pids=""
for i in $(seq "$1"); do
	PATH="$2" ` + envNetnsWorker + `=1 "$0" -test.run='^TestNetnsWorker$' -test.count=1 -test.timeout=60s &
	pids="$pids $!"
	sleep 0.05
done
fail=0
for p in $pids; do wait $p || fail=1; done
left=$(ls -A /run/netns 2>&1)
if [ -n "$left" ]; then echo "left in /run/netns: $left"; fail=1; fi
n=$(( $(mounts) - before ))
if [ "$n" != 1 ]; then
	echo "/run/netns is mounted $n times, want once:"
	awk '$5 ~ "^/run/netns"' /proc/self/mountinfo
	fail=1
fi
exit $fail
`

// TestNetnsFreshRun reproduces a new machine: in a mount namespace of its
// own whose /run is an empty tmpfs (no /run/netns yet), several processes
// create namespaces through NewNS at the same time, as the test binaries
// of `go test ./...` do. Every namespace must stay usable by name while
// the others come and go, be removable, and /run/netns must end up one
// mount point. It runs once with the installed ip, and once with an ip
// that prepares /run/netns without a lock (locklessIP), which only the
// harness's own lock and preparation (addNetns) make safe.
func TestNetnsFreshRun(t *testing.T) {
	RequirePriv(t)
	RequireCommands(t, "unshare", "mount", "awk")
	t.Parallel()
	const workers = 4
	realIP := mustCmd("ip")
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "ip"), fmt.Appendf(nil, locklessIP, realIP), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"iproute2", os.Getenv("PATH")},
		{"lockless-ip", fake + ":" + os.Getenv("PATH")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(mustCmd("unshare"), "--mount", "--propagation", "private",
				"sh", "-c", freshRunScript, os.Args[0], fmt.Sprint(workers), tc.path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%d processes creating namespaces on a fresh /run: %v\n%s", workers, err, out)
			}
		})
	}
}

// TestNetnsWorker is one process of TestNetnsFreshRun (it skips
// otherwise): for a second it creates namespaces with NewNS, checking each
// time that every namespace it holds can still be entered by name (`ip
// netns exec`, and setns on /run/netns/NAME through NS.Go); then their
// cleanups delete them, and none may be left.
func TestNetnsWorker(t *testing.T) {
	if os.Getenv(envNetnsWorker) != "1" {
		t.Skip("a worker of TestNetnsFreshRun")
	}
	RequirePriv(t)
	var names []string
	t.Run("hold", func(t *testing.T) {
		var held []*NS
		for end := time.Now().Add(time.Second); time.Now().Before(end); {
			held = append(held, NewNS(t, "fresh"))
			names = append(names, held[len(held)-1].Name)
			for _, ns := range held {
				if _, err := ns.Run("true"); err != nil {
					t.Fatalf("namespace %s cannot be entered by name any more: %v", ns.Name, err)
				}
				ns.Go(t, func() {})
			}
			time.Sleep(50 * time.Millisecond)
		}
	}) // the cleanups of the subtest delete the namespaces
	var left []string
	for _, n := range names {
		if nsExists(n) {
			left = append(left, n)
		}
	}
	if len(left) > 0 {
		t.Errorf("still in %s after their cleanups: %s", NetnsDir, strings.Join(left, " "))
	}
}
