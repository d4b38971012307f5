// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"errors"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"
)

// TestSample: the engine's facts keep the enabled optional counters with
// their values, the disabled ones by name and the command that enables
// them (none when nothing is disabled); a kernel without STAT_GET_STATUS
// says why; an error becomes the reason.
func TestSample(t *testing.T) {
	v := func(n uint64) *uint64 { return &n }
	s := func(x string) *string { return &x }
	port := Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: []Counter{
		{Name: "cc_rx_ce_pkts", Optional: true},
		{Name: "cc_rx_cnp_pkts", Value: v(12), Optional: true, Enabled: true},
		{Name: "cc_tx_cnp_pkts", Optional: true},
		{Name: "out_of_buffer", Value: v(3)},
	}}
	allOn := Port{Device: "mlx5_0", Port: 1, StatusKnown: true, Counters: []Counter{{Name: "cc_rx_ce_pkts", Value: v(1), Optional: true, Enabled: true}}}
	old := Port{Device: "mlx5_0", Port: 1, StatusWhy: "the kernel has no RDMA_NLDEV_CMD_STAT_GET_STATUS (before Linux 5.16)",
		Counters: []Counter{{Name: "out_of_buffer", Value: v(3)}}}
	for _, tt := range []struct {
		name string
		got  *lossless.OptionalCounters
		want *lossless.OptionalCounters
	}{
		{"one enabled, two disabled", port.Sample(), &lossless.OptionalCounters{Source: "rdma netlink", StatusKnown: true,
			Enabled:       []lossless.OptionalCounter{{Name: "cc_rx_cnp_pkts", Value: v(12)}},
			Disabled:      []string{"cc_rx_ce_pkts", "cc_tx_cnp_pkts"},
			EnableCommand: s("rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts")}},
		{"all enabled: no command", allOn.Sample(), &lossless.OptionalCounters{Source: "rdma netlink", StatusKnown: true,
			Enabled: []lossless.OptionalCounter{{Name: "cc_rx_ce_pkts", Value: v(1)}}, Disabled: []string{}}},
		{"status unknown", old.Sample(), &lossless.OptionalCounters{Source: "rdma netlink", Why: s(old.StatusWhy),
			Enabled: []lossless.OptionalCounter{}, Disabled: []string{}}},
		{"unread", Unread(errors.New("rdma netlink: mlx5_0 port 1: permission denied\nsecond line")), &lossless.OptionalCounters{Source: "rdma netlink",
			Why: s("rdma netlink: mlx5_0 port 1: permission denied second line"), Enabled: []lossless.OptionalCounter{}, Disabled: []string{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
