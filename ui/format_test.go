// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlural(t *testing.T) {
	tests := []struct {
		n    int
		word string
		want string
	}{
		{0, "entry", "0 entries"},
		{1, "entry", "1 entry"},
		{12, "entry", "12 entries"},
		{1, "error", "1 error"},
		{2, "error", "2 errors"},
		{0, "peer", "0 peers"},
		{6, "quiet priority", "6 quiet priorities"},
		{2, "key", "2 keys"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, plural(tt.n, tt.word)); diff != "" {
			t.Errorf("plural(%d, %q) (-want +got):\n%s", tt.n, tt.word, diff)
		}
	}
}

func TestFmtRateMicrosInterval(t *testing.T) {
	rates := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {-3, "0"}, {0.04, "0.0"}, {0.5, "0.5"}, {2, "2.0"}, {9.96, "10.0"}, {10, "10"}, {66.7, "67"},
		{999.4, "999"}, {1234.5, "1.2k"}, {3.4e6, "3.4M"}, {5e9, "5.0G"},
	}
	for _, tt := range rates {
		if diff := cmp.Diff(tt.want, fmtRate(tt.v)); diff != "" {
			t.Errorf("fmtRate(%g) (-want +got):\n%s", tt.v, diff)
		}
	}
	micros := []struct {
		us   uint64
		want string
	}{
		{0, "0µs"}, {800, "800µs"}, {999, "999µs"}, {1000, "1.0ms"}, {2500, "2.5ms"}, {999_949, "999.9ms"},
		{999_950, "1.0s"}, {12_300_000, "12.3s"}, {59_949_999, "59.9s"}, {59_950_000, "60s"}, {725_000_000, "12m05s"}, {725_600_000, "12m06s"},
	}
	for _, tt := range micros {
		if diff := cmp.Diff(tt.want, fmtMicros(tt.us)); diff != "" {
			t.Errorf("fmtMicros(%d) (-want +got):\n%s", tt.us, diff)
		}
	}
	intervals := []struct {
		ms   int64
		want string
	}{
		{0, "0ms"}, {250, "250ms"}, {1000, "1s"}, {1500, "1s"}, {90_000, "90s"}, {900_000, "15m00s"},
	}
	for _, tt := range intervals {
		if diff := cmp.Diff(tt.want, fmtInterval(tt.ms)); diff != "" {
			t.Errorf("fmtInterval(%d) (-want +got):\n%s", tt.ms, diff)
		}
	}
}
