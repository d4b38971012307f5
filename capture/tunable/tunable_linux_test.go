// SPDX-License-Identifier: Apache-2.0

//go:build linux

package tunable

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// The kernel answers ETHTOOL_GTUNABLE of a driver without get_tunable
// (loopback) with EOPNOTSUPP, said as the interface having no timeout,
// and an interface that does not exist with ENODEV; STUNABLE is refused
// the same way (or with EPERM without CAP_NET_ADMIN). The real driver's
// answers are held in the real-kernel guest (testbed/realkernel
// TestPFCStormTimeout, against ethtool --get-tunable).
func TestErrors(t *testing.T) {
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.PFCStormTimeout("lo")
	if !errors.Is(err, ErrNoTunable) || !errors.Is(err, syscall.EOPNOTSUPP) || err.Error() != "lo has no PFC storm prevention timeout (the driver has no ethtool tunable pfc-prevention-tout)" {
		t.Errorf("lo: %v", err)
	}
	if err := c.SetPFCStormTimeout("lo", 100); !errors.Is(err, ErrNoTunable) && !errors.Is(err, syscall.EPERM) {
		t.Errorf("set on lo: %v", err)
	}
	for _, name := range []string{"nosuch0", "", strings.Repeat("x", 16)} {
		if _, err := c.PFCStormTimeout(name); !errors.Is(err, syscall.ENODEV) || errors.Is(err, ErrNoTunable) {
			t.Errorf("%q: %v", name, err)
		}
	}
}
