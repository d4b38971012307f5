// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture_test

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture"
)

// This file holds the helpers of the privileged integration tests: each
// test creates its own network namespace, with its own links, and the
// namespace disappears with the test.

// A privilege is something a test needs beyond what every privileged test
// needs (CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_NET_RAW).
type privilege int

// privSetuid is the privilege to run a process as uid and gid 65534
// (nobody): CAP_SETUID, CAP_SETGID, and uid 65534 mapped in the user
// namespace.
const privSetuid privilege = 1

// requirePriv skips t, saying why, unless the test process has the
// privileges of the integration tests (being root gives them all), plus
// extra. When the environment variable DCBTOP_REQUIRE_PRIV is 1 (as in CI),
// a missing privilege fails t instead: there, a skip would hide the tests.
func requirePriv(t testing.TB, extra ...privilege) {
	t.Helper()
	missing := missingPrivileges(extra)
	if missing == "" {
		return
	}
	if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
		t.Fatalf("DCBTOP_REQUIRE_PRIV=1, but this test needs %s", missing)
	}
	t.Skipf("skipping: needs %s (DCBTOP_REQUIRE_PRIV=1 would make this a failure)", missing)
}

// missingPrivileges describes what the process lacks of the basic
// privileges and extra, or returns "" if it lacks nothing.
func missingPrivileges(extra []privilege) string {
	caps := map[string]int{
		"CAP_SYS_ADMIN": unix.CAP_SYS_ADMIN, // network namespaces
		"CAP_NET_ADMIN": unix.CAP_NET_ADMIN, // links
		"CAP_NET_RAW":   unix.CAP_NET_RAW,   // packet sockets
	}
	needUID := false
	for _, p := range extra {
		if p == privSetuid {
			caps["CAP_SETUID"] = unix.CAP_SETUID
			caps["CAP_SETGID"] = unix.CAP_SETGID
			needUID = true
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Sprintf("capabilities that capget cannot read (%v)", err)
	}
	var lack []string
	for name, c := range caps {
		if data[c/32].Effective&(1<<(c%32)) == 0 {
			lack = append(lack, name)
		}
	}
	var missing []string
	if len(lack) > 0 {
		slices.Sort(lack)
		missing = append(missing, strings.Join(lack, ", "))
	}
	if needUID && !uidMapped(65534) {
		missing = append(missing, "uid 65534 mapped in this user namespace")
	}
	if len(missing) > 0 && os.Geteuid() != 0 {
		missing = append(missing, fmt.Sprintf("root, not uid %d", os.Geteuid()))
	}
	return strings.Join(missing, "; ")
}

// uidMapped reports whether uid exists in the user namespace of the process.
func uidMapped(uid uint64) bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		var inside, outside, count uint64
		if _, err := fmt.Sscan(line, &inside, &outside, &count); err == nil && uid >= inside && uid-inside < count {
			return true
		}
	}
	return false
}

// A testNS is a network namespace created for one test.
type testNS struct {
	t      testing.TB
	handle netns.NsHandle
	// nl sends netlink requests to the namespace from any goroutine.
	nl *netlink.Handle
}

// newNS creates a network namespace, which is removed when t ends (when its
// last socket is closed). It skips t without privilege (see requirePriv).
func newNS(t testing.TB) *testNS {
	t.Helper()
	requirePriv(t)
	var (
		h   netns.NsHandle
		err error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Never unlocked: the goroutine's thread moves to the new
		// namespace, and the runtime ends it with the goroutine rather
		// than let other goroutines run there.
		runtime.LockOSThread()
		h, err = netns.New()
	}()
	<-done
	if err != nil {
		t.Fatalf("create network namespace: %v", err)
	}
	nl, err := netlink.NewHandleAt(h)
	if err != nil {
		h.Close()
		t.Fatalf("netlink handle in the namespace: %v", err)
	}
	t.Cleanup(func() {
		nl.Close()
		h.Close()
	})
	return &testNS{t: t, handle: h, nl: nl}
}

// start calls fn on a new goroutine locked to a thread in the namespace;
// the channel is closed when the goroutine ends. Sockets opened by fn stay
// in the namespace and may be used from any goroutine.
func (n *testNS) start(fn func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked, as in newNS
		if err := netns.Set(n.handle); err != nil {
			n.t.Errorf("enter network namespace: %v", err)
			return
		}
		fn()
	}()
	return done
}

// run calls fn on a thread in the namespace and waits for it to return.
func (n *testNS) run(fn func()) { <-n.start(fn) }

// veth creates a veth pair a-b in the namespace, sets both ends up, and
// returns them.
func (n *testNS) veth(a, b string) (netlink.Link, netlink.Link) {
	n.t.Helper()
	if err := n.nl.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: a}, PeerName: b}); err != nil {
		n.t.Fatalf("add veth pair %s-%s: %v", a, b, err)
	}
	return n.up(a), n.up(b)
}

// up sets the link named name up and returns it.
func (n *testNS) up(name string) netlink.Link {
	n.t.Helper()
	l := n.link(name)
	if err := n.nl.LinkSetUp(l); err != nil {
		n.t.Fatalf("set %s up: %v", name, err)
	}
	return n.link(name)
}

// down sets the link named name down.
func (n *testNS) down(name string) {
	n.t.Helper()
	if err := n.nl.LinkSetDown(n.link(name)); err != nil {
		n.t.Fatalf("set %s down: %v", name, err)
	}
}

// link returns the link named name.
func (n *testNS) link(name string) netlink.Link {
	n.t.Helper()
	l, err := n.nl.LinkByName(name)
	if err != nil {
		n.t.Fatalf("link %s: %v", name, err)
	}
	return l
}

// mac returns the MAC address of the link named name.
func (n *testNS) mac(name string) net.HardwareAddr {
	n.t.Helper()
	return n.link(name).Attrs().HardwareAddr
}

// openLive opens a Live on the interface named name of the namespace,
// closed when the test ends.
func (n *testNS) openLive(name string) *capture.Live {
	n.t.Helper()
	var (
		l   *capture.Live
		err error
	)
	n.run(func() { l, err = capture.OpenLive(name) })
	if err != nil {
		n.t.Fatalf("OpenLive(%q): %v", name, err)
	}
	n.t.Cleanup(func() { l.Close() })
	return l
}

// rawSocket opens a packet socket bound to the interface named name of
// the namespace for protocol 0 (it receives nothing), closed when the
// test ends: write(2) on it transmits a frame as is, tags included,
// without allocating (capture.Live.WriteFrame's sendto does).
func (n *testNS) rawSocket(name string) int {
	n.t.Helper()
	index := n.link(name).Attrs().Index
	fd, err := -1, error(nil)
	n.run(func() {
		if fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0); err != nil {
			return
		}
		if err = unix.Bind(fd, &unix.SockaddrLinklayer{Ifindex: index}); err != nil {
			unix.Close(fd)
		}
	})
	if err != nil {
		n.t.Fatalf("packet socket on %s: %v", name, err)
	}
	n.t.Cleanup(func() { unix.Close(fd) })
	return fd
}
