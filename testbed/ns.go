// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// NetnsDir is where `ip netns` keeps its named namespaces.
const NetnsDir = "/run/netns"

// NS is a named network namespace created by NewNS ("ip netns add"). It
// lives until the end of the test that created it.
type NS struct {
	// Name is the namespace's name, as used by `ip netns exec NAME` and
	// `ip -n NAME`; it is at most 15 characters long.
	Name string
}

var (
	createdMu sync.Mutex
	created   = map[string]bool{} // namespaces this process created and has not deleted
)

// NewNS creates a uniquely named network namespace and registers a
// t.Cleanup that kills every process still running in it (SIGKILL, by pid,
// from `ip netns pids`) and deletes it, which also destroys every interface
// in it (including the far ends of veth pairs).
//
// The name is prefix (lowercased, reduced to [a-z0-9-], cut to 8
// characters) + "-" + 6 random hex digits, so it is at most 15 characters
// and can double as an interface name. In the namespace, lo is up and IPv6
// is disabled (no link-local addresses, router solicitations or MLD reports
// on the test links; lldpd then advertises no management address).
//
// NewNS is safe on a machine where /run/netns does not exist yet, or is
// not yet a mount point, while other test processes create namespaces too:
// see addNetns.
//
// Call RequirePriv first.
func NewNS(t testing.TB, prefix string) *NS {
	t.Helper()
	prefix = cleanPrefix(prefix)
	var name string
	for i := 0; ; i++ {
		name = prefix + "-" + randHex(3)
		err := addNetns(name)
		if err == nil {
			break
		}
		if i >= 5 || !strings.Contains(err.Error(), "exists") {
			t.Fatalf("testbed: %v", err)
		}
	}
	ns := &NS{Name: name}
	watch("+ns " + name)
	createdMu.Lock()
	created[name] = true
	createdMu.Unlock()
	t.Cleanup(func() { ns.destroy(t) })

	if _, err := ns.Run("ip", "link", "set", "lo", "up"); err != nil {
		t.Fatalf("testbed: %v", err)
	}
	// Best effort: the files are missing when the kernel has no IPv6.
	_, _ = ns.Run("sh", "-c", "for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6 /proc/sys/net/ipv6/conf/lo/disable_ipv6; do [ -w $f ] && echo 1 >$f; done; true")
	return ns
}

func cleanPrefix(p string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(p) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 8 {
		s = s[:8]
	}
	if s == "" {
		s = "tb"
	}
	return s
}

