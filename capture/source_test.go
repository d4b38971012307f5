// SPDX-License-Identifier: Apache-2.0

package capture_test

import (
	"testing"

	"github.com/dcbtop/dcbtop/capture"
)

func TestDirectionString(t *testing.T) {
	tests := []struct {
		d    capture.Direction
		want string
	}{
		{capture.DirectionUnknown, "unknown"},
		{capture.DirectionIncoming, "in"},
		{capture.DirectionOutgoing, "out"},
		{capture.Direction(42), "unknown"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("Direction(%d).String() = %q, want %q", uint8(tt.d), got, tt.want)
		}
	}
}
