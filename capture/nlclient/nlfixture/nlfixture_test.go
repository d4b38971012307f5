// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

func TestCat(t *testing.T) {
	tests := []struct {
		name  string
		parts [][]byte
		want  []byte
	}{
		{"nothing", nil, nil},
		{"empty pieces", [][]byte{{}, nil}, nil},
		{"in order", [][]byte{{1, 2}, nil, {3}, {4, 5, 6}}, []byte{1, 2, 3, 4, 5, 6}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Cat(tt.parts...)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestWire checks the bytes of a request and what Wire reports about its
// sequence number and port ID.
func TestWire(t *testing.T) {
	RequireLittleEndian(t)
	tests := []struct {
		name       string
		seq, pid   uint32
		wantErrors []string
	}{
		{"as sent", 5, nltest.PID, nil},
		{"sequence 0", 0, nltest.PID, []string{"request has sequence number 0"}},
		{"another port", 5, 99, []string{"request port ID = 99, want 1"}},
	}
	want := []byte{
		0x14, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x01, 0x00, // nlmsg_len 20, type 78, NLM_F_REQUEST
		0, 0, 0, 0, 0, 0, 0, 0, // seq and pid, zeroed
		0x00, 0x15, 0x00, 0x00,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := netlink.Message{
				Header: netlink.Header{Length: 20, Type: 0x4e, Flags: netlink.Request, Sequence: tt.seq, PID: tt.pid},
				Data:   []byte{0x00, 0x15, 0x00, 0x00},
			}
			var got []byte
			r := run(t, func(tb testing.TB) { got = Wire(tb, m) })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrors, r.errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
