// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	vnl "github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Tests against the running kernel. Each creates its own network namespace
// with a veth pair: veth has no dcbnl_ops, and no DCB-capable device exists
// on a test machine, so these check the kernel's answers up to the driver:
// request parsing, name lookup, the dcbnl_ops check, the CAP_NET_ADMIN
// check, and multicast membership. Without privilege they skip, saying why,
// unless DCBTOP_REQUIRE_PRIV=1 (CI), which turns the skip into a failure.

// requirePriv skips t unless the process can create network namespaces and
// links (CAP_SYS_ADMIN and CAP_NET_ADMIN); see the file comment.
func requirePriv(t *testing.T) {
	t.Helper()
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	missing := ""
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		missing = fmt.Sprintf("capabilities that capget cannot read (%v)", err)
	} else {
		var lack []string
		for _, c := range []struct {
			name string
			bit  int
		}{{"CAP_NET_ADMIN", unix.CAP_NET_ADMIN}, {"CAP_SYS_ADMIN", unix.CAP_SYS_ADMIN}} {
			if data[c.bit/32].Effective&(1<<(c.bit%32)) == 0 {
				lack = append(lack, c.name)
			}
		}
		missing = strings.Join(lack, ", ")
	}
	if missing == "" {
		return
	}
	if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
		t.Fatalf("DCBTOP_REQUIRE_PRIV=1, but this test needs %s (run as root)", missing)
	}
	t.Skipf("skipping: needs %s (run as root; DCBTOP_REQUIRE_PRIV=1 would make this a failure)", missing)
}

// initialUserNS reports whether the process is in the initial user
// namespace (uid_map "0 0 4294967295"), where CAP_NET_ADMIN lets SET
// commands through. Under `unshare -r` it is not, and they get EPERM.
func initialUserNS(t *testing.T) bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		t.Fatalf("read uid_map: %v", err)
	}
	f := strings.Fields(string(b))
	return len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295"
}

// inNetNS runs fn on a goroutine locked to a thread in a new network
// namespace, holding a veth pair va-vb (both up) and a Client dialled
// there; it waits for fn. The thread is never unlocked, so the runtime
// ends it with the goroutine instead of reusing a thread in a foreign
// namespace. fn must report with t.Error, not t.Fatal.
func inNetNS(t *testing.T, fn func(c *Client)) {
	t.Helper()
	requirePriv(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: see above
		ns, err := netns.New()
		if err != nil {
			t.Errorf("create network namespace: %v", err)
			return
		}
		defer ns.Close()
		if err := addVeth("va", "vb"); err != nil {
			t.Errorf("%v", err)
			return
		}
		c, err := DialWatching(nil)
		if err != nil {
			t.Errorf("Dial: %v", err)
			return
		}
		defer c.Close()
		fn(c)
	}()
	<-done
}

// addVeth creates the veth pair a-b in the calling thread's network
// namespace and sets both ends up.
func addVeth(a, b string) error {
	h, err := vnl.NewHandle()
	if err != nil {
		return fmt.Errorf("netlink handle: %w", err)
	}
	defer h.Close()
	if err := h.LinkAdd(&vnl.Veth{LinkAttrs: vnl.LinkAttrs{Name: a}, PeerName: b}); err != nil {
		return fmt.Errorf("add veth %s-%s: %w", a, b, err)
	}
	for _, name := range []string{a, b} {
		l, err := h.LinkByName(name)
		if err != nil {
			return fmt.Errorf("link %s: %w", name, err)
		}
		if err := h.LinkSetUp(l); err != nil {
			return fmt.Errorf("set %s up: %w", name, err)
		}
	}
	return nil
}

// wantError checks that err is an *Error with the message and errno, and
// that it matches target.
func wantError(t *testing.T, what string, err error, errno unix.Errno, target error, message string) {
	t.Helper()
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Errorf("%s: error = %v (%T), want *Error", what, err, err)
		return
	}
	if e.Err != errno || e.Driver {
		t.Errorf("%s: Err = %v (Driver %v), want %v from the kernel", what, e.Err, e.Driver, errno)
	}
	if !errors.Is(err, target) {
		t.Errorf("%s: errors.Is(err, %v) = false", what, target)
	}
	if err.Error() != message {
		t.Errorf("%s: message = %q, want %q", what, err.Error(), message)
	}
}

