// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
)

var badPFCFrame = lldptest.BadPFCFrame

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
