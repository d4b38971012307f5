// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
)

// Run it on its own, for example:
//
//	go test -run='^$' -fuzz='^FuzzRing$' -fuzztime=60s ./engine/frames
//
// Seeds come from f.Add below and from testdata/fuzz/FuzzRing/, where
// crashers found by the fuzzer are kept (plain go test replays them).

// fuzzLimits are small bounds, so that a short input reaches them, but
// room for the 16 senders a program has (TestTrackerSenders forgets
// them).
var fuzzLimits = Limits{Records: 8, Bytes: 600, Senders: 16}

// fuzzPDUs are LLDPDUs a program may send whole (an op's length byte of
// 0xf0 or more picks one): valid ones of every kind, a discarded TLV and
// hostile strings, so that the fuzzer's mutations start from what a
// switch sends.
func fuzzPDUs(t testing.TB) [][]byte {
	a := lldptest.MacA
	var out [][]byte
	for _, f := range [][]byte{
		lldptest.Frame(t, a, 120),
		lldptest.Frame(t, a, 120, lldptest.ETSA, lldptest.RecoA, lldptest.PFC3, lldptest.App1),
		lldptest.Frame(t, a, 120, lldptest.ETSA2, lldptest.PFC34, lldptest.App2),
		lldptest.Frame(t, a, 0),
		lldptest.Frame(t, a, 120, &lldp.CEE{Control: &lldp.CEEControl{SeqNo: 2, AckNo: 1},
			PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 8, NumTCs: 8}}),
		lldptest.BadPFCFrame(t),
		named(t, a, 120, "\x1b]0;owned\a\u202e", &lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: "a\r\nb"}),
	} {
		out = append(out, f[14:])
	}
	return out
}

// fuzzFrames turns a program into frames: each op is a header byte (bit
// 0-1 the source, bit 2 the destination, bit 3 the interface, bit 4 the
// direction, bit 5 an 802.1Q tag), a length byte and that many bytes of
// LLDPDU; a length of 0xf0 + i sends fuzzPDUs[i] (modulo their number)
// instead.
func fuzzFrames(t testing.TB, prog []byte) []Frame {
	pdus := fuzzPDUs(t)
	var out []Frame
	for len(prog) >= 2 {
		h, n := prog[0], int(prog[1])
		prog = prog[2:]
		var body []byte
		if n >= 0xf0 {
			body = pdus[(n-0xf0)%len(pdus)]
		} else {
			body = prog[:min(n, len(prog))]
			prog = prog[len(body):]
		}
		dst := lldp.NearestBridge
		if h&4 != 0 {
			dst = lldp.NearestCustomerBridge
		}
		src := lldp.MAC{0x02, 0, 0, 0, 0, h & 3}
		b := append(append([]byte(nil), dst[:]...), src[:]...)
		if h&0x20 != 0 {
			b = binary.BigEndian.AppendUint16(b, 0x8100)
			b = binary.BigEndian.AppendUint16(b, uint16(h)<<8|uint16(n))
		}
		b = binary.BigEndian.AppendUint16(b, lldp.EtherType)
		iface := "eth0"
		if h&8 != 0 {
			iface = "eth1"
		}
		out = append(out, Frame{At: at(len(out)), Interface: iface, Outgoing: h&0x10 != 0, Data: append(b, body...)})
	}
	return out
}

// FuzzRing feeds a Ring frames of any LLDPDU and checks its invariants:
// no panic; the bounds hold; the records are numbered in order; each
// says what changed, "identical" exactly when its sender's previous
// LLDPDU had the same bytes, and as Changes says it; the text renderings
// carry nothing a terminal would act on; the JSON document encodes and
// decodes.
func FuzzRing(f *testing.F) {
	f.Add([]byte{0, 0xf0, 0, 0xf0, 0, 0xf1, 0, 0xf2, 0, 0xf3})
	f.Add([]byte{0, 0xf1, 0, 0xf1, 1, 0xf1, 8, 0xf1, 4, 0xf2, 0x10, 0xf4, 0x20, 0xf5, 0, 0xf6, 1, 0xf2, 0, 0xf3})
	f.Add([]byte{0, 0xf3, 0, 0x03, 0x02, 0x07, 0x04, 0, 0xf1, 0x20, 0x05, 0xfe, 0x00, 0x00, 0x00, 0x00})
	f.Add([]byte{0, 0x0a, 0x02, 0x02, 0x04, 0x00, 0x04, 0x01, 0x61, 0x06, 0x02, 0x00})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 512 {
			return // larger programs find nothing new, and the fuzzer stalls minimizing them
		}
		r := NewRing(fuzzLimits)
		prev := map[senderKey][]byte{} // each sender's previous LLDPDU
		for i, fr := range fuzzFrames(t, prog) {
			rec, ok := r.Add(fr)
			if !ok {
				t.Fatalf("frame %d: not recorded", i)
			}
			if rec.Number != uint64(i+1) || r.Total() != rec.Number {
				t.Fatalf("frame %d: number %d, total %d", i, rec.Number, r.Total())
			}
			if r.Len() > fuzzLimits.Records || (r.Bytes() > fuzzLimits.Bytes && r.Len() > 1) {
				t.Fatalf("frame %d: %d records of %d bytes; bounds %+v", i, r.Len(), r.Bytes(), fuzzLimits)
			}
			sum := 0
			for j := range r.Len() {
				got := r.At(j)
				sum += len(got.LLDPDU)
				if want := rec.Number - uint64(r.Len()-1-j); got.Number != want {
					t.Fatalf("frame %d: slot %d numbered %d, want %d", i, j, got.Number, want)
				}
			}
			if sum != r.Bytes() {
				t.Fatalf("frame %d: the records hold %d bytes, Bytes says %d", i, sum, r.Bytes())
			}
			if len(rec.Changes) == 0 {
				t.Fatalf("frame %d: no change said", i)
			}
			_, body, _ := lldp.SplitFrame(fr.Data)
			if !bytes.Equal(rec.LLDPDU, body) {
				t.Fatalf("frame %d: the record's LLDPDU is not the frame's", i)
			}
			k := senderKey{iface: fr.Interface, src: rec.Header.Src, dst: rec.Header.Dst}
			p, seen := prev[k]
			if want := Changes(p, body); !slices.Equal(rec.Changes, want) {
				t.Fatalf("frame %d: the ring says %q, Changes %q", i, rec.Changes, want)
			}
			if isIdentical := strings.HasPrefix(rec.Changes[0], ChangeIdentical); isIdentical != (seen && bytes.Equal(p, body)) {
				t.Fatalf("frame %d: %q after % x", i, rec.Changes, p)
			}
			prev[k] = slices.Clone(body)
			for _, l := range append([]string{rec.Line()}, DetailLines(rec, 16)...) {
				if strings.ContainsFunc(l, engine.UnsafeRune) || strings.ContainsRune(l, '\n') {
					t.Fatalf("frame %d: unsafe line %q", i, l)
				}
			}
			b, err := engine.MarshalOutput(rec.Doc(), false)
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			var d Doc
			if err := json.Unmarshal(b, &d); err != nil || d.Number != rec.Number || d.Length != len(body) {
				t.Fatalf("frame %d: the document %s does not read back: %v", i, b, err)
			}
			if bytes.ContainsFunc(b[:len(b)-1], engine.NeedsEscape) {
				t.Fatalf("frame %d: unescaped in %s", i, b)
			}
		}
	})
}
