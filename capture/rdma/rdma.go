// SPDX-License-Identifier: Apache-2.0

package rdma

import (
	"errors"
	"io/fs"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// A Value is one value read from a file. Source names the file (relative
// to the sysfs root) it was read from, or for a value that is not Known
// the file it would have come from; Why says, in one line, why it is not
// Known ("" when it is). V is the zero value unless Known: an unknown
// value is never a zero by accident.
type Value[T any] struct {
	V      T
	Known  bool
	Source string
	Why    string
}

func known[T any](v T, src string) Value[T] { return Value[T]{V: v, Known: true, Source: src} }

func unknown[T any](src, why string) Value[T] { return Value[T]{Source: src, Why: oneLine(why)} }

// A GIDType is the type of a GID table entry: how packets sent from it are
// encapsulated (drivers/infiniband/core/cache.c gid_type_str; enum
// ib_gid_type in include/rdma/ib_verbs.h).
type GIDType uint8

const (
	// GIDTypeUnknown: the type could not be read or is not one of the
	// kernel's names.
	GIDTypeUnknown GIDType = iota
	// GIDTypeIB: an InfiniBand port's GID ("IB/RoCE v1" on a port whose
	// link_layer is InfiniBand).
	GIDTypeIB
	// GIDTypeRoCEv1: RoCE v1, InfiniBand transport over Ethernet,
	// EtherType 0x8915, not routable ("IB/RoCE v1" on an Ethernet port;
	// IBTA Annex A16).
	GIDTypeRoCEv1
	// GIDTypeRoCEv2: RoCE v2, InfiniBand transport over UDP port 4791
	// over IPv4 or IPv6, routable ("RoCE v2"; IBTA Annex A17).
	GIDTypeRoCEv2
)

var gidTypeNames = [...]string{
	GIDTypeUnknown: "unknown",
	GIDTypeIB:      "IB",
	GIDTypeRoCEv1:  "RoCE v1",
	GIDTypeRoCEv2:  "RoCE v2",
}

// String returns "IB", "RoCE v1", "RoCE v2" or "unknown".
func (t GIDType) String() string {
	if int(t) < len(gidTypeNames) {
		return gidTypeNames[t]
	}
	return "GIDType(" + strconv.Itoa(int(t)) + ")"
}

// A GID is a non-empty entry of a port's GID table,
// class/infiniband/DEV/ports/P/gids/N with gid_attrs/types/N and
// gid_attrs/ndevs/N (drivers/infiniband/core/sysfs.c show_port_gid,
// print_gid_type, print_ndev).
type GID struct {
	// Index is N, the entry's index in the table: the sgid_index a
	// queue pair or address handle names.
	Index int
	// Addr is the GID; on RoCE it is an IP address of the netdev (an
	// IPv4 one as ::ffff:a.b.c.d) or the link-local address made from
	// its MAC address.
	Addr Value[netip.Addr]
	// IPv4 is the IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d),
	// the zero netip.Addr otherwise.
	IPv4 netip.Addr
	// Type is the entry's GID type (gid_attrs/types/N), resolved with
	// the port's link_layer when the kernel says "IB/RoCE v1".
	Type Value[GIDType]
	// Netdev is the network device the entry belongs to
	// (gid_attrs/ndevs/N): the netdev asked about, or another one such
	// as a VLAN or a bond on it.
	Netdev Value[string]
}

// A Port is the RoCE identity of one RDMA device port bound to a netdev
// (how a port is bound: BoundPorts).
type Port struct {
	// Device is the RDMA device, as under class/infiniband ("mlx5_0").
	Device string
	// Port is the port number.
	Port int
	// Netdev is the network device the port was looked up for.
	Netdev string
	// LinkLayer is ports/P/link_layer: "Ethernet" (RoCE), "InfiniBand"
	// or "Unknown" (drivers/infiniband/core/sysfs.c link_layer_show).
	LinkLayer Value[string]
	// GIDs is every entry of the GID table that is not all zero (the
	// kernel prints zeros for an unused entry), by index. An entry
	// whose GID cannot be read or parsed is kept, with Addr unknown.
	GIDs []GID
	// RoutableV2 is the index of the first entry that is RoCE v2, of
	// Netdev, and routable: IPv4-mapped or IPv6, and a global unicast
	// address (netip.Addr.IsGlobalUnicast: not link-local, loopback,
	// multicast or unspecified; private IPv4 and IPv6 ULA are routable
	// in a data center). Its Source is the entry's gids/N; when there is
	// none, Why says why (no GID, only RoCE v1, only link-local, ...).
	RoutableV2 Value[int]
	// DefaultToS is the ToS byte rdma_cm puts in the IP header of
	// connections it makes on this port when the application sets none
	// (configfs rdma_cm/DEV/ports/P/default_roce_tos;
	// drivers/infiniband/core/cma_configfs.c, used by cma.c
	// cma_resolve_iboe_route).
	DefaultToS Value[ToS]
	// DefaultMode is the GID type rdma_cm uses on this port, as the
	// kernel prints it: "RoCE v2" or "IB/RoCE v1" (configfs
	// rdma_cm/DEV/ports/P/default_roce_mode;
	// drivers/infiniband/core/cma_configfs.c default_roce_mode_show).
	DefaultMode Value[string]
	// Problems has one "path: problem" (relative to the sysfs root) per
	// directory that exists but could not be listed; the problems of
	// single values are in their Why.
	Problems []string
}

// A ToS is an IP header's Type of Service (IPv4) or Traffic Class (IPv6)
// octet: DSCP in its upper six bits (RFC 2474), ECN in the lower two
// (RFC 3168: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE).
type ToS struct {
	Byte uint8
	DSCP uint8
	ECN  uint8
}

// DecodeToS splits the octet b into its DSCP (b>>2) and ECN (b&3).
func DecodeToS(b uint8) ToS { return ToS{Byte: b, DSCP: b >> 2, ECN: b & 3} }

// configfsDir is the rdma_cm configfs directory, relative to the sysfs
// root: configfs is mounted on /sys/kernel/config, and rdma_cm registers
// its subsystem there (drivers/infiniband/core/cma_configfs.c
// cma_configfs_init).
const configfsDir = "kernel/config/rdma_cm"

// Read returns the RoCE identity of each RDMA device port bound to the
// netdev, read from fsys, the tree that stands for /sys, sorted by device and port; none, and no error, on a machine
// without RDMA devices. A value that cannot be read or parsed is unknown
// with its reason (Value.Why), never made up; the error is only for a
// netdev name that is not a possible interface name (then no port is
// read), or directories on the way to the ports that could not be read
// (then the ports found are returned with it).
func Read(fsys hostfs.FS, netdev string) ([]Port, error) {
	bound, problems, err := BoundPorts(fsys, netdev)
	if err != nil {
		return nil, err
	}
	r := &reader{fs: fsys}
	ports := make([]Port, 0, len(bound))
	for _, b := range bound {
		ports = append(ports, r.port(b, netdev))
	}
	if len(problems) > 0 {
		return ports, errors.New("finding the RDMA ports of " + netdev + ": " + oneLine(strings.Join(problems, "; ")))
	}
	return ports, nil
}

// A reader reads files under a sysfs root. Paths given to it are
// slash-separated and relative to the root; the names in them come from
// directory entries or from BoundPorts, which has validated
// the netdev name, so they stay under the root.
type reader struct {
	fs hostfs.FS
}

// read returns at most maxFileSize+1 bytes of the regular file at rel.
// Other kinds of files are never opened (a FIFO would block).
func (r *reader) read(rel string) ([]byte, error) {
	return r.fs.ReadFile(rel, maxFileSize)
}

// why says in one line why reading failed, without the machine's path.
func why(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "missing"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// value reads the file at rel and parses it with parse.
func value[T any](r *reader, rel string, parse func([]byte) (T, string)) Value[T] {
	b, err := r.read(rel)
	if err != nil {
		return unknown[T](rel, why(err))
	}
	v, problem := parse(b)
	if problem != "" {
		return unknown[T](rel, problem)
	}
	return known(v, rel)
}

func parseText(b []byte) (string, string) {
	s, problem := line(b)
	return string(s), problem
}

// indexes returns the numeric names in the directory at rel, in numeric
// order, and the problem when it exists but cannot be listed.
func (r *reader) indexes(rel string) ([]int, string) {
	entries, err := r.fs.ReadDir(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, rel + ": " + why(err)
	}
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e)
		if err != nil || n < 0 || strconv.Itoa(n) != e {
			continue // not a table index
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, ""
}

// port reads the identity of the port p, bound to netdev.
func (r *reader) port(p BoundPort, netdev string) Port {
	dir := "class/infiniband/" + p.Dev + "/ports/" + p.Name + "/"
	out := Port{Device: p.Dev, Port: p.Num, Netdev: netdev}
	out.LinkLayer = value(r, dir+"link_layer", parseText)
	idx, problem := r.indexes(dir + "gids")
	if problem != "" {
		out.Problems = append(out.Problems, oneLine(problem))
	}
	for _, n := range idx {
		if g, ok := r.gid(dir, n, out.LinkLayer); ok {
			out.GIDs = append(out.GIDs, g)
		}
	}
	out.RoutableV2 = routableV2(out.GIDs, netdev, dir)
	if problem != "" && !out.RoutableV2.Known {
		out.RoutableV2.Why = "GID table not readable"
	}
	out.DefaultToS, out.DefaultMode = r.configfs(p)
	return out
}

// gid reads GID table entry n of the port directory dir; false for an
// empty (all-zero) one.
func (r *reader) gid(dir string, n int, linkLayer Value[string]) (GID, bool) {
	i := strconv.Itoa(n)
	g := GID{Index: n, Addr: value(r, dir+"gids/"+i, parseGID)}
	if g.Addr.Known {
		if !g.Addr.V.IsValid() || g.Addr.V == netip.IPv6Unspecified() {
			return GID{}, false
		}
		if g.Addr.V.Is4In6() {
			g.IPv4 = g.Addr.V.Unmap()
		}
	}
	g.Type = gidType(value(r, dir+"gid_attrs/types/"+i, parseGIDTypeName), linkLayer)
	g.Netdev = value(r, dir+"gid_attrs/ndevs/"+i, parseText)
	return g, true
}

// gidType resolves the kernel's GID type name: "IB/RoCE v1" names both
// an InfiniBand GID and a RoCE v1 one, told apart by the port's link
// layer.
func gidType(name Value[string], linkLayer Value[string]) Value[GIDType] {
	if !name.Known {
		return unknown[GIDType](name.Source, name.Why)
	}
	switch name.V {
	case gidTypeNameRoCEv2:
		return known(GIDTypeRoCEv2, name.Source)
	case gidTypeNameIBRoCEv1:
		switch {
		case !linkLayer.Known:
			return unknown[GIDType](name.Source, gidTypeNameIBRoCEv1+" and the port's link_layer is unknown ("+linkLayer.Why+")")
		case linkLayer.V == "Ethernet":
			return known(GIDTypeRoCEv1, name.Source)
		case linkLayer.V == "InfiniBand":
			return known(GIDTypeIB, name.Source)
		}
		return unknown[GIDType](name.Source, gidTypeNameIBRoCEv1+" on link layer "+strconv.Quote(linkLayer.V))
	}
	return unknown[GIDType](name.Source, "unknown GID type "+strconv.Quote(name.V))
}

// routable reports whether a RoCE v2 GID can be routed: an IPv4-mapped
// or IPv6 global unicast address.
func routable(a netip.Addr) bool {
	return a.Unmap().IsGlobalUnicast()
}

// routableV2 finds the first routable RoCE v2 entry of netdev in gids
// (the entries of the port directory dir), or says why there is none.
func routableV2(gids []GID, netdev, dir string) Value[int] {
	var (
		v1, ib, unknownType                          int
		v2, other, unknownNetdev, badAddr, linkLocal int
	)
	for _, g := range gids {
		switch {
		case !g.Type.Known:
			unknownType++
			continue
		case g.Type.V == GIDTypeRoCEv1:
			v1++
			continue
		case g.Type.V == GIDTypeIB:
			ib++
			continue
		}
		v2++
		switch {
		case !g.Netdev.Known:
			unknownNetdev++
		case g.Netdev.V != netdev:
			other++
		case !g.Addr.Known:
			badAddr++
		case !routable(g.Addr.V):
			linkLocal++
		default:
			return known(g.Index, dir+"gids/"+strconv.Itoa(g.Index))
		}
	}
	if len(gids) == 0 {
		return unknown[int](dir+"gids", "no GID in the table")
	}
	if v2 == 0 {
		return unknown[int](dir+"gids", "no RoCE v2 GID ("+counts(
			count{v1, "RoCE v1"}, count{ib, "InfiniBand"}, count{unknownType, "of unknown type"})+")")
	}
	return unknown[int](dir+"gids", "no routable RoCE v2 GID of "+netdev+" (RoCE v2: "+counts(
		count{linkLocal, "link-local"}, count{other, "of other netdevs"},
		count{unknownNetdev, "of an unknown netdev"}, count{badAddr, "unreadable"})+")")
}

type count struct {
	n    int
	what string
}

// counts joins "N what" for each count whose N is not 0.
func counts(cs ...count) string {
	var out []string
	for _, c := range cs {
		if c.n > 0 {
			out = append(out, strconv.Itoa(c.n)+" "+c.what)
		}
	}
	return strings.Join(out, ", ")
}

// configfs reads the rdma_cm defaults of port p from configfs. Their
// directory rdma_cm/DEV exists only once someone made it (mkdir: the
// subsystem's make_group, drivers/infiniband/core/cma_configfs.c
// make_cma_dev, which creates ports/1..N with it); without it the
// defaults are unknown, never 0.
func (r *reader) configfs(p BoundPort) (Value[ToS], Value[string]) {
	dir := configfsDir + "/" + p.Dev + "/ports/" + p.Name + "/"
	tosRel, modeRel := dir+"default_roce_tos", dir+"default_roce_mode"
	var missing string
	switch {
	case !r.isDir(configfsDir):
		missing = "no " + configfsDir + " (configfs not mounted on /sys/kernel/config, or rdma_cm not loaded)"
	case !r.isDir(configfsDir + "/" + p.Dev):
		// cma.c cma_add_one starts every port at ToS 0 and the GID
		// type it prefers, but a directory made, written and removed
		// again leaves what was written: the value is not known.
		missing = "not configured: no " + configfsDir + "/" + p.Dev + " (mkdir makes it); rdma_cm starts a port at ToS 0 and RoCE v2 if supported, but keeps what a since-removed one set"
	case !r.isDir(dir):
		missing = "no port " + p.Name + " in " + configfsDir + "/" + p.Dev
	}
	if missing != "" {
		return unknown[ToS](tosRel, missing), unknown[string](modeRel, missing)
	}
	return value(r, tosRel, parseToS), value(r, modeRel, parseGIDTypeName)
}

func (r *reader) isDir(rel string) bool {
	fi, err := r.fs.Stat(rel)
	return err == nil && fi.Dir
}

// oneLine escapes control characters (newlines in odd file names) so
// that s stays one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
