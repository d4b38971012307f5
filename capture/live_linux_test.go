// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/safchain/ethtool"
	"github.com/vishvananda/netlink"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/capture"
)

// The LLDP group addresses.
var (
	nearestBridge         = net.HardwareAddr{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}
	nearestNonTPMRBridge  = net.HardwareAddr{0x01, 0x80, 0xc2, 0x00, 0x00, 0x03}
	nearestCustomerBridge = net.HardwareAddr{0x01, 0x80, 0xc2, 0x00, 0x00, 0x00}
)

// permissionMessage is OpenLive's error without CAP_NET_RAW.
const permissionMessage = "open packet socket: permission denied (run as root or grant CAP_NET_RAW)"

// lldpFrom returns an LLDP frame from src to dst whose chassis ID ends in
// last.
func lldpFrom(dst, src net.HardwareAddr, last byte) []byte {
	b := append(slices.Clone(dst), src...)
	b = append(b, 0x88, 0xcc)
	return append(b, lldpPayload(last)...)
}

// ipv4Frame returns an IPv4 frame from src to dst: a packet of the
// experimental protocol 253 without payload, padded to 60 bytes.
func ipv4Frame(dst, src net.HardwareAddr, id uint16) []byte {
	b := append(slices.Clone(dst), src...)
	b = append(b, 0x08, 0x00)
	ip := []byte{0x45, 0, 0, 20, 0, 0, 0, 0, 64, 253, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2}
	binary.BigEndian.PutUint16(ip[4:], id)
	b = append(b, ip...)
	return append(b, make([]byte, 60-len(b))...)
}

// arpFrame returns a broadcast ARP request from src for 192.0.2.x.
func arpFrame(src net.HardwareAddr, x byte) []byte {
	b := append(net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, src...)
	b = append(b, 0x08, 0x06)
	b = append(b, 0, 1, 0x08, 0x00, 6, 4, 0, 1) // Ethernet, IPv4, request
	b = append(b, src...)
	b = append(b, 192, 0, 2, 1)
	b = append(b, 0, 0, 0, 0, 0, 0)
	b = append(b, 192, 0, 2, x)
	return append(b, make([]byte, 60-len(b))...)
}

// readFrame reads a frame from s, failing t if none comes within timeout.
func readFrame(t *testing.T, s capture.Source, timeout time.Duration) capture.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	f, err := s.ReadFrame(ctx)
	if err != nil {
		t.Fatalf("ReadFrame: %v", err)
	}
	return f
}

// expectNoFrame checks that s delivers no frame within wait.
func expectNoFrame(t *testing.T, s capture.Source, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if f, err := s.ReadFrame(ctx); err != context.DeadlineExceeded {
		t.Errorf("ReadFrame = frame %x, error %v; want no frame (context.DeadlineExceeded)", f.Data, err)
	}
}

func write(t *testing.T, l *capture.Live, b []byte) {
	t.Helper()
	if err := l.WriteFrame(b); err != nil {
		t.Fatalf("WriteFrame: %v", err)
	}
}

// TestLiveRoundTrip writes an LLDP frame on one end of a veth pair and
// reads it on the other end, on the sending end, and on the socket that sent
// it.
func TestLiveRoundTrip(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	wr := n.openLive("va")
	observer := n.openLive("va") // another agent of the host, on the sending side
	rd := n.openLive("vb")

	frame := lldpFrom(nearestBridge, n.mac("va"), 1)
	sent := time.Now()
	write(t, wr, frame)
	// Read later, so that a timestamp taken at read time would show.
	time.Sleep(200 * time.Millisecond)
	readAt := time.Now()

	for _, tt := range []struct {
		name string
		l    *capture.Live
		want capture.Frame
	}{
		{"receiver", rd, capture.Frame{Interface: "vb", Dir: capture.DirectionIncoming, Data: frame}},
		{"observer on the sending side", observer, capture.Frame{Interface: "va", Dir: capture.DirectionOutgoing, Data: frame}},
	} {
		got := readFrame(t, tt.l, 2*time.Second)
		if got.At.Before(sent.Add(-time.Millisecond)) || !got.At.Before(readAt) {
			t.Errorf("%s: At = %v, want the receive time: between the write (%v) and the read (%v)",
				tt.name, got.At.Format(time.RFC3339Nano), sent.Format(time.RFC3339Nano), readAt.Format(time.RFC3339Nano))
		}
		got.At = time.Time{}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: frame (-want +got):\n%s", tt.name, diff)
		}
	}
	// The kernel never loops a packet socket's own frames back to it.
	expectNoFrame(t, wr, 200*time.Millisecond)
}

