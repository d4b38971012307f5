// SPDX-License-Identifier: Apache-2.0

package check

import (
	"errors"
	"testing"

	"github.com/dcbtop/dcbtop/engine/jsondoc"
	"github.com/dcbtop/dcbtop/engine/jsondoc/jsondoctest"
)

// TestPolicyTooDeep: past jsondoc.MaxDepth a policy is refused with the
// place and the limit.
func TestPolicyTooDeep(t *testing.T) {
	_, err := ParsePolicy([]byte("{\n\"pfc\": [[[[[[[[[3]]]]]]]]]}"))
	if !errors.Is(err, jsondoc.ErrTooDeep) || err.Error() != "policy: line 2, column 15: nested deeper than 8 levels (a PARAMS file or policy is at most 4)" {
		t.Errorf("too deep: %v", err)
	}
}

// TestHostilePolicyMemory: every hostile document of a megabyte is
// refused with at most 8 MiB allocated in all (with the race detector
// on).
func TestHostilePolicyMemory(t *testing.T) {
	for name, in := range jsondoctest.HostileDocs(1 << 20) {
		var err error
		jsondoctest.CheckAllocated(t, 8<<20, func() { _, err = ParsePolicy(in) })
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestPolicyOneSpelling: a number is a number (no base64 string for a
// list of priorities) and a priority key has one spelling.
func TestPolicyOneSpelling(t *testing.T) {
	for _, in := range []string{
		`{"pfc":{"enabled":"Aw=="}}`,
		`{"pfc":{"enabled":[-1]}}`,
		`{"pfc":{"enabled":["3"]}}`,
		`{"ets":{"min_bandwidth":{"03":50}}}`,
		`{"ets":{"min_bandwidth":{"+3":50}}}`,
		`{"ets":{"min_bandwidth":{" 3":50}}}`,
		`{"ets":{"min_bandwidth":{"8":50}}}`,
	} {
		if p, err := ParsePolicy([]byte(in)); err == nil {
			t.Errorf("ParsePolicy(%s) = %+v, want an error", in, p)
		}
	}
	p, err := ParsePolicy([]byte(`{"pfc":{"enabled":[3]},"ets":{"min_bandwidth":{"3":50}}}`))
	if err != nil || len(p.PFC.Enabled) != 1 || p.PFC.Enabled[0] != 3 || p.ETS.MinBandwidth["3"] != 50 {
		t.Errorf("ParsePolicy = %+v, %v", p, err)
	}
}
