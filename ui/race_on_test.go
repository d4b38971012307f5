// SPDX-License-Identifier: Apache-2.0

//go:build race

package ui

// raceEnabled: the tests run under the race detector, which makes the
// renderer seven times slower and finds nothing in a single-goroutine
// render.
const raceEnabled = true
