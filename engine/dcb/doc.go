// SPDX-License-Identifier: Apache-2.0

// Package dcb is the vocabulary of Data Center Bridging parameters as an
// operator and the engine see them: ETS (IEEE Std 802.1Q-2018 D.2.9),
// its recommendation, PFC (D.2.11), the Application Priority table
// (D.2.12) and CEE's features; their rules (Params.Validate, the codec's
// rules applied to what dcbtop sends or writes); the PARAMS JSON form
// (ParseParams: every problem at its line and column; AppendJSON: written
// without reflection); what changed between two sets (Changes, Diff); and
// the Willing resolver that decides the operational parameters (Resolve:
// IEEE 802.1Q-2018 38.3 and lldpad's machines, docs/dcbx.md "The Willing
// resolver").
//
// It is pure: no I/O, no clock.
package dcb
