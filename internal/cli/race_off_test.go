//go:build linux && !race

package cli

// raceEnabled: see race_on_test.go.
const raceEnabled = false
