// SPDX-License-Identifier: Apache-2.0

//go:build linux && !race

package main

// raceEnabled: see race_on_test.go.
const raceEnabled = false