// TestLiveFilter sends a burst of non-LLDP frames mixed with LLDP frames to
// each LLDP group address: only the LLDP frames are delivered and counted.
func TestLiveFilter(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	src, dst := n.mac("va"), n.mac("vb")
	wr := n.openLive("va")
	rd := n.openLive("vb")

	// 200 IPv4 and ARP frames, with LLDP frames to each group address
	// among them.
	lldpAt := map[int]net.HardwareAddr{0: nearestBridge, 100: nearestNonTPMRBridge, 199: nearestCustomerBridge}
	var want [][]byte
	for i := range 200 {
		if group, ok := lldpAt[i]; ok {
			f := lldpFrom(group, src, byte(i))
			write(t, wr, f)
			want = append(want, f)
		}
		if i%2 == 0 {
			write(t, wr, ipv4Frame(dst, src, uint16(i)))
		} else {
			write(t, wr, arpFrame(src, byte(i)))
		}
	}
	var got [][]byte
	for range want {
		got = append(got, readFrame(t, rd, 2*time.Second).Data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	expectNoFrame(t, rd, 300*time.Millisecond)
	checkStats(t, rd, capture.LiveStats{Packets: 3})

	// The kernel resets its counters when read: Stats adds them up.
	for i := range 2 {
		f := lldpFrom(nearestBridge, src, byte(i))
		write(t, wr, f)
		readFrame(t, rd, 2*time.Second)
	}
	checkStats(t, rd, capture.LiveStats{Packets: 5})
	checkStats(t, rd, capture.LiveStats{Packets: 5})
}

func checkStats(t *testing.T, l *capture.Live, want capture.LiveStats) {
	t.Helper()
	got, err := l.Stats()
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

// TestLiveMembership checks that a Live joins the three LLDP groups, leaves
// them on Close, and never makes the interface promiscuous.
func TestLiveMembership(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	index := n.link("va").Attrs().Index
	// groups returns the LLDP groups va is a member of, read from the
	// namespace's /proc/net/dev_mcast (lines "index name users global
	// address").
	groups := func() []string {
		var b []byte
		var err error
		n.run(func() { b, err = os.ReadFile("/proc/thread-self/net/dev_mcast") })
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for line := range strings.Lines(string(b)) {
			f := strings.Fields(line)
			if len(f) == 5 && f[0] == fmt.Sprint(index) && strings.HasPrefix(f[4], "0180c2") {
				got = append(got, f[4])
			}
		}
		slices.Sort(got)
		return got
	}

	l := n.openLive("va")
	if diff := cmp.Diff([]string{"0180c2000000", "0180c2000003", "0180c200000e"}, groups()); diff != "" {
		t.Errorf("groups of va with a Live open (-want +got):\n%s", diff)
	}
	if p := n.link("va").Attrs().Promisc; p != 0 {
		t.Errorf("promiscuity of va = %d, want 0", p)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := groups(); len(got) != 0 {
		t.Errorf("groups of va after Close = %v, want none", got)
	}
}

// TestLiveSocketOptions checks the socket priority of transmitted frames
// and that each frame's auxiliary data is asked for.
func TestLiveSocketOptions(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	l := n.openLive("va")
	prio, err := capture.LiveSockopt(l, unix.SOL_SOCKET, unix.SO_PRIORITY)
	if err != nil {
		t.Fatal(err)
	}
	if prio != 7 {
		t.Errorf("SO_PRIORITY = %d, want 7 (TC_PRIO_CONTROL)", prio)
	}
	aux, err := capture.LiveSockopt(l, unix.SOL_PACKET, unix.PACKET_AUXDATA)
	if err != nil {
		t.Fatal(err)
	}
	if aux != 1 {
		t.Errorf("PACKET_AUXDATA = %d, want 1 (the VLAN tags the kernel takes out of the frames)", aux)
	}
}

// TestLiveCancel checks that ReadFrame returns promptly when its context is
// done, and that the Live still works afterwards.
func TestLiveCancel(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	wr := n.openLive("va")
	rd := n.openLive("vb")

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rd.ReadFrame(cancelled); err != context.Canceled {
		t.Errorf("ReadFrame(cancelled context) = %v, want context.Canceled", err)
	}

	for range 2 { // twice: the first wake-up must not leak into the next call
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := rd.ReadFrame(ctx)
			errc <- err
		}()
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		cancel()
		select {
		case err := <-errc:
			if err != context.Canceled {
				t.Errorf("ReadFrame = %v, want context.Canceled", err)
			}
			t.Logf("ReadFrame returned %v after cancel", time.Since(start))
		case <-time.After(time.Second):
			t.Fatal("ReadFrame still blocked 1s after cancel")
		}
	}

	// The context's deadline ends the read: context.DeadlineExceeded.
	expectNoFrame(t, rd, 150*time.Millisecond)

	f := lldpFrom(nearestBridge, n.mac("va"), 1)
	write(t, wr, f)
	if got := readFrame(t, rd, 2*time.Second); !bytes.Equal(got.Data, f) {
		t.Errorf("after a cancelled read, ReadFrame = %x, want %x", got.Data, f)
	}
}

// TestLiveClose checks that Close unblocks a pending ReadFrame, and that
// every method fails with fs.ErrClosed afterwards.
func TestLiveClose(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	l := n.openLive("va")

	errc := make(chan error, 1)
	go func() {
		_, err := l.ReadFrame(context.Background())
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, fs.ErrClosed) {
			t.Errorf("pending ReadFrame = %v, want fs.ErrClosed", err)
		}
	case <-time.After(time.Second):
		t.Fatal("ReadFrame still blocked 1s after Close")
	}

	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := l.ReadFrame(context.Background()); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadFrame after Close = %v, want fs.ErrClosed", err)
	}
	if err := l.WriteFrame(lldpFrame(1)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("WriteFrame after Close = %v, want fs.ErrClosed", err)
	}
	if _, err := l.Stats(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Stats after Close = %v, want fs.ErrClosed", err)
	}
}

// TestLiveLinkDownUpRemoved checks that ReadFrame waits through a link
// down and up, and fails with ErrNoInterface once the link is removed.
func TestLiveLinkDownUpRemoved(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	wr := n.openLive("va")
	rd := n.openLive("vb")

	type result struct {
		f   capture.Frame
		err error
	}
	results := make(chan result, 1)
	read := func() {
		go func() {
			f, err := rd.ReadFrame(context.Background())
			results <- result{f, err}
		}()
	}

	read()
	n.down("vb")
	select {
	case r := <-results:
		t.Fatalf("ReadFrame returned %x, %v while the link was down; want it to keep waiting", r.f.Data, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	n.up("vb")
	f := lldpFrom(nearestBridge, n.mac("va"), 1)
	deadline := time.After(3 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		_ = wr.WriteFrame(f) // fails until va has a carrier again
		select {
		case r := <-results:
			if r.err != nil || !bytes.Equal(r.f.Data, f) {
				t.Fatalf("ReadFrame after the link came up = %x, %v; want %x", r.f.Data, r.err, f)
			}
			break wait
		case <-tick.C:
		case <-deadline:
			t.Fatal("no frame 3s after the link came up")
		}
	}
	// Drain the extra copies written while waiting.
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := rd.ReadFrame(ctx)
		cancel()
		if err != nil {
			break
		}
	}

	read()
	if err := n.nl.LinkDel(n.link("va")); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-results:
		if !errors.Is(r.err, capture.ErrNoInterface) {
			t.Errorf("ReadFrame after the link was removed = %v, want ErrNoInterface", r.err)
		}
		t.Logf("ReadFrame after the link was removed: %v", r.err)
	case <-time.After(2 * time.Second):
		t.Fatal("ReadFrame still blocked 2s after the link was removed")
	}
	if _, err := rd.ReadFrame(context.Background()); !errors.Is(err, capture.ErrNoInterface) {
		t.Errorf("next ReadFrame = %v, want ErrNoInterface again", err)
	}
	if err := wr.WriteFrame(f); !errors.Is(err, capture.ErrNoInterface) {
		t.Errorf("WriteFrame after the link was removed = %v, want ErrNoInterface", err)
	}
}

func TestLiveWriteShortFrame(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	l := n.openLive("va")
	err := l.WriteFrame(make([]byte, 13))
	if want := "write: a frame of 13 bytes is shorter than an Ethernet header"; err == nil || err.Error() != want {
		t.Errorf("WriteFrame(13 bytes) = %v, want %q", err, want)
	}
}

// TestOpenLiveNoInterface runs with or without privilege: the interface is
// looked up first.
func TestOpenLiveNoInterface(t *testing.T) {
	ifis, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ifi := range ifis {
		names = append(names, ifi.Name)
	}
	slices.Sort(names)
	_, err = capture.OpenLive("dcbtop-none0")
	if !errors.Is(err, capture.ErrNoInterface) {
		t.Errorf("OpenLive(unknown) = %v, want ErrNoInterface", err)
	}
	if want := "no such interface (available: " + strings.Join(names, ", ") + ")"; err == nil || err.Error() != want {
		t.Errorf("OpenLive(unknown) = %v, want %q", err, want)
	}
}

// TestOpenLiveNoInterfaceNS checks the list of names in a namespace whose
// interfaces are known.
func TestOpenLiveNoInterfaceNS(t *testing.T) {
	n := newNS(t)
	n.veth("vb", "va")
	var err error
	n.run(func() { _, err = capture.OpenLive("vc") })
	if want := "no such interface (available: lo, va, vb)"; err == nil || err.Error() != want || !errors.Is(err, capture.ErrNoInterface) {
		t.Errorf("OpenLive(unknown) = %v, want %q wrapping ErrNoInterface", err, want)
	}
}

// TestOpenLiveUnprivileged checks OpenLive's error without privilege.
//
// A test cannot drop the privileges of its own process (they belong to
// every thread), so it runs a helper process: a copy of this test binary,
// started as uid and gid 65534 (nobody) with -test.run selecting only
// TestHelperUnprivOpen, and DCBTOP_TEST_HELPER=unpriv-open telling that test
// it is the helper. The helper prints what OpenLive returned, one
// "key: value" line each, and this test checks it. Starting a process as
// another user needs root (CAP_SETUID, CAP_SETGID); without it the test
// skips as requirePriv says. The binary is copied to a directory nobody can
// read, because go test builds it in a directory only its owner can enter.
func TestOpenLiveUnprivileged(t *testing.T) {
	requirePriv(t, privSetuid)
	dir, err := os.MkdirTemp("", "dcbtop-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "capture.test")
	if err := copyFile(bin, os.Args[0], 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "-test.run=^TestHelperUnprivOpen$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DCBTOP_TEST_HELPER=unpriv-open")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	got := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok && strings.HasPrefix(k, "unpriv-") {
			got[k] = v
		}
	}
	want := map[string]string{
		"unpriv-euid":                 "65534",
		"unpriv-open-error":           permissionMessage,
		"unpriv-open-is-permission":   "true",
		"unpriv-unknown-is-not-found": "true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helper process reported (-want +got):\n%s\noutput:\n%s", diff, out)
	}
}

