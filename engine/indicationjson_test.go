// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// checkIndicationJSON fails unless the indication's own encoding is
// encoding/json's to the byte (or it declines, for CEE parameters), and
// OutputEncoder.Indication is Line's.
func checkIndicationJSON(t testing.TB, in Indication) {
	t.Helper()
	want, err := json.Marshal(in)
	if err != nil {
		if _, ok := in.appendJSON(nil); ok {
			t.Fatalf("encoding/json refuses %+v (%v), appendJSON wrote it", in, err)
		}
		return
	}
	got, ok := in.appendJSON(nil)
	if !ok && (in.Params == nil || in.Params.CEE == nil) {
		t.Fatalf("appendJSON declined %+v", in)
	}
	if ok && string(got) != string(want) {
		t.Fatalf("appendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
	var enc OutputEncoder
	line, err := enc.Indication(&in)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := MarshalOutput(in, false)
	if string(line) != string(ref) {
		t.Fatalf("OutputEncoder.Indication:\n%s\nMarshalOutput:\n%s", line, ref)
	}
}

// TestIndicationJSON pins the indications' own JSON to encoding/json's:
// every indication of every capture in the repository, and the shapes
// captures seldom have (CEE, unknown TSA and selector values, strings
// that need escaping, no parameters, an empty APP table).
func TestIndicationJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.pcap")
	more, _ := filepath.Glob("lldp/testdata/*.pcap")
	files = append(append(files, more...), "../assets/demo.pcap")
	n := 0
	for _, f := range files {
		replay(t, f, func(_ time.Time, ins []Indication) {
			for _, in := range ins {
				checkIndicationJSON(t, in)
				n++
			}
		})
	}
	if n < 20 {
		t.Errorf("only %d indications in the captures", n)
	}
	ets := &dcb.ETS{Willing: true, CBS: true, MaxTCs: 3, PrioTC: [8]uint8{0, 1, 2, 7}, TCBandwidth: [8]uint8{10, 90},
		TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict, lldp.TSACBS, lldp.TSAVendor, 5, 200, 0}}
	cee := &dcb.ETS{FromCEE: true, PrioTC: [8]uint8{0, 15, 1, 15}, TCBandwidth: [8]uint8{50, 50}}
	app := []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: 0, Protocol: 65535, Priority: 7}, {Selector: 9, Protocol: 1}}
	at := time.Date(2026, 11, 26, 12, 0, 0, 123456789, time.UTC)
	for _, in := range []Indication{
		{},
		{Time: at, Interface: "eth0", Status: StatusRemote, Reason: ReasonChanged, Flags: ^Flags(0), Peer: "mac 02:00:00:00:00:01 / ifname swp1"},
		{Time: at, Interface: "e<t>&h\"0\\", Status: StatusOperational, Reason: "x\u2028y\x01\xff", Peer: "\x1b[31mred\u009b"},
		{Time: at, Interface: "eth0", Host: "node\x1b[2J<1>", ID: 0x0123456789abcdef},
		{Time: at, ID: 1},
		{Time: at, Params: &dcb.Params{}},
		{Time: at, Params: &dcb.Params{App: []dcb.App{}}},
		{Time: at, Params: &dcb.Params{ETS: ets, ETSReco: &dcb.ETSReco{PrioTC: ets.PrioTC, TCBandwidth: ets.TCBandwidth, TSA: ets.TSA}, PFC: &dcb.PFC{Willing: true, MBC: true, Cap: 8, Enabled: 0xff}, App: app}},
		{Time: at, Params: &dcb.Params{ETS: cee, PFC: &dcb.PFC{FromCEE: true, Cap: 3, Enabled: 1 << 3}}},
		{Time: at, Params: &dcb.Params{ETS: cee, CEE: &dcb.CEE{}}},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		checkIndicationJSON(t, in)
	}
}

// FuzzIndicationJSON: for any parameters and strings, the indication's
// own JSON is encoding/json's.
func FuzzIndicationJSON(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"), "eth0", "mac 02:00:00:00:00:01 / ifname swp1", int64(1764158400123456789))
	f.Add([]byte{0xff, 0, 0xff, 0x80, 7, 7, 7, 7}, "<&>", "\xff\u2028", int64(0))
	f.Fuzz(func(t *testing.T, b []byte, iface, peer string, ns int64) {
		at := func(i int) uint8 {
			if i < len(b) {
				return b[i]
			}
			return 0
		}
		in := Indication{Time: time.Unix(0, ns).UTC(), Interface: iface, Peer: peer, Status: Status(at(0) % 4), Reason: Reason(peer), Flags: Flags(at(1)) | Flags(at(2))<<8 | Flags(at(3))<<16}
		if at(0)&4 != 0 {
			in.Stamp(iface + peer)
		}
		if at(4)&1 != 0 {
			p := &dcb.Params{}
			if at(4)&2 != 0 {
				e := &dcb.ETS{Willing: at(5)&1 != 0, CBS: at(5)&2 != 0, FromCEE: at(5)&4 != 0, MaxTCs: at(6)}
				for i := range 8 {
					e.PrioTC[i], e.TCBandwidth[i], e.TSA[i] = at(7+i), at(15+i), lldp.TSA(at(23+i))
				}
				p.ETS = e
			}
			if at(4)&4 != 0 {
				p.ETSReco = &dcb.ETSReco{PrioTC: [8]uint8{at(7)}, TCBandwidth: [8]uint8{at(8)}, TSA: [8]lldp.TSA{lldp.TSA(at(9))}}
			}
			if at(4)&8 != 0 {
				p.PFC = &dcb.PFC{Willing: at(10)&1 != 0, MBC: at(10)&2 != 0, FromCEE: at(10)&4 != 0, Cap: at(11), Enabled: dcb.PrioSet(at(12))}
			}
			if at(4)&16 != 0 {
				p.App = []dcb.App{}
				for i := 31; i+2 < len(b); i += 3 {
					p.App = append(p.App, dcb.App{Selector: lldp.AppSelector(b[i]), Protocol: uint16(b[i+1])<<8 | uint16(b[i+2]), Priority: b[i] >> 4})
				}
			}
			if at(4)&32 != 0 {
				p.CEE = &dcb.CEE{}
			}
			in.Params = p
		}
		checkIndicationJSON(t, in)
	})
}

// BenchmarkIndicationJSON: one changed indication's NDJSON line, as
// --events writes it.
func BenchmarkIndicationJSON(b *testing.B) {
	in := Indication{Time: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC), Interface: "eth0", Status: StatusRemote, Reason: ReasonChanged,
		Flags: FlagETSConfigured | FlagPFCChanged, Peer: "mac 02:00:00:00:00:01 / ifname swp1",
		Params: &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{50, 50}}, ETSReco: &dcb.ETSReco{}, PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3},
			App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}}
	var enc OutputEncoder
	for b.Loop() {
		if _, err := enc.Indication(&in); err != nil {
			b.Fatal(err)
		}
	}
}
