// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// Destinations of the Ethernet frames a Reader rebuilds from Linux cooked
// records.
var (
	dstNearestBridge = []byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}
	dstUnknown       = make([]byte, 6)
)

// Linux packet types (sll_pkttype).
const (
	pktHost      = 0 // PACKET_HOST
	pktBroadcast = 1 // PACKET_BROADCAST
	pktMulticast = 2 // PACKET_MULTICAST
	pktOtherHost = 3 // PACKET_OTHERHOST
	pktOutgoing  = 4 // PACKET_OUTGOING
	pktLoopback  = 5 // PACKET_LOOPBACK
	pktUser      = 6 // PACKET_USER
	pktKernel    = 7 // PACKET_KERNEL
)

// withDst returns frame with its first six bytes replaced by dst.
func withDst(dst, frame []byte) []byte {
	b := append([]byte(nil), frame...)
	copy(b, dst)
	return b
}

// cookedRecord returns the record of link type lt (ltSLL or ltSLL2) of a
// frame of packet type pktType from mac, of protocol proto.
func cookedRecord(lt uint32, pktType uint8, mac []byte, proto uint16, payload []byte) []byte {
	if lt == ltSLL {
		return sll(uint16(pktType), mac, proto, payload)
	}
	return sll2(pktType, 3, mac, proto, payload)
}

// TestCookedDestination checks the destination a Reader assumes for each
// packet type of Linux cooked records of both link types, and that it marks
// the Frame DstAssumed whatever it assumed.
func TestCookedDestination(t *testing.T) {
	mac := []byte{0x02, 0, 0, 0, 0, 1}
	lldp := lldpPayload(1)
	vlan := func(proto uint16, payload []byte) []byte { // a tag's TCI, PCP 7 VID 5, then proto
		return append(binary.BigEndian.AppendUint16([]byte{0xe0, 0x05}, proto), payload...)
	}
	ipv4 := []byte{0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 224, 0, 0, 1}

	type want struct {
		dst []byte
		dir capture.Direction
	}
	tests := []struct {
		name    string
		pktType uint8
		proto   uint16
		payload []byte
		want    want
	}{
		// LLDP: only a multicast or outgoing packet type can have been
		// sent to an LLDP group address.
		{"LLDP PACKET_HOST", pktHost, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP PACKET_BROADCAST", pktBroadcast, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP PACKET_MULTICAST", pktMulticast, 0x88cc, lldp, want{dstNearestBridge, capture.DirectionIncoming}},
		{"LLDP PACKET_OTHERHOST", pktOtherHost, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP PACKET_OUTGOING", pktOutgoing, 0x88cc, lldp, want{dstNearestBridge, capture.DirectionOutgoing}},
		{"LLDP PACKET_LOOPBACK", pktLoopback, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP PACKET_USER", pktUser, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP PACKET_KERNEL", pktKernel, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		{"LLDP unknown packet type 200", 200, 0x88cc, lldp, want{dstUnknown, capture.DirectionIncoming}},
		// Tagged LLDP, as libpcap writes it when it puts back a tag the
		// kernel took off.
		{"802.1Q-tagged LLDP multicast", pktMulticast, 0x8100, vlan(0x88cc, lldp), want{dstNearestBridge, capture.DirectionIncoming}},
		{"802.1ad+802.1Q-tagged LLDP outgoing", pktOutgoing, 0x88a8, vlan(0x8100, vlan(0x88cc, lldp)), want{dstNearestBridge, capture.DirectionOutgoing}},
		{"802.1Q-tagged LLDP host", pktHost, 0x8100, vlan(0x88cc, lldp), want{dstUnknown, capture.DirectionIncoming}},
		{"three tags before LLDP", pktMulticast, 0x8100, vlan(0x8100, vlan(0x8100, vlan(0x88cc, lldp))), want{dstUnknown, capture.DirectionIncoming}},
		{"tag cut short", pktMulticast, 0x8100, []byte{0xe0, 0x05, 0x88}, want{dstUnknown, capture.DirectionIncoming}},
		{"tagged IPv4 multicast", pktMulticast, 0x8100, vlan(0x0800, ipv4), want{dstUnknown, capture.DirectionIncoming}},
		// Not LLDP: the destination stays unknown.
		{"IPv4 multicast", pktMulticast, 0x0800, ipv4, want{dstUnknown, capture.DirectionIncoming}},
		{"IPv4 outgoing", pktOutgoing, 0x0800, ipv4, want{dstUnknown, capture.DirectionOutgoing}},
		{"empty LLDP multicast", pktMulticast, 0x88cc, []byte{}, want{dstNearestBridge, capture.DirectionIncoming}},
	}
	for _, lt := range []uint32{ltSLL, ltSLL2} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("linktype %d/%s", lt, tt.name), func(t *testing.T) {
				got, err := pcap.RecordFrame(lt, cookedRecord(lt, tt.pktType, mac, tt.proto, tt.payload), t0)
				if err != nil {
					t.Fatal(err)
				}
				data := append(append(append([]byte(nil), tt.want.dst...), mac...), byte(tt.proto>>8), byte(tt.proto))
				iface := "pcap0"
				if lt == ltSLL2 {
					iface = "if3" // cookedRecord's interface index
				}
				want := capture.Frame{
					Interface: iface, At: t0, Dir: tt.want.dir,
					Data: append(data, tt.payload...), DstAssumed: true,
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("frame (-want +got):\n%s", diff)
				}
			})
		}
	}

	t.Run("Ethernet", func(t *testing.T) {
		// An Ethernet record has its destination: nothing is assumed,
		// whatever it is.
		for _, data := range [][]byte{lldpFrame(1), withDst(dstUnknown, lldpFrame(1))} {
			got, err := pcap.RecordFrame(ltEthernet, data, t0)
			if err != nil {
				t.Fatal(err)
			}
			want := capture.Frame{Interface: "pcap0", At: t0, Data: data}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("frame (-want +got):\n%s", diff)
			}
		}
	})
}

