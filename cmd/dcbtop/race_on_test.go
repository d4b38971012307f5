// SPDX-License-Identifier: Apache-2.0

//go:build linux && race

package main

// raceEnabled makes TestMain build the dcbtop binary with -race too, so the
// live mode's goroutines are checked when they run as a real process.
const raceEnabled = true
