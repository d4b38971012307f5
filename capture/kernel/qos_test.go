// SPDX-License-Identifier: Apache-2.0

package kernel

import (
	"testing"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
)

// QoSFromIEEE: the trust table as the kernel reports it, else derived as
// mlx5 sets it; the PFC delay, buffers and rate limits as reported, null
// when not.
func TestQoSFromIEEE(t *testing.T) {
	delay := uint16(7)
	buf := &dcbnl.Buffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, Size: [8]uint32{130944, 130944}, TotalSize: 524288}
	rate := [8]uint64{0, 1000000}
	dscp := []dcbnl.App{{Selector: 5, Protocol: 26, Priority: 3}}
	for _, tt := range []struct {
		name string
		in   *dcbnl.IEEE
		want *lossless.PortQoSSample
	}{
		{"nothing", nil, nil},
		{"trust reported", &dcbnl.IEEE{AppTrust: []uint8{5, 255}, PFC: &dcbnl.PFC{Delay: 7}, Buffer: buf, MaxRate: &rate},
			&lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay,
				Buffer:      &lossless.PortBuffer{PrioBuffer: buf.PrioBuffer, SizeBytes: buf.Size, TotalBytes: 524288},
				MaxRateKbps: &rate, Source: "dcbnl IEEE_GET"}},
		{"trust reported, unknown selector", &dcbnl.IEEE{AppTrust: []uint8{9}},
			&lossless.PortQoSSample{Trust: []string{"selector-9"}, Source: "dcbnl IEEE_GET"}},
		{"empty trust table", &dcbnl.IEEE{AppTrust: []uint8{}},
			&lossless.PortQoSSample{Trust: []string{}, Source: "dcbnl IEEE_GET"}},
		{"derived: DSCP entries", &dcbnl.IEEE{App: dscp},
			&lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, TrustDerived: true, Source: "dcbnl IEEE_GET"}},
		{"derived: no DSCP entry", &dcbnl.IEEE{App: []dcbnl.App{{Selector: 3, Protocol: 4791, Priority: 3}}},
			&lossless.PortQoSSample{Trust: []string{"pcp"}, TrustDerived: true, Source: "dcbnl IEEE_GET"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, QoSFromIEEE(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
