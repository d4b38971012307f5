// SPDX-License-Identifier: Apache-2.0

//go:build linux

package linkpause_test

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/linkpause"
	"github.com/dcbtop/dcbtop/testbed"
)

// checkNoPauseOps asserts the real kernel's answer for an interface whose
// driver has no pause operations (veth, lo): Unsupported, every setting
// Unknown and no counter, nothing reading as off or 0.
func checkNoPauseOps(t *testing.T, c *linkpause.Client, ifname string) {
	t.Helper()
	p, err := c.Get(ifname)
	if err != nil {
		t.Errorf("Get(%s): %v", ifname, err)
		return
	}
	want := &linkpause.Pause{Ifname: ifname, Source: p.Source, Unsupported: true, Reason: linkpause.ReasonNoPauseOps}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Get(%s) (-want +got):\n%s", ifname, diff)
	}
	t.Logf("%s: %+v", ifname, p)
	if p.Source != linkpause.SourceNetlink && p.Source != linkpause.SourceIoctl {
		t.Errorf("Get(%s): Source %q", ifname, p.Source)
	}
	s := p.Settings
	if s.Autoneg.Bool() != nil || s.RX.Bool() != nil || s.TX.Bool() != nil || s.Enabled() != linkpause.Unknown {
		t.Errorf("Get(%s): settings %+v read as known", ifname, s)
	}
	if p.Stats.TxFrames != nil || p.Stats.RxFrames != nil {
		t.Errorf("Get(%s): counters %+v, want none", ifname, p.Stats)
	}
}

// TestKernelLoopback asks this machine's kernel about lo, whose driver has
// no pause operations, and about an interface that does not exist.
// Reading needs no privilege.
func TestKernelLoopback(t *testing.T) {
	c, err := linkpause.Dial()
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	checkNoPauseOps(t, c, "lo")
	if p, err := c.Get("dcbtop-nodev0"); !errors.Is(err, os.ErrNotExist) || p != nil {
		t.Errorf("Get(dcbtop-nodev0) = %+v, %v; want os.ErrNotExist", p, err)
	} else if err.Error() != "dcbtop-nodev0: no such device" {
		t.Errorf("error %q", err)
	}
}

// TestVethKernel reads a real veth pair in a network namespace of its own,
// through a Client dialed there: a veth has no pause operations.
func TestVethKernel(t *testing.T) {
	testbed.RequirePriv(t)
	ns := testbed.NewNS(t, "pause")
	testbed.Veth(t, ns, "a0", ns, "b0")
	ns.Go(t, func() {
		c, err := linkpause.Dial()
		if err != nil {
			t.Errorf("Dial in %s: %v", ns.Name, err)
			return
		}
		defer c.Close()
		checkNoPauseOps(t, c, "a0")
		checkNoPauseOps(t, c, "b0")
		if _, err := c.Get("eth9"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Get(eth9) in %s: %v, want os.ErrNotExist", ns.Name, err)
		}
	})
}
