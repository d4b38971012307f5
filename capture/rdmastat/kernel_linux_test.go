// SPDX-License-Identifier: Apache-2.0

//go:build linux

package rdmastat

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestKernel talks to the running kernel. Without the RDMA subsystem, Dial
// must fail cleanly with ErrNoRDMA and a one-line message; with it, the
// device list must come back (empty on a host without RDMA devices), and
// every port of every device must be readable or fail with an *Error.
// Nothing here needs privileges or changes anything.
func TestKernel(t *testing.T) {
	c, err := Dial()
	if err != nil {
		if !errors.Is(err, ErrNoRDMA) {
			t.Fatalf("Dial: %v (want success or ErrNoRDMA)", err)
		}
		if _, ok := errors.AsType[*Error](err); !ok {
			t.Errorf("Dial error %T is not an *Error", err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "no RDMA subsystem") {
			t.Errorf("Dial error message %q", msg)
		}
		t.Logf("no RDMA subsystem here, as expected of a host without ib_core: %v", err)
		return
	}
	defer c.Close()

	devs, err := c.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if devs == nil {
		t.Errorf("Devices = nil, want a list (empty when there are no devices)")
	}
	t.Logf("%d RDMA devices: %+v", len(devs), devs)

	// A name that no kernel has, and one that cannot exist.
	if _, err := c.Port("dcbtop-no-such-dev0", 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Port(dcbtop-no-such-dev0) error = %v, want os.ErrNotExist", err)
	}
	if _, err := c.Port("a b", 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Port(\"a b\") error = %v, want os.ErrNotExist", err)
	}

	for _, d := range devs {
		for port := 1; port <= d.Ports; port++ {
			p, err := c.Port(d.Name, port)
			if err != nil {
				if _, ok := errors.AsType[*Error](err); !ok {
					t.Errorf("Port(%s, %d): error %T is not an *Error: %v", d.Name, port, err, err)
				}
				t.Logf("%s/%d: %v", d.Name, port, err)
				continue
			}
			checkPort(t, p)
			t.Logf("%s/%d: %d counters, status known %v (%s), disabled %v, skipped %v",
				d.Name, port, len(p.Counters), p.StatusKnown, p.StatusWhy, p.Disabled(), p.Skipped)
		}
		if _, err := c.Port(d.Name, d.Ports+1); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Port(%s, %d) error = %v, want os.ErrNotExist", d.Name, d.Ports+1, err)
		}
	}
}
