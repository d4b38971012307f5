// SPDX-License-Identifier: Apache-2.0

// Package verdict is the vocabulary of lossless-readiness verdicts: the
// checks (Name, Names), their outcome (Verdict, in the Nagios plugin
// convention), and one check's result on one interface (Result) with
// the facts it was decided from (Fact) and the side its finding blames
// (Side).
//
// It decides nothing: engine/check judges an interface and says so in
// these words, and the engine's snapshot carries the results
// (engine.Interface.Checks), so that the screen, --json, /metrics and
// dcbtop check read one evaluation.
package verdict
