// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/jsondoc"
	"github.com/dcbtop/dcbtop/engine/jsondoc/jsondoctest"
)

// TestParamsTooDeep: past jsondoc.MaxDepth a PARAMS document is refused
// with the place and the limit, and one at the limit's edge still parses
// up to its own errors.
func TestParamsTooDeep(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[[[[[[[[]]]]]]]]", "parameters JSON: line 1, column 1: want a PARAMS object, got an array"},
		{"[[[[[[[[[]]]]]]]]]", "parameters JSON: line 1, column 9: nested deeper than 8 levels (a PARAMS file or policy is at most 4)"},
		{"{\n  \"a\": [[[[[[[[[1]]]]]]]]]}", "parameters JSON: line 2, column 15: nested deeper than 8 levels (a PARAMS file or policy is at most 4)"},
	}
	for _, tt := range tests {
		_, err := ParseParams(strings.NewReader(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseParams(%s) = %v, want %s", tt.in, err, tt.want)
		}
		if strings.Contains(tt.want, "deeper") && !errors.Is(err, jsondoc.ErrTooDeep) {
			t.Errorf("ParseParams(%s): %v is not jsondoc.ErrTooDeep", tt.in, err)
		}
	}
}

// TestHostileParamsMemory: every hostile document up to the 1 MiB cap is
// refused with at most 8 MiB allocated in all (with the race detector
// on), far under the 20 MB above idle an agent may grow by. Before the
// depth check 40 KB of '[' took gigabytes.
func TestHostileParamsMemory(t *testing.T) {
	for name, in := range jsondoctest.HostileDocs(MaxParamsJSON) {
		if len(in) > MaxParamsJSON {
			t.Fatalf("%s: %d bytes, over the cap", name, len(in))
		}
		var err error
		jsondoctest.CheckAllocated(t, 8<<20, func() { _, err = ParseParams(bytes.NewReader(in)) })
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
