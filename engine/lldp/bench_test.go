// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"testing"
)

// typicalFrame is typicalLLDPDU in an 802.1Q-tagged Ethernet frame.
var typicalFrame = cat(ethDst, ethSrc, hx("81 00 E0 09"), ethLLDP, typicalLLDPDU)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalLLDPDU)))
	for b.Loop() {
		if _, err := Parse(typicalLLDPDU); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	b.Run("MarshalBinary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := typicalDU.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendBinary", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1500)
		for b.Loop() {
			var err error
			if buf, err = typicalDU.AppendBinary(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkPeekMSAP(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := PeekMSAP(typicalLLDPDU); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSplitFrame(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := SplitFrame(typicalFrame); err != nil {
			b.Fatal(err)
		}
	}
}

// PeekMSAP and SplitFrame run on every received frame, before dcbtop knows
// whether the LLDPDU changed; they must not allocate. Neither must
// AppendBinary into a buffer that is large enough.
func TestZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 1500)
	tests := []struct {
		name string
		f    func()
	}{
		{"PeekMSAP", func() {
			if _, _, _, err := PeekMSAP(typicalLLDPDU); err != nil {
				t.Fatal(err)
			}
		}},
		{"SplitFrame", func() {
			if _, _, err := SplitFrame(typicalFrame); err != nil {
				t.Fatal(err)
			}
		}},
		{"DU.AppendBinary", func() {
			var err error
			if buf, err = typicalDU.AppendBinary(buf[:0]); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(100, tt.f); n != 0 {
				t.Errorf("%v allocations per run, want 0", n)
			}
		})
	}
}
