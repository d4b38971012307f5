// SPDX-License-Identifier: Apache-2.0

package counters_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/testbed"
)

// realSources opens the real ethtool and dcbnl of the calling thread's
// network namespace; report is t.Fatalf or t.Errorf.
func realSources(report func(string, ...any)) (counters.Config, func()) {
	cfg := counters.Config{SysfsRoot: "/sys"}
	et, err := counters.OpenEthtool()
	if err != nil {
		report("OpenEthtool: %v", err)
		return cfg, func() {}
	}
	c, err := dcbnl.Dial()
	if err != nil {
		et.Close()
		report("dcbnl.Dial: %v", err)
		return cfg, func() {}
	}
	cfg.Ethtool, cfg.DCB = et, c
	return cfg, func() { et.Close(); c.Close() }
}

// TestRealSysfsLoopback samples lo on this machine's /sys, with the real
// ethtool and dcbnl: lo has no RDMA device, no pause counters (ethtool
// answers EOPNOTSUPP, dcbnl that it has no DCB) and no ECN settings, and
// none of that is an error or a zero.
func TestRealSysfsLoopback(t *testing.T) {
	if _, err := os.Stat("/sys/class/net/lo"); err != nil {
		t.Fatalf("no sysfs here: %v", err)
	}
	cfg, done := realSources(t.Fatalf)
	defer done()
	want := engine.CountersSampled{Interface: "lo", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		RoCE: []lossless.RoCEPortSample{}}
	for _, c := range []counters.Config{cfg, {}} { // {}: the default root, no ethtool, no dcbnl
		got := counters.New(c).Sample("lo", t0, time.Second)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Sample(lo) with root %q (-want +got):\n%s", c.SysfsRoot, diff)
		}
		if got.RDMA == nil {
			t.Error("RDMA is nil, want an empty slice")
		}
	}
}

// TestRealSysfsEveryInterface samples every interface /sys lists: no
// error, whatever they are.
func TestRealSysfsEveryInterface(t *testing.T) {
	cfg, done := realSources(t.Fatalf)
	defer done()
	s := counters.New(cfg)
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got := s.Sample(e.Name(), t0, time.Second)
		if len(got.Errors) != 0 || got.RDMA == nil {
			t.Errorf("Sample(%q): errors %q, RDMA %v", e.Name(), got.Errors, got.RDMA)
		}
	}
}

// TestFIFONeverOpened puts a FIFO where a counter should be: opening it
// would block; it is reported instead.
func TestFIFONeverOpened(t *testing.T) {
	root := copyFixture(t, "mlx5")
	const rcv = mlxPort + "counters/port_rcv_data"
	must(t, os.Remove(filepath.Join(root, rcv)))
	must(t, syscall.Mkfifo(filepath.Join(root, rcv), 0o644))
	got := sysfsOnly(root).Sample("mlx0", t0, time.Second)
	if want := rcv + ": not a regular file"; sysfsErr(t, got) != want {
		t.Errorf("Err %q, want %q", sysfsErr(t, got), want)
	}
	if len(got.RDMA) != 1 || got.RDMA[0].NDK[lossless.NDKRDMAInOctets].OK() {
		t.Errorf("RDMA %+v, want rdma_in_octets missing", got.RDMA)
	}
}

