// SPDX-License-Identifier: Apache-2.0

//go:build linux

package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// requireRoot skips t, saying why, unless the test runs as root; with
// DCBTOP_REQUIRE_PRIV=1 (CI) it fails instead.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	reason := fmt.Sprintf("needs root to create network namespaces and veth pairs (euid is %d)", os.Geteuid())
	if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
		t.Fatalf("%s [DCBTOP_REQUIRE_PRIV=1: privileged tests may not skip]", reason)
	}
	t.Skipf("%s [set DCBTOP_REQUIRE_PRIV=1 to make this a failure]", reason)
}

// privateNS moves the test's goroutine, locked to its thread for good,
// into a new network namespace, so that the host end of the demo link
// (the "caller's namespace") is not created in the machine's own. The
// runtime ends the thread with the test's goroutine.
func privateNS(t *testing.T) netns.NsHandle {
	t.Helper()
	runtime.LockOSThread() // never unlocked
	h, err := netns.New()
	if err != nil {
		t.Fatalf("new network namespace: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// privateNetlink is privateNS with a netlink handle in it, closed when
// the test ends.
func privateNetlink(t *testing.T) (netns.NsHandle, *netlink.Handle) {
	t.Helper()
	priv := privateNS(t)
	h, err := netlink.NewHandleAt(priv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return priv, h
}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run a child: %v", err)
	}
	pid := cmd.Process.Pid
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Skipf("pid %d was reused at once", pid)
	}
	return pid
}

// hostIfName matches the names the kernel gives the host end.
var hostIfName = regexp.MustCompile(`^dcbdemo[0-9]+$`)

func TestVethLink(t *testing.T) {
	requireRoot(t)
	priv, privH := privateNetlink(t)
	netnsBefore := netnsEntries(t)

	v, err := NewVethLink(VethConfig{HostMAC: DefaultHostMAC})
	if err != nil {
		t.Fatalf("NewVethLink: %v", err)
	}
	cleaned := false
	defer func() {
		if !cleaned {
			_ = v.Cleanup()
		}
	}()
	if !hostIfName.MatchString(v.HostIf()) {
		t.Fatalf("host end %q, want dcbdemoN", v.HostIf())
	}
	// A second link in the same namespace (a second demo) gets its own
	// names and namespace.
	v2, err := NewVethLink(VethConfig{})
	if err != nil {
		t.Fatalf("a second NewVethLink: %v", err)
	}
	if !hostIfName.MatchString(v2.HostIf()) || v2.HostIf() == v.HostIf() {
		t.Errorf("second host end %q (first %q), want another dcbdemoN", v2.HostIf(), v.HostIf())
	}
	if err := v2.Cleanup(); err != nil {
		t.Errorf("second Cleanup: %v", err)
	}
	if _, err := privH.LinkByName(v2.HostIf()); err == nil {
		t.Errorf("second host end %s still exists after its Cleanup", v2.HostIf())
	}
	// A fixed name that exists already is refused in words.
	if _, err := NewVethLink(VethConfig{HostIf: v.HostIf()}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("NewVethLink on a taken name: %v, want an error saying it exists", err)
	}

	// The host end: in the caller's namespace, up, with the host MAC and an
	// alias naming this process.
	hl, err := privH.LinkByName(v.HostIf())
	if err != nil {
		t.Fatalf("host end: %v", err)
	}
	a := hl.Attrs()
	if hl.Type() != "veth" || a.HardwareAddr.String() != DefaultHostMAC.String() || a.Flags&net.FlagUp == 0 || a.Alias != fmt.Sprintf("dcbtop demo pid %d", os.Getpid()) {
		t.Errorf("host end: type %s, MAC %s, flags %v, alias %q", hl.Type(), a.HardwareAddr, a.Flags, a.Alias)
	}
	// The switch end: up, in an anonymous namespace of its own that
	// nothing names in /run/netns.
	demoH, err := netlink.NewHandleAt(v.ns)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := demoH.LinkByName(SwitchIf)
	if err != nil || sl.Attrs().Flags&net.FlagUp == 0 {
		t.Errorf("switch end: %v, %+v", err, sl)
	}
	demoH.Close()
	if v.ns.Equal(priv) {
		t.Errorf("the switch end is in the caller's namespace")
	}
	if after := netnsEntries(t); !slices.Equal(after, netnsBefore) {
		t.Errorf("/run/netns changed from %v to %v: the demo's namespace must be anonymous", netnsBefore, after)
	}

	// Frames written by the switch end arrive on the host end, and back.
	host, err := capture.OpenLive(v.HostIf())
	if err != nil {
		t.Fatalf("OpenLive(%s): %v", v.HostIf(), err)
	}
	defer host.Close()
	t0 := time.Now()
	f, _ := newSwitch(t, leafConfig(false), t0, nil).Poll(t0)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// The carrier may take a moment to come up: send until one arrives.
	got := make(chan capture.Frame, 1)
	go func() {
		fr, err := host.ReadFrame(ctx)
		if err == nil {
			got <- fr
		}
		close(got)
	}()
	var fr capture.Frame
	for sent := false; !sent; {
		if err := v.WriteFrame(f); err != nil {
			t.Fatalf("switch end WriteFrame: %v", err)
		}
		select {
		case r, ok := <-got:
			if !ok {
				t.Fatal("nothing arrived on the host end within 10 s")
			}
			fr, sent = r, true
		case <-time.After(200 * time.Millisecond):
		}
	}
	if string(fr.Data) != string(f) || fr.Dir != capture.DirectionIncoming {
		t.Errorf("host end read %x (%v), want %x", fr.Data, fr.Dir, f)
	}
	hf := hostFrame(t, DefaultHostMAC, true, 1<<3, t0)
	if err := host.WriteFrame(hf); err != nil {
		t.Fatal(err)
	}
	if b, err := v.ReadFrame(ctx); err != nil || string(b) != string(hf) {
		t.Errorf("switch end read %x, %v; want the host's frame", b, err)
	}

	// Run over the veth: a short scenario whose switch starts, then shuts
	// down; the host end sees both.
	sc, err := Parse(strings.NewReader(`{"duration_s":2,"steps":[
		{"at_s":0,"switch":"s1","action":"start","comment":"c","chassis_mac":"02:dc:b0:00:00:01","port":"swp1","tx_interval_s":1,"params":{"pfc":{"cap":8,"enabled":[3]}}},
		{"at_s":1.5,"switch":"s1","action":"shutdown","comment":"c"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- Run(ctx, v, sc, false) }()
	var ttls []uint16
	for len(ttls) == 0 || ttls[len(ttls)-1] != 0 {
		fr, err := host.ReadFrame(ctx)
		if err != nil {
			t.Fatalf("host end: %v (TTLs so far %v)", err, ttls)
		}
		hdr, pdu, err := lldp.SplitFrame(fr.Data)
		if err != nil || hdr.Src != leafMAC {
			continue
		}
		du, err := lldp.Parse(pdu)
		if err != nil {
			t.Fatal(err)
		}
		ttls = append(ttls, du.TTL)
	}
	if !slices.Equal(ttls, []uint16{5, 5, 0}) {
		t.Errorf("TTLs seen %v, want [5 5 0] (at 0 s and, fast transmission, 1 s; then the shutdown at 1.5 s)", ttls)
	}
	if err := <-runErr; err != nil {
		t.Errorf("Run: %v", err)
	}

	// Cleanup removes everything, at once.
	host.Close()
	cleaned = true
	if err := v.Cleanup(); err != nil {
		t.Errorf("Cleanup: %v", err)
	}
	if err := v.Cleanup(); err != nil {
		t.Errorf("second Cleanup: %v", err)
	}
	if v.ns.IsOpen() {
		t.Errorf("the switch's namespace is still held")
	}
	var nf netlink.LinkNotFoundError
	if _, err := privH.LinkByName(v.HostIf()); !errors.As(err, &nf) {
		t.Errorf("host end after Cleanup: %v, want it gone", err)
	}
	links, _ := privH.LinkList()
	for _, l := range links {
		if strings.HasPrefix(l.Attrs().Name, "dcbdemo") {
			t.Errorf("link %s left in the caller's namespace", l.Attrs().Name)
		}
	}
}

// netnsEntries lists the demo's names in /run/netns (dcbtop-demo-*; nil
// when there are none). Other names are left out: tests of other packages
// create and remove their own namespaces there at the same time.
func netnsEntries(t *testing.T) []string {
	t.Helper()
	es, err := os.ReadDir("/run/netns")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "dcbtop-demo-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestVethLinkKilled kills (SIGKILL) a process that holds a demo link:
// its host end disappears with it, and it bound nothing in /run/netns.
func TestVethLinkKilled(t *testing.T) {
	requireRoot(t)
	if os.Getenv("DCBTOP_DEMO_HOLD_LINK") == "1" {
		return // the child's part runs in TestMain
	}
	_, privH := privateNetlink(t)
	netnsBefore := netnsEntries(t)
	// The child runs in this test's namespace: it inherits it from this
	// goroutine's thread, locked there.
	cmd := exec.Command(os.Args[0], "-test.run=^TestVethLinkKilled$")
	cmd.Env = append(os.Environ(), "DCBTOP_DEMO_HOLD_LINK=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	name := strings.TrimSpace(line)
	if err != nil || !hostIfName.MatchString(name) {
		t.Fatalf("the child said %q, %v; want its host end's name", line, err)
	}
	if _, err := privH.LinkByName(name); err != nil {
		t.Fatalf("the child's host end %s: %v", name, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The kernel frees the namespace (and the pair) in the background.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := privH.LinkByName(name)
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host end %s still there 10 s after the demo process was killed (%v)", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := netnsEntries(t); !slices.Equal(after, netnsBefore) {
		t.Errorf("/run/netns changed from %v to %v", netnsBefore, after)
	}
}

// holdLink is the child of TestVethLinkKilled: it creates a demo link,
// prints its host end's name and waits to be killed.
func holdLink() {
	v, err := NewVethLink(VethConfig{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(v.HostIf())
	select {}
}

func TestMain(m *testing.M) {
	if os.Getenv("DCBTOP_DEMO_HOLD_LINK") == "1" {
		holdLink()
	}
	os.Exit(m.Run())
}

// TestLeftovers lists what an older demo left (a namespace bound in
// /run/netns and a host end named with a dead pid) without removing it,
// and says nothing of a running process's.
func TestLeftovers(t *testing.T) {
	requireRoot(t)
	_, privH := privateNetlink(t)
	dir := t.TempDir()
	old := netnsDir
	netnsDir = dir
	t.Cleanup(func() { netnsDir = old })
	dead := deadPID(t)
	for _, name := range []string{fmt.Sprintf("dcbtop-demo-%d", dead), fmt.Sprintf("dcbtop-demo-%d", os.Getpid()), "other-1"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := privH.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: legacyHostIf}, PeerName: "dcbtop-old-p"}); err != nil {
		t.Fatal(err)
	}
	l, err := privH.LinkByName(legacyHostIf)
	if err != nil {
		t.Fatal(err)
	}
	if err := privH.LinkSetAlias(l, fmt.Sprintf("dcbtop demo pid %d", dead)); err != nil {
		t.Fatal(err)
	}
	got := Leftovers()
	want := []Leftover{
		{What: fmt.Sprintf("interface dcbtop-demo0 (pid %d has exited)", dead), Remove: "ip link del dcbtop-demo0"},
		{What: fmt.Sprintf("network namespace dcbtop-demo-%d (pid %d has exited)", dead, dead), Remove: fmt.Sprintf("ip netns del dcbtop-demo-%d", dead)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Leftovers (-want +got):\n%s", diff)
	}
	if s := got[0].String(); s != "interface dcbtop-demo0 (pid "+fmt.Sprint(dead)+" has exited), left by an older dcbtop demo: remove it with 'ip link del dcbtop-demo0'" {
		t.Errorf("String = %q", s)
	}
	// Nothing was removed.
	if _, err := privH.LinkByName(legacyHostIf); err != nil {
		t.Errorf("Leftovers removed %s: %v", legacyHostIf, err)
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("dcbtop-demo-%d", dead))); err != nil {
		t.Errorf("Leftovers removed the namespace file: %v", err)
	}
}

func TestNamePIDs(t *testing.T) {
	for _, tc := range []struct {
		s    string
		pid  int
		isNS bool
	}{
		{"dcbtop-demo-4242", 4242, true},
		{"dcbtop-demo-", 0, false},
		{"dcbtop-demo-12a", 0, false},
		{"dcbtop-demo-0", 0, false},
		{"dcbtop-demo-+1", 0, false},
		{"other-4242", 0, false},
	} {
		pid, ok := legacyNamespacePID(tc.s)
		if ok != tc.isNS || pid != tc.pid {
			t.Errorf("legacyNamespacePID(%q) = %d, %v", tc.s, pid, ok)
		}
	}
	if pid, ok := aliasPID("dcbtop demo pid 17"); !ok || pid != 17 {
		t.Errorf("aliasPID = %d, %v", pid, ok)
	}
}
