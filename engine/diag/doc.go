// SPDX-License-Identifier: Apache-2.0

// Package diag is the catalogue of what dcbtop can find wrong: the
// Diagnostic type, its Severity, every Code (a stable kebab-case
// identifier for scripts, alerts and the JSON contract), and for each code
// the rule it rests on (Rule: the standard clause, the Microsoft document,
// the kernel or driver source, or the design decision, as docs/dcbx.md's
// tables cite them).
//
// It decides nothing: the engine raises diagnostics from its per-port
// state, engine/dcb from the parameters an operator writes, and the codec
// (engine/lldp) reports findings that FromFinding turns into diagnostics.
// A new code is added here, with its rule; TestCheckAreas in engine/check
// then asks which check it belongs to.
package diag
