// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"slices"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
)

// The PFC counts and the QoS facts of a sample come from one IEEE_GET:
// the dcbnl source reads both from its reply.
func TestIEEEShare(t *testing.T) {
	fake := kerneltest.NewFake()
	root := "../rdma/testdata/sysfs/mlx5"
	s := counters.New(counters.Config{SysfsRoot: root, DCB: fake.Netlink(t)})
	for i := range 2 {
		fake.Calls = nil
		ev := s.Sample("eth0", time.Now(), time.Second)
		if ev.QoS == nil || ev.QoS.Trust == nil || ev.QoS.PFCDelay == nil || ev.PFC == nil {
			t.Fatalf("sample %d: QoS %+v, PFC %+v; want both from DCB netlink", i, ev.QoS, ev.PFC)
		}
		if n := slices.Index(fake.Calls, "IEEE_GET"); n < 0 || slices.Contains(fake.Calls[n+1:], "IEEE_GET") {
			t.Errorf("sample %d: calls %q, want one IEEE_GET shared by the PFC counts and the QoS facts", i, fake.Calls)
		}
	}
}
