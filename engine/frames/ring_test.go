// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// fr is a frame received on eth0 at second s.
func fr(s int, data []byte) Frame { return Frame{At: at(s), Interface: "eth0", Data: data} }

// pdu is the LLDPDU of an Ethernet frame.
func pdu(t testing.TB, frame []byte) []byte {
	t.Helper()
	_, b, err := lldp.SplitFrame(frame)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// named is lldptest.Frame with another system name and extra TLVs.
func named(t testing.TB, src lldp.MAC, ttl uint16, name string, tlvs ...lldp.TLV) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: src[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs:      append([]lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: name}}, tlvs...),
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, src, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// malformed is a frame from src whose LLDPDU stops inside its Port ID
// TLV.
func malformed(t testing.TB, src lldp.MAC) []byte {
	t.Helper()
	f := lldptest.Frame(t, src, 120)
	return f[:14+9+3]
}

// TestChanges: what differs from one LLDPDU of a sender to the next, in
// words.
func TestChanges(t *testing.T) {
	a := lldptest.MacA
	base := func(t testing.TB) []byte {
		return lldptest.Frame(t, a, 120, lldptest.ETSA, lldptest.PFC3, lldptest.App1)
	}
	cee := func(seq, ack uint32) lldp.TLV {
		return &lldp.CEE{Control: &lldp.CEEControl{SeqNo: seq, AckNo: ack},
			PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 8, NumTCs: 8}}
	}
	tests := []struct {
		name      string
		prev, cur func(t testing.TB) []byte // prev nil: none
		want      []string
	}{
		{"first", nil, base, []string{ChangeFirst}},
		{"first, a shutdown", nil, func(t testing.TB) []byte { return lldptest.Frame(t, a, 0) }, []string{ChangeFirst, "TTL 0 (shutdown)"}},
		{"first, malformed", nil, func(t testing.TB) []byte { return malformed(t, a) }, []string{ChangeFirst,
			"malformed: lldp: TLV Port ID at offset 9: truncated: length 5 but 1 bytes left"}},
		{"identical", base, base, []string{ChangeIdentical}},
		{"identical, malformed", func(t testing.TB) []byte { return malformed(t, a) }, func(t testing.TB) []byte { return malformed(t, a) },
			[]string{"identical (malformed)"}},
		{"TTL", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 121, lldptest.ETSA, lldptest.PFC3, lldptest.App1)
		},
			[]string{"TTL 120 → 121"}},
		{"shutdown: the TTL only", base, func(t testing.TB) []byte { return lldptest.Frame(t, a, 0) }, []string{"TTL 120 → 0 (shutdown)"}},
		{"PFC priorities in one change", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 120, lldptest.ETSA, lldptest.PFC34, lldptest.App1)
		}, []string{"PFC enabled 3 → 3,4"}},
		{"PFC willing and priorities", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 120, lldptest.ETSA, &lldp.PFC{Willing: true, Cap: 8}, lldptest.App1)
		}, []string{"PFC enabled 3 → none", "PFC willing off → on"}},
		{"ETS bandwidth", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 120, lldptest.ETSA2, lldptest.PFC3, lldptest.App1)
		}, []string{"ETS TC0 bandwidth 50% → 40%", "ETS TC1 bandwidth 50% → 60%"}},
		{"APP entry added", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 120, lldptest.ETSA, lldptest.PFC3, lldptest.App2)
		}, []string{"+ APP dscp 26 → priority 3"}},
		{"PFC withdrawn", base, func(t testing.TB) []byte {
			return lldptest.Frame(t, a, 120, lldptest.ETSA, lldptest.App1)
		}, []string{"- PFC (was on priorities 3)"}},
		{"DCBX appears", func(t testing.TB) []byte { return lldptest.Frame(t, a, 120) }, base, []string{
			"DCBX no DCBX → IEEE 802.1Qaz DCBX",
			"+ ETS TC0 ets 50%, TC1 ets 50%", "+ PFC on priorities 3 (willing off, cap 8)", "+ APP udp-port 4791 → priority 3"}},
		{"System Name", func(t testing.TB) []byte { return named(t, a, 120, "leaf1") }, func(t testing.TB) []byte { return named(t, a, 120, "leaf2") },
			[]string{"System Name leaf1 → leaf2"}},
		{"a TLV added and one removed", func(t testing.TB) []byte {
			return named(t, a, 120, "leaf1", &lldp.Text{Kind: lldp.TLVTypePortDescription, Value: "uplink"})
		}, func(t testing.TB) []byte {
			return named(t, a, 120, "leaf1", &lldp.MaxFrameSize{Size: 9216})
		}, []string{"+ Maximum Frame Size 9216 bytes", "- Port Description (was uplink)"}},
		{"a named field", func(t testing.TB) []byte {
			return named(t, a, 120, "leaf1", &lldp.SystemCapabilities{Capabilities: 0x14, Enabled: 0x04})
		}, func(t testing.TB) []byte {
			return named(t, a, 120, "leaf1", &lldp.SystemCapabilities{Capabilities: 0x14, Enabled: 0x14})
		}, []string{"System Capabilities enabled bridge → bridge, router"}},
		{"CEE control numbers", func(t testing.TB) []byte { return lldptest.Frame(t, a, 120, cee(1, 0)) },
			func(t testing.TB) []byte { return lldptest.Frame(t, a, 120, cee(2, 1)) }, []string{"CEE control seq 1 → 2", "CEE control ack 0 → 1"}},
		{"padding only", base, func(t testing.TB) []byte { return append(base(t), 0, 0, 0, 0) }, []string{ChangeBytesOnly}},
		{"malformed after a valid one", base, func(t testing.TB) []byte { return malformed(t, a) },
			[]string{"malformed: lldp: TLV Port ID at offset 9: truncated: length 5 but 1 bytes left"}},
		{"valid after a malformed one", func(t testing.TB) []byte { return malformed(t, a) }, base, []string{ChangeValidAgain}},
		{"a discarded TLV", base, func(t testing.TB) []byte { return lldptest.BadPFCFrame(t) }, []string{
			"- PFC (was on priorities 3)",
			"finding: PFC Configuration TLV at offset 56 discarded (invalid length: 5, want 6); the rest of the LLDPDU is used"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev []byte
			if tt.prev != nil {
				prev = pdu(t, tt.prev(t))
			}
			got := Changes(prev, pdu(t, tt.cur(t)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
			// The Tracker says the same, frame after frame.
			tr := NewTracker(0)
			if tt.prev != nil {
				tr.Next(fr(1, tt.prev(t)))
			}
			rec, ok := tr.Next(fr(2, tt.cur(t)))
			if !ok {
				t.Fatal("not an LLDP frame")
			}
			if diff := cmp.Diff(tt.want, rec.Changes); diff != "" {
				t.Errorf("Tracker (-want +got):\n%s", diff)
			}
			if malformed := strings.Contains(strings.Join(tt.want, " "), "malformed") && tt.want[0] != ChangeValidAgain; malformed != (rec.Err != "") {
				t.Errorf("Err %q", rec.Err)
			}
		})
	}
}

