// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if leaked := Leaked(); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "testbed: namespaces left behind: %v\n", leaked)
		code = 1
	}
	os.Exit(code)
}

// DCBX payloads (information after OUI and subtype) with non-zero flag bits,
// so that tshark's decoding of each bit is checked.
var (
	// ETS Configuration: willing=1 CBS=0 MaxTCs=3; prio N -> TC N;
	// BW 10/20/30/40; TSA ETS x4, strict x2, CBS, vendor.
	etsCfg  = []byte{0x83, 0x01, 0x23, 0x45, 0x67, 10, 20, 30, 40, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 1, 255}
	wantETS = TsharkETS{Willing: true, MaxTCs: 3, PrioTC: [8]int{0, 1, 2, 3, 4, 5, 6, 7},
		BW: [8]int{10, 20, 30, 40}, TSA: [8]int{2, 2, 2, 2, 0, 0, 1, 255}}
	// ETS Recommendation: prio N -> TC 7-N; BW 50/50; TSA ETS x2.
	etsReco  = []byte{0x00, 0x76, 0x54, 0x32, 0x10, 50, 50, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0}
	wantReco = TsharkETS{PrioTC: [8]int{7, 6, 5, 4, 3, 2, 1, 0}, BW: [8]int{50, 50}, TSA: [8]int{2, 2}}
	// PFC: willing=1 MBC=1 cap=4; enabled on priorities 0, 3, 5.
	pfc     = []byte{0xc4, 0x29}
	wantPFC = TsharkPFC{Willing: true, MBC: true, Cap: 4, Enabled: [8]bool{0: true, 3: true, 5: true}}
	// APP: udp 4791 -> 3, tcp 3260 -> 4, EtherType 0x8906 -> 3, DSCP 46 -> 5.
	app     = []byte{0x00, 0x63, 0x12, 0xb7, 0x82, 0x0c, 0xbc, 0x61, 0x89, 0x06, 0xa5, 0x00, 0x2e}
	wantApp = []TsharkApp{{3, 3, 4791}, {4, 2, 3260}, {3, 1, 0x8906}, {5, 5, 46}}
	// CEE DCBX TLV of record-fixtures.sh (Control seq 3 ack 2, PG, PFC prio 3,
	// APP FCoE/iSCSI/FIP).
	cee = []byte{0x02, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02,
		0x04, 0x11, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x11, 0x1f, 0x19, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
		0x06, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x08, 0x08,
		0x08, 0x16, 0x00, 0x00, 0xe0, 0x00, 0x89, 0x06, 0x00, 0x1b, 0x21, 0x08, 0x0c, 0xbc, 0x01, 0x1b, 0x21, 0x08, 0x89, 0x14, 0x00, 0x1b, 0x21, 0x08}
)

func hasOrg(f PcapFrame, oui [3]byte, subtype uint8, want []byte) bool {
	got, ok := f.OrgTLV(oui, subtype)
	return ok && bytes.Equal(got, want)
}

func countFrom(src net.HardwareAddr, cond func(PcapFrame) bool) func([]PcapFrame) bool {
	return func(frames []PcapFrame) bool {
		for _, f := range FramesFrom(frames, src) {
			if cond(f) {
				return true
			}
		}
		return false
	}
}

