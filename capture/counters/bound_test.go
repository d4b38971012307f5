package counters_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/counters"
)

// TestBoundRDMAPorts finds the fixtures' ports through the exported
// function the rdma package uses, and refuses a name that would climb
// out of the root.
func TestBoundRDMAPorts(t *testing.T) {
	for _, tc := range []struct {
		tree, ifname string
		want         []counters.RDMAPort
	}{
		{"mlx5", "mlx0", []counters.RDMAPort{{Dev: "mlx5_0", Name: "1", Num: 1}}},
		{"irdma", "ens1f0", []counters.RDMAPort{{Dev: "irdma0", Name: "1", Num: 1}}},
		{"nordma", "eth0", nil},
	} {
		got, problems, err := counters.BoundRDMAPorts(filepath.Join(fixtures, tc.tree), tc.ifname)
		if err != nil || len(problems) != 0 {
			t.Errorf("%s: problems %q, err %v", tc.tree, problems, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: BoundRDMAPorts(%s) (-want +got):\n%s", tc.tree, tc.ifname, diff)
		}
	}
	if got, _, err := counters.BoundRDMAPorts(fixtures, "../mlx5"); err == nil || got != nil {
		t.Errorf(`BoundRDMAPorts("../mlx5") = %v, %v; want an error`, got, err)
	}
}
