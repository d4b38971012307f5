// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/pcap"

	"github.com/dcbtop/dcbtop/capture"
)

// spb appends a simple packet block (pcapng 4.4): the original length,
// then the data, with no interface, timestamp or options.
func (n *ng) spb(origLen uint32, data []byte) *ng {
	b := n.order.AppendUint32(nil, origLen)
	return n.block(3, append(b, data...))
}

// opb appends an obsolete packet block (pcapng appendix, type 2): a 16-bit
// interface, a 16-bit drop count, the timestamp in nanoseconds, the
// lengths, the data and, if flags is non-nil, the pack_flags option.
func (n *ng) opb(iface uint16, r rec, flags *uint32) *ng {
	ts := uint64(r.at.UnixNano())
	b := n.order.AppendUint16(nil, iface)
	b = n.order.AppendUint16(b, 7) // drops
	b = n.order.AppendUint32(b, uint32(ts>>32))
	b = n.order.AppendUint32(b, uint32(ts))
	b = n.order.AppendUint32(b, uint32(len(r.data)))
	b = n.order.AppendUint32(b, uint32(len(r.data)))
	b = append(b, r.data...)
	b = append(b, make([]byte, pad4(len(r.data)))...)
	if flags != nil {
		b = append(b, n.options([]ngOpt{{code: 2, value: n.order.AppendUint32(nil, *flags)}})...)
	}
	return n.block(2, b)
}

// TestReplayNgBlocks reads the pcapng blocks other tools write besides the
// enhanced packet block: simple and obsolete packet blocks, blocks a replay
// skips (name resolution, statistics, custom), binary and default
// timestamp resolutions, and sections of either byte order in one file.
func TestReplayNgBlocks(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	r1 := rec{at: t0.Add(250 * time.Millisecond), data: lldpFrame(1)}
	r2 := rec{at: t0.Add(time.Second), data: lldpFrame(2)}
	nrb := func(n *ng) *ng { return n.block(4, []byte{0, 0, 0, 0}) }                // empty name resolution block
	isb := func(n *ng) *ng { return n.block(5, make([]byte, 12)) }                  // interface statistics, no options
	custom := func(n *ng) *ng { return n.block(0x40000bad, []byte{1, 2, 3, 4, 5}) } // custom block, padded
	usec := uint64(t0.Add(1500*time.Millisecond).UnixNano() / 1e3)
	bin := uint64(t0.Unix())<<10 | 512 // 2^-10 s units: half a second

	tests := []struct {
		name string
		file []byte
		want []capture.Frame
	}{
		{
			name: "simple packet block: the previous timestamp, interface 0, cut to the snapshot length",
			file: (&ng{order: le}).shb().idb(ltEthernet, 20, "eth0").epb(0, rec{at: r1.at, data: r1.data[:20], origLen: 36}, nil).
				spb(36, r2.data).b,
			want: []capture.Frame{
				{Interface: "eth0", At: r1.at, Data: r1.data[:20]},
				{Interface: "eth0", At: r1.at, Data: r2.data[:20]},
			},
		},
		{
			name: "simple packet block shorter than its packet",
			file: (&ng{order: be}).shb().idb(ltEthernet, 0, "eth0").spb(64, r2.data).b,
			want: []capture.Frame{{Interface: "eth0", At: time.Unix(0, 0).UTC(), Data: r2.data}},
		},
		{
			name: "obsolete packet block with direction",
			file: (&ng{order: be}).shb().idb(ltEthernet, 0, "eth0").idb(ltEthernet, 0, "eth1").
				opb(1, r1, ptr[uint32](1)).opb(0, r2, nil).b,
			want: []capture.Frame{
				{Interface: "eth1", At: r1.at, Dir: capture.DirectionIncoming, Data: r1.data},
				{Interface: "eth0", At: r2.at, Data: r2.data},
			},
		},
		{
			name: "name resolution, statistics and custom blocks skipped",
			file: custom(isb(nrb((&ng{order: le}).shb()).idb(ltEthernet, 0, "eth0")).epb(0, r1, nil)).epb(0, r2, nil).b,
			want: []capture.Frame{
				{Interface: "eth0", At: r1.at, Data: r1.data},
				{Interface: "eth0", At: r2.at, Data: r2.data},
			},
		},
		{
			name: "default resolution is microseconds",
			file: (&ng{order: le}).shb().idbOpts(ltEthernet, 0, ngOpt{code: 2, value: []byte("eth0")}).epbTS(0, usec, r1, nil).b,
			want: []capture.Frame{{Interface: "eth0", At: t0.Add(1500 * time.Millisecond), Data: r1.data}},
		},
		{
			name: "binary resolution 2^-10",
			file: (&ng{order: be}).shb().idbOpts(ltEthernet, 0, ngOpt{code: 9, value: []byte{0x8a}}).epbTS(0, bin, r1, nil).b,
			want: []capture.Frame{{Interface: "pcap0", At: t0.Add(500 * time.Millisecond), Data: r1.data}},
		},
		{
			name: "sections of both byte orders, interfaces numbered per section",
			file: append((&ng{order: be}).shb().idb(ltEthernet, 0, "").epb(0, r1, nil).b,
				(&ng{order: le}).shb().idb(ltEthernet, 0, "").epb(0, r2, nil).b...),
			want: []capture.Frame{
				{Interface: "pcap0", At: r1.at, Data: r1.data},
				{Interface: "pcap0", At: r2.at, Data: r2.data},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantReplay(t, tt.file, tt.want) })
	}
}

// TestReplayNgBlockErrors checks that blocks a replay skips or reads are
// still checked: their trailing length, their place in the section.
func TestReplayNgBlockErrors(t *testing.T) {
	le := binary.LittleEndian
	r1 := rec{at: t0, data: lldpFrame(1)}
	head := (&ng{order: le}).shb().idb(ltEthernet, 0, "eth0").b
	skipped := (&ng{order: le}).block(5, make([]byte, 12)).b
	binary.LittleEndian.PutUint32(skipped[len(skipped)-4:], 28)
	tests := []struct {
		name string
		file []byte
		msg  string
	}{
		{
			name: "skipped block with differing lengths",
			file: append(append(append([]byte{}, head...), skipped...), (&ng{order: le}).epb(0, r1, nil).b...),
			msg:  "corrupt capture: record 1 at offset 68: block of type 5: lengths differ (24 and 28)",
		},
		{
			name: "simple packet block before any interface",
			file: (&ng{order: le}).shb().spb(36, r1.data).b,
			msg:  "corrupt capture: record 1 at offset 28: simple packet block before any interface description",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replayFile(t, tt.file)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("error = %v, want %q", err, tt.msg)
			}
			if !errors.Is(err, pcap.ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
		})
	}
}