// TestPeer is the harness end to end: lldpd in one namespace, tcpdump and a
// second lldpd in the other, custom TLVs at startup and at run time, tshark
// decoding, Neighbors on the second lldpd, and the shutdown LLDPDU.
func TestPeer(t *testing.T) {
	RequirePriv(t)
	t.Parallel()
	start := time.Now()
	phase := func(what string) { t.Logf("%5.2fs %s", time.Since(start).Seconds(), what) }
	a, b := NewNS(t, "tba"), NewNS(t, "tbb")
	macA, macB := Veth(t, a, "tb0", b, "tb1")
	if len(macA) != 6 || len(macB) != 6 || bytes.Equal(macA, macB) {
		t.Fatalf("MACs %v %v", macA, macB)
	}
	phase("namespaces and veth")
	pcap := filepath.Join(t.TempDir(), "peer.pcap")
	stop := Tcpdump(t, b, "tb1", pcap)
	phase("tcpdump listening")

	const descr = "testbed peer\tA \x1b[1mbold\x1b[0m \"q\" 'q' \\"
	la := StartLLDPD(t, a, "tb0", LLDPDOpts{
		Hostname: `tb-a "x"`,
		SysDescr: descr,
		TLVs:     []UnknownTLV{{OUI8021, 11, pfc}, {OUI8021, 12, app}},
	})
	lb := StartLLDPD(t, b, "tb1", LLDPDOpts{Hostname: "tb-b"})
	phase("both lldpd up")

	// At least two LLDPDUs within 5 s; the startup TLVs are in the first.
	frames := WaitPcap(t, pcap, 5*time.Second, func(f []PcapFrame) bool { return len(FramesFrom(f, macA)) >= 2 })
	first := FramesFrom(frames, macA)[0]
	if !hasOrg(first, OUI8021, 11, pfc) || !hasOrg(first, OUI8021, 12, app) {
		t.Errorf("first LLDPDU lacks the startup TLVs: %x", first.Data)
	}
	if ttl, ok := first.TTL(); !ok || ttl != LLDPDTTL {
		t.Errorf("TTL %d (%v), want %d", ttl, ok, LLDPDTTL)
	}
	phase("two LLDPDUs captured")

	// Custom TLVs added at run time.
	for _, tlv := range []UnknownTLV{{OUI8021, 9, etsCfg}, {OUI8021, 10, etsReco}, {OUICEE, 2, cee}} {
		if err := la.AddTLV(tlv.OUI, tlv.Subtype, tlv.Value); err != nil {
			t.Fatal(err)
		}
	}
	WaitPcap(t, pcap, 5*time.Second, countFrom(macA, func(f PcapFrame) bool {
		return hasOrg(f, OUI8021, 9, etsCfg) && hasOrg(f, OUI8021, 10, etsReco) && hasOrg(f, OUICEE, 2, cee)
	}))
	phase("added TLVs captured")

	// The second lldpd sees the first, with all its TLVs.
	wantTLVs := []UnknownTLV{{OUI8021, 11, pfc}, {OUI8021, 12, app}, {OUI8021, 9, etsCfg}, {OUI8021, 10, etsReco}, {OUICEE, 2, cee}}
	ns := lb.WaitNeighbors(5*time.Second, func(ns []Neighbor) bool {
		return len(ns) == 1 && len(ns[0].UnknownTLVs) == len(wantTLVs)
	})
	want := Neighbor{
		Interface: "tb1", Via: "LLDP", RID: ns[0].RID, Age: ns[0].Age,
		ChassisIDType: "mac", ChassisID: macA.String(),
		SysName: `tb-a "x"`, SysDescr: descr,
		PortIDType: "mac", PortID: macA.String(), PortDescr: "tb0",
		TTL: LLDPDTTL, UnknownTLVs: wantTLVs,
	}
	if diff := cmp.Diff(want, ns[0]); diff != "" {
		t.Errorf("neighbour (-want +got):\n%s", diff)
	}
	phase("neighbour seen")

	// ClearTLVs: a later LLDPDU carries none of the custom TLVs.
	sofar, err := ReadPcap(pcap)
	if err != nil {
		t.Fatal(err)
	}
	clearAt := len(FramesFrom(sofar, macA))
	if err := la.ClearTLVs(); err != nil {
		t.Fatal(err)
	}
	WaitPcap(t, pcap, 5*time.Second, func(frames []PcapFrame) bool {
		for _, f := range FramesFrom(frames, macA)[clearAt:] {
			custom := false
			for _, tlv := range wantTLVs {
				if _, ok := f.OrgTLV(tlv.OUI, tlv.Subtype); ok {
					custom = true
				}
			}
			if !custom {
				return true
			}
		}
		return false
	})
	phase("cleared TLVs captured")

	// Stop: a shutdown LLDPDU, and the neighbour is gone at once.
	la.Stop()
	if !la.Exited() {
		t.Error("lldpd still running after Stop")
	}
	WaitPcap(t, pcap, 3*time.Second, countFrom(macA, func(f PcapFrame) bool { ttl, ok := f.TTL(); return ok && ttl == 0 }))
	lb.WaitNeighbors(3*time.Second, func(ns []Neighbor) bool { return len(ns) == 0 })
	stop()
	end := time.Now()
	phase("shutdown captured, neighbour gone")

	// tshark's view of the same capture.
	tf := TsharkLLDP(t, pcap)
	phase("tshark done")
	raw, err := ReadPcap(pcap)
	if err != nil {
		t.Fatal(err)
	}
	if len(tf) != len(raw) {
		t.Fatalf("tshark decoded %d LLDP frames, the capture has %d", len(tf), len(raw))
	}
	var fromA []TsharkFrame
	for i, f := range tf {
		if f.Number != i+1 || !bytes.Equal(f.Raw, raw[i].Data) || !bytes.Equal(f.Src, raw[i].Src()) {
			t.Errorf("tshark frame %d: number %d, src %v, raw bytes differ: %v", i+1, f.Number, f.Src, !bytes.Equal(f.Raw, raw[i].Data))
		}
		if f.Time.Before(start.Add(-time.Second)) || f.Time.After(end.Add(time.Second)) || !f.Time.Equal(raw[i].Time) {
			t.Errorf("tshark frame %d: time %v outside the test [%v, %v] or not the pcap's %v", f.Number, f.Time, start, end, raw[i].Time)
		}
		if f.Dst.String() != "01:80:c2:00:00:0e" {
			t.Errorf("tshark frame %d: dst %v", f.Number, f.Dst)
		}
		if bytes.Equal(f.Src, macA) {
			fromA = append(fromA, f)
		}
	}
	if len(fromA) < 4 {
		t.Fatalf("only %d frames from %v", len(fromA), macA)
	}
	if got := fromA[0].Get("lldp.tlv.system.name"); got != `tb-a "x"` {
		t.Errorf("system name %q", got)
	}
	if got := fromA[0].Get("lldp.tlv.system.desc"); got != descr {
		t.Errorf("system description %q, want %q", got, descr)
	}
	if got := fromA[0].Get("lldp.chassis.id.mac"); got != macA.String() {
		t.Errorf("chassis id %q", got)
	}
	if ttl, ok := fromA[0].TTL(); !ok || ttl != LLDPDTTL {
		t.Errorf("tshark TTL %d", ttl)
	}
	last := fromA[len(fromA)-1]
	if ttl, ok := last.TTL(); !ok || ttl != 0 || last.Get("lldp.tlv.system.name") != "" {
		t.Errorf("last frame from lldpd: TTL %d (%v), name %q; want a shutdown LLDPDU", ttl, ok, last.Get("lldp.tlv.system.name"))
	}
	for _, f := range fromA[:len(fromA)-1] {
		if ttl, _ := f.TTL(); ttl == 0 {
			t.Errorf("frame %d: TTL 0 before the end", f.Number)
		}
	}

	var full *TsharkFrame
	for i := range fromA {
		if fromA[i].Org(OUICEE, 2) != nil {
			full = &fromA[i]
			break
		}
	}
	if full == nil {
		t.Fatal("tshark shows no frame with the added TLVs")
	}
	checkTsharkDCBX(t, full)
}

