// SPDX-License-Identifier: Apache-2.0

package rdma_test

import (
	"github.com/dcbtop/dcbtop/capture/hostfs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/rdma"
)

const fixtures = "testdata/sysfs"

func ok[T any](v T, src string) rdma.Value[T] {
	return rdma.Value[T]{V: v, Known: true, Source: src}
}

func bad[T any](src, why string) rdma.Value[T] {
	return rdma.Value[T]{Source: src, Why: why}
}

// gid is the entry n of the port directory dir (under class/infiniband/)
// whose files all read well.
func gid(dir string, n int, addr string, typ rdma.GIDType, netdev string) rdma.GID {
	dir = "class/infiniband/" + dir + "/"
	i := strconv.Itoa(n)
	a := netip.MustParseAddr(addr)
	g := rdma.GID{
		Index:  n,
		Addr:   ok(a, dir+"gids/"+i),
		Type:   ok(typ, dir+"gid_attrs/types/"+i),
		Netdev: ok(netdev, dir+"gid_attrs/ndevs/"+i),
	}
	if a.Is4In6() {
		g.IPv4 = a.Unmap()
	}
	return g
}

func cfg(dev string) (tos, mode string) {
	d := "kernel/config/rdma_cm/" + dev + "/ports/1/"
	return d + "default_roce_tos", d + "default_roce_mode"
}

// mlx5Port is the mlx5 fixture's port as read for netdev: the layout
// show_gids prints for a ConnectX port with an IPv4 address (link-local
// RoCE v1/v2 at 0/1, IPv4-mapped at 2/3), plus a VLAN's pair at 4/5.
func mlx5Port(netdev string, routable int) rdma.Port {
	const d = "mlx5_0/ports/1"
	tos, mode := cfg("mlx5_0")
	return rdma.Port{
		Device: "mlx5_0", Port: 1, Netdev: netdev,
		LinkLayer: ok("Ethernet", "class/infiniband/"+d+"/link_layer"),
		GIDs: []rdma.GID{
			gid(d, 0, "fe80::e42:a1ff:fe2b:3c4d", rdma.GIDTypeRoCEv1, "ens3f0np0"),
			gid(d, 1, "fe80::e42:a1ff:fe2b:3c4d", rdma.GIDTypeRoCEv2, "ens3f0np0"),
			gid(d, 2, "::ffff:192.168.10.11", rdma.GIDTypeRoCEv1, "ens3f0np0"),
			gid(d, 3, "::ffff:192.168.10.11", rdma.GIDTypeRoCEv2, "ens3f0np0"),
			gid(d, 4, "::ffff:10.100.0.11", rdma.GIDTypeRoCEv1, "ens3f0np0.100"),
			gid(d, 5, "::ffff:10.100.0.11", rdma.GIDTypeRoCEv2, "ens3f0np0.100"),
		},
		RoutableV2:  ok(routable, "class/infiniband/"+d+"/gids/"+strconv.Itoa(routable)),
		DefaultToS:  ok(rdma.ToS{Byte: 106, DSCP: 26, ECN: 2}, tos),
		DefaultMode: ok("RoCE v2", mode),
	}
}

const notConfigured = "not configured: no kernel/config/rdma_cm/bnxt_re0 (mkdir makes it); rdma_cm starts a port at ToS 0 and RoCE v2 if supported, but keeps what a since-removed one set"

func bnxtPort0() rdma.Port {
	const d = "bnxt_re0/ports/1"
	tos, mode := cfg("bnxt_re0")
	return rdma.Port{
		Device: "bnxt_re0", Port: 1, Netdev: "ens2f0np0",
		LinkLayer: ok("Ethernet", "class/infiniband/"+d+"/link_layer"),
		GIDs: []rdma.GID{
			gid(d, 0, "fe80::5e2b:e7ff:fe10:2030", rdma.GIDTypeRoCEv1, "ens2f0np0"),
			gid(d, 1, "fe80::5e2b:e7ff:fe10:2030", rdma.GIDTypeRoCEv2, "ens2f0np0"),
			gid(d, 2, "fd93:16d3:59b6:1::11", rdma.GIDTypeRoCEv1, "ens2f0np0"),
			gid(d, 3, "fd93:16d3:59b6:1::11", rdma.GIDTypeRoCEv2, "ens2f0np0"),
		},
		RoutableV2:  ok(3, "class/infiniband/"+d+"/gids/3"),
		DefaultToS:  bad[rdma.ToS](tos, notConfigured),
		DefaultMode: bad[string](mode, notConfigured),
	}
}

