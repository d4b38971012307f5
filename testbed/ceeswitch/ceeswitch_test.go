// SPDX-License-Identifier: Apache-2.0

package ceeswitch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// The switch's TLV as lldpd would report it back decodes to its Control.
func TestControlOf(t *testing.T) {
	s := &Switch{Seq: 4, PFC: 1 << 3}
	got := ControlOf([]testbed.UnknownTLV{{OUI: [3]byte{0, 0x80, 0xc2}, Subtype: 11, Value: []byte{8, 8}}, s.TLV(9)})
	if diff := cmp.Diff(&lldp.CEEControl{SeqNo: 4, AckNo: 9}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := ControlOf(nil); got != nil {
		t.Errorf("nothing heard: %+v", got)
	}
}
