// SPDX-License-Identifier: Apache-2.0

package cee

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// TestChooseDialect: IEEE first; CEE while the peer speaks only CEE;
// back to IEEE when it sends IEEE TLVs; an LLDPDU without DCBX keeps
// what is spoken.
func TestChooseDialect(t *testing.T) {
	for _, tt := range []struct {
		current           lldp.Dialect
		peerIEEE, peerCEE bool
		want              lldp.Dialect
	}{
		{lldp.DialectNone, false, false, lldp.DialectIEEE},
		{lldp.DialectIEEE, false, true, lldp.DialectCEE},
		{lldp.DialectIEEE, true, true, lldp.DialectIEEE},
		{lldp.DialectCEE, false, true, lldp.DialectCEE},
		{lldp.DialectCEE, false, false, lldp.DialectCEE},
		{lldp.DialectCEE, true, false, lldp.DialectIEEE},
		{lldp.DialectCEE, true, true, lldp.DialectIEEE},
		{lldp.DialectIEEE, false, false, lldp.DialectIEEE},
	} {
		if got := ChooseDialect(tt.current, tt.peerIEEE, tt.peerCEE); got != tt.want {
			t.Errorf("ChooseDialect(%q, ieee %v, cee %v) = %q, want %q", tt.current, tt.peerIEEE, tt.peerCEE, got, tt.want)
		}
	}
}
