// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"math"
	"testing"
)

// TestFmtCount: every uint64 fits in six cells with an SI prefix, so no
// column cuts a large counter into a smaller-looking number.
func TestFmtCount(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1.0k"}, {1234, "1.2k"}, {999_949, "999.9k"}, {999_950, "1.0M"},
		{3_400_000, "3.4M"}, {1e9, "1.0G"}, {1 << 40, "1.1T"}, {1 << 62, "4.6E"}, {math.MaxUint64, "18.4E"},
	}
	for _, tt := range tests {
		if got := fmtCount(tt.n); got != tt.want {
			t.Errorf("fmtCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for n := uint64(1); n != 0 && n < math.MaxUint64/3; n *= 3 {
		if got := fmtCount(n); len(got) > 6 {
			t.Errorf("fmtCount(%d) = %q: %d cells", n, got, len(got))
		}
	}
}