// TestHelperUnprivOpen is not a test on its own: it is the helper process
// of TestOpenLiveUnprivileged, and skips when run any other way.
func TestHelperUnprivOpen(t *testing.T) {
	if os.Getenv("DCBTOP_TEST_HELPER") != "unpriv-open" {
		t.Skip("not a test: the helper process of TestOpenLiveUnprivileged")
	}
	fmt.Printf("unpriv-euid: %d\n", os.Geteuid())
	_, err := capture.OpenLive("lo")
	fmt.Printf("unpriv-open-error: %v\n", err)
	fmt.Printf("unpriv-open-is-permission: %t\n", errors.Is(err, os.ErrPermission))
	_, err = capture.OpenLive("dcbtop-none0")
	fmt.Printf("unpriv-unknown-is-not-found: %t\n", errors.Is(err, capture.ErrNoInterface))
}

// copyFile copies the file src to a new file dst of the given mode.
func copyFile(dst, src string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestLLDPFilter runs the BPF program of a Live in x/net/bpf's virtual
// machine.
func TestLLDPFilter(t *testing.T) {
	vm, err := bpf.NewVM(capture.LLDPFilter)
	if err != nil {
		t.Fatal(err)
	}
	src := net.HardwareAddr{0x02, 0, 0, 0, 0, 1}
	lldp := lldpFrom(nearestBridge, src, 1)
	ipv4 := ipv4Frame(nearestBridge, src, 1)
	tests := []struct {
		name   string
		frame  []byte
		accept bool
	}{
		{"LLDP", lldp, true},
		{"LLDP header only", lldp[:14], true},
		{"IPv4", ipv4, false},
		{"ARP", arpFrame(src, 1), false},
		{"IPv6", append(append(slices.Clone(nearestBridge), src...), 0x86, 0xdd, 0x60), false},
		// A tag the kernel left in the data (a frame sent where the
		// device does not insert tags, the inner tag of two) is looked
		// past, up to two (TestLiveVLAN).
		{"802.1Q-tagged LLDP", tagged(lldp, 0x8100, 7<<13|9), true},
		{"802.1ad-tagged LLDP", tagged(lldp, 0x88a8, 9), true},
		{"802.1ad and 802.1Q-tagged LLDP", tagged(lldp, 0x88a8, 9, 0x8100, 10), true},
		{"802.1Q and 802.1Q-tagged LLDP", tagged(lldp, 0x8100, 9, 0x8100, 10), true},
		{"802.1Q-tagged IPv4", tagged(ipv4, 0x8100, 9), false},
		{"802.1ad and 802.1Q-tagged IPv4", tagged(ipv4, 0x88a8, 9, 0x8100, 10), false},
		{"three tags, then LLDP", tagged(lldp, 0x88a8, 9, 0x8100, 10, 0x8100, 11), false},
		{"802.1Q-tagged LLDP header cut short", tagged(lldp, 0x8100, 9)[:17], false},
		{"802.1Q tag, the frame ending after it", tagged(lldp, 0x8100, 9)[:16], false},
		{"runt", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x88}, false},
	}
	for _, tt := range tests {
		// The program returns how many bytes of the frame to keep:
		// 0 drops it, 262144 keeps all of it.
		got, err := vm.Run(tt.frame)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if want := map[bool]int{false: 0, true: 1 << 18}[tt.accept]; got != want {
			t.Errorf("%s: filter returned %d, want %d", tt.name, got, want)
		}
	}
}

