// SPDX-License-Identifier: Apache-2.0

package lossless_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/lossless/losslesstest"
)

// TestSameRoCE: a sample that changes nothing of the RoCE identity and
// link pause is the same, through a JSON round trip too; a changed link
// pause or GID is not.
func TestSameRoCE(t *testing.T) {
	c := &lossless.Counters{RoCE: losslesstest.RoCE(time.Time{}).RoCE, LinkPause: losslesstest.RoCE(time.Time{}).LinkPause}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back lossless.Counters
	if err := json.Unmarshal(b, &back); err != nil || !lossless.SameRoCE(&lossless.Sample{RoCE: back.RoCE, LinkPause: back.LinkPause}, &lossless.Sample{RoCE: c.RoCE, LinkPause: c.LinkPause}) {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	a, b2 := losslesstest.RoCE(time.Time{}), losslesstest.RoCE(time.Time{})
	if !lossless.SameRoCE(&a, &b2) {
		t.Error("equal samples differ")
	}
	b2.LinkPause.TX = bp(true)
	if lossless.SameRoCE(&a, &b2) {
		t.Error("a changed link pause is the same")
	}
	b2 = losslesstest.RoCE(time.Time{})
	b2.RoCE[0].GIDs[2].IPv4 = sp("192.168.10.12")
	if lossless.SameRoCE(&a, &b2) {
		t.Error("a changed GID is the same")
	}
}

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }
