// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
)

// roceMTU is iboe_get_mtu's choice: the largest IB MTU that fits the
// interface's MTU less 96 bytes of IB headers.
func TestRoCEMTU(t *testing.T) {
	for mtu, want := range map[int]int{9000: 4096, 4200: 4096, 4191: 2048, 1500: 1024, 1120: 1024, 1119: 512, 351: 0, 352: 256} {
		if got := roceMTU(mtu); got != want {
			t.Errorf("roceMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
}

// max-frame-below-mtu: the peer's Maximum Frame Size TLV against the
// interface's MTU, and against a full RoCE v2 packet where the interface
// has a RoCE port; nothing while either is unknown.
func TestMaxFrameBelowMTU(t *testing.T) {
	roce := CountersSampled{Interface: "eth0", At: at(0), Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		RoCE: []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1}}}
	for _, tc := range []struct {
		name     string
		mtu      int
		frame    uint16 // 0: no TLV
		roce     bool
		want     diag.Severity
		none     bool
		contains string
	}{
		{name: "no MTU known", mtu: 0, frame: 1518, none: true},
		{name: "no TLV", mtu: 9000, none: true},
		{name: "fits", mtu: 1500, frame: 1518, none: true},
		{name: "jumbo host, 1518 switch", mtu: 9000, frame: 1518, want: diag.SeverityWarning, contains: "MTU 9000 here makes frames of up to 9018"},
		{name: "jumbo host, 1518 switch, RoCE", mtu: 9000, frame: 1518, roce: true, want: diag.SeverityError, contains: "RoCE packets here are at least 4158 (RoCE MTU 4096 for MTU 9000)"},
		{name: "RoCE fits, jumbo does not", mtu: 9000, frame: 4200, roce: true, want: diag.SeverityWarning, contains: "accepts frames of at most 4200 bytes"},
		{name: "RoCE fits exactly", mtu: 4200, frame: 4218, roce: true, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true, MTU: tc.mtu})
			if tc.roce {
				e.Apply(roce)
			}
			tlvs := []lldp.TLV{pfc3}
			if tc.frame > 0 {
				tlvs = append(tlvs, &lldp.MaxFrameSize{Size: tc.frame})
			}
			e.Apply(rx(1, frame(t, macA, 120, tlvs...)))
			in, _ := e.Interface("eth0")
			var got []diag.Diagnostic
			for _, d := range in.Diagnostics {
				if d.Code == diag.CodeMaxFrameBelowMTU {
					got = append(got, d)
				}
			}
			if tc.none {
				if len(got) > 0 {
					t.Fatalf("got %v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tc.want || !strings.Contains(got[0].Message, tc.contains) {
				t.Fatalf("got %+v\nwant one %v containing %q", got, tc.want, tc.contains)
			}
			if tc.mtu > 0 {
				if diff := cmp.Diff(&tc.mtu, in.MTU); diff != "" {
					t.Errorf("Interface.MTU (-want +got):\n%s", diff)
				}
			}
		})
	}
}