// TestLivePending: Pending says whether a frame waits in the socket
// (SIOCINQ on the packet socket), before and after ReadFrame takes it,
// and that frames the filter drops do not count.
func TestLivePending(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	wr := n.openLive("va")
	rd := n.openLive("vb")
	if rd.Pending() {
		t.Fatal("Pending on a new socket")
	}
	write(t, wr, ipv4Frame(n.mac("vb"), n.mac("va"), 1)) // filtered out
	write(t, wr, lldpFrom(nearestBridge, n.mac("va"), 1))
	write(t, wr, lldpFrom(nearestBridge, n.mac("va"), 2))
	deadline := time.Now().Add(2 * time.Second)
	for !rd.Pending() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	for i := range 2 {
		if !rd.Pending() {
			t.Fatalf("frame %d: not pending", i+1)
		}
		readFrame(t, rd, time.Second)
	}
	if rd.Pending() {
		t.Error("Pending with the queue read")
	}
	rd.Close()
	if rd.Pending() {
		t.Error("Pending after Close")
	}
}

// TestLiveReadAllocs: reading a frame allocates its copy and nothing else
// (the control messages are walked in place, the poller's read function
// is bound once), tagged or not.
func TestLiveReadAllocs(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	wr := n.rawSocket("va")
	rd := n.openLive("vb")
	untagged := lldpFrom(nearestBridge, n.mac("va"), 1)
	tagged := slices.Concat(untagged[:12], []byte{0x81, 0x00, 0x00, 0x01}, untagged[12:])
	ctx := context.Background()
	for _, f := range [][]byte{untagged, tagged} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := unix.Write(wr, f); err != nil {
				t.Fatal(err)
			}
			if _, err := rd.ReadFrame(ctx); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 1 {
			t.Errorf("a frame of %d bytes read with %v allocations, want 1 (its copy)", len(f), allocs)
		}
	}
}

