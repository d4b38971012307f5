// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/pcap"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
)

// TestReplayOddLengths checks that records whose capture length exceeds
// their packet length or the snapshot length, which the formats forbid, are
// read as captured, as tshark reads them, with a Note, and that the records
// after them are read as usual.
func TestReplayOddLengths(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	r1 := rec{at: t0, data: lldpFrame(1)}
	r2 := rec{at: t0.Add(time.Second), data: lldpFrame(2)}
	f2 := func(iface string) capture.Frame {
		return capture.Frame{Interface: iface, At: t0.Add(time.Second), Data: lldpFrame(2)}
	}
	// Offsets of the second record.
	pcapRec2 := 24 + 16 + len(r1.data)
	ngRec2 := len((&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").epb(0, r1, nil).b)
	ngFile := func(order binary.AppendByteOrder, snaplen uint32, r rec) []byte {
		return (&ng{order: order}).shb().idb(ltEthernet, snaplen, "eth0").epb(0, r, nil).epb(0, r2, nil).b
	}
	// A cooked LLDPDU, 16 + 22 bytes.
	sllRec := rec{at: t0, data: sll(pktMulticast, lldpFrame(1)[6:12], 0x88cc, lldpPayload(1)), origLen: 30}
	big := make([]byte, 256<<10) // the longest record read
	copy(big, lldpFrame(3))

	tests := []struct {
		name string
		file []byte
		want []capture.Frame
	}{
		{
			name: "pcap capture length over packet length",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltEthernet}.bytes(rec{at: t0, data: lldpFrame(1), origLen: 20}, r2),
			want: []capture.Frame{
				{Interface: "pcap0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 24: capture length 36 exceeds packet length 20; read as captured"},
				f2("pcap0"),
			},
		},
		{
			name: "pcap big-endian capture length over packet length 1",
			file: pcapFile{order: be, nanos: true, snaplen: 65535, linkType: ltEthernet}.bytes(r2, rec{at: t0, data: lldpFrame(1), origLen: 1}),
			want: []capture.Frame{
				f2("pcap0"),
				{Interface: "pcap0", At: t0, Data: lldpFrame(1), Note: fmt.Sprintf("record 2 at offset %d: capture length 36 exceeds packet length 1; read as captured", pcapRec2)},
			},
		},
		{
			name: "pcap capture length over snapshot length",
			file: pcapFile{order: le, snaplen: 30, linkType: ltEthernet}.bytes(r1, rec{at: t0.Add(time.Second), data: lldpFrame(2)[:30], origLen: 36}),
			want: []capture.Frame{
				{Interface: "pcap0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 24: capture length 36 exceeds snapshot length 30; read as captured"},
				{Interface: "pcap0", At: t0.Add(time.Second), Data: lldpFrame(2)[:30]},
			},
		},
		{
			name: "pcap capture length over both",
			file: pcapFile{order: be, snaplen: 30, linkType: ltEthernet}.bytes(rec{at: t0, data: lldpFrame(1), origLen: 20}),
			want: []capture.Frame{
				{Interface: "pcap0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 24: capture length 36 exceeds packet length 20 and snapshot length 30; read as captured"},
			},
		},
		{
			name: "pcap capture length over packet length at the 256 KiB limit",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltEthernet}.bytes(rec{at: t0, data: big, origLen: 60}),
			want: []capture.Frame{
				{Interface: "pcap0", At: t0, Data: big, Note: "record 1 at offset 24: capture length 262144 exceeds packet length 60 and snapshot length 65535; read as captured"},
			},
		},
		{
			name: "pcap Linux cooked capture length over packet length",
			file: pcapFile{order: le, snaplen: 65535, linkType: ltSLL}.bytes(sllRec),
			want: []capture.Frame{
				{Interface: "pcap0", At: t0, Dir: capture.DirectionIncoming, Data: lldpFrame(1), DstAssumed: true, Note: "record 1 at offset 24: capture length 38 exceeds packet length 30; read as captured"},
			},
		},
		{
			name: "pcapng capture length over snapshot length",
			file: ngFile(be, 30, r1),
			want: []capture.Frame{
				{Interface: "eth0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 68: capture length 36 exceeds snapshot length 30; read as captured"},
				{Interface: "eth0", At: t0.Add(time.Second), Data: lldpFrame(2), Note: fmt.Sprintf("record 2 at offset %d: capture length 36 exceeds snapshot length 30; read as captured", ngRec2)},
			},
		},
		{
			name: "pcapng capture length over packet length",
			file: ngFile(le, 0, rec{at: t0, data: lldpFrame(1), origLen: 20}),
			want: []capture.Frame{
				{Interface: "eth0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 68: capture length 36 exceeds packet length 20; read as captured"},
				f2("eth0"),
			},
		},
		{
			name: "pcapng capture length over both",
			file: ngFile(le, 35, rec{at: t0, data: lldpFrame(1), origLen: 34}),
			want: []capture.Frame{
				{Interface: "eth0", At: t0, Data: lldpFrame(1), Note: "record 1 at offset 68: capture length 36 exceeds packet length 34 and snapshot length 35; read as captured"},
				{Interface: "eth0", At: t0.Add(time.Second), Data: lldpFrame(2), Note: fmt.Sprintf("record 2 at offset %d: capture length 36 exceeds snapshot length 35; read as captured", ngRec2)},
			},
		},
		{
			name: "pcapng Linux cooked capture length over packet length",
			file: (&ng{order: le}).shb().idb(ltSLL, 0, "any").epb(0, sllRec, nil).b,
			want: []capture.Frame{
				{Interface: "any", At: t0, Dir: capture.DirectionIncoming, Data: lldpFrame(1), DstAssumed: true, Note: "record 1 at offset 68: capture length 38 exceeds packet length 30; read as captured"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantReplay(t, tt.file, tt.want) })
	}
}

// TestReplayOddLengthErrors checks that records with a capture length over
// their packet length are still held to the 256 KiB limit, and to the size
// of the file.
func TestReplayOddLengthErrors(t *testing.T) {
	le := binary.LittleEndian
	eth := pcapFile{order: le, snaplen: 65535, linkType: ltEthernet}
	r1 := rec{at: t0, data: lldpFrame(1)}
	tests := []struct {
		name string
		file []byte
		want []capture.Frame
		is   error
		msg  string
	}{
		{
			name: "pcap over the 256 KiB limit",
			file: eth.bytes(r1, rec{at: t0, data: lldpFrame(2), capLen: 256<<10 + 1, origLen: 60}),
			want: []capture.Frame{{Interface: "pcap0", At: t0, Data: lldpFrame(1)}},
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 2 at offset 76: capture length 262145 exceeds the 262144-byte limit",
		},
		{
			name: "pcap cut short",
			file: eth.bytes(r1, rec{at: t0, data: lldpFrame(2), capLen: 40, origLen: 20}),
			want: []capture.Frame{{Interface: "pcap0", At: t0, Data: lldpFrame(1)}},
			is:   pcap.ErrTruncated,
			msg:  "truncated capture: record 2 at offset 76 cut short",
		},
		{
			name: "pcapng over the 256 KiB limit",
			file: (&ng{order: le}).shb().idb(ltEthernet, 30, "eth0").epb(0, rec{at: t0, data: lldpFrame(1), capLen: 256<<10 + 1, origLen: 20}, nil).b,
			is:   pcap.ErrCorrupt,
			msg:  "corrupt capture: record 1 at offset 68: capture length 262145 exceeds the 262144-byte limit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replayFile(t, tt.file)
			if !errors.Is(err, tt.is) || err.Error() != tt.msg {
				t.Errorf("error = %v, want %q", err, tt.msg)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("frames before the error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplayTimestampRange checks that a Reader delivers exactly the
// timestamps time.Time.MarshalJSON can encode (years 0 to 9999), and
// rejects the others as corrupt.
func TestReplayTimestampRange(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	last := time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	first := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	// at returns a pcapng file with one frame stamped at, in nanoseconds
	// from a whole second given in if_tsoffset: an unsigned count of
	// nanoseconds since 1970 cannot go past 2554.
	at := func(order binary.AppendByteOrder, at time.Time) []byte {
		n := &ng{order: order}
		sec := at.Unix()
		return n.shb().idbOpts(ltEthernet, 0, tsresolNanos, n.tsoffset(sec)).
			epbTS(0, uint64(at.Nanosecond()), rec{data: lldpFrame(1)}, nil).b
	}
	// A nanosecond timestamp in an interface without if_tsresol, read as
	// microseconds: t0 becomes 1735689600000000000 µs after 1970.
	noTsresol := (&ng{order: le}).shb().idbOpts(ltEthernet, 0).epb(0, rec{at: t0, data: lldpFrame(1)}, nil).b
	wantYear := time.Unix(t0.UnixNano()/1e6, 0).UTC().Year()

	tests := []struct {
		name string
		file []byte
		want time.Time // the frame's At, if no error
		msg  string    // the ErrCorrupt error, if any
	}{
		{name: "last nanosecond of 9999", file: at(le, last), want: last},
		{name: "first nanosecond of 10000", file: at(be, last.Add(1)), msg: "corrupt capture: record 1 at offset 72: timestamp is year 10000, after 9999"},
		{name: "first nanosecond of year 0", file: at(be, first), want: first},
		{name: "last nanosecond of year -1", file: at(le, first.Add(-1)), msg: "corrupt capture: record 1 at offset 72: timestamp is year -1, before 0"},
		{name: "1 January 1970", file: at(le, time.Unix(0, 0).UTC()), want: time.Unix(0, 0).UTC()},
		{name: "before 1970", file: at(be, time.Date(1969, 7, 20, 20, 17, 40, 5, time.UTC)), want: time.Date(1969, 7, 20, 20, 17, 40, 5, time.UTC)},
		{
			name: "nanoseconds without if_tsresol",
			file: noTsresol,
			msg:  fmt.Sprintf("corrupt capture: record 1 at offset 48: timestamp is year %d, after 9999 (nanosecond stamps without if_tsresol?)", wantYear),
		},
		{
			name: "largest microsecond timestamp",
			file: (&ng{order: be}).shb().idbOpts(ltEthernet, 0).epbTS(0, ^uint64(0), rec{data: lldpFrame(1)}, nil).b,
			msg:  "corrupt capture: record 1 at offset 48: timestamp is year 586524, after 9999 (nanosecond stamps without if_tsresol?)",
		},
		{
			// 2^63 seconds, which time.Unix wraps.
			name: "2^63 seconds",
			file: (&ng{order: le}).shb().idbOpts(ltEthernet, 0, ngOpt{code: 9, value: []byte{0x80}}).epbTS(0, 1<<63, rec{data: lldpFrame(1)}, nil).b,
			msg:  "corrupt capture: record 1 at offset 60: timestamp is year 31690708, after 9999",
		},
		{
			// An if_tsoffset far back: before year 0, said as such (the
			// seconds once wrapped to a year after 9999).
			name: "if_tsoffset before year 0",
			file: (&ng{order: le}).shb().idbOpts(ltEthernet, 0, ngOpt{code: 14, value: le.AppendUint64(nil, uint64(back70e9))}).epbTS(0, 1, rec{data: lldpFrame(1)}, nil).b,
			msg:  "corrupt capture: record 1 at offset 64: timestamp is year -249, before 0",
		},
		{
			name: "if_tsoffset of -2^63",
			file: (&ng{order: le}).shb().idbOpts(ltEthernet, 0, ngOpt{code: 14, value: le.AppendUint64(nil, 1<<63)}).epbTS(0, 1, rec{data: lldpFrame(1)}, nil).b,
			msg:  "corrupt capture: record 1 at offset 64: timestamp is year -31686769, before 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replayFile(t, tt.file)
			if tt.msg != "" {
				if !errors.Is(err, pcap.ErrCorrupt) || err.Error() != tt.msg {
					t.Errorf("error = %v, want %q", err, tt.msg)
				}
				if len(got) != 0 {
					t.Errorf("delivered %+v before the error", got)
				}
				return
			}
			if err != io.EOF {
				t.Errorf("last ReadFrame error = %v, want io.EOF", err)
			}
			want := []capture.Frame{{Interface: "pcap0", At: tt.want, Data: lldpFrame(1)}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("frames (-want +got):\n%s", diff)
			}
			if _, err := json.Marshal(got[0].At); err != nil {
				t.Errorf("delivered a timestamp JSON cannot encode: %v", err)
			}
		})
	}

	// The range is time.Time.MarshalJSON's.
	for _, tm := range []time.Time{last.Add(1), first.Add(-1)} {
		if _, err := json.Marshal(tm); err == nil {
			t.Errorf("json.Marshal(%v) succeeded: the range is wider", tm)
		}
	}
}

// back70e9 is -70e9 seconds (about 2,218 years before 1970).
var back70e9 int64 = -70_000_000_000