// TestIntegrationVeth: every command on a veth (no dcbnl_ops) gets
// EOPNOTSUPP, reported as "has no DCB netlink support". As root, SET
// commands pass the CAP_NET_ADMIN check and reach the same dcbnl_ops check,
// which shows that the kernel parsed the requests.
func TestIntegrationVeth(t *testing.T) {
	inNetNS(t, func(c *Client) {
		const msg = "va has no DCB netlink support (driver without dcbnl_ops)"
		_, err := c.IEEE("va")
		wantError(t, "IEEE", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
		_, err = c.CEE("va")
		wantError(t, "CEE", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
		_, err = c.DCBX("va")
		wantError(t, "DCBX", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
		if !initialUserNS(t) {
			t.Log("not in the initial user namespace: SET commands get EPERM (TestHelperSetEPERM checks that)")
			return
		}
		err = c.SetDCBX("va", ModeHost|ModeIEEE)
		wantError(t, "SetDCBX", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
		err = c.SetIEEE("va", &IEEESet{
			ETS:  &ETS{ETSCap: 8, TCTxBW: [8]uint8{100}, TCTSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}},
			PFC:  &PFC{Cap: 8, Enabled: 0x08},
			Apps: []App{{Selector: IEEE_8021QAZ_APP_SEL_DGRAM, Priority: 3, Protocol: 4791}},
		})
		wantError(t, "SetIEEE", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
		err = c.DelApps("va", []App{{Selector: IEEE_8021QAZ_APP_SEL_DGRAM, Priority: 3, Protocol: 4791}})
		wantError(t, "DelApps", err, unix.EOPNOTSUPP, ErrNoDCB, msg)
	})
}

// TestIntegrationNoDevice: a name that does not exist in the namespace
// gets ENODEV ("no such device"), for GET and (as root) SET commands.
func TestIntegrationNoDevice(t *testing.T) {
	inNetNS(t, func(c *Client) {
		const msg = "nosuch0: no such device"
		_, err := c.IEEE("nosuch0")
		wantError(t, "IEEE", err, unix.ENODEV, os.ErrNotExist, msg)
		_, err = c.DCBX("nosuch0")
		wantError(t, "DCBX", err, unix.ENODEV, os.ErrNotExist, msg)
		if initialUserNS(t) {
			err = c.SetIEEE("nosuch0", &IEEESet{PFC: &PFC{}})
			wantError(t, "SetIEEE", err, unix.ENODEV, os.ErrNotExist, msg)
		}
		// eth0 of the test host is not in this namespace.
		_, err = c.IEEE("eth0")
		wantError(t, "IEEE eth0", err, unix.ENODEV, os.ErrNotExist, "eth0: no such device")
	})
}

// TestIntegrationWatch: Watch joins RTNLGRP_DCB (seen in the namespace's
// /proc/net/netlink) and returns context.Canceled on cancellation, after
// leaving the group.
func TestIntegrationWatch(t *testing.T) {
	inNetNS(t, func(c *Client) {
		port := c.c.wconn.PID()
		if joined, err := inGroup(port, RTNLGRP_DCB); err != nil || joined {
			t.Errorf("before Watch: in group %v, %v; want false", joined, err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- c.Watch(ctx, func(n Notification) { t.Errorf("unexpected notification %+v", n) }) }()
		deadline := time.Now().Add(5 * time.Second)
		for {
			joined, err := inGroup(port, RTNLGRP_DCB)
			if err != nil {
				t.Errorf("read /proc/net/netlink: %v", err)
				break
			}
			if joined {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("socket %d did not join RTNLGRP_DCB within 5s", port)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		// A request on the same Client still works while Watch blocks.
		if _, err := c.IEEE("va"); !errors.Is(err, ErrNoDCB) {
			t.Errorf("IEEE during Watch: %v", err)
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Watch = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Watch did not return within 5s of cancellation")
			return
		}
		if joined, err := inGroup(port, RTNLGRP_DCB); err != nil || joined {
			t.Errorf("after Watch: in group %v, %v; want false", joined, err)
		}
	})
}

// inGroup reports whether the NETLINK_ROUTE socket with port ID port is a
// member of multicast group (1-32), from /proc/thread-self/net/netlink
// (the network namespace of the calling thread), whose Groups column is the
// bitmap of the first 32 groups.
func inGroup(port uint32, group int) (bool, error) {
	f, err := os.Open("/proc/thread-self/net/netlink")
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[1] != "0" || fields[2] != strconv.FormatUint(uint64(port), 10) {
			continue
		}
		groups, err := strconv.ParseUint(fields[3], 16, 32)
		if err != nil {
			return false, fmt.Errorf("groups %q: %w", fields[3], err)
		}
		return groups&(1<<(group-1)) != 0, nil
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("no NETLINK_ROUTE socket with port ID %d", port)
}

// helperEnv marks the re-executed test binary of
// TestIntegrationSetIEEEPermission.
const helperEnv = "DCBNL_TEST_HELPER"

// TestIntegrationSetIEEEPermission re-executes this test binary under
// `unshare -rn` (a new user and network namespace, mapped to root inside).
// There the process has CAP_NET_ADMIN over its own namespace, enough to
// create a veth, but not in the initial user namespace, which dcb_doit
// requires for SET commands (netlink_capable): SetIEEE must fail with EPERM
// while GET commands still work. This holds when the tests run as root,
// too. The test needs no privilege where unprivileged user namespaces are
// allowed.
func TestIntegrationSetIEEEPermission(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
			t.Fatalf("unshare(1) not found (util-linux): %v", err)
		}
		t.Skipf("skipping: unshare(1) not found (util-linux): %v", err)
	}
	cmd := exec.CommandContext(t.Context(), unshare, "-rn", os.Args[0], "-test.run=^TestHelperSetEPERM$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=set-eperm")
	out, err := cmd.CombinedOutput()
	t.Logf("helper output:\n%s", out)
	if err != nil {
		if strings.Contains(string(out), "unshare failed") && os.Getenv("DCBTOP_REQUIRE_PRIV") != "1" {
			t.Skipf("skipping: user namespaces are not available here: %s", strings.TrimSpace(string(out)))
		}
		t.Fatalf("helper failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestHelperSetEPERM") {
		t.Errorf("helper did not run TestHelperSetEPERM to a pass")
	}
}

// TestHelperSetEPERM is not a test on its own: it is the body of
// TestIntegrationSetIEEEPermission, run inside `unshare -rn`.
func TestHelperSetEPERM(t *testing.T) {
	if os.Getenv(helperEnv) != "set-eperm" {
		t.Skip("not a test: the helper process of TestIntegrationSetIEEEPermission")
	}
	if err := addVeth("va", "vb"); err != nil {
		t.Fatalf("%v (inside unshare -rn)", err)
	}
	c, err := DialWatching(nil)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()

	set := &IEEESet{ETS: &ETS{ETSCap: 8, TCTxBW: [8]uint8{100}}, PFC: &PFC{Cap: 8, Enabled: 0x08}}
	err = c.SetIEEE("va", set)
	wantError(t, "SetIEEE", err, unix.EPERM, os.ErrPermission, "IEEE_SET va: permission denied (needs CAP_NET_ADMIN)")
	err = c.DelApps("va", []App{{Selector: IEEE_8021QAZ_APP_SEL_DSCP, Priority: 3, Protocol: 26}})
	wantError(t, "DelApps", err, unix.EPERM, os.ErrPermission, "IEEE_DEL va: permission denied (needs CAP_NET_ADMIN)")
	err = c.SetDCBX("va", ModeHost|ModeIEEE)
	wantError(t, "SetDCBX", err, unix.EPERM, os.ErrPermission, "SDCBX va: permission denied (needs CAP_NET_ADMIN)")
	// The capability is checked before the interface is looked up.
	err = c.SetIEEE("nosuch0", set)
	wantError(t, "SetIEEE nosuch0", err, unix.EPERM, os.ErrPermission, "IEEE_SET nosuch0: permission denied (needs CAP_NET_ADMIN)")

	// GET commands need no privilege: they get as far as the dcbnl_ops check.
	_, err = c.IEEE("va")
	wantError(t, "IEEE", err, unix.EOPNOTSUPP, ErrNoDCB, "va has no DCB netlink support (driver without dcbnl_ops)")

	// Joining RTNLGRP_DCB needs no privilege either.
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := c.Watch(ctx, func(Notification) {}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Watch without privilege = %v, want context.DeadlineExceeded", err)
	}
}

// TestDialSockets: Dial and DialRecorded open one socket, for requests
// (a writer or a reader never watches: issue 45 saw every operator write
// open a second, unused one); DialWatching opens the second a Watch
// reads, and Watch on a Client without it says so.
func TestDialSockets(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	for _, tc := range []struct {
		name  string
		dial  func() (*Client, error)
		socks int
	}{
		{"Dial", Dial, 1},
		{"DialRecorded", func() (*Client, error) { return DialRecorded(nil) }, 1},
		{"DialWatching", func() (*Client, error) { return DialWatching(nil) }, 2},
	} {
		before := fds()
		c, err := tc.dial()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := fds() - before; got != tc.socks {
			t.Errorf("%s opened %d descriptors, want %d", tc.name, got, tc.socks)
		}
		if tc.socks == 1 {
			if err := c.Watch(t.Context(), func(Notification) {}); err == nil || !strings.Contains(err.Error(), "DialWatching") {
				t.Errorf("%s: Watch = %v, want the error naming DialWatching", tc.name, err)
			}
		}
		c.Close()
		if got := fds(); got != before {
			t.Errorf("%s: %d descriptors after Close, %d before", tc.name, got, before)
		}
	}
}