// TestTrackerSenders: a sender is the interface, the source and the
// destination; the one heard least recently is forgotten for a new one.
func TestTrackerSenders(t *testing.T) {
	a := lldptest.MacA
	fa := lldptest.Frame(t, a, 120)
	faCustomer := lldptest.FrameTo(t, lldp.NearestCustomerBridge, a, 120)
	tr := NewTracker(2)
	step := func(f Frame) string {
		t.Helper()
		rec, ok := tr.Next(f)
		if !ok {
			t.Fatal("not an LLDP frame")
		}
		return strings.Join(rec.Changes, "; ")
	}
	eth1 := func(s int) Frame { return Frame{At: at(s), Interface: "eth1", Data: fa} }
	got := []string{
		step(fr(1, fa)),
		step(fr(2, fa)),
		step(eth1(3)),           // another interface: another sender
		step(fr(4, fa)),         // heard again: eth1's is now the least recent
		step(fr(5, faCustomer)), // another agent of a: eth1's is forgotten
		step(fr(6, fa)),
		step(eth1(7)), // forgotten: first again; eth0's nearest-customer goes
		step(fr(8, fa)),
	}
	want := []string{ChangeFirst, ChangeIdentical, ChangeFirst, ChangeIdentical, ChangeFirst, ChangeIdentical, ChangeFirst, ChangeIdentical}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if n := tr.Senders(); n != 2 {
		t.Errorf("%d senders kept, bound 2", n)
	}
}

