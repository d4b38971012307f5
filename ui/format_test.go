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
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, plural(tt.n, tt.word)); diff != "" {
			t.Errorf("plural(%d, %q) (-want +got):\n%s", tt.n, tt.word, diff)
		}
	}
}
