// SPDX-License-Identifier: Apache-2.0

package rdma_test

import (
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/rdma"
)

// countersFixtures are capture/counters' sysfs trees.
const countersFixtures = "../counters/testdata/sysfs"

// TestBoundPorts finds the ports of capture/counters' fixtures (the
// trees its sampler reads through BoundPorts too), and refuses a name
// that would climb out of the root.
func TestBoundPorts(t *testing.T) {
	for _, tc := range []struct {
		tree, ifname string
		want         []rdma.BoundPort
	}{
		{"mlx5", "mlx0", []rdma.BoundPort{{Dev: "mlx5_0", Name: "1", Num: 1}}},
		{"irdma", "ens1f0", []rdma.BoundPort{{Dev: "irdma0", Name: "1", Num: 1}}},
		{"nordma", "eth0", nil},
	} {
		got, problems, err := rdma.BoundPorts(hostfs.Dir(filepath.Join(countersFixtures, tc.tree)), tc.ifname)
		if err != nil || len(problems) != 0 {
			t.Errorf("%s: problems %q, err %v", tc.tree, problems, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: BoundPorts(%s) (-want +got):\n%s", tc.tree, tc.ifname, diff)
		}
	}
	if got, _, err := rdma.BoundPorts(hostfs.Dir(countersFixtures), "../mlx5"); err == nil || got != nil {
		t.Errorf(`BoundPorts("../mlx5") = %v, %v; want an error`, got, err)
	}
}
