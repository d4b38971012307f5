// SPDX-License-Identifier: Apache-2.0

package cee

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestChooseDialect: IEEE first; CEE while the peer speaks only CEE; back
// to IEEE when it sends IEEE TLVs; an LLDPDU without DCBX keeps what is
// spoken.
func TestChooseDialect(t *testing.T) {
	tests := []struct {
		name              string
		current           lldp.Dialect
		peerIEEE, peerCEE bool
		want              lldp.Dialect
	}{
		{"IEEE is the default", lldp.DialectNone, false, false, lldp.DialectIEEE},
		{"IEEE stays without DCBX", lldp.DialectIEEE, false, false, lldp.DialectIEEE},
		{"IEEE peer", lldp.DialectNone, true, false, lldp.DialectIEEE},
		{"CEE-only peer: fall back", lldp.DialectIEEE, false, true, lldp.DialectCEE},
		{"CEE-only peer from nothing", lldp.DialectNone, false, true, lldp.DialectCEE},
		{"both families: IEEE precedence", lldp.DialectIEEE, true, true, lldp.DialectIEEE},
		{"CEE stays with a CEE peer", lldp.DialectCEE, false, true, lldp.DialectCEE},
		{"CEE stays without DCBX", lldp.DialectCEE, false, false, lldp.DialectCEE},
		{"back to IEEE on IEEE TLVs", lldp.DialectCEE, true, false, lldp.DialectIEEE},
		{"back to IEEE on both families", lldp.DialectCEE, true, true, lldp.DialectIEEE},
		{"CIN is not spoken", lldp.DialectCIN, false, false, lldp.DialectIEEE},
		{"CIN current, CEE peer", lldp.DialectCIN, false, true, lldp.DialectCEE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChooseDialect(tt.current, tt.peerIEEE, tt.peerCEE)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ChooseDialect(%v, ieee %v, cee %v): (-want +got)\n%s", tt.current, tt.peerIEEE, tt.peerCEE, diff)
			}
		})
	}
}
