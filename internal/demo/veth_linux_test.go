//go:build linux

package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"dcbtop/capture"
	"dcbtop/engine/lldp"
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

// onThread runs fn on a new goroutine locked to its own thread for good
// (fn may move it to another namespace) and waits for it.
func onThread(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		done <- fn()
	}()
	return <-done
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

func nsExists(name string) bool {
	_, err := os.Stat(filepath.Join(netnsDir, name))
	return err == nil
}

func TestVethLink(t *testing.T) {
	requireRoot(t)
	priv := privateNS(t)
	privH, err := netlink.NewHandleAt(priv)
	if err != nil {
		t.Fatal(err)
	}
	defer privH.Close()

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
	wantNS := fmt.Sprintf("dcbtop-demo-%d", os.Getpid())
	if v.Namespace() != wantNS || v.HostIf() != DefaultHostIf || !nsExists(wantNS) {
		t.Fatalf("namespace %q (exists %v), host end %q", v.Namespace(), nsExists(wantNS), v.HostIf())
	}
	if _, err := NewVethLink(VethConfig{HostIf: "dcbtop-demo1"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second NewVethLink: %v, want an error saying the namespace exists", err)
	}

	// The host end: in the caller's namespace, up, with the host MAC and an
	// alias naming this process.
	hl, err := privH.LinkByName(DefaultHostIf)
	if err != nil {
		t.Fatalf("host end: %v", err)
	}
	a := hl.Attrs()
	if hl.Type() != "veth" || a.HardwareAddr.String() != DefaultHostMAC.String() || a.Flags&net.FlagUp == 0 || a.Alias != fmt.Sprintf("dcbtop demo pid %d", os.Getpid()) {
		t.Errorf("host end: type %s, MAC %s, flags %v, alias %q", hl.Type(), a.HardwareAddr, a.Flags, a.Alias)
	}
	// The switch end: in the demo namespace, up.
	demo, err := netns.GetFromName(wantNS)
	if err != nil {
		t.Fatal(err)
	}
	demoH, err := netlink.NewHandleAt(demo)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := demoH.LinkByName(SwitchIf)
	if err != nil || sl.Attrs().Flags&net.FlagUp == 0 {
		t.Errorf("switch end in %s: %v, %+v", wantNS, err, sl)
	}
	demoH.Close()
	demo.Close()

	// Frames written by the switch end arrive on the host end, and back.
	host, err := capture.OpenLive(DefaultHostIf)
	if err != nil {
		t.Fatalf("OpenLive(%s): %v", DefaultHostIf, err)
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

	// CleanStale removes a stale demo namespace (named with a dead PID,
	// with a veth whose other end is here) and an orphan host end whose
	// alias names a dead PID; it leaves this process's alone.
	pid := deadPID(t)
	stale := fmt.Sprintf("dcbtop-demo-%d", pid)
	err = onThread(func() error {
		h, err := netns.NewNamed(stale)
		if err != nil {
			return err
		}
		defer h.Close()
		if err := privH.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "dcbtop-demo9"}, PeerName: "x0", PeerNamespace: netlink.NsFd(h)}); err != nil {
			return err
		}
		if err := privH.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "dcbtop-demo8"}, PeerName: "dcbtop-demo8p"}); err != nil {
			return err
		}
		l, err := privH.LinkByName("dcbtop-demo8")
		if err != nil {
			return err
		}
		return privH.LinkSetAlias(l, fmt.Sprintf("dcbtop demo pid %d", pid))
	})
	if err != nil {
		_ = removeNamespace(stale)
		t.Fatalf("make a stale demo: %v", err)
	}
	removed, err := CleanStale()
	if err != nil {
		t.Errorf("CleanStale: %v", err)
	}
	for _, want := range []string{"netns " + stale, "link dcbtop-demo8"} {
		if !slices.Contains(removed, want) {
			t.Errorf("CleanStale removed %v, want %s among them", removed, want)
		}
	}
	if nsExists(stale) {
		t.Errorf("stale namespace %s still exists", stale)
		_ = removeNamespace(stale)
	}
	for _, name := range []string{"dcbtop-demo9", "dcbtop-demo8", "dcbtop-demo8p"} {
		if _, err := privH.LinkByName(name); err == nil {
			t.Errorf("stale link %s still exists", name)
		}
	}
	if !nsExists(wantNS) {
		t.Fatalf("CleanStale removed the namespace of this (running) process")
	}
	if _, err := privH.LinkByName(DefaultHostIf); err != nil {
		t.Fatalf("CleanStale removed this process's host end: %v", err)
	}

	// Cleanup removes everything.
	host.Close()
	cleaned = true
	if err := v.Cleanup(); err != nil {
		t.Errorf("Cleanup: %v", err)
	}
	if err := v.Cleanup(); err != nil {
		t.Errorf("second Cleanup: %v", err)
	}
	if nsExists(wantNS) {
		t.Errorf("namespace %s still in %s", wantNS, netnsDir)
	}
	if _, err := netns.GetFromName(wantNS); err == nil {
		t.Errorf("netns.GetFromName(%s) still works", wantNS)
	}
	var nf netlink.LinkNotFoundError
	if _, err := privH.LinkByName(DefaultHostIf); !errors.As(err, &nf) {
		t.Errorf("host end after Cleanup: %v, want it gone", err)
	}
	links, _ := privH.LinkList()
	for _, l := range links {
		if strings.HasPrefix(l.Attrs().Name, "dcbtop") {
			t.Errorf("link %s left in the caller's namespace", l.Attrs().Name)
		}
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
		pid, ok := namespacePID(tc.s)
		if ok != tc.isNS || pid != tc.pid {
			t.Errorf("namespacePID(%q) = %d, %v", tc.s, pid, ok)
		}
	}
	if pid, ok := aliasPID("dcbtop demo pid 17"); !ok || pid != 17 {
		t.Errorf("aliasPID = %d, %v", pid, ok)
	}
}
