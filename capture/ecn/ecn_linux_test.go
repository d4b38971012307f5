// SPDX-License-Identifier: Apache-2.0

package ecn_test

import (
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/ecn"
)

// TestReadRealSys reads this machine's /sys. Whatever the interfaces, a
// source that is not there must read as unknown, never as off: with no
// Source, nothing is known and Why says why. On a machine without RoCE
// (the one this was written on: lo, ifb*, a virtio_net eth0) that is
// every interface.
func TestReadRealSys(t *testing.T) {
	if _, err := os.Stat("/sys/class/net/lo"); err != nil {
		t.Skip("no /sys/class/net/lo:", err)
	}
	lo := ecn.Read(hostfs.Dir("/sys"), "lo")
	want := ecn.Settings{Why: "class/net/lo has no device link: a virtual interface, without RDMA congestion control of its own"}
	if diff := cmp.Diff(want, lo); diff != "" {
		t.Errorf(`Read("/sys", "lo") (-want +got):\n%s`, diff)
	}
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		s := ecn.Read(hostfs.Dir("/sys"), e.Name())
		t.Logf("%s: %+v", e.Name(), s)
		if s.Source != "" {
			continue // a real source: its values are the NIC's
		}
		unknown := ecn.Settings{Why: s.Why, Hint: s.Hint, Problems: s.Problems}
		if diff := cmp.Diff(unknown, s); diff != "" {
			t.Errorf("%s: no source but values (-want +got):\n%s", e.Name(), diff)
		}
		if s.Why == "" {
			t.Errorf("%s: no source and no reason", e.Name())
		}
	}
}

// TestReadFIFO: a FIFO where a value file should be is refused at once,
// not waited on for a writer.
func TestReadFIFO(t *testing.T) {
	root := buildRoot(t, layout{fixture: "ofed", driver: "mlx5_core", edit: func(t *testing.T, root string) {
		p := filepath.Join(root, netDir, "ecn/roce_np/cnp_dscp")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}})
	done := make(chan ecn.Settings, 1)
	go func() { done <- ecn.Read(hostfs.Dir(root), "eth0") }()
	select {
	case got := <-done:
		if got.CNPDSCP != nil {
			t.Errorf("CNPDSCP = %d from a FIFO", *got.CNPDSCP)
		}
		if diff := cmp.Diff([]string{ofedDir + "/roce_np/cnp_dscp: not a regular file"}, got.Problems); diff != "" {
			t.Errorf("Problems (-want +got):\n%s", diff)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}
