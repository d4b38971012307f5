// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Tcpdump records the LLDP frames (`ether proto 0x88cc`) seen on ifname in
// ns to path, as classic pcap (link type EN10MB, microsecond timestamps):
//
//	ip netns exec NS tcpdump -i IFNAME -n -U --immediate-mode -w PATH ether proto 0x88cc
//
// It returns once tcpdump reports "listening on" (its filter is installed),
// so nothing sent afterwards is missed. -U and --immediate-mode make every
// frame reach the file at once, so the file can be read while tcpdump runs
// (ReadPcap, WaitPcap). Note that a capture on an interface also records the
// frames sent from it.
//
// stop sends SIGINT and waits (tcpdump flushes and closes the file); it is
// idempotent and also registered with t.Cleanup.
func Tcpdump(t testing.TB, ns *NS, ifname, path string) (stop func()) {
	t.Helper()
	checkNS(t, "Tcpdump", ns)
	checkIfname(t, ifname)
	RequireCommands(t, "ip", "tcpdump")
	cmd := exec.Command(mustCmd("ip"), "netns", "exec", ns.Name, mustCmd("tcpdump"),
		"-i", ifname, "-n", "-U", "--immediate-mode", "-w", path, "ether", "proto", "0x88cc")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	p, err := startProc(cmd, false)
	if err != nil {
		t.Fatalf("testbed: start tcpdump: %v", err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	ready := make(chan struct{})
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if strings.Contains(sc.Text(), "listening on") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(lines, "\n")
	}
	var stopOnce sync.Once
	stop = func() {
		stopOnce.Do(func() {
			if !p.stop(syscall.SIGINT, 5*time.Second, false) {
				t.Errorf("testbed: tcpdump in %s did not exit within 5 s of SIGINT; killed", ns.Name)
			}
			select {
			case <-eof:
			case <-time.After(2 * time.Second):
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-ready:
		return stop
	case <-eof:
		<-p.done
		t.Fatalf("testbed: tcpdump in %s exited during startup (%v):\n%s", ns.Name, p.err, text())
	case <-time.After(10 * time.Second):
		t.Fatalf("testbed: tcpdump in %s not listening after 10 s:\n%s", ns.Name, text())
	}
	return stop
}

// PcapFrame is one frame of a classic pcap file.
type PcapFrame struct {
	Time time.Time
	Data []byte // the captured bytes, starting with the Ethernet header
}

// Dst returns the destination MAC (nil for a runt frame).
func (f PcapFrame) Dst() net.HardwareAddr {
	if len(f.Data) < 14 {
		return nil
	}
	return net.HardwareAddr(f.Data[0:6])
}

// Src returns the source MAC (nil for a runt frame).
func (f PcapFrame) Src() net.HardwareAddr {
	if len(f.Data) < 14 {
		return nil
	}
	return net.HardwareAddr(f.Data[6:12])
}

// RawTLV is an LLDP TLV as on the wire.
type RawTLV struct {
	Type  int    // 0..127
	Value []byte // the information string (for type 127: OUI, subtype, info)
}

// TLVs walks the LLDPDU of an (untagged or 802.1Q-tagged) EtherType 0x88CC
// frame up to and including the End TLV. It returns nil for other frames; a
// truncated TLV ends the walk.
func (f PcapFrame) TLVs() []RawTLV {
	b := f.Data
	if len(b) < 14 {
		return nil
	}
	off := 12
	if binary.BigEndian.Uint16(b[off:]) == 0x8100 && len(b) >= 18 {
		off += 4
	}
	if binary.BigEndian.Uint16(b[off:]) != 0x88cc {
		return nil
	}
	b = b[off+2:]
	var tlvs []RawTLV
	for len(b) >= 2 {
		h := binary.BigEndian.Uint16(b)
		typ, n := int(h>>9), int(h&0x1ff)
		if len(b) < 2+n {
			break
		}
		tlvs = append(tlvs, RawTLV{Type: typ, Value: b[2 : 2+n]})
		if typ == 0 {
			break
		}
		b = b[2+n:]
	}
	return tlvs
}

// TTL returns the value of the TTL TLV.
func (f PcapFrame) TTL() (int, bool) {
	for _, t := range f.TLVs() {
		if t.Type == 3 && len(t.Value) == 2 {
			return int(binary.BigEndian.Uint16(t.Value)), true
		}
	}
	return 0, false
}

// OrgTLV returns the information string (after OUI and subtype) of the first
// organisationally specific TLV with this OUI and subtype.
func (f PcapFrame) OrgTLV(oui [3]byte, subtype uint8) ([]byte, bool) {
	for _, t := range f.TLVs() {
		if t.Type == 127 && len(t.Value) >= 4 && [3]byte(t.Value[:3]) == oui && t.Value[3] == subtype {
			return t.Value[4:], true
		}
	}
	return nil, false
}

// ReadPcap reads a classic pcap file (either byte order, microsecond or
// nanosecond timestamps). A partly written last record, as seen while
// tcpdump is still writing, is ignored.
func ReadPcap(path string) ([]PcapFrame, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePcap(b)
}

func parsePcap(b []byte) ([]PcapFrame, error) {
	if len(b) < 24 {
		return nil, io.ErrUnexpectedEOF
	}
	var bo binary.ByteOrder
	nano := false
	switch {
	case bytes.Equal(b[:4], []byte{0xd4, 0xc3, 0xb2, 0xa1}):
		bo = binary.LittleEndian
	case bytes.Equal(b[:4], []byte{0xa1, 0xb2, 0xc3, 0xd4}):
		bo = binary.BigEndian
	case bytes.Equal(b[:4], []byte{0x4d, 0x3c, 0xb2, 0xa1}):
		bo, nano = binary.LittleEndian, true
	case bytes.Equal(b[:4], []byte{0xa1, 0xb2, 0x3c, 0x4d}):
		bo, nano = binary.BigEndian, true
	default:
		return nil, fmt.Errorf("testbed: not a classic pcap file (magic %x)", b[:4])
	}
	if lt := bo.Uint32(b[20:]) & 0x0fffffff; lt != 1 {
		return nil, fmt.Errorf("testbed: pcap link type %d, want 1 (Ethernet)", lt)
	}
	var frames []PcapFrame
	for off := 24; off+16 <= len(b); {
		sec, frac, n := bo.Uint32(b[off:]), bo.Uint32(b[off+4:]), int(bo.Uint32(b[off+8:]))
		if off+16+n > len(b) {
			break
		}
		ns := int64(frac) * 1000
		if nano {
			ns = int64(frac)
		}
		frames = append(frames, PcapFrame{Time: time.Unix(int64(sec), ns), Data: b[off+16 : off+16+n]})
		off += 16 + n
	}
	return frames, nil
}

// WaitPcap re-reads the pcap file every 50 ms until cond holds for its
// frames and returns them; it fails the test after timeout. A file that does
// not exist yet or has no complete header counts as no frames.
func WaitPcap(t testing.TB, path string, timeout time.Duration, cond func([]PcapFrame) bool) []PcapFrame {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		frames, err := ReadPcap(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("testbed: %v", err)
		}
		if cond(frames) {
			return frames
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: %s: condition not met within %v (%d frames)", path, timeout, len(frames))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FramesFrom returns the frames whose source MAC is src.
func FramesFrom(frames []PcapFrame, src net.HardwareAddr) []PcapFrame {
	var out []PcapFrame
	for _, f := range frames {
		if bytes.Equal(f.Src(), src) {
			out = append(out, f)
		}
	}
	return out
}

// Link types of a classic pcap file's header
// (https://www.tcpdump.org/linktypes.html).
const (
	LinkTypeEthernet  uint32 = 1   // LINKTYPE_ETHERNET: "tcpdump -i eth0"
	LinkTypeLinuxSLL2 uint32 = 276 // LINKTYPE_LINUX_SLL2: "tcpdump -i any"
)

// WritePcap writes frames to a classic pcap file (little-endian,
// microsecond timestamps) of linkType named name in a fresh temporary
// directory of t, and returns its path: a capture as tcpdump writes one,
// which says nothing of a frame's direction unless its link type does.
func WritePcap(t testing.TB, name string, linkType uint32, frames []PcapFrame) string {
	t.Helper()
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0xa1b2c3d4)
	b = le.AppendUint16(le.AppendUint16(b, 2), 4) // version 2.4
	b = le.AppendUint32(le.AppendUint32(b, 0), 0) // this zone, accuracy
	b = le.AppendUint32(le.AppendUint32(b, 262144), linkType)
	for _, f := range frames {
		b = le.AppendUint32(b, uint32(f.Time.Unix()))
		b = le.AppendUint32(b, uint32(f.Time.Nanosecond()/1000))
		b = le.AppendUint32(le.AppendUint32(b, uint32(len(f.Data))), uint32(len(f.Data)))
		b = append(b, f.Data...)
	}
	return WriteFile(t, name, string(b))
}

// SLL2 returns the LINKTYPE_LINUX_SLL2 record of an Ethernet frame
// received on ifindex with packetType (PACKET_HOST 0, PACKET_MULTICAST 2,
// PACKET_OUTGOING 4): the protocol, a reserved field, the interface index,
// the ARPHRD type (ARPHRD_ETHER), the packet type, the address length and
// the source address padded to 8 bytes, then the frame after its Ethernet
// header (https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html).
func SLL2(frame []byte, ifindex uint32, packetType byte) []byte {
	be := binary.BigEndian
	h := be.AppendUint16(nil, be.Uint16(frame[12:14]))
	h = be.AppendUint16(h, 0)
	h = be.AppendUint32(h, ifindex)
	h = be.AppendUint16(h, 1)
	h = append(h, packetType, 6)
	h = append(append(h, frame[6:12]...), 0, 0)
	return append(h, frame[14:]...)
}
