// SPDX-License-Identifier: Apache-2.0

//go:build linux

package dcbnl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
)

// FuzzDecodeIEEE feeds arbitrary reply attributes (what follows struct
// dcbmsg in an IEEE_GET reply or IEEE notification) to the decoder: it must
// never panic, and every structure it returns must survive an encode/decode
// round trip. Seeds: the fixtures below and testdata/fuzz/FuzzDecodeIEEE.
func FuzzDecodeIEEE(f *testing.F) {
	for _, r := range [][]byte{replyIEEEFull, replyIEEEMinimal, replyIEEEFlagged, replyIEEEShortETS} {
		f.Add(r[SizeofDCBMsg:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, ie, err := decodeIEEE(b)
		// The same bytes as a notification (also exercises the CEE path
		// when they hold a DCB_ATTR_CEE).
		decodeNotification(netlink.Message{Data: append([]byte{0, DCB_CMD_IEEE_SET, 0, 0}, b...)})
		if err != nil {
			if ie != nil {
				t.Fatalf("decodeIEEE returned both %+v and %v", ie, err)
			}
			return
		}
		for _, e := range []*ETS{ie.ETS, ie.PeerETS} {
			if e != nil {
				roundTrip(t, e, new(ETS))
			}
		}
		for _, p := range []*PFC{ie.PFC, ie.PeerPFC} {
			if p != nil {
				roundTrip(t, p, new(PFC))
			}
		}
		for _, a := range append(ie.App, ie.PeerApp...) {
			b, _ := a.MarshalBinary()
			var got App
			if err := got.UnmarshalBinary(b); err != nil || got != a {
				t.Fatalf("App round trip: %+v → %+v, %v", a, got, err)
			}
		}
		// What was decoded can be sent back: the request must encode.
		if _, err := ieeeSetRequest("eth0", &IEEESet{ETS: ie.ETS, PFC: ie.PFC, Apps: ie.App}); err != nil {
			t.Fatalf("encode IEEE_SET of decoded values: %v", err)
		}
	})
}

// FuzzDecodeCEE does the same for CEE_GET replies.
func FuzzDecodeCEE(f *testing.F) {
	f.Add(replyCEE[SizeofDCBMsg:])
	f.Fuzz(func(t *testing.T, b []byte) {
		_, cee, err := decodeCEE(b)
		if err != nil && cee != nil {
			t.Fatalf("decodeCEE returned both %+v and %v", cee, err)
		}
	})
}

type binaryCodec interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// roundTrip checks that v decodes to itself after encoding, into empty.
func roundTrip[T binaryCodec](t *testing.T, v, empty T) {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	if err := empty.UnmarshalBinary(b); err != nil {
		t.Fatalf("unmarshal %T: %v", v, err)
	}
	if diff := cmp.Diff(v, empty); diff != "" {
		t.Fatalf("%T round trip (-first +second):\n%s", v, diff)
	}
}

// BenchmarkDecodeIEEE decodes the full IEEE_GET reply fixture.
func BenchmarkDecodeIEEE(b *testing.B) {
	attrs := replyIEEEFull[SizeofDCBMsg:]
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodeIEEE(attrs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeIEEESet encodes an IEEE_SET request with ETS, PFC and two
// APP entries.
func BenchmarkEncodeIEEESet(b *testing.B) {
	s := &IEEESet{ETS: &etsWant, PFC: &pfcWant, Apps: []App{appFCoEWant, appRoCEWant}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ieeeSetRequest("eth0", s); err != nil {
			b.Fatal(err)
		}
	}
}