func bnxtPort1() rdma.Port {
	const d = "bnxt_re1/ports/1"
	tos, mode := cfg("bnxt_re1")
	return rdma.Port{
		Device: "bnxt_re1", Port: 1, Netdev: "ens2f1np1",
		LinkLayer: ok("Ethernet", "class/infiniband/"+d+"/link_layer"),
		GIDs: []rdma.GID{
			gid(d, 0, "fe80::5e2b:e7ff:fe10:2031", rdma.GIDTypeRoCEv1, "ens2f1np1"),
			gid(d, 1, "fe80::5e2b:e7ff:fe10:2031", rdma.GIDTypeRoCEv2, "ens2f1np1"),
		},
		RoutableV2:  bad[int]("class/infiniband/"+d+"/gids", "no routable RoCE v2 GID of ens2f1np1 (RoCE v2: 1 link-local)"),
		DefaultToS:  ok(rdma.ToS{}, tos), // configured, and 0: known, not unknown
		DefaultMode: ok("IB/RoCE v1", mode),
	}
}

// brokenPorts is the broken fixture as read: every bad file makes its
// value unknown with the reason, and nothing else.
func brokenPorts() []rdma.Port {
	const d = "class/infiniband/mlx5_1/ports/1/"
	tos, mode := cfg("mlx5_1")
	v1LinkLayer := "IB/RoCE v1 and the port's link_layer is unknown (missing)"
	g := func(n int, addr rdma.Value[netip.Addr], typ rdma.Value[rdma.GIDType], netdev rdma.Value[string]) rdma.GID {
		out := rdma.GID{Index: n, Addr: addr, Type: typ, Netdev: netdev}
		if addr.Known && addr.V.Is4In6() {
			out.IPv4 = addr.V.Unmap()
		}
		return out
	}
	src := func(kind string, n int) string {
		if kind == "gids" {
			return d + "gids/" + strconv.Itoa(n)
		}
		return d + "gid_attrs/" + kind + "/" + strconv.Itoa(n)
	}
	eth0 := func(n int) rdma.Value[string] { return ok("eth0", src("ndevs", n)) }
	return []rdma.Port{{
		Device: "mlx5_1", Port: 1, Netdev: "eth0",
		LinkLayer: bad[string](d+"link_layer", "missing"),
		GIDs: []rdma.GID{
			g(0, bad[netip.Addr](src("gids", 0), "not a GID: 7 bytes, want 39"),
				ok(rdma.GIDTypeRoCEv2, src("types", 0)), eth0(0)),
			g(1, bad[netip.Addr](src("gids", 1), `not a GID: "z" is not a hexadecimal digit`),
				bad[rdma.GIDType](src("types", 1), v1LinkLayer), eth0(1)),
			g(2, ok(netip.MustParseAddr("::ffff:10.0.0.1"), src("gids", 2)),
				bad[rdma.GIDType](src("types", 2), `unknown GID type "RoCE v3"`), eth0(2)),
			g(3, ok(netip.MustParseAddr("fe80::1"), src("gids", 3)),
				bad[rdma.GIDType](src("types", 3), v1LinkLayer), eth0(3)),
			g(4, ok(netip.MustParseAddr("::ffff:10.0.0.1"), src("gids", 4)),
				bad[rdma.GIDType](src("types", 4), "a directory, not a file"),
				bad[string](src("ndevs", 4), "missing")),
			g(5, ok(netip.MustParseAddr("2001:db8::5"), src("gids", 5)),
				ok(rdma.GIDTypeRoCEv2, src("types", 5)),
				bad[string](src("ndevs", 5), "not one line of text")),
			// 6 is all zeros without a newline: unused.
		},
		RoutableV2:  bad[int](d+"gids", "no routable RoCE v2 GID of eth0 (RoCE v2: 1 of an unknown netdev, 1 unreadable)"),
		DefaultToS:  bad[rdma.ToS](tos, "out of range 0..255"),
		DefaultMode: bad[string](mode, `unknown GID type "RoCE v3"`),
	}, {
		Device: "mlx5_1", Port: 2, Netdev: "eth0",
		LinkLayer:   ok("Ethernet", "class/infiniband/mlx5_1/ports/2/link_layer"),
		RoutableV2:  bad[int]("class/infiniband/mlx5_1/ports/2/gids", "GID table not readable"),
		DefaultToS:  bad[rdma.ToS]("kernel/config/rdma_cm/mlx5_1/ports/2/default_roce_tos", "no port 2 in kernel/config/rdma_cm/mlx5_1"),
		DefaultMode: bad[string]("kernel/config/rdma_cm/mlx5_1/ports/2/default_roce_mode", "no port 2 in kernel/config/rdma_cm/mlx5_1"),
		Problems:    []string{"class/infiniband/mlx5_1/ports/2/gids: not a directory"},
	}}
}