// checkTsharkDCBX checks tshark's decoding of the TLVs of TestPeer.
func checkTsharkDCBX(t *testing.T, f *TsharkFrame) {
	t.Helper()
	for _, c := range []struct {
		oui     [3]byte
		subtype uint8
		info    []byte
		label   string
	}{
		{OUI8021, 9, etsCfg, "IEEE - ETS Configuration"},
		{OUI8021, 10, etsReco, "IEEE - ETS Recommendation"},
		{OUI8021, 11, pfc, "IEEE - Priority Flow Control Configuration"},
		{OUI8021, 12, app, "IEEE - Application Protocol"},
		{OUICEE, 2, cee, "Intel Corporate - 1.01 CEE"},
	} {
		tlv := f.Org(c.oui, c.subtype)
		if tlv == nil {
			t.Errorf("no TLV %x/%d", c.oui, c.subtype)
			continue
		}
		if tlv.Label != c.label || tlv.Type != 127 || !bytes.Equal(tlv.Raw[6:], c.info) || len(tlv.Raw) != 6+len(c.info) {
			t.Errorf("TLV %x/%d: label %q type %d raw %x", c.oui, c.subtype, tlv.Label, tlv.Type, tlv.Raw)
		}
	}
	if got, err := f.ETSConfig(); err != nil || got != wantETS {
		t.Errorf("ETS Configuration %+v (%v), want %+v", got, err, wantETS)
	}
	if got, err := f.ETSReco(); err != nil || got != wantReco {
		t.Errorf("ETS Recommendation %+v (%v), want %+v", got, err, wantReco)
	}
	if got, err := f.PFC(); err != nil || got != wantPFC {
		t.Errorf("PFC %+v (%v), want %+v", got, err, wantPFC)
	}
	if got, err := f.App(); err != nil || !slices.Equal(got, wantApp) {
		t.Errorf("APP %+v (%v), want %+v", got, err, wantApp)
	}
	// The frame-wide Fields list a field once per occurrence, in frame
	// order: willing of ETS then PFC; pg.per of ETS Configuration, then
	// Recommendation, then CEE PG.
	for field, want := range map[string][]string{
		TsharkWilling:                 {"1", "1"},
		TsharkETSCBS:                  {"0"},
		TsharkETSMaxTCs:               {"3"},
		"lldp.dcbx.feature.pg.per1":   {"20", "50", "75"},
		TsharkAppProto:                {"0x12b7", "0x0cbc", "0x8906", "0x002e", "0x8906", "0x0cbc", "0x8914"},
		"lldp.dcbx.control.seq":       {"3"},
		"lldp.dcbx.control.ack":       {"2"},
		"lldp.dcbx.feature.pfc.prio3": {"1", "1"},
		"lldp.dcbx.feature.willing":   {"1", "1", "1"},
		"lldp.dcbx.feature.error":     {"0", "0", "1"},
		"lldp.dcbx.feature.app.sf":    {"0", "1", "0"},
	} {
		if got := f.Fields[field]; !slices.Equal(got, want) {
			t.Errorf("Fields[%s] = %q, want %q", field, got, want)
		}
	}
}

