// SPDX-License-Identifier: Apache-2.0

// Package losslesstest builds the counter samples that tests of the
// lossless evaluation, of the engine and of the checks share: an mlx5
// RoCE port as the kernel's files show it.
package losslesstest

import (
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"
)

// Reading returns a reading of v from the counter src.
func Reading(v uint64, src string) lossless.Reading { return lossless.Reading{Value: v, Source: src} }

func ptr[T any](v T) *T { return &v }

// RoCE is eth0's sample of an mlx5 RoCE port's identity (GIDs 0, 1 and 3,
// the routable RoCE v2 GID 3, rdma_cm's default ToS 106: DSCP 26 with
// ECT(0)) and of its link-level PAUSE (off), with no RDMA counters.
func RoCE(at time.Time) lossless.Sample {
	s := lossless.Sample{Interface: "eth0", At: at, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}}
	s.RoCE = []lossless.RoCEPortSample{{Device: "mlx5_0", Port: 1, LinkLayer: ptr("Ethernet"),
		GIDs: []lossless.RoCEGID{
			{Index: 0, GID: ptr("fe80::268a:7ff:fe11:2233"), Type: ptr("RoCE v1"), Netdev: ptr("eth0")},
			{Index: 1, GID: ptr("fe80::268a:7ff:fe11:2233"), Type: ptr("RoCE v2"), Netdev: ptr("eth0")},
			{Index: 3, GID: ptr("::ffff:192.168.10.11"), IPv4: ptr("192.168.10.11"), Type: ptr("RoCE v2"), Netdev: ptr("eth0")},
		},
		RoutableV2: ptr(3), DefaultToS: &lossless.RoCEToS{ToS: 106, DSCP: 26, ECN: 2, Source: "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"},
		DefaultMode: ptr("RoCE v2"), Problems: []string{}}}
	s.LinkPause = &lossless.LinkPauseSample{Autoneg: ptr(false), RX: ptr(false), TX: ptr(false), RxFrames: ptr(uint64(0)), TxFrames: ptr(uint64(0)),
		Source: "ethtool netlink PAUSE_GET"}
	return s
}

// MLX is RoCE's sample with an mlx5 port's counters as the kernel shows
// them (NDK from infiniband_cm and the port counters, congestion from
// hw_counters, pauses from ethtool), with n steps of traffic added.
func MLX(at time.Time, n uint64) lossless.Sample {
	port := lossless.RDMAPortSample{Device: "mlx5_0", Port: 1}
	port.NDK[lossless.NDKConnect] = lossless.Reading{Value: 12, Source: "infiniband_cm/mlx5_0/1/cm_tx_msgs/rtu", Derived: true}
	port.NDK[lossless.NDKAccept] = lossless.Reading{Value: 3, Source: "infiniband_cm/mlx5_0/1/cm_rx_msgs/rtu", Derived: true}
	port.NDK[lossless.NDKConnectFailure] = lossless.Reading{Value: 0, Source: "infiniband_cm/mlx5_0/1/cm_rx_msgs/rej+cm_tx_msgs/rej", Derived: true}
	port.NDK[lossless.NDKRDMAInOctets] = Reading(4000+4000*n, "ports/1/counters/port_rcv_data x4")
	port.NDK[lossless.NDKRDMAOutOctets] = Reading(8000+8000*n, "ports/1/counters/port_xmit_data x4")
	port.NDK[lossless.NDKRDMAInFrames] = Reading(10+10*n, "ports/1/counters/port_rcv_packets")
	port.NDK[lossless.NDKRDMAOutFrames] = Reading(20+20*n, "ports/1/counters/port_xmit_packets")
	port.Congestion[lossless.CNPSent] = Reading(5, "ports/1/hw_counters/np_cnp_sent")
	port.Congestion[lossless.CNPHandled] = Reading(2, "ports/1/hw_counters/rp_cnp_handled")
	port.Congestion[lossless.CNPIgnored] = Reading(0, "ports/1/hw_counters/rp_cnp_ignored")
	port.Congestion[lossless.ECNMarked] = Reading(9, "ports/1/hw_counters/np_ecn_marked_roce_packets")
	port.Congestion[lossless.OutOfSequence] = Reading(0, "ports/1/hw_counters/out_of_sequence")
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool, StormWarning: Reading(0, "tx_pause_storm_warning_events"),
		StormError: Reading(0, "tx_pause_storm_error_events")}
	for p := range pfc.Priorities {
		pfc.Priorities[p].RxPause = Reading(0, fmt.Sprintf("rx_prio%d_pause", p))
		pfc.Priorities[p].TxPause = Reading(0, fmt.Sprintf("tx_prio%d_pause", p))
		pfc.Priorities[p].RxPauseDuration = Reading(0, fmt.Sprintf("rx_prio%d_pause_duration", p))
	}
	s := RoCE(at)
	s.RDMA, s.PFC = []lossless.RDMAPortSample{port}, pfc
	return s
}