// TestTrackerNotLLDP: frames of another EtherType and runts are not
// records and take no number.
func TestTrackerNotLLDP(t *testing.T) {
	tr := NewTracker(0)
	ip := append(make([]byte, 12), 0x08, 0x00, 0x45)
	for _, data := range [][]byte{nil, {1, 2, 3}, ip} {
		if rec, ok := tr.Next(fr(1, data)); ok {
			t.Errorf("% x: a record %+v", data, rec)
		}
	}
	rec, ok := tr.Next(fr(2, lldptest.Frame(t, lldptest.MacA, 120)))
	if !ok || rec.Number != 1 {
		t.Errorf("the first LLDP frame: %v, number %d; want 1", ok, rec.Number)
	}
}

// TestRingBounds: the ring keeps the newest records within its count and
// byte bounds, numbered in order, and finds them by number.
func TestRingBounds(t *testing.T) {
	f := lldptest.Frame(t, lldptest.MacA, 120, lldptest.ETSA, lldptest.PFC3)
	n := len(pdu(t, f))
	r := NewRing(Limits{Records: 4, Bytes: 3 * n})
	for i := range 10 {
		if _, ok := r.Add(fr(i, f)); !ok {
			t.Fatal("not added")
		}
		if r.Len() > 3 || r.Bytes() > 3*n {
			t.Fatalf("after %d: %d records, %d bytes; bounds 3 (bytes) and %d bytes", i+1, r.Len(), r.Bytes(), 3*n)
		}
	}
	var got []uint64
	for _, rec := range r.Since(nil, 0) {
		got = append(got, rec.Number)
	}
	if diff := cmp.Diff([]uint64{8, 9, 10}, got); diff != "" {
		t.Errorf("numbers held (-want +got):\n%s", diff)
	}
	if r.Total() != 10 || r.Dropped() != 7 {
		t.Errorf("total %d, dropped %d; want 10, 7", r.Total(), r.Dropped())
	}
	if rec, ok := r.Find(9); !ok || rec.Number != 9 || !rec.At.Equal(at(8)) {
		t.Errorf("Find(9) = %d at %v, %v", rec.Number, rec.At, ok)
	}
	for _, n := range []uint64{0, 7, 11} {
		if _, ok := r.Find(n); ok {
			t.Errorf("Find(%d) found a record the ring does not hold", n)
		}
	}
	if got := r.Since(nil, 9); len(got) != 1 || got[0].Number != 10 {
		t.Errorf("Since(9) = %+v", got)
	}
	// The count bound.
	r = NewRing(Limits{Records: 2})
	for i := range 5 {
		r.Add(fr(i, f))
	}
	if r.Len() != 2 || r.At(0).Number != 4 || r.At(1).Number != 5 {
		t.Errorf("count bound 2: %d records, first %d", r.Len(), r.At(0).Number)
	}
	// One LLDPDU beyond the byte bound is kept alone.
	r = NewRing(Limits{Bytes: 10})
	r.Add(fr(1, f))
	r.Add(fr(2, f))
	if r.Len() != 1 || r.At(0).Number != 2 {
		t.Errorf("byte bound below one LLDPDU: %d records", r.Len())
	}
	r.Reset()
	if r.Len() != 0 || r.Total() != 0 || r.Bytes() != 0 {
		t.Errorf("after Reset: %d records, total %d, %d bytes", r.Len(), r.Total(), r.Bytes())
	}
	if rec, _ := r.Add(fr(3, f)); rec.Number != 1 || rec.Changes[0] != ChangeFirst {
		t.Errorf("after Reset: %+v", rec)
	}
	if lim := NewRing(Limits{}).Limits(); lim != (Limits{Records: DefaultRecords, Bytes: DefaultBytes, Senders: DefaultSenders}) {
		t.Errorf("default limits %+v", lim)
	}
}