// TestKill: SIGKILL sends no shutdown LLDPDU and leaves no lldpd process.
func TestKill(t *testing.T) {
	RequirePriv(t)
	t.Parallel()
	a, b := NewNS(t, "tbka"), NewNS(t, "tbkb")
	macA, _ := Veth(t, a, "k0", b, "k1")
	pcap := filepath.Join(t.TempDir(), "kill.pcap")
	stop := Tcpdump(t, b, "k1", pcap)
	l := StartLLDPD(t, a, "k0", LLDPDOpts{})
	WaitPcap(t, pcap, 5*time.Second, func(f []PcapFrame) bool { return len(FramesFrom(f, macA)) >= 1 })
	// lldpd survives the threads of NS.Go ending (they are not its Pdeathsig parent).
	for range 30 {
		a.Go(t, func() {})
		b.Go(t, func() {})
	}
	time.Sleep(100 * time.Millisecond)
	if l.Exited() {
		t.Fatal("lldpd died when NS.Go threads exited")
	}
	l.Kill()
	killed := time.Now()
	if !l.Exited() {
		t.Error("lldpd still running after Kill")
	}
	for i := 0; len(a.pids()) > 0; i++ {
		if i == 20 {
			t.Fatalf("processes left in %s after Kill: %v", a.Name, a.pids())
		}
		time.Sleep(50 * time.Millisecond)
	}
	l.Stop() // no-op after Kill
	time.Sleep(1500 * time.Millisecond)
	stop()
	frames, err := ReadPcap(pcap)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range FramesFrom(frames, macA) {
		if ttl, _ := f.TTL(); ttl == 0 {
			t.Errorf("shutdown LLDPDU after SIGKILL at %v", f.Time)
		}
		if f.Time.After(killed.Add(100 * time.Millisecond)) {
			t.Errorf("frame at %v, after SIGKILL at %v", f.Time, killed)
		}
	}
}

// TestBridge: LLDP crosses a bridge made by Bridge (group_fwd_mask).
func TestBridge(t *testing.T) {
	RequirePriv(t)
	t.Parallel()
	br, x, y := NewNS(t, "tbbr"), NewNS(t, "tbx"), NewNS(t, "tby")
	macX, _ := Veth(t, x, "p0", br, "bx")
	Veth(t, y, "p0", br, "by")
	Bridge(t, br, "br0", "bx", "by")
	pcap := filepath.Join(t.TempDir(), "bridge.pcap")
	Tcpdump(t, y, "p0", pcap)
	StartLLDPD(t, x, "p0", LLDPDOpts{Hostname: "behind-bridge"})
	frames := WaitPcap(t, pcap, 5*time.Second, func(f []PcapFrame) bool { return len(FramesFrom(f, macX)) >= 2 })
	for _, f := range FramesFrom(frames, macX) {
		if f.Dst().String() != "01:80:c2:00:00:0e" {
			t.Errorf("dst %v", f.Dst())
		}
	}
}