// tagged returns f with tags (TPID and TCI, two bytes each, in wire
// order) inserted after the source address.
func tagged(f []byte, tags ...uint16) []byte {
	b := slices.Clone(f[:12])
	for _, v := range tags {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	return append(b, f[12:]...)
}

// setFeatures sets the ethtool features of the interface named name of
// the namespace (ETHTOOL_SFEATURES) and checks that they took.
func (n *testNS) setFeatures(name string, features map[string]bool) {
	n.t.Helper()
	var err error
	var got map[string]bool
	n.run(func() {
		var e *ethtool.Ethtool
		if e, err = ethtool.NewEthtool(); err != nil {
			return
		}
		defer e.Close()
		if err = e.Change(name, features); err == nil {
			got, err = e.Features(name)
		}
	})
	if err != nil {
		n.t.Fatalf("ethtool features of %s: %v", name, err)
	}
	for f, on := range features {
		if got[f] != on {
			n.t.Fatalf("ethtool feature %s of %s is %v after setting it %v", f, name, got[f], on)
		}
	}
}

// mirror redirects every frame received on the interface named from to
// the egress of the one named to (an ingress qdisc, a u32 filter that
// matches all, the mirred action): a frame that arrives tagged leaves
// with its tag where the receive path put it, in the packet's metadata.
func (n *testNS) mirror(from, to string) {
	n.t.Helper()
	idx := n.link(from).Attrs().Index
	if err := n.nl.QdiscAdd(&netlink.Ingress{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(0xffff, 0), Parent: netlink.HANDLE_INGRESS}}); err != nil {
		n.t.Fatalf("ingress qdisc on %s: %v", from, err)
	}
	f := &netlink.U32{
		FilterAttrs: netlink.FilterAttrs{LinkIndex: idx, Parent: netlink.MakeHandle(0xffff, 0), Priority: 1, Protocol: unix.ETH_P_ALL},
		Actions:     []netlink.Action{netlink.NewMirredAction(n.link(to).Attrs().Index)},
	}
	if err := n.nl.FilterAdd(f); err != nil {
		n.t.Fatalf("mirred filter %s to %s: %v", from, to, err)
	}
}

