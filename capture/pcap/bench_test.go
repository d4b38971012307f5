// SPDX-License-Identifier: Apache-2.0

package pcap_test

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/pcap"
)

// BenchmarkReplay replays files of 1000 LLDP frames; allocations should stay
// at about one (the frame's Data) per frame.
func BenchmarkReplay(b *testing.B) {
	const frames = 1000
	var classic, cooked []rec
	for i := range frames {
		at := t0.Add(time.Duration(i) * 30 * time.Second)
		classic = append(classic, rec{at: at, data: lldpFrame(byte(i))})
		cooked = append(cooked, rec{at: at, data: sll2(0, 3, lldpFrame(byte(i))[6:12], 0x88cc, lldpPayload(byte(i)))})
	}
	n := (&ng{order: binary.LittleEndian}).shb().idb(ltEthernet, 0, "eth0")
	for _, r := range classic {
		n.epb(0, r, ptr[uint32](1))
	}
	files := []struct {
		name string
		file []byte
	}{
		{"pcap", pcapFile{order: binary.LittleEndian, nanos: true, snaplen: 65535, linkType: ltEthernet}.bytes(classic...)},
		{"pcapng", n.b},
		{"sll2", pcapFile{order: binary.BigEndian, snaplen: 65535, linkType: ltSLL2}.bytes(cooked...)},
	}
	for _, f := range files {
		b.Run(f.name, func(b *testing.B) {
			path := writeTemp(b, f.file)
			b.ReportAllocs()
			b.SetBytes(int64(len(f.file)))
			loops := 0
			for b.Loop() {
				r, err := pcap.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					if _, err := r.ReadFrame(context.Background()); err != nil {
						break
					}
					n++
				}
				r.Close()
				if n != frames {
					b.Fatalf("replayed %d frames, want %d", n, frames)
				}
				loops++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(loops*frames), "ns/frame")
		})
	}
}