func nsInode(t *testing.T, path string) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// TestNSGo: NS.Go runs on a thread inside the namespace, AF_PACKET sockets
// opened there work from any goroutine afterwards, and panics propagate.
func TestNSGo(t *testing.T) {
	RequirePriv(t)
	t.Parallel()
	a := NewNS(t, "tbgo")
	mac0, mac1 := Veth(t, a, "g0", a, "g1")
	want := nsInode(t, NetnsDir+"/"+a.Name)
	if nsInode(t, "/proc/thread-self/ns/net") == want {
		t.Fatal("test goroutine already in the namespace")
	}
	const proto = 0x88b5 // IEEE local experimental EtherType
	var rx, tx, txIndex int
	a.Go(t, func() {
		if got := nsInode(t, "/proc/thread-self/ns/net"); got != want {
			t.Errorf("NS.Go thread in netns %d, want %d", got, want)
		}
		i0, err := net.InterfaceByName("g0")
		if err != nil {
			t.Error(err)
			return
		}
		i1, err := net.InterfaceByName("g1")
		if err != nil {
			t.Error(err)
			return
		}
		txIndex = i1.Index
		if rx, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(proto))); err != nil {
			t.Error(err)
			return
		}
		if err := unix.Bind(rx, &unix.SockaddrLinklayer{Protocol: htons(proto), Ifindex: i0.Index}); err != nil {
			t.Error(err)
		}
		if tx, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	defer unix.Close(rx)
	defer unix.Close(tx)
	if nsInode(t, "/proc/thread-self/ns/net") == want {
		t.Fatal("test goroutine ended up in the namespace")
	}
	// Back outside the namespace: the sockets still belong to it.
	frame := append(append(append([]byte{}, mac0...), mac1...), byte(proto>>8), byte(proto&0xff))
	frame = append(frame, []byte("dcbtop testbed NS.Go")...)
	dst := &unix.SockaddrLinklayer{Ifindex: txIndex, Halen: 6}
	copy(dst.Addr[:], mac0)
	if err := unix.Sendto(tx, frame, 0, dst); err != nil {
		t.Fatal(err)
	}
	if err := unix.SetsockoptTimeval(rx, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 2}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1500)
	for {
		n, _, err := unix.Recvfrom(rx, buf, 0)
		if err != nil {
			t.Fatalf("no frame on g0: %v", err)
		}
		if bytes.Equal(buf[:n], frame) {
			break
		}
	}

	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "boom") {
			t.Errorf("panic in NS.Go not re-raised: %v", r)
		}
	}()
	a.Go(t, func() { panic("boom") })
}

// TestHelperMidway is run by TestCleanupAfterFailure in a child test
// binary: it builds a testbed and then fails (DCBTOP_TESTBED_HELPER=fail) or
// waits to be killed with SIGKILL (=crash). Its namespaces are named with
// the prefix in DCBTOP_TESTBED_HELPER_NS.
func TestHelperMidway(t *testing.T) {
	mode := os.Getenv("DCBTOP_TESTBED_HELPER")
	if mode == "" {
		t.Skip("helper for TestCleanupAfterFailure")
	}
	RequirePriv(t)
	prefix := os.Getenv("DCBTOP_TESTBED_HELPER_NS")
	a, b := NewNS(t, prefix), NewNS(t, prefix)
	Veth(t, a, "f0", b, "f1")
	Bridge(t, b, "fbr", "f1")
	Tcpdump(t, b, "fbr", filepath.Join(t.TempDir(), "fail.pcap"))
	l := StartLLDPD(t, a, "f0", LLDPDOpts{})
	out := []string{"NS " + a.Name, "NS " + b.Name, "DIR " + l.Dir}
	for _, pid := range append(a.pids(), b.pids()...) {
		out = append(out, "PID "+strconv.Itoa(pid))
	}
	out = append(out, "READY -")
	for _, line := range out {
		fmt.Println("TESTBED-HELPER " + line)
	}
	if mode == "crash" {
		time.Sleep(time.Minute)
	}
	t.Fatal("deliberate failure midway")
}

