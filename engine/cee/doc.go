// SPDX-License-Identifier: Apache-2.0

// Package cee is the CEE DCBX control state machine of one port: the
// sequence/acknowledgement handshake of the DCB Capability Exchange Protocol
// Base Specification v1.01, as lldpad implements it in dcb_protocol.c
// (run_control_protocol and the sync checks of run_feature_protocol; see
// docs/dcbx.md, "The CEE control handshake"). It decides the Control sub-TLV a host agent
// transmits (Oper_Version, Max_Version, SeqNo, AckNo) and when the PG, PFC
// and Application features count as acknowledged by the peer. A willing
// agent adopts a CEE peer's configuration for a feature only while Synced
// reports true for it; until then lldpad logs "Wait for Peer to synch:
// Peer AckNo 0, FeatureSeqNo 1" and leaves the operational configuration
// as it is.
//
// The package is pure: no I/O, no clock, no goroutines and no mutable
// package state. A Control is not safe for concurrent use.
//
// # Driving a Control
//
// The agent owns the frames and the timers; a Control only keeps the
// numbers:
//
//   - New, then LocalChange with every feature the host advertises: going
//     from nothing to an advertisement is a change. The first Control
//     sub-TLV then carries SeqNo 1.
//   - LocalChange whenever what the host advertises for a feature changes,
//     including when it stops advertising one.
//   - Received with the Control sub-TLV of every CEE LLDPDU from the peer
//     (nil when the CEE TLV had no Control sub-TLV, or had two: lldpad's
//     DUP_DCBX_TLV_CTRL, which acknowledges nothing either).
//   - Expired when the peer's information ages out (rxInfoAge) or another
//     peer (MSAP) takes its place.
//   - Sent for the Control sub-TLV of every CEE LLDPDU transmitted; when
//     LocalChange or Received returns true, transmit one now (lldpad's
//     somethingChangedLocal).
//   - While several peers are seen on the port (lldpad's TOO_MANY_NGHBRS)
//     the agent should not pass their Control sub-TLVs to Received: lldpad
//     then stops acknowledging and treats every feature TLV as absent.
//
// ChooseDialect picks between IEEE 802.1Qaz and CEE DCBX from what the
// peer sends (docs/dcbx.md, "The CEE control handshake", rule 6).
package cee
