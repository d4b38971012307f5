package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// badPFCFrame returns a frame from macA with ETS, a PFC TLV whose body is
// one byte after OUI and subtype, and APP.
func badPFCFrame(t testing.TB) []byte {
	t.Helper()
	f := frame(t, macA, 120, etsA, pfc3, app1)
	// Find the PFC TLV (type 127, length 6, OUI 00-80-c2, subtype 11)
	// and cut its information string to OUI, subtype and one byte.
	for i := 14; i+6 <= len(f); i++ {
		if f[i] == 127<<1 && f[i+1] == 6 && f[i+2] == 0x00 && f[i+3] == 0x80 && f[i+4] == 0xc2 && f[i+5] == 11 {
			out := append([]byte(nil), f[:i]...)
			out = append(out, 127<<1, 5)
			out = append(out, f[i+2:i+2+5]...)
			return append(out, f[i+8:]...)
		}
	}
	t.Fatal("no PFC TLV in the frame")
	return nil
}

// A PFC TLV with a one-byte body discards that TLV only: the peer stays
// live, its ETS and APP are the remote set, the TLV is reported with its
// offset and counted.
func TestMalformedOptionalTLVDiscarded(t *testing.T) {
	e := New(Config{})
	bad := badPFCFrame(t)
	for s := range 5 {
		e.Apply(rx(float64(s), bad))
	}
	in, _ := e.Interface("eth0")
	if !in.RemoteValid || in.Remote == nil || in.Remote.ETS == nil || in.Remote.App == nil || in.Remote.PFC != nil {
		t.Fatalf("remote valid %v, %+v; want ETS and APP, no PFC", in.RemoteValid, in.Remote)
	}
	if len(in.Peers) != 1 || len(in.Peers[0].DiscardedTLVs) != 1 || in.Peers[0].DiscardedTLVs[0].TLV != "PFC Configuration" {
		t.Fatalf("peers %+v, want one with the PFC TLV discarded", in.Peers)
	}
	if in.Capture.Malformed != 0 || in.Capture.TLVsDiscarded != 5 {
		t.Errorf("malformed %d, tlvs_discarded %d; want 0 and 5 (one per LLDPDU, identical repeats included)", in.Capture.Malformed, in.Capture.TLVsDiscarded)
	}
	if !hasCode(in.Diagnostics, diag.CodeTLVDiscarded) {
		t.Errorf("no tlv-discarded diagnostic: %+v", in.Diagnostics)
	}
}
