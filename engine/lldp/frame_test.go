// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	ethDst  = hx("01 80 C2 00 00 0E")
	ethSrc  = hx("02 DC B0 00 00 01")
	srcMAC  = MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x01}
	ethLLDP = hx("88 CC")
)

func TestSplitFrame(t *testing.T) {
	du := lldpdu(refPFC)
	tests := []struct {
		name    string
		b       []byte
		want    EthernetHeader
		payload []byte
		err     error
	}{
		{name: "untagged", b: cat(ethDst, ethSrc, ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, payload: du},
		{name: "untagged with padding", b: cat(ethDst, ethSrc, ethLLDP, du, make([]byte, 16)),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, payload: cat(du, make([]byte, 16))},
		{name: "one 802.1Q tag (PCP 7, VID 9)", b: cat(ethDst, ethSrc, hx("81 00 E0 09"), ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 9, PCP: 7}, payload: du},
		{name: "802.1Q priority tag", b: cat(ethDst, ethSrc, hx("81 00 A0 00"), ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 0, PCP: 5}, payload: du},
		{name: "802.1ad and 802.1Q tags: the outer one counts", b: cat(ethDst, ethSrc, hx("88 A8 2F FF"), hx("81 00 E0 09"), ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 0xfff, PCP: 1}, payload: du},
		{name: "two 802.1Q tags", b: cat(ethDst, ethSrc, hx("81 00 00 64"), hx("81 00 00 0A"), ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 100}, payload: du},
		{name: "empty LLDPDU", b: cat(ethDst, ethSrc, ethLLDP),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, payload: []byte{}},
		{name: "other destination", b: cat(hx("01 80 C2 00 00 03"), ethSrc, ethLLDP, du),
			want: EthernetHeader{Dst: NearestNonTPMRBridge, Src: srcMAC}, payload: du},
		{name: "three tags", b: cat(ethDst, ethSrc, hx("88 A8 00 01 81 00 00 02 81 00 00 03"), ethLLDP, du),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 1}, err: ErrNotLLDP},
		{name: "IPv4", b: cat(ethDst, ethSrc, hx("08 00 45 00"), make([]byte, 40)),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, err: ErrNotLLDP},
		{name: "tagged IPv6", b: cat(ethDst, ethSrc, hx("81 00 00 05 86 DD"), make([]byte, 40)),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 5}, err: ErrNotLLDP},
		{name: "802.3 length field", b: cat(ethDst, ethSrc, hx("00 26"), make([]byte, 38)),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, err: ErrNotLLDP},
		{name: "empty", b: nil, err: ErrTruncated},
		{name: "13 bytes", b: cat(ethDst, ethSrc, hx("88")), err: ErrTruncated},
		{name: "tag cut off", b: cat(ethDst, ethSrc, hx("81 00 E0 09 88")),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC}, err: ErrTruncated},
		{name: "second tag cut off", b: cat(ethDst, ethSrc, hx("88 A8 00 01 81 00 00")),
			want: EthernetHeader{Dst: NearestBridge, Src: srcMAC, Tagged: true, VLAN: 1}, err: ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, payload, err := SplitFrame(tt.b)
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if !checkErr(t, err, tt.err) {
				if payload != nil {
					t.Errorf("payload %x with error", payload)
				}
				return
			}
			if diff := cmp.Diff(tt.payload, payload); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
			// The LLDPDU aliases the frame: it is its tail.
			if len(payload) > 0 && &payload[len(payload)-1] != &tt.b[len(tt.b)-1] {
				t.Errorf("payload does not alias the frame")
			}
		})
	}
}

func TestAppendFrame(t *testing.T) {
	long := baseDU(&Text{TLVTypeSystemDescription, "a system description long enough to need no padding"})
	tests := []struct {
		name string
		du   *DU
		want []byte
	}{
		{"padded to 60", baseDU(), cat(ethDst, ethSrc, ethLLDP, lldpdu(), make([]byte, 60-14-len(lldpdu())))},
		{"shutdown padded to 60", &DU{ChassisID: baseDU().ChassisID, PortID: baseDU().PortID},
			cat(ethDst, ethSrc, ethLLDP, cat(tlvChassis, tlvPort, hx("06 02 00 00"), tlvEnd), make([]byte, 60-14-22))},
		{"no padding needed", long, cat(ethDst, ethSrc, ethLLDP, mustMarshal(t, long))},
		{"exactly 60", baseDU(&Text{TLVTypeSystemName, "0123456789abcdefghijkl"}),
			cat(ethDst, ethSrc, ethLLDP, lldpdu(cat(hx("0A 16"), []byte("0123456789abcdefghijkl"))))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := hx("FF EE")
			got, err := AppendFrame(prefix, NearestBridge, srcMAC, tt.du)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(cat(prefix, tt.want), got); diff != "" {
				t.Errorf("AppendFrame (-want +got):\n%s", diff)
			}
			if n := len(got) - len(prefix); n < 60 {
				t.Errorf("frame of %d bytes, want at least 60", n)
			}
			// SplitFrame and Parse give the DU back.
			h, b, err := SplitFrame(got[len(prefix):])
			if err != nil {
				t.Fatal(err)
			}
			if h.Dst != NearestBridge || h.Src != srcMAC || h.Tagged {
				t.Errorf("header %+v", h)
			}
			if diff := cmp.Diff(mustMarshal(t, tt.du), mustMarshal(t, mustParse(t, b))); diff != "" {
				t.Errorf("re-parsed DU (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		prefix := hx("FF EE")
		got, err := AppendFrame(prefix, NearestBridge, srcMAC, &DU{})
		checkErr(t, err, ErrInvalidValue)
		if diff := cmp.Diff(prefix, got); diff != "" {
			t.Errorf("AppendFrame changed b on error (-want +got):\n%s", diff)
		}
	})
}
