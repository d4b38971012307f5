// SPDX-License-Identifier: Apache-2.0

package rdma

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// A BoundPort is an RDMA device port bound to a netdev: Dev is the
// device's directory under class/infiniband/, Name the port's directory
// under its ports/, Num its number.
type BoundPort struct {
	Dev, Name string
	Num       int
}

// BoundPorts returns the RDMA device ports bound to the interface ifname
// in fsys (the tree that stands for /sys), sorted by device and port: those whose GID table
// names it (class/infiniband/DEV/ports/P/gid_attrs/ndevs/N holding
// ifname; soft-RoCE rxe and devices on the auxiliary bus, as mlx5_ib and
// irdma are in current kernels, have no other link), and every port of a
// device listed in class/net/IFNAME/device/infiniband/ whose GID table
// names no netdev at all (InfiniBand, or a kernel without gid_attrs). A
// GID entry that cannot be read is an unused one: the kernel answers
// EINVAL for those (drivers/infiniband/core/sysfs.c print_ndev). It also
// returns one "path: problem" (relative to the root) per directory on the way
// that exists but could not be read. It fails only for a name that is not
// a possible interface name (ValidIfname), which is never spliced into a
// path.
func BoundPorts(fsys hostfs.FS, ifname string) ([]BoundPort, []string, error) {
	if !ValidIfname(ifname) {
		return nil, nil, errors.New("invalid interface name " + strconv.Quote(ifname))
	}
	f := &finder{reader: reader{fs: fsys}}
	return f.bindings(ifname), f.problems, nil
}

// ValidIfname reports whether name is a possible Linux interface name
// (the kernel's dev_valid_name, net/core/dev.c): 1-15 bytes, not "." or
// "..", without '/', ':', whitespace or NUL. Such a name can be spliced
// into a sysfs path without climbing out of it or naming another
// interface.
func ValidIfname(name string) bool {
	if name == "" || len(name) > 15 || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '/', ':', 0, ' ', '\t', '\n', '\v', '\f', '\r':
			return false
		}
	}
	return true
}

// A finder finds the ports bound to a netdev, collecting the problems it
// meets.
type finder struct {
	reader
	problems []string
}

// bindings returns the RDMA device ports bound to ifname, sorted by
// device and port (see BoundPorts).
func (f *finder) bindings(ifname string) []BoundPort {
	linked := f.list("class/net/" + ifname + "/device/infiniband")
	var out []BoundPort
	for _, dev := range f.list("class/infiniband") {
		var all, named []BoundPort
		hasNdevs := false
		for _, name := range f.list("class/infiniband/" + dev + "/ports") {
			num, err := strconv.Atoi(name)
			if err != nil || num < 0 {
				continue // not a port
			}
			p := BoundPort{Dev: dev, Name: name, Num: num}
			all = append(all, p)
			dir := "class/infiniband/" + dev + "/ports/" + name + "/gid_attrs/ndevs"
			for _, gid := range f.list(dir) {
				nd := f.ndev(dir + "/" + gid)
				if nd == "" {
					continue
				}
				hasNdevs = true
				if nd == ifname {
					named = append(named, p)
					break
				}
			}
		}
		switch {
		case len(named) > 0:
			out = append(out, named...)
		case !hasNdevs && slices.Contains(linked, dev):
			out = append(out, all...)
		}
	}
	slices.SortFunc(out, func(a, b BoundPort) int {
		if c := strings.Compare(a.Dev, b.Dev); c != 0 {
			return c
		}
		return a.Num - b.Num
	})
	return out
}

// list returns the names in the directory at rel, sorted; none when it
// does not exist (a failure to read it otherwise is a problem).
func (f *finder) list(rel string) []string {
	names, err := f.fs.ReadDir(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.problems = append(f.problems, rel+": "+why(err))
	}
	return names
}

// ndev returns the netdev name in a gid_attrs/ndevs file, "" when it has
// none. The kernel answers EINVAL for a GID table entry that is not in
// use, so any failure just means no name.
func (f *finder) ndev(rel string) string {
	b, err := f.read(rel)
	if err != nil || len(b) > maxFileSize {
		return ""
	}
	return strings.TrimSpace(string(b))
}
