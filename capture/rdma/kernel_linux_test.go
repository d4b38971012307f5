// SPDX-License-Identifier: Apache-2.0

package rdma_test

import (
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"os"
	"testing"

	"github.com/dcbtop/dcbtop/capture/rdma"
)

// TestRealSysfs reads this machine's /sys for every interface: with no
// RDMA device, as on this project's build machines, no port and no
// error; with some, no error and a known link layer on each port found.
func TestRealSysfs(t *testing.T) {
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		t.Skipf("no sysfs here: %v", err)
	}
	_, statErr := os.Stat("/sys/class/infiniband")
	for _, e := range entries {
		for _, root := range []string{"", "/sys"} {
			ports, err := rdma.Read(hostfs.Dir(root), e.Name())
			if err != nil {
				t.Errorf("Read(%q, %s): %v", root, e.Name(), err)
			}
			if os.IsNotExist(statErr) && len(ports) != 0 {
				t.Errorf("Read(%q, %s) = %v without /sys/class/infiniband, want none", root, e.Name(), ports)
			}
			if ports == nil {
				t.Errorf("Read(%q, %s) = nil, want an empty slice", root, e.Name())
			}
			for _, p := range ports {
				if !p.LinkLayer.Known {
					t.Errorf("%s port %d: link_layer %s", p.Device, p.Port, p.LinkLayer.Why)
				}
			}
		}
	}
}