// destroy kills what runs in the namespace and deletes it.
func (ns *NS) destroy(t testing.TB) {
	for i := 0; i < 20; i++ {
		pids := ns.pids()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var err error
	for i := 0; i < 10; i++ {
		if _, err = run("ip", "netns", "del", ns.Name); err == nil || !nsExists(ns.Name) {
			err = nil
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Errorf("testbed: cleanup: %v", err)
		return
	}
	watch("-ns " + ns.Name)
	createdMu.Lock()
	delete(created, ns.Name)
	createdMu.Unlock()
}

// pids lists the processes whose network namespace is ns.
func (ns *NS) pids() []int {
	out, err := run("ip", "netns", "pids", ns.Name)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func nsExists(name string) bool {
	_, err := os.Stat(NetnsDir + "/" + name)
	return err == nil
}

// ListNS returns the names in `ip netns list` (all namespaces on the host,
// not only the harness's), sorted.
func ListNS() ([]string, error) {
	out, err := run("ip", "netns", "list")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	sort.Strings(names)
	return names, nil
}

// Leaked returns the namespaces this process created with NewNS that still
// exist (normally none once every test has finished). A TestMain can call it
// after m.Run to catch a cleanup bug.
func Leaked() []string {
	createdMu.Lock()
	defer createdMu.Unlock()
	var names []string
	for n := range created {
		if nsExists(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Run runs `ip netns exec NAME args...` with CommandTimeout and returns its
// stdout; the error carries the command line and stderr.
func (ns *NS) Run(args ...string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("testbed: NS.Run: no command")
	}
	a := append([]string{"netns", "exec", ns.Name, mustCmd(args[0])}, args[1:]...)
	return run("ip", a...)
}

// ip runs `ip -n NAME args...` and returns its stdout; it fails the test
// if ip fails.
func (ns *NS) ip(t testing.TB, args ...string) string {
	t.Helper()
	out, err := run("ip", append([]string{"-n", ns.Name}, args...)...)
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	return out
}

// Go runs fn on a new goroutine whose OS thread has been switched into the
// namespace (setns(2) on /run/netns/NAME, which is what vishvananda/netns's
// GetFromName + Set do), and waits for it to return. Sockets opened in fn
// (AF_PACKET, netlink, ...) belong to the namespace and stay usable from any
// goroutine afterwards.
//
// The goroutine locks its thread and never unlocks it, so the runtime
// terminates that thread when fn returns instead of reusing a thread that is
// in the wrong namespace (runtime.LockOSThread: a goroutine that exits
// locked takes its thread with it). Within fn, do not start goroutines
// that expect to be in the namespace (they run on other threads), and report
// problems with t.Error, not t.Fatal (fn does not run on the test's
// goroutine). A panic in fn is re-raised in the caller. The harness's own
// functions may be called in fn, but gain nothing from it: they enter
// namespaces with `ip netns exec`.
func (ns *NS) Go(t testing.TB, fn func()) {
	t.Helper()
	var (
		setErr   error
		panicked bool
		pval     any
		stack    []byte
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		fd, err := unix.Open(NetnsDir+"/"+ns.Name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			setErr = fmt.Errorf("open %s/%s: %w", NetnsDir, ns.Name, err)
			return
		}
		err = unix.Setns(fd, unix.CLONE_NEWNET)
		unix.Close(fd)
		if err != nil {
			setErr = fmt.Errorf("setns %s: %w", ns.Name, err)
			return
		}
		defer func() {
			if r := recover(); r != nil {
				panicked, pval, stack = true, r, debug.Stack()
			}
		}()
		fn()
	}()
	<-done
	if setErr != nil {
		t.Fatalf("testbed: NS.Go: %v", setErr)
	}
	if panicked {
		panic(fmt.Sprintf("testbed: panic in NS(%s).Go: %v\n%s", ns.Name, pval, stack))
	}
}

// checkIfname fails the test unless name is a valid interface name.
func checkIfname(t testing.TB, name string) {
	t.Helper()
	if name == "" || len(name) > 15 || strings.ContainsAny(name, "/: \t\n") || name == "." || name == ".." {
		t.Fatalf("testbed: invalid interface name %q (1-15 characters, no '/', ':' or spaces)", name)
	}
}

func checkNS(t testing.TB, what string, ns *NS) {
	t.Helper()
	if ns == nil {
		t.Fatalf("testbed: %s: nil namespace (the harness never touches the host's own interfaces; use NewNS)", what)
	}
}

// Veth creates a veth pair aName (in a) <-> bName (in b), sets both ends up
// and returns their MAC addresses (random, locally administered). a and b
// may be the same namespace; neither may be nil. The pair disappears with
// the namespaces; use DelLink to remove it earlier.
func Veth(t testing.TB, a *NS, aName string, b *NS, bName string) (aMAC, bMAC net.HardwareAddr) {
	t.Helper()
	checkNS(t, "Veth", a)
	checkNS(t, "Veth", b)
	checkIfname(t, aName)
	checkIfname(t, bName)
	a.ip(t, "link", "add", aName, "type", "veth", "peer", "name", bName, "netns", b.Name)
	SetLink(t, a, aName, true)
	SetLink(t, b, bName, true)
	return LinkMAC(t, a, aName), LinkMAC(t, b, bName)
}

// SetLink sets an interface of ns up or down (`ip link set NAME up|down`).
func SetLink(t testing.TB, ns *NS, name string, up bool) {
	t.Helper()
	checkNS(t, "SetLink", ns)
	state := "down"
	if up {
		state = "up"
	}
	ns.ip(t, "link", "set", "dev", name, state)
}

// DelLink deletes an interface of ns (for a veth, both ends go).
func DelLink(t testing.TB, ns *NS, name string) {
	t.Helper()
	checkNS(t, "DelLink", ns)
	ns.ip(t, "link", "del", "dev", name)
}

// SetMAC sets an interface's MAC address (for deterministic frames).
func SetMAC(t testing.TB, ns *NS, name string, mac net.HardwareAddr) {
	t.Helper()
	checkNS(t, "SetMAC", ns)
	ns.ip(t, "link", "set", "dev", name, "address", mac.String())
}

// LinkMAC returns an interface's MAC address.
func LinkMAC(t testing.TB, ns *NS, name string) net.HardwareAddr {
	t.Helper()
	checkNS(t, "LinkMAC", ns)
	out := ns.ip(t, "-j", "link", "show", "dev", name)
	var links []struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
		t.Fatalf("testbed: ip -j link show %s in %s: %v (%q)", name, ns.Name, err, out)
	}
	mac, err := net.ParseMAC(links[0].Address)
	if err != nil {
		t.Fatalf("testbed: MAC of %s in %s: %v", name, ns.Name, err)
	}
	return mac
}

// Bridge creates a Linux bridge NAME in ns with STP off and forward delay 0,
// sets group_fwd_mask to 16384 (bit 14: forward 01:80:c2:00:00:0e, the LLDP
// nearest-bridge address, which a bridge otherwise consumes), enslaves the
// given ports (interfaces already in ns), and sets the ports and the bridge
// up.
func Bridge(t testing.TB, ns *NS, name string, ports ...string) {
	t.Helper()
	checkNS(t, "Bridge", ns)
	checkIfname(t, name)
	ns.ip(t, "link", "add", name, "type", "bridge", "stp_state", "0", "forward_delay", "0")
	// The name is passed as $1, never spliced into the script.
	const script = `echo 16384 >"/sys/class/net/$1/bridge/group_fwd_mask" && cat "/sys/class/net/$1/bridge/group_fwd_mask"`
	out, err := ns.Run("sh", "-c", script, "sh", name)
	if err != nil {
		t.Fatalf("testbed: group_fwd_mask of %s: %v", name, err)
	}
	if got := strings.TrimSpace(out); got != "0x4000" {
		t.Fatalf("testbed: group_fwd_mask of %s is %q after writing 16384, want 0x4000", name, got)
	}
	for _, p := range ports {
		ns.ip(t, "link", "set", "dev", p, "master", name)
		SetLink(t, ns, p, true)
	}
	SetLink(t, ns, name, true)
}