// TestRingRecordsShare: a record of an identical LLDPDU shares its
// sender's bytes, and a change does not alter the records before it.
func TestRingRecordsShare(t *testing.T) {
	f1 := lldptest.Frame(t, lldptest.MacA, 120, lldptest.PFC3)
	f2 := lldptest.Frame(t, lldptest.MacA, 120, lldptest.PFC34)
	r := NewRing(Limits{})
	buf := append([]byte(nil), f1...)
	r.Add(fr(1, buf))
	clear(buf) // the frame is borrowed: the ring copied it
	r.Add(fr(2, f1))
	r.Add(fr(3, f2))
	a, b, c := r.At(0), r.At(1), r.At(2)
	if &a.LLDPDU[0] != &b.LLDPDU[0] {
		t.Error("the identical LLDPDU's record does not share its sender's bytes")
	}
	if !cmp.Equal(a.LLDPDU, pdu(t, f1)) || !cmp.Equal(c.LLDPDU, pdu(t, f2)) {
		t.Error("records' bytes are not the frames'")
	}
}

// TestAddIdenticalNoAlloc: adding an LLDPDU identical to its sender's
// previous one allocates nothing, in a ring that is full or not (the
// product rule: the engine must not allocate for an LLDPDU identical to
// the peer's last).
func TestAddIdenticalNoAlloc(t *testing.T) {
	f := fr(1, lldptest.Frame(t, lldptest.MacA, 120, lldptest.ETSA, lldptest.RecoA, lldptest.PFC3, lldptest.App2))
	out := Frame{At: at(1), Interface: "eth0", Outgoing: true, Data: lldptest.Frame(t, lldptest.MacB, 120, lldptest.ETSA)}
	r := NewRing(Limits{Records: 64})
	r.Add(f)
	r.Add(out)
	for _, tt := range []struct {
		name string
		f    Frame
	}{{"received", f}, {"sent", out}} {
		if n := testing.AllocsPerRun(200, func() { r.Add(tt.f) }); n != 0 {
			t.Errorf("%s: %v allocations per identical LLDPDU", tt.name, n)
		}
	}
	if r.Len() != 64 {
		t.Fatalf("the ring holds %d, want it full (64)", r.Len())
	}
}

func BenchmarkAddIdentical(b *testing.B) {
	f := fr(1, lldptest.Frame(b, lldptest.MacA, 120, lldptest.ETSA, lldptest.PFC3, lldptest.App2))
	r := NewRing(Limits{})
	b.ReportAllocs()
	for b.Loop() {
		r.Add(f)
	}
}

func BenchmarkAddChanged(b *testing.B) {
	f := [2]Frame{fr(1, lldptest.Frame(b, lldptest.MacA, 120, lldptest.ETSA, lldptest.PFC3, lldptest.App2)),
		fr(2, lldptest.Frame(b, lldptest.MacA, 120, lldptest.ETSA2, lldptest.PFC34, lldptest.App2))}
	r := NewRing(Limits{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Add(f[i%2])
		i++
	}
}

// TestIdentical: a record is Identical when its LLDPDU is its sender's
// previous one byte for byte, malformed or not; a first, a changed and
// a malformed-but-new one are not.
func TestIdentical(t *testing.T) {
	a := lldptest.MacA
	ok120, ok60 := lldptest.Frame(t, a, 120), lldptest.Frame(t, a, 60)
	bad := slices.Clone(ok120[:14+2+7+2]) // cut inside the Port ID TLV
	tr := NewTracker(0)
	var got []bool
	for i, f := range [][]byte{ok120, ok120, ok60, bad, bad} {
		rec, _ := tr.Next(fr(i, f))
		got = append(got, rec.Identical())
		if i >= 3 && rec.Err == "" {
			t.Fatalf("record %d: the cut LLDPDU was accepted", i)
		}
	}
	if diff := cmp.Diff([]bool{false, true, false, false, true}, got); diff != "" {
		t.Errorf("Identical (-want +got):\n%s", diff)
	}
}
