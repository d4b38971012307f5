// SPDX-License-Identifier: Apache-2.0

// Package check judges a port's lossless readiness from its snapshot
// (engine.Interface): one verdict per check (dcbx-peer, pfc-agreement,
// roce-priority, ...; Names), OK, WARNING, CRITICAL or UNKNOWN, each with
// its evidence and a fix. `dcbtop check` prints them (Nagios exit codes,
// JSON, JUnit, node_exporter's textfile format).
//
// A check's verdict is never better than the diagnostics and RoCE path
// hops of its area (checkarea.go: every diagnostic code and every hop
// belongs to one check, which TestCheckAreas holds). A policy (ParsePolicy,
// PresetPolicy) states what a site expects beyond the standard: PFC
// priorities, APP entries, ETS shares, the Willing state, the trust, the
// RoCE and CNP markings.
//
// It reads only the snapshot and decides nothing the engine has not
// found: what is unknown there is UNKNOWN here, never OK.
package check
