package session

import (
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
)

// The counters' PFC counts and the QoS facts of a sample come from one
// IEEE_GET: the run's sampler shares the reply (ieeeShare).
func TestIEEEShare(t *testing.T) {
	fake := kerneltest.NewFake()
	share := &ieeeShare{c: fake.Netlink(t), last: map[string]*dcbnl.IEEE{}}
	root := "../rdma/testdata/sysfs/mlx5"
	s := hostSampler{Sampler: counters.New(counters.Config{SysfsRoot: root, DCB: counters.DCBFrom(share)}), root: root, dcb: share}
	for i := range 2 {
		fake.Calls = nil
		ev := s.Sample("eth0", time.Now(), time.Second)
		if ev.QoS == nil || ev.QoS.Trust == nil || ev.QoS.PFCDelay == nil || ev.PFC == nil {
			t.Fatalf("sample %d: QoS %+v, PFC %+v; want both from DCB netlink", i, ev.QoS, ev.PFC)
		}
		if n := countOf(fake.Calls, "IEEE_GET"); n != 1 {
			t.Errorf("sample %d: %d IEEE_GET, want one shared by the PFC counts and the QoS facts (%q)", i, n, fake.Calls)
		}
	}
	if len(share.last) != 0 {
		t.Errorf("replies kept after their sample: %v", share.last)
	}
}