// procGone reports whether pid has exited (no such process, or a zombie
// waiting for a parent that is gone).
func procGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// TestCleanupAfterFailure runs TestHelperMidway in a child process and
// checks that neither a test failure (t.Cleanup) nor SIGKILL of the test
// binary (the watchdog) leaves namespaces, processes or files behind.
func TestCleanupAfterFailure(t *testing.T) {
	RequirePriv(t)
	t.Parallel()
	for _, mode := range []string{"fail", "crash"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			// A prefix of this subtest's own: the other subtest's helper,
			// or another run of this test on the machine, creates
			// namespaces at the same time.
			prefix := "tb" + mode[:1] + randHex(2)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperMidway$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "DCBTOP_TESTBED_HELPER="+mode, "DCBTOP_TESTBED_HELPER_NS="+prefix)
			var out, errOut bytes.Buffer // errOut is read only after Wait
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var names, dirs []string
			var pids []int
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				out.WriteString(sc.Text() + "\n")
				f := strings.Fields(sc.Text())
				if len(f) != 3 || f[0] != "TESTBED-HELPER" {
					continue
				}
				switch f[1] {
				case "NS":
					names = append(names, f[2])
				case "DIR":
					dirs = append(dirs, f[2])
				case "PID":
					pid, _ := strconv.Atoi(f[2])
					pids = append(pids, pid)
				case "READY":
					if mode == "crash" {
						_ = cmd.Process.Kill()
					}
				}
			}
			err = cmd.Wait()
			out.Write(errOut.Bytes())
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("helper: want a failure, got %v:\n%s", err, out.Bytes())
			}
			if mode == "fail" && !bytes.Contains(out.Bytes(), []byte("deliberate failure midway")) {
				t.Fatalf("helper did not fail as planned:\n%s", out.Bytes())
			}
			if len(names) != 2 || len(dirs) != 1 || len(pids) < 3 { // lldpd monitor and child, tcpdump
				t.Fatalf("helper output: names %v dirs %v pids %v:\n%s", names, dirs, pids, out.Bytes())
			}
			// After a crash the watchdog needs a moment.
			deadline := time.Now().Add(5 * time.Second)
			for {
				var left []string
				after, err := ListNS()
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range after {
					if slices.Contains(names, n) || strings.HasPrefix(n, prefix+"-") {
						left = append(left, "namespace "+n)
					}
				}
				for _, pid := range pids {
					if !procGone(pid) {
						left = append(left, fmt.Sprintf("process %d", pid))
					}
				}
				for _, d := range dirs {
					if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
						left = append(left, "directory "+d)
					}
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("left behind: %v", left)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// fakeTB records Skipf/Fatalf instead of acting on them.
type fakeTB struct {
	testing.TB
	skip, fatal string
}

func (f *fakeTB) Helper()                       {}
func (f *fakeTB) Skipf(format string, a ...any) { f.skip = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.fatal = fmt.Sprintf(format, a...)
}

// TestRequirePolicy: a missing command skips, or fails with
// DCBTOP_REQUIRE_PRIV=1. (Runs without root; not parallel: Setenv.)
func TestRequirePolicy(t *testing.T) {
	for _, env := range []string{"", "0", "1"} {
		t.Setenv(EnvRequirePriv, env)
		f := &fakeTB{TB: t}
		RequireCommands(f, "ip", "dcbtop-no-such-command")
		reason := f.skip
		if env == "1" {
			reason = f.fatal
			if f.skip != "" {
				t.Errorf("env %q: skipped too: %s", env, f.skip)
			}
		} else if f.fatal != "" {
			t.Errorf("env %q: failed: %s", env, f.fatal)
		}
		if !strings.Contains(reason, "dcbtop-no-such-command") || strings.Contains(reason, "command(s) ip") {
			t.Errorf("env %q: reason %q", env, reason)
		}
		f = &fakeTB{TB: t}
		RequireCommands(f, "sh")
		if f.skip != "" || f.fatal != "" {
			t.Errorf("env %q: sh reported missing: %q %q", env, f.skip, f.fatal)
		}
	}
}

// The real lldpcli -f json0 output for a neighbour with two custom TLVs
// (lldpd 1.0.16), abridged.
const neighborsJSON0 = `{
  "lldp": [{"interface": [{
    "name": "vb", "via": "LLDP", "rid": "1", "age": "0 day, 00:00:08",
    "chassis": [{"id": [{"type": "mac", "value": "9e:10:de:a3:dc:36"}],
      "name": [{"value": "sw-a"}], "descr": [{"value": "descr\tA\u001b"}],
      "mgmt-ip": [{"value": "fe80::9c10:deff:fea3:dc36"}], "mgmt-iface": [{"value": "2"}],
      "capability": [{"type": "Bridge", "enabled": false}, {"type": "Station", "enabled": true}]}],
    "port": [{"id": [{"type": "mac", "value": "9e:10:de:a3:dc:36"}], "descr": [{"value": "va"}],
      "ttl": [{"value": "4"}],
      "auto-negotiation": [{"supported": false, "enabled": false, "current": [{"value": "10GbaseT"}]}]}],
    "unknown-tlvs": [{"unknown-tlv": [
      {"oui": "00,80,C2", "subtype": "9", "len": "21", "value": "00,00,01,02,00,28,32,0A,00,00,00,00,00,02,02,02,00,00,00,00,00"},
      {"oui": "00,80,C2", "subtype": "11", "len": "2", "value": "08,08"}]}]
  }]}]
}`

func TestParseNeighborsJSON0(t *testing.T) {
	got, err := ParseNeighborsJSON0([]byte(neighborsJSON0))
	if err != nil {
		t.Fatal(err)
	}
	want := []Neighbor{{
		Interface: "vb", Via: "LLDP", RID: 1, Age: "0 day, 00:00:08",
		ChassisIDType: "mac", ChassisID: "9e:10:de:a3:dc:36", SysName: "sw-a", SysDescr: "descr\tA\x1b",
		MgmtIPs:    []string{"fe80::9c10:deff:fea3:dc36"},
		PortIDType: "mac", PortID: "9e:10:de:a3:dc:36", PortDescr: "va", TTL: 4,
		UnknownTLVs: []UnknownTLV{
			{OUI8021, 9, []byte{0, 0, 1, 2, 0, 0x28, 0x32, 0x0a, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0}},
			{OUI8021, 11, []byte{8, 8}},
		},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, empty := range []string{`{"lldp": [{}]}`, `{"lldp": [{"interface": []}]}`} {
		if got, err := ParseNeighborsJSON0([]byte(empty)); err != nil || len(got) != 0 {
			t.Errorf("%s: %v %v", empty, got, err)
		}
	}
	if _, err := ParseNeighborsJSON0([]byte(strings.Replace(neighborsJSON0, `"len": "2"`, `"len": "3"`, 1))); err == nil {
		t.Error("length mismatch accepted")
	}
}

// tsharkJSON is shaped like `tshark -T json -x` output: repeated keys in one
// object ("FCoE Application" twice), a --no-duplicate-keys style array, _raw
// members, and a packet without an lldp layer.
const tsharkJSON = `[
 {"_source": {"layers": {"frame": {"frame.number": "1"}, "eth": {"eth.src": "02:00:00:00:00:09"}}}},
 {"_source": {"layers": {
  "frame_raw": ["0180c200000e02dcb000000188cc06020004fe0e0080c20c006189066312b7a189060000", 0, 38, 0, 1],
  "frame": {"frame.number": "2", "frame.time_epoch": "1795305006.765163"},
  "eth": {"eth.dst": "01:80:c2:00:00:0e", "eth.dst_tree": {"eth.addr": "01:80:c2:00:00:0e"}, "eth.src": "02:dc:b0:00:00:01"},
  "lldp": {
   "Time To Live = 4 sec": {"lldp.tlv.type_raw": ["3", 14, 2, 65024, 5], "lldp.tlv.type": "3", "lldp.tlv.len": "2", "lldp.time_to_live": "4"},
   "IEEE - Application Protocol": {"lldp.tlv.type_raw": ["127", 18, 2, 65024, 5], "lldp.tlv.type": "127", "lldp.tlv.len": "14",
     "lldp.orgtlv.oui": "32962", "lldp.ieee.802_1.subtype": "0x0c", "lldp.dcbx.ieee.app.reserved": "0x00",
     "FCoE Application": {"lldp.dcbx.ieee.app.prio": "3", "lldp.dcbx.iee.app.sf": "1", "lldp.dcbx.feature.app.proto": "0x8906"},
     "Unknown Application": [{"lldp.dcbx.ieee.app.prio": "3", "lldp.dcbx.iee.app.sf": "3", "lldp.dcbx.feature.app.proto": "0x12b7"}],
     "FCoE Application": {"lldp.dcbx.ieee.app.prio": "5", "lldp.dcbx.iee.app.sf": "1", "lldp.dcbx.feature.app.proto": "0x8906"}},
   "End of LLDPDU": {"lldp.tlv.type": "0", "lldp.tlv.len": "0"}
  }}}}
]`

func TestParseTsharkJSON(t *testing.T) {
	frames, err := ParseTsharkJSON([]byte(tsharkJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 {
		t.Fatalf("%d frames, want 1", len(frames))
	}
	f := frames[0]
	if f.Number != 2 || !f.Time.Equal(time.Unix(1795305006, 765163000)) || f.Src.String() != "02:dc:b0:00:00:01" || f.Dst.String() != "01:80:c2:00:00:0e" {
		t.Errorf("frame %d time %v src %v dst %v", f.Number, f.Time, f.Src, f.Dst)
	}
	if ttl, ok := f.TTL(); !ok || ttl != 4 {
		t.Errorf("TTL %d %v", ttl, ok)
	}
	if len(f.TLVs) != 3 || f.TLVs[0].Type != 3 || f.TLVs[0].Subtype != -1 || f.TLVs[2].Type != 0 {
		t.Errorf("TLVs %+v", f.TLVs)
	}
	tlv := f.Org(OUI8021, 12)
	if tlv == nil || tlv.Label != "IEEE - Application Protocol" {
		t.Fatalf("APP TLV %+v", tlv)
	}
	if want := []byte{0xfe, 0x0e, 0x00, 0x80, 0xc2, 0x0c, 0x00, 0x61, 0x89, 0x06, 0x63, 0x12, 0xb7, 0xa1, 0x89, 0x06}; !bytes.Equal(tlv.Raw, want) {
		t.Errorf("raw %x", tlv.Raw)
	}
	apps, err := f.App()
	if want := []TsharkApp{{3, 1, 0x8906}, {3, 3, 0x12b7}, {5, 1, 0x8906}}; err != nil || !slices.Equal(apps, want) {
		t.Errorf("App %v (%v), want %v", apps, err, want)
	}
	bad, err := ParseTsharkJSON([]byte(strings.Replace(tsharkJSON, `"lldp.dcbx.iee.app.sf": "3"`, `"lldp.dcbx.iee.app.sf": "udp"`, 1)))
	if err != nil || len(bad) != 1 {
		t.Fatalf("%v %v", bad, err)
	}
	if apps, err := bad[0].App(); err == nil || !strings.Contains(err.Error(), TsharkAppSel) {
		t.Errorf("App with a non-numeric selector = %v, %v; want an error naming %s", apps, err, TsharkAppSel)
	}
	if got := f.Fields["lldp.tlv.type"]; !slices.Equal(got, []string{"3", "127", "0"}) {
		t.Errorf("lldp.tlv.type %q", got)
	}
	if _, ok := f.Fields["lldp.tlv.type_raw"]; ok {
		t.Error("_raw member in Fields")
	}
	// Without -x: OUI and subtype from the decoded fields.
	noRaw := strings.Replace(tsharkJSON, `"frame_raw"`, `"x_frame_raw"`, 1)
	frames, err = ParseTsharkJSON([]byte(noRaw))
	if err != nil || len(frames) != 1 {
		t.Fatalf("%v %v", frames, err)
	}
	if tlv := frames[0].Org(OUI8021, 12); tlv == nil || tlv.Raw != nil {
		t.Errorf("without -x: %+v", tlv)
	}
}

func TestParsePcap(t *testing.T) {
	var b bytes.Buffer
	le := binary.LittleEndian
	hdr := make([]byte, 24)
	le.PutUint32(hdr, 0xa1b2c3d4)
	le.PutUint16(hdr[4:], 2)
	le.PutUint16(hdr[6:], 4)
	le.PutUint32(hdr[16:], 65535)
	le.PutUint32(hdr[20:], 1)
	b.Write(hdr)
	frame := []byte{0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x88, 0xcc,
		0x02, 0x07, 0x04, 2, 0, 0, 0, 0, 1, 0x04, 0x02, 0x07, 0x31, 0x06, 0x02, 0x00, 0x04,
		0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x08, 0x08, 0x00, 0x00}
	rec := make([]byte, 16)
	le.PutUint32(rec, 100)
	le.PutUint32(rec[4:], 250000)
	le.PutUint32(rec[8:], uint32(len(frame)))
	le.PutUint32(rec[12:], uint32(len(frame)))
	b.Write(rec)
	b.Write(frame)
	b.Write(rec[:10]) // a record still being written
	frames, err := parsePcap(b.Bytes())
	if err != nil || len(frames) != 1 {
		t.Fatalf("%v %v", frames, err)
	}
	f := frames[0]
	if !f.Time.Equal(time.Unix(100, 250000000)) || f.Src().String() != "02:00:00:00:00:01" {
		t.Errorf("time %v src %v", f.Time, f.Src())
	}
	if ttl, ok := f.TTL(); !ok || ttl != 4 {
		t.Errorf("TTL %d %v", ttl, ok)
	}
	if v, ok := f.OrgTLV(OUI8021, 11); !ok || !bytes.Equal(v, []byte{8, 8}) {
		t.Errorf("PFC %x %v", v, ok)
	}
	if tlvs := f.TLVs(); len(tlvs) != 5 || tlvs[4].Type != 0 {
		t.Errorf("TLVs %+v", tlvs)
	}
}

// TestWritePcap: what WritePcap writes, ReadPcap reads back frame for
// frame, and SLL2 lays a frame out as LINKTYPE_LINUX_SLL2 says.
func TestWritePcap(t *testing.T) {
	frame := []byte{0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x88, 0xcc, 0x02, 0x07, 0x04}
	want := []PcapFrame{{Time: time.Unix(100, 250000000), Data: frame}, {Time: time.Unix(101, 0), Data: frame[:14]}}
	got, err := ReadPcap(WritePcap(t, "eth0.pcap", LinkTypeEthernet, want))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Time.Equal(want[i].Time) || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("frame %d: %v %x, want %v %x", i, got[i].Time, got[i].Data, want[i].Time, want[i].Data)
		}
	}
	sll := SLL2(frame, 3, 4)
	wantSLL := []byte{0x88, 0xcc, 0, 0, 0, 0, 0, 3, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x02, 0x07, 0x04}
	if !bytes.Equal(sll, wantSLL) {
		t.Errorf("SLL2 %x, want %x", sll, wantSLL)
	}
}
