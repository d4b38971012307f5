package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// envNetnsWorker makes the test binary a worker of TestNetnsFreshRun.
const envNetnsWorker = "DCBTOP_TESTBED_NETNS_WORKER"

// TestNetnsFreshRun reproduces a new machine: in a mount namespace of its
// own whose /run is an empty tmpfs (no /run/netns yet), several processes
// create, enter and delete named namespaces at once, as the test binaries
// of `go test ./...` do through NewNS. Every namespace must be usable by
// name and removable. (`ip netns add` serializes making /run/netns a
// shared mount point with a lock of its own; what broke new machines was
// the demo binding a namespace there without it, which it no longer does:
// see capture/demo TestVethLink.)
func TestNetnsFreshRun(t *testing.T) {
	RequirePriv(t)
	const workers = 6
	script := fmt.Sprintf(`mount -t tmpfs -o mode=0755 dcbtop-fresh-run /run || exit 1
pids=""
for i in $(seq %d); do %s=1 "$0" -test.run='^TestNetnsWorker$' -test.count=1 & pids="$pids $!"; done
fail=0; for p in $pids; do wait $p || fail=1; done; exit $fail`, workers, envNetnsWorker)
	cmd := exec.Command(mustCmd("unshare"), "--mount", "--propagation", "private", "sh", "-c", script, os.Args[0])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%d processes creating namespaces on a fresh /run: %v\n%s", workers, err, out)
	}
}

// TestNetnsWorker is one process of TestNetnsFreshRun (it does nothing
// otherwise): it creates, enters and deletes namespaces.
func TestNetnsWorker(t *testing.T) {
	if os.Getenv(envNetnsWorker) != "1" {
		t.Skip("a worker of TestNetnsFreshRun")
	}
	for range 4 {
		name := "fresh-" + randHex(3)
		if _, err := run("ip", "netns", "add", name); err != nil {
			t.Fatal(err)
		}
		if _, err := run("ip", "netns", "exec", name, "true"); err != nil {
			t.Errorf("namespace %s cannot be entered by name: %v", name, err)
		}
		if _, err := run("ip", "netns", "del", name); err != nil {
			t.Errorf("namespace %s cannot be removed: %v", name, err)
		}
		if _, err := os.Stat(NetnsDir + "/" + name); err == nil {
			t.Errorf("%s still exists after ip netns del", name)
		}
	}
}
