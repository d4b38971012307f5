// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// readAll reads r until the first error and returns the frames before it.
func readAll(tb testing.TB, r *pcap.Reader) ([]capture.Frame, error) {
	tb.Helper()
	var frames []capture.Frame
	for range 100_000 {
		f, err := r.ReadFrame(context.Background())
		if err != nil {
			return frames, err
		}
		frames = append(frames, f)
	}
	tb.Fatal("ReadFrame never stops")
	return nil, nil
}

// wantReplay reads file whole and checks that it delivers want, then
// io.EOF.
func wantReplay(t *testing.T, file []byte, want []capture.Frame) {
	t.Helper()
	got, err := replayFile(t, file)
	if err != io.EOF {
		t.Errorf("last ReadFrame error = %v, want io.EOF", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// replayFile opens b as a capture file and reads all of it.
func replayFile(tb testing.TB, b []byte) ([]capture.Frame, error) {
	tb.Helper()
	r, err := pcap.Open(writeTemp(tb, b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(tb, r)
}

// pcapgoFile writes recs with a pcapgo writer: the files other tools make.
func pcapgoFile(tb testing.TB, nanos bool, recs ...rec) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if nanos {
		w = pcapgo.NewWriterNanos(&buf)
	}
	if err := w.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs {
		ci := gopacket.CaptureInfo{Timestamp: r.at, CaptureLength: len(r.data), Length: len(r.data)}
		if err := w.WritePacket(ci, r.data); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// pcapgoNgFile writes recs with pcapgo's pcapng writer, on one interface
// named name, with direction flags dirs[i] for recs[i].
func pcapgoNgFile(tb testing.TB, name string, recs []rec, dirs []pcapgo.NgEpbFlag) []byte {
	tb.Helper()
	var buf bytes.Buffer
	intf := pcapgo.NgInterface{Name: name, LinkType: layers.LinkTypeEthernet, SnapLength: 65536, TimestampResolution: 9}
	w, err := pcapgo.NewNgWriterInterface(&buf, intf, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		tb.Fatal(err)
	}
	for i, r := range recs {
		ci := gopacket.CaptureInfo{Timestamp: r.at, CaptureLength: len(r.data), Length: len(r.data)}
		opts := pcapgo.NgPacketOptions{Flags: &pcapgo.NgEpbFlags{Direction: dirs[i]}}
		if err := w.WritePacketWithOptions(ci, r.data, opts); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestBuildersMatchPcapgo pins the hand-built little-endian files to what
// pcapgo writes, which makes the big-endian ones credible.
func TestBuildersMatchPcapgo(t *testing.T) {
	recs := []rec{
		{at: t0.Add(1500 * time.Microsecond), data: lldpFrame(1)},
		{at: t0.Add(2*time.Second + 7*time.Microsecond), data: lldpFrame(2)},
	}
	for _, nanos := range []bool{false, true} {
		t.Run(fmt.Sprintf("nanos=%v", nanos), func(t *testing.T) {
			want := pcapgoFile(t, nanos, recs...)
			got := pcapFile{order: binary.LittleEndian, nanos: nanos, snaplen: 65536, linkType: ltEthernet}.bytes(recs...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("hand-built file differs from pcapgo's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplay(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	// Timestamps with nanoseconds, and with microseconds only for the
	// formats that cannot hold more.
	atNs := []time.Time{t0.Add(123456789 * time.Nanosecond), t0.Add(31*time.Second + 987654321*time.Nanosecond)}
	atUs := []time.Time{t0.Add(123456 * time.Microsecond), t0.Add(31*time.Second + 987654*time.Microsecond)}
	recs := func(at []time.Time) []rec {
		return []rec{{at: at[0], data: lldpFrame(1)}, {at: at[1], data: lldpFrame(2)}}
	}
	// frames are what recs become; consecutive frames differ, so a Data
	// aliasing a reused buffer shows up as a diff.
	frames := func(at []time.Time, iface string, dirs ...capture.Direction) []capture.Frame {
		if dirs == nil {
			dirs = []capture.Direction{capture.DirectionUnknown, capture.DirectionUnknown}
		}
		return []capture.Frame{
			{Interface: iface, At: at[0], Dir: dirs[0], Data: lldpFrame(1)},
			{Interface: iface, At: at[1], Dir: dirs[1], Data: lldpFrame(2)},
		}
	}
	mac1 := []byte{0x02, 0, 0, 0, 0, 1}
	mac2 := []byte{0x02, 0, 0, 0, 0, 2}
	llc := []byte{0x42, 0x42, 0x03, 0x00, 0x00} // STP BPDU start: 802.2 LLC

	tests := []struct {
		name string
		file []byte
		want []capture.Frame
	}{
		{
			name: "pcap little-endian microseconds (pcapgo)",
			file: pcapgoFile(t, false, recs(atUs)...),
			want: frames(atUs, "pcap0"),
		},
		{
			name: "pcap little-endian nanoseconds (pcapgo)",
			file: pcapgoFile(t, true, recs(atNs)...),
			want: frames(atNs, "pcap0"),
		},
		{
			name: "pcap big-endian microseconds",
			file: pcapFile{order: be, snaplen: 262144, linkType: ltEthernet}.bytes(recs(atUs)...),
			want: frames(atUs, "pcap0"),
		},
		{
			name: "pcap big-endian nanoseconds",
			file: pcapFile{order: be, nanos: true, snaplen: 65535, linkType: ltEthernet}.bytes(recs(atNs)...),
			want: frames(atNs, "pcap0"),
		},
		{
			name: "pcap without records",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltEthernet}.bytes(),
		},
		{
			name: "pcap snaplen 0 means no limit",
			file: pcapFile{order: le, linkType: ltEthernet}.bytes(recs(atUs)...),
			want: frames(atUs, "pcap0"),
		},
		{
			name: "pcap empty record and record cut to the snaplen",
			file: pcapFile{order: le, nanos: true, snaplen: 20, linkType: ltEthernet}.bytes(
				rec{at: atNs[0], data: []byte{}},
				rec{at: atNs[1], data: lldpFrame(2)[:20], origLen: 36},
			),
			want: []capture.Frame{
				{Interface: "pcap0", At: atNs[0], Data: []byte{}},
				{Interface: "pcap0", At: atNs[1], Data: lldpFrame(2)[:20]},
			},
		},
		{
			name: "pcap FCS bits in the link type field",
			file: pcapFile{order: le, snaplen: 65535, linkType: 0x1400_0000 | ltEthernet}.bytes(recs(atUs)...),
			want: frames(atUs, "pcap0"),
		},
		{
			name: "pcapng little-endian (pcapgo) with interface name and direction",
			file: pcapgoNgFile(t, "eth0", recs(atNs), []pcapgo.NgEpbFlag{pcapgo.NgEpbFlagDirectionInbound, pcapgo.NgEpbFlagDirectionOutbound}),
			want: frames(atNs, "eth0", capture.DirectionIncoming, capture.DirectionOutgoing),
		},
		{
			name: "pcapng big-endian with direction flags",
			file: (&ng{order: be}).shb().idb(ltEthernet, 0, "swp1").
				epb(0, recs(atNs)[0], ptr[uint32](2)).
				epb(0, recs(atNs)[1], ptr[uint32](1)).b,
			want: frames(atNs, "swp1", capture.DirectionOutgoing, capture.DirectionIncoming),
		},
		{
			name: "pcapng unnamed interfaces of mixed link types",
			file: (&ng{order: le}).shb().idb(ltEthernet, 0, "").idb(ltSLL2, 0, "").
				epb(1, rec{at: atNs[0], data: sll2(4, 7, mac1, 0x88cc, lldpPayload(1))}, nil).
				epb(0, recs(atNs)[1], nil).b,
			want: []capture.Frame{
				{Interface: "if7", At: atNs[0], Dir: capture.DirectionOutgoing, Data: lldpFrame(1), DstAssumed: true},
				{Interface: "pcap0", At: atNs[1], Data: lldpFrame(2)},
			},
		},
		{
			// ... but not over the destination, which only the packet
			// type (PACKET_HOST) decides.
			name: "pcapng direction flags win over the cooked packet type",
			file: (&ng{order: le}).shb().idb(ltSLL, 0, "any").
				epb(0, rec{at: atNs[0], data: sll(0, mac1, 0x88cc, lldpPayload(1))}, ptr[uint32](2)).b,
			want: []capture.Frame{
				{Interface: "any", At: atNs[0], Dir: capture.DirectionOutgoing, Data: cooked(1), DstAssumed: true},
			},
		},
		{
			name: "pcapng two sections",
			file: (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(0, recs(atNs)[0], nil).
				shb().idb(ltEthernet, 0, "eth1").epb(0, recs(atNs)[1], nil).b,
			want: []capture.Frame{
				{Interface: "eth0", At: atNs[0], Data: lldpFrame(1)},
				{Interface: "eth1", At: atNs[1], Data: lldpFrame(2)},
			},
		},
		{
			name: "pcapng section without packets",
			file: (&ng{order: be}).shb().idb(ltEthernet, 0, "eth0").b,
		},
		{
			name: "SLL to Ethernet",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltSLL}.bytes(
				rec{at: atUs[0], data: sll(0, mac1, 0x88cc, lldpPayload(1))}, // PACKET_HOST
				rec{at: atUs[1], data: sll(4, mac2, 0x88cc, lldpPayload(2))}, // PACKET_OUTGOING
			),
			want: []capture.Frame{
				{Interface: "pcap0", At: atUs[0], Dir: capture.DirectionIncoming, Data: cooked(1), DstAssumed: true},
				{Interface: "pcap0", At: atUs[1], Dir: capture.DirectionOutgoing, Data: lldpFrame(2), DstAssumed: true},
			},
		},
		{
			name: "SLL2 to Ethernet",
			file: pcapFile{order: be, nanos: true, snaplen: 65535, linkType: ltSLL2}.bytes(
				rec{at: atNs[0], data: sll2(2, 3, mac1, 0x88cc, lldpPayload(1))}, // PACKET_MULTICAST
				rec{at: atNs[1], data: sll2(4, 3, mac2, 0x88cc, lldpPayload(2))}, // PACKET_OUTGOING
			),
			want: []capture.Frame{
				{Interface: "if3", At: atNs[0], Dir: capture.DirectionIncoming, Data: lldpFrame(1), DstAssumed: true},
				{Interface: "if3", At: atNs[1], Dir: capture.DirectionOutgoing, Data: lldpFrame(2), DstAssumed: true},
			},
		},
		{
			// "tcpdump -i any" on a host with two ports: each record says
			// its interface, and the ports stay apart.
			name: "SLL2 from two interfaces",
			file: pcapFile{order: be, nanos: true, snaplen: 65535, linkType: ltSLL2}.bytes(
				rec{at: atNs[0], data: sll2(2, 2, mac1, 0x88cc, lldpPayload(1))},
				rec{at: atNs[1], data: sll2(2, 4, mac2, 0x88cc, lldpPayload(2))},
			),
			want: []capture.Frame{
				{Interface: "if2", At: atNs[0], Dir: capture.DirectionIncoming, Data: lldpFrame(1), DstAssumed: true},
				{Interface: "if4", At: atNs[1], Dir: capture.DirectionIncoming, Data: lldpFrame(2), DstAssumed: true},
			},
		},
		{
			name: "SLL odd address and 802.2 LLC pseudo-protocol",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltSLL}.bytes(
				rec{at: atUs[0], data: sll(3, []byte{1, 2, 3, 4}, 0x0004, llc)}, // ETH_P_802_2
			),
			want: []capture.Frame{{
				Interface: "pcap0", At: atUs[0], Dir: capture.DirectionIncoming, DstAssumed: true,
				Data: append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, byte(len(llc))}, llc...),
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantReplay(t, tt.file, tt.want) })
	}
}

func TestReplayErrors(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	eth := pcapFile{order: le, snaplen: 65535, linkType: ltEthernet}
	r1 := rec{at: t0, data: lldpFrame(1)}
	r2 := rec{at: t0.Add(time.Second), data: lldpFrame(2)}
	f1 := capture.Frame{Interface: "pcap0", At: t0, Data: lldpFrame(1)}
	f2 := capture.Frame{Interface: "pcap0", At: t0.Add(time.Second), Data: lldpFrame(2)}
	good := eth.bytes(r1, r2)
	rec3 := len(good) // offset of a third record
	ngGood := (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(0, r1, nil).b
	ngTwoIfaces := (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").idb(ltRaw, 0, "tun0").epb(0, r1, nil)
	sll2File := pcapFile{order: le, snaplen: 65535, linkType: ltSLL2}
	sll2Rec := rec{at: t0, data: sll2(0, 1, lldpFrame(1)[6:12], 0x88cc, lldpPayload(1))}

	tests := []struct {
		name    string
		file    []byte // written to a temporary file, unless path is set
		path    func(t *testing.T) string
		want    []capture.Frame // delivered before the error
		openErr bool            // the error comes from Open
		is      error
		msg     string
	}{
		{
			name:    "missing file",
			path:    func(t *testing.T) string { return filepath.Join(t.TempDir(), "missing.pcap") },
			openErr: true,
			is:      fs.ErrNotExist,
			msg:     "open: no such file or directory",
		},
		{
			name:    "directory",
			path:    func(t *testing.T) string { return t.TempDir() },
			openErr: true,
			is:      syscall.EISDIR,
			msg:     "read: is a directory",
		},
		{
			name:    "empty file",
			file:    []byte{},
			openErr: true,
			is:      pcap.ErrNotPcap,
			msg:     "not a pcap or pcapng file: empty file",
		},
		{
			name:    "text file",
			file:    []byte("Hello, this is not a capture.\n"),
			openErr: true,
			is:      pcap.ErrNotPcap,
			msg:     "not a pcap or pcapng file: unknown magic number 48656c6c",
		},
		{
			name:    "tiny file",
			file:    []byte("hi"),
			openErr: true,
			is:      pcap.ErrNotPcap,
			msg:     "not a pcap or pcapng file: only 2 bytes long",
		},
		{
			name:    "gzip-compressed pcap",
			file:    []byte{0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0xff},
			openErr: true,
			is:      pcap.ErrNotPcap,
			msg:     "not a pcap or pcapng file: gzip-compressed (decompress it first)",
		},
		{
			name:    "pcapng bad byte-order magic",
			file:    append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 'a', 'b', 'c', 'd'}, make([]byte, 16)...),
			openErr: true,
			is:      pcap.ErrNotPcap,
			msg:     "not a pcap or pcapng file: bad pcapng byte-order magic 61626364",
		},
		{
			name:    "pcap header cut within the magic number",
			file:    good[:2],
			openErr: true,
			is:      pcap.ErrTruncated,
			msg:     "truncated capture: file header cut short (2 bytes)",
		},
		{
			name:    "pcap header cut short",
			file:    good[:10],
			openErr: true,
			is:      pcap.ErrTruncated,
			msg:     "truncated capture: file header cut short (10 of 24 bytes)",
		},
		{
			name:    "pcapng header cut short",
			file:    ngGood[:20],
			openErr: true,
			is:      pcap.ErrTruncated,
			msg:     "truncated capture: file header cut short (20 of 28 bytes)",
		},
		{
			name: "pcap record header cut short",
			file: append(eth.bytes(r1, r2), eth.record(r1)[:9]...),
			want: []capture.Frame{f1, f2},
			is:   pcap.ErrTruncated,
			msg:  fmt.Sprintf("truncated capture: record 3 at offset %d cut short", rec3),
		},
		{
			name: "pcap record cut after its header",
			file: append(eth.bytes(r1, r2), eth.record(r1)[:16]...),
			want: []capture.Frame{f1, f2},
			is:   pcap.ErrTruncated,
			msg:  fmt.Sprintf("truncated capture: record 3 at offset %d cut short", rec3),
		},
		{
			name: "pcap record data cut short",
			file: append(eth.bytes(r1, r2), eth.record(r1)[:30]...),
			want: []capture.Frame{f1, f2},
			is:   pcap.ErrTruncated,
			msg:  fmt.Sprintf("truncated capture: record 3 at offset %d cut short", rec3),
		},
		{
			name: "pcapng packet block cut short",
			file: (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(0, r1, nil).epb(0, r2, nil).b[:len(ngGood)+40],
			want: []capture.Frame{{Interface: "eth0", At: t0, Data: lldpFrame(1)}},
			is:   pcap.ErrTruncated,
			msg:  fmt.Sprintf("truncated capture: record 2 at offset %d cut short", len(ngGood)),
		},
		{
			name: "pcapng interface block cut short",
			file: ngGood[:40],
			is:   pcap.ErrTruncated,
			msg:  "truncated capture: record 1 at offset 28 cut short",
		},
		{
			name:    "pcap unsupported link type",
			file:    pcapFile{order: be, snaplen: 65535, linkType: ltRaw}.bytes(r1),
			openErr: true,
			is:      pcap.ErrUnsupported,
			msg:     "unsupported link type 101 (want Ethernet or Linux cooked)",
		},
		{
			name: "pcapng unsupported link type",
			file: append(bytes.Clone(ngTwoIfaces.b), (&ng{order: le}).epb(1, r2, nil).b...),
			want: []capture.Frame{{Interface: "eth0", At: t0, Data: lldpFrame(1)}},
			is:   pcap.ErrUnsupported,
			msg:  fmt.Sprintf("record 2 at offset %d: unsupported link type 101 (want Ethernet or Linux cooked)", len(ngTwoIfaces.b)),
		},
		{
			name:    "pcap version 2.3",
			file:    pcapFile{order: le, major: 2, minor: 3, linkType: ltEthernet}.bytes(r1),
			openErr: true,
			is:      pcap.ErrUnsupported,
			msg:     "unsupported pcap version 2.3 (want 2.4)",
		},
		{
			name:    "pcapng version 2.0",
			file:    append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 2, 0, 0, 0}, make([]byte, 12)...),
			openErr: true,
			is:      pcap.ErrUnsupported,
			msg:     "unsupported pcapng version 2.0 (want 1.0)",
		},
		{
			name: "pcap huge capture length",
			file: append(eth.bytes(r1), eth.record(rec{at: t0, data: lldpFrame(2), capLen: 0x7fffffff, origLen: 0x7fffffff})...),
			want: []capture.Frame{f1},
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 2 at offset 76: capture length 2147483647 exceeds the 262144-byte limit",
		},
		{
			name: "pcap huge snaplen and capture length",
			file: pcapFile{order: le, snaplen: 0xffffffff, linkType: ltEthernet}.bytes(
				rec{at: t0, data: lldpFrame(2), capLen: 0xfffffff0, origLen: 0xfffffff0}),
			is:  pcap.ErrCorrupt,
			msg: "corrupt capture: record 1 at offset 24: capture length 4294967280 exceeds the 262144-byte limit",
		},
		{
			name: "pcapng huge capture length",
			file: (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(0, rec{at: t0, data: lldpFrame(1), capLen: 0x7fffffff}, nil).b,
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 1 at offset 68: capture length 2147483647 exceeds the 262144-byte limit",
		},
		{
			name: "pcapng unknown interface",
			file: (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(3, r1, nil).b,
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 1 at offset 68: packet on interface 3, but the section describes 1",
		},
		{
			name:    "pcapng bad section header length",
			file:    append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 27, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0}, make([]byte, 12)...),
			openErr: true,
			is:      pcap.ErrCorrupt,
			msg:     "corrupt capture: section header block length 27",
		},
		{
			name: "SLL header cut short",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltSLL}.bytes(rec{at: t0, data: make([]byte, 15)}),
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 1 at offset 24: linux cooked header cut short (15 of 16 bytes)",
		},
		{
			name: "SLL2 header cut short",
			file: sll2File.bytes(sll2Rec, rec{at: t0, data: make([]byte, 19)}),
			want: []capture.Frame{{Interface: "if1", At: t0, Dir: capture.DirectionIncoming, Data: cooked(1), DstAssumed: true}},
			is:   pcap.ErrCorrupt,
			msg:  fmt.Sprintf("corrupt capture: record 2 at offset %d: linux cooked v2 header cut short (19 of 20 bytes)", len(sll2File.bytes(sll2Rec))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			if tt.path != nil {
				path = tt.path(t)
			} else {
				path = writeTemp(t, tt.file)
			}
			var got []capture.Frame
			r, err := pcap.Open(path)
			if err == nil {
				defer r.Close()
				if tt.openErr {
					t.Fatalf("Open succeeded, want error %q", tt.msg)
				}
				got, err = readAll(t, r)
				// The error is final.
				if _, again := r.ReadFrame(context.Background()); again == nil || again.Error() != err.Error() {
					t.Errorf("ReadFrame after %q = %v, want the same error", err, again)
				}
			} else if !tt.openErr {
				t.Fatalf("Open: %v", err)
			}
			if err == nil || err.Error() != tt.msg {
				t.Errorf("error = %q, want %q", err, tt.msg)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%q, %v) = false", err, tt.is)
			}
			if strings.Contains(fmt.Sprint(err), filepath.Dir(path)) {
				t.Errorf("error %q repeats the path", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("frames before the error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplayHugeCaptureLengthAllocation checks that a record claiming 4 GiB
// does not make the Reader allocate anything like it.
func TestReplayHugeCaptureLengthAllocation(t *testing.T) {
	tests := []struct {
		name string
		file []byte
	}{
		{"pcap", pcapFile{order: binary.LittleEndian, snaplen: 0xffffffff, linkType: ltEthernet}.bytes(
			rec{at: t0, data: lldpFrame(1), capLen: 0xfffffff0, origLen: 0xfffffff0})},
		{"pcapng", (&ng{order: binary.BigEndian}).shb().idb(ltEthernet, 0, "").
			epb(0, rec{at: t0, data: lldpFrame(1), capLen: 0xfffffff0}, nil).b},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.file)
			allocated := bytesAllocated(func() {
				r, err := pcap.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if _, err := readAll(t, r); !errors.Is(err, pcap.ErrCorrupt) {
					t.Errorf("error = %v, want ErrCorrupt", err)
				}
			})
			if allocated > 1<<20 {
				t.Errorf("allocated %d bytes for a %d-byte file", allocated, len(tt.file))
			}
		})
	}
}

// bytesAllocated returns the bytes f allocates on the heap.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReplayClose(t *testing.T) {
	path := writeTemp(t, pcapFile{order: binary.LittleEndian, linkType: ltEthernet}.bytes(rec{at: t0, data: lldpFrame(1)}))
	r, err := pcap.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := r.ReadFrame(context.Background()); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadFrame after Close = %v, want fs.ErrClosed", err)
	}
}

func TestReplayDoneContext(t *testing.T) {
	path := writeTemp(t, pcapFile{order: binary.LittleEndian, linkType: ltEthernet}.bytes(rec{at: t0, data: lldpFrame(1)}))
	r, err := pcap.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.ReadFrame(ctx); err != context.Canceled {
		t.Errorf("ReadFrame(cancelled) = %v, want context.Canceled", err)
	}
	// The frame was not consumed.
	got, err := readAll(t, r)
	if err != io.EOF || len(got) != 1 {
		t.Errorf("after a cancelled ReadFrame: %d frames, error %v; want 1 frame, io.EOF", len(got), err)
	}
}

// TestReplayInterfaceIDOverflow: interface id 0xffffffff, index -1 as a
// 32-bit int (GOARCH=386, arm), is corrupt, not a crash.
func TestReplayInterfaceIDOverflow(t *testing.T) {
	b := (&ng{order: binary.LittleEndian}).shb().idb(ltEthernet, 0, "eth0").
		epb(0xffffffff, rec{at: t0, data: lldpFrame(1)}, nil).b
	if _, err := replayFile(t, b); !errors.Is(err, pcap.ErrCorrupt) {
		t.Errorf("error = %v, want ErrCorrupt", err)
	}
}
