// SPDX-License-Identifier: Apache-2.0

// Package frames keeps every LLDPDU of a run: a bounded ring of records,
// each with its time, interface, direction, source and destination
// addresses, its bytes and what changed against the previous LLDPDU of
// the same sender, in words ("first from this sender", "identical", "TTL
// 120 → 0 (shutdown)", "PFC enabled 3 → 3,4", "System Name leaf1 →
// leaf2"). A replay lists a capture's frames with it (dcbtop -r FILE
// --frames) and a live run keeps the last ones for the screen's frames
// view, as tshark lists every frame of a capture where the screen's hex
// view shows each peer's last LLDPDU only.
//
// A sender is one LLDP agent as a receiver tells agents apart (IEEE Std
// 802.1AB-2016, 7.1 and 9.2.7.7.2): the interface the frame came on, its
// source MAC and its destination group address (the agent's scope). The
// sender table is bounded (Limits.Senders): the one heard least recently
// is forgotten for a new one, whose next LLDPDU is then "first from this
// sender" again.
//
// The ring is bounded in count (Limits.Records) and in the bytes of the
// LLDPDUs it holds (Limits.Bytes); the oldest records go first. A record
// of an LLDPDU identical to its sender's previous one shares that one's
// bytes and a constant list of changes: adding it does not allocate
// (TestAddIdenticalNoAlloc), as the engine does not allocate for an
// LLDPDU identical to the peer's last.
//
// What changed is decoded with the engine's codec (engine/lldp) and the
// DCBX parameters compared as engine/dcb compares them (dcb.Params.Changes).
// Strings from the wire stay as sent in a Record; the text renderings
// (Record.Line, DetailLines) sanitize them (engine.Sanitize) and the JSON
// document (Record.Doc) is written escaped (engine.MarshalOutput).
//
// The package is pure: no I/O, no clock, no goroutines. It is not safe
// for concurrent use; a run that shares a Ring with the screen guards it.
package frames