// TestReplayCookedFiles replays capture files of each Linux cooked link
// type, classic pcap and pcapng, with an LLDPDU of each packet type a
// network interface reports.
func TestReplayCookedFiles(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	pktTypes := []uint8{pktHost, pktBroadcast, pktMulticast, pktOtherHost, pktOutgoing}
	// Station i sends its LLDPDU as packet type pktTypes[i-1].
	recs := func(lt uint32) []rec {
		var recs []rec
		for i, pt := range pktTypes {
			last := byte(i + 1)
			recs = append(recs, rec{at: t0.Add(time.Duration(i) * time.Second), data: cookedRecord(lt, pt, lldpFrame(last)[6:12], 0x88cc, lldpPayload(last))})
		}
		return recs
	}
	frames := func(iface string) []capture.Frame {
		var frames []capture.Frame
		for i, pt := range pktTypes {
			last := byte(i + 1)
			f := capture.Frame{Interface: iface, At: t0.Add(time.Duration(i) * time.Second), Dir: capture.DirectionIncoming, Data: cooked(last), DstAssumed: true}
			if pt == pktMulticast || pt == pktOutgoing {
				f.Data = lldpFrame(last)
			}
			if pt == pktOutgoing {
				f.Dir = capture.DirectionOutgoing
			}
			frames = append(frames, f)
		}
		return frames
	}
	ngFile := func(order binary.AppendByteOrder, lt uint32) []byte {
		n := (&ng{order: order}).shb().idb(uint16(lt), 0, "any")
		for _, r := range recs(lt) {
			n.epb(0, r, nil)
		}
		return n.b
	}

	tests := []struct {
		name string
		file []byte
		want []capture.Frame
	}{
		{"pcap LINUX_SLL", pcapFile{order: le, snaplen: 262144, linkType: ltSLL}.bytes(recs(ltSLL)...), frames("pcap0")},
		{"pcap LINUX_SLL2", pcapFile{order: be, nanos: true, snaplen: 262144, linkType: ltSLL2}.bytes(recs(ltSLL2)...), frames("if3")},
		{"pcapng LINUX_SLL", ngFile(be, ltSLL), frames("any")},
		{"pcapng LINUX_SLL2", ngFile(le, ltSLL2), frames("if3")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replayFile(t, tt.file)
			if err != io.EOF {
				t.Errorf("last ReadFrame error = %v, want io.EOF", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}