// TestVethKernel reads a real veth's statistics through the library in a
// network namespace of its own: the driver is veth, its peer_ifindex is
// the peer's ifindex, and a veth has neither pause counters (no table
// matches, dcbnl says it has no DCB) nor RDMA.
func TestVethKernel(t *testing.T) {
	testbed.RequirePriv(t)
	ns := testbed.NewNS(t, "cnt")
	testbed.Veth(t, ns, "a0", ns, "b0")
	ns.Go(t, func() {
		cfg, done := realSources(t.Errorf)
		defer done()
		if cfg.Ethtool == nil || cfg.DCB == nil {
			return
		}
		drv, err := cfg.Ethtool.DriverName("a0")
		if err != nil || drv != "veth" {
			t.Errorf("DriverName(a0) = %q, %v; want veth", drv, err)
		}
		stats, err := cfg.Ethtool.Stats("a0")
		if err != nil {
			t.Errorf("Stats(a0): %v", err)
		}
		peer, err := net.InterfaceByName("b0")
		if err != nil {
			t.Errorf("b0: %v", err)
			return
		}
		if v, ok := stats["peer_ifindex"]; !ok || v != uint64(peer.Index) {
			t.Errorf("peer_ifindex = %d (present %v), want b0's ifindex %d; stats %v", v, ok, peer.Index, stats)
		}
		if _, err := cfg.DCB.IEEE("a0"); !errors.Is(err, dcbnl.ErrNoDCB) {
			t.Errorf("IEEE(a0) error %v, want one matching dcbnl.ErrNoDCB", err)
		}
		got := counters.New(cfg).Sample("a0", t0, time.Second)
		want := engine.CountersSampled{Interface: "a0", At: t0, Interval: time.Second, RDMA: []lossless.RDMAPortSample{}, Driver: "veth",
			RoCE: []lossless.RoCEPortSample{}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Sample(a0) (-want +got):\n%s", diff)
		}
	})
}

// ieeeReply is the DCB_CMD_IEEE_GET reply for eth0 with pfc (none when
// nil), laid out as dcbnl_ieee_fill does: struct dcbmsg, DCB_ATTR_IFNAME,
// the DCB_ATTR_IEEE nest.
func ieeeReply(t *testing.T, pfc *dcbnl.PFC) []byte {
	t.Helper()
	ae := netlink.NewAttributeEncoder()
	ae.String(dcbnl.DCB_ATTR_IFNAME, "eth0")
	ae.Nested(dcbnl.DCB_ATTR_IEEE, func(nae *netlink.AttributeEncoder) error {
		if pfc != nil {
			b, err := pfc.MarshalBinary()
			nae.Bytes(dcbnl.DCB_ATTR_IEEE_PFC, b)
			return err
		}
		return nil
	})
	b, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{syscall.AF_UNSPEC, dcbnl.DCB_CMD_IEEE_GET, 0, 0}, b...)
}

// TestDCBNLSource runs the dcbnl source over a dcbnl client talking to a
// fake kernel: one IEEE_GET a sample, dcbnl's PFC counts (none without
// an ieee_pfc in the reply) and the QoS of the same reply (none without
// DCB).
func TestDCBNLSource(t *testing.T) {
	pfc := &dcbnl.PFC{Cap: 8, Enabled: 1 << 3, Requests: [8]uint64{3: 70, 7: ^uint64(0)}, Indications: [8]uint64{0: 1, 3: 80}}
	tests := []struct {
		name     string
		data     []byte
		errno    syscall.Errno
		req, ind [8]uint64
		noPFC    bool
		noQoS    bool
	}{
		{"PFC", ieeeReply(t, pfc), 0, pfc.Requests, pfc.Indications, false, false},
		{"no PFC in the reply", ieeeReply(t, nil), 0, [8]uint64{}, [8]uint64{}, true, false},
		{"no DCB", nil, syscall.EOPNOTSUPP, [8]uint64{}, [8]uint64{}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requests := 0
			conn := nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
				requests++
				if tt.errno != 0 {
					return nltest.Error(int(tt.errno), reqs)
				}
				return []netlink.Message{{
					Header: netlink.Header{Type: dcbnl.RTM_GETDCB, Flags: reqs[0].Header.Flags,
						Sequence: reqs[0].Header.Sequence, PID: nltest.PID},
					Data: tt.data,
				}}, nil
			})
			c := dcbnl.NewClient(conn)
			defer c.Close()
			got := counters.Compose(counters.DCBNLSource(c)).Sample("eth0", t0, time.Second)
			var want *lossless.PFCSample
			if !tt.noPFC {
				want = dcbWant(tt.req, tt.ind)
			}
			if diff := cmp.Diff(want, got.PFC); diff != "" {
				t.Errorf("PFC (-want +got):\n%s", diff)
			}
			if (got.QoS == nil) != tt.noQoS {
				t.Errorf("QoS %+v, want none: %v", got.QoS, tt.noQoS)
			}
			if requests != 1 || len(got.Errors) != 0 {
				t.Errorf("%d requests, errors %q: want one IEEE_GET, and no error (most interfaces have no DCB)", requests, got.Errors)
			}
		})
	}
}