// TestLiveVLAN: an LLDP frame tagged on the wire is delivered with its
// tags where they were, to the receiver and to an observer on the sending
// side, however the kernel hands the outer tag over: the receiving kernel
// always moves it out of the frame into the packet's metadata
// (net/core/dev.c, __netif_receive_skb_core: skb_vlan_untag before the
// taps, whether or not the device parses tags itself, rx-vlan-hw-parse),
// which a packet socket gives as PACKET_AUXDATA (net/packet/af_packet.c,
// packet_recvmsg: tp_vlan_tci, tp_vlan_tpid, TP_STATUS_VLAN_VALID); on
// the sending side a frame written tagged keeps its tag in the data, and
// one whose tag is in the metadata (forwarded here by tc mirred) keeps it
// there where the device inserts tags itself (tx-vlan-hw-insert) and has
// it put in the data otherwise (validate_xmit_vlan, before the taps).
func TestLiveVLAN(t *testing.T) {
	n := newNS(t)
	n.veth("va", "vb")
	n.veth("vx", "vy")
	n.mirror("vx", "va")
	rd := n.openLive("vb")
	observer := n.openLive("va")
	wr := n.rawSocket("va")  // written on va: the tag in the data
	fwd := n.rawSocket("vy") // received on vx, mirred to va: the tag in the metadata
	plain := lldpFrom(nearestBridge, n.mac("va"), 1)
	frames := []struct {
		name  string
		frame []byte
	}{
		{"untagged", plain},
		{"802.1Q VLAN 1 PCP 0 (a native VLAN)", tagged(plain, 0x8100, 0x0001)},
		{"802.1Q VLAN 100 PCP 3 DEI", tagged(plain, 0x8100, 3<<13|1<<12|100)},
		{"802.1Q priority tag (VLAN 0) PCP 5", tagged(plain, 0x8100, 5<<13)},
		{"802.1ad VLAN 10 PCP 2", tagged(plain, 0x88a8, 2<<13|10)},
		{"802.1ad VLAN 10 and 802.1Q VLAN 20", tagged(plain, 0x88a8, 10, 0x8100, 20)},
	}
	for _, off := range []struct{ rx, tx bool }{{true, true}, {false, true}, {true, false}, {false, false}} {
		n.setFeatures("vb", map[string]bool{"rx-vlan-hw-parse": off.rx, "rx-vlan-stag-hw-parse": off.rx})
		n.setFeatures("va", map[string]bool{"tx-vlan-hw-insert": off.tx, "tx-vlan-stag-hw-insert": off.tx})
		for _, path := range []struct {
			name string
			fd   int
		}{{"written on va", wr}, {"mirred to va", fwd}} {
			for _, f := range frames {
				what := fmt.Sprintf("%s, %s, vb rx-vlan-hw-parse %v, va tx-vlan-hw-insert %v", f.name, path.name, off.rx, off.tx)
				if _, err := unix.Write(path.fd, f.frame); err != nil {
					t.Fatalf("%s: write: %v", what, err)
				}
				for _, r := range []struct {
					side string
					l    *capture.Live
					dir  capture.Direction
				}{{"receiver vb", rd, capture.DirectionIncoming}, {"observer on va", observer, capture.DirectionOutgoing}} {
					got := readFrame(t, r.l, 2*time.Second)
					if diff := cmp.Diff(f.frame, got.Data); diff != "" || got.Dir != r.dir {
						t.Errorf("%s: the %s read (%v) %x, want (%v) the frame on the wire, %x (-want +got):\n%s", what, r.side, got.Dir, got.Data, r.dir, f.frame, diff)
					}
				}
			}
		}
	}
	expectNoFrame(t, rd, 100*time.Millisecond)
	expectNoFrame(t, observer, 100*time.Millisecond)
}
