// SPDX-License-Identifier: Apache-2.0

// Package lossless evaluates the lossless path of a port from the host's
// counter samples: the Sample the capture layer takes (RDMA NDK and
// congestion counters, per-priority PFC pauses, ECN/DCQCN settings, the
// NIC's trust and buffers, the RoCE identity, link-level PAUSE), the State
// that keeps the last two samples and a minute of pause history, the
// Counters a snapshot shows (rates included), the diagnostics of the
// counters and of the RoCE path, and the RoCE path itself, hop by hop
// (GID, ToS, trust, priority, TC, PFC, buffer, ETS, pauses, ECN; Paths),
// with where each driver lands RoCE traffic (docs/roce.md).
//
// The engine owns one State per port and hands it a Port: what the
// evaluation reads of the port's DCBX state. It is pure: no I/O, no clock.
package lossless