func TestReadFixtures(t *testing.T) {
	for _, tc := range []struct {
		tree, netdev string
		want         []rdma.Port
	}{
		{"mlx5", "ens3f0np0", []rdma.Port{mlx5Port("ens3f0np0", 3)}},
		{"mlx5", "ens3f0np0.100", []rdma.Port{mlx5Port("ens3f0np0.100", 5)}},
		{"bnxt_re", "ens2f0np0", []rdma.Port{bnxtPort0()}},
		{"bnxt_re", "ens2f1np1", []rdma.Port{bnxtPort1()}},
		{"broken", "eth0", brokenPorts()},
		{"mlx5", "eth9", []rdma.Port{}}, // no such netdev: no port
	} {
		got, err := rdma.Read(hostfs.Dir(filepath.Join(fixtures, tc.tree)), tc.netdev)
		if err != nil {
			t.Errorf("%s %s: %v", tc.tree, tc.netdev, err)
		}
		if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
			t.Errorf("Read(%s, %s) (-want +got):\n%s", tc.tree, tc.netdev, diff)
		}
	}
}

// TestReadSymlinks reads the mlx5 fixture laid out as sysfs lays it out:
// class/infiniband/mlx5_0 and class/net/* symbolic links into devices/,
// the RDMA device under mlx5_core's auxiliary device. The fixture itself
// has no links (nor the ':' of PCI names), which Go module zips cannot
// hold.
func TestReadSymlinks(t *testing.T) {
	root := t.TempDir()
	pci := "devices/pci0000:00/0000:00:02.0/0000:03:00.0"
	src := filepath.Join(fixtures, "mlx5")
	for from, to := range map[string]string{
		"class/infiniband/mlx5_0": pci + "/mlx5_core.rdma.0/infiniband/mlx5_0",
		"class/net/ens3f0np0":     pci + "/net/ens3f0np0",
		"class/net/ens3f0np0.100": "devices/virtual/net/ens3f0np0.100",
		"kernel/config/rdma_cm":   "kernel/config/rdma_cm",
	} {
		if err := os.CopyFS(filepath.Join(root, to), os.DirFS(filepath.Join(src, from))); err != nil {
			t.Fatal(err)
		}
		if from == to {
			continue
		}
		link := filepath.Join(root, from)
		rel, err := filepath.Rel(filepath.Dir(link), filepath.Join(root, to))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rdma.Read(hostfs.Dir(root), "ens3f0np0")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rdma.Port{mlx5Port("ens3f0np0", 3)}, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("Read over symlinks (-want +got):\n%s", diff)
	}
}

// TestReadInvalidName never splices a name that is not an interface name
// into a path.
func TestReadInvalidName(t *testing.T) {
	for _, name := range []string{"", "..", "../mlx5", "a/b", "eth0\n", "sixteen-bytes-xx"} {
		got, err := rdma.Read(hostfs.Dir(fixtures), name)
		if err == nil || got != nil {
			t.Errorf("Read(%q) = %v, %v; want no port and an error", name, got, err)
		}
	}
}

func TestGIDTypeString(t *testing.T) {
	for typ, want := range map[rdma.GIDType]string{
		rdma.GIDTypeUnknown: "unknown", rdma.GIDTypeIB: "IB", rdma.GIDTypeRoCEv1: "RoCE v1",
		rdma.GIDTypeRoCEv2: "RoCE v2", 9: "GIDType(9)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("GIDType(%d).String() = %q, want %q", typ, got, want)
		}
	}
}

func TestDecodeToS(t *testing.T) {
	for b, want := range map[uint8]rdma.ToS{
		0:   {},
		106: {Byte: 106, DSCP: 26, ECN: 2}, // DSCP 26 (AF31), ECT(0): the usual RoCE setting
		184: {Byte: 184, DSCP: 46},         // EF, Not-ECT
		255: {Byte: 255, DSCP: 63, ECN: 3},
	} {
		if diff := cmp.Diff(want, rdma.DecodeToS(b)); diff != "" {
			t.Errorf("DecodeToS(%d) (-want +got):\n%s", b, diff)
		}
	}
}
