// SPDX-License-Identifier: Apache-2.0

package pcap

import (
	"math"
	"testing"
	"time"
)

// TestNgTimeSaturates: timestamps and offsets at the ends of their ranges
// give years on the side they were on, so that the Reader's error says
// "before 0" for a large negative if_tsoffset (it once said "after 9999":
// the seconds wrapped).
func TestNgTimeSaturates(t *testing.T) {
	tests := []struct {
		name     string
		ts       uint64
		tsresol  byte
		tsoffset int64
		before0  bool // want a year before 0; else after 9999
	}{
		{"largest offset back", 0, 6, math.MinInt64, true},
		{"offset back past year 0", 1_000_000, 6, -70_000_000_000, true},
		{"largest stamp", math.MaxUint64, 0, 0, false},
		{"largest stamp and offset", math.MaxUint64, 0, math.MaxInt64, false},
		{"largest stamp, largest offset back", math.MaxUint64, 9, math.MinInt64, true},
	}
	for _, tt := range tests {
		got := ngTime(tt.ts, tt.tsresol, tt.tsoffset)
		if y := got.Year(); (tt.before0 && y >= 0) || (!tt.before0 && y <= 9999) {
			t.Errorf("%s: year %d", tt.name, y)
		}
	}
	if got, want := ngTime(1_700_000_000_123_456, 6, 0), time.Unix(1_700_000_000, 123_456_000).UTC(); !got.Equal(want) {
		t.Errorf("ordinary stamp: %v, want %v", got, want)
	}
}
