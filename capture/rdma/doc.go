// SPDX-License-Identifier: Apache-2.0

// Package rdma reads the RoCE identity of the RDMA device ports bound to a
// netdev on Linux: each port's GID table (which addresses it sends from,
// as RoCE v1 or RoCE v2), the first routable RoCE v2 GID of the netdev,
// and the ToS byte and GID type rdma_cm uses by default. It reads files,
// and maps a port onto the engine's sample (lossless.RoCEPortSample,
// sample.go), which capture/counters' RoCE source puts in each sample;
// it writes only rdma_cm's default ToS, and only when asked (Writing,
// below).
//
// Files are read under a sysfs root, "/sys" unless the caller says
// otherwise (the command takes it from DCBTOP_SYSFS_ROOT,
// counters.EnvSysfsRoot, which then stands for all of /sys, configfs on
// /sys/kernel/config included), and every Source and path in a problem is
// relative to it. The ports are those bound to the netdev (BoundPorts:
// the ports whose GID table names it, else every port of its device
// whose GID table names no netdev), which capture/counters samples too.
// For each port, under
// class/infiniband/DEV/ports/P/ (drivers/infiniband/core/sysfs.c):
//
//	file                   holds                                  kernel
//	link_layer             "Ethernet", "InfiniBand" or "Unknown"  link_layer_show
//	gids/N                 "%pI6": fe80:0000:0000:0000:0e42:...   show_port_gid (zeros when unused)
//	gid_attrs/types/N      "IB/RoCE v1" or "RoCE v2"              print_gid_type (cache.c gid_type_str)
//	gid_attrs/ndevs/N      the netdev's name                      print_ndev (EINVAL when unused)
//
// and in configfs, kernel/config/rdma_cm/DEV/ports/P/
// (drivers/infiniband/core/cma_configfs.c):
//
//	default_roce_tos       the ToS byte, "%u"                     default_roce_tos_show
//	default_roce_mode      "IB/RoCE v1" or "RoCE v2"              default_roce_mode_show
//
// Every file ends with a newline. A GID entry that is all zeros is an
// unused one and is left out; its types and ndevs files are not read.
// The kernel prints "IB/RoCE v1" for both an InfiniBand GID and a RoCE v1
// one; the port's link_layer tells which.
//
// rdma_cm/DEV exists only after `mkdir /sys/kernel/config/rdma_cm/DEV`
// (cma_configfs.c make_cma_dev, which makes ports/1..N with it). Until
// then the defaults are unknown, not 0: rdma_cm starts every port at ToS
// 0 (cma.c cma_add_one), but a directory made, written and removed again
// leaves the value written, and an application may set its own ToS
// (rdma_set_option RDMA_OPTION_ID_TOS) either way.
//
// A value that cannot be read, or is not what the kernel prints (a GID of
// the wrong length or not hexadecimal, an unknown type name, a ToS out of
// 0..255), is unknown, with a one-line reason in Value.Why; nothing is
// ever a zero by accident, and no input panics.
//
// # Writing
//
// SetDefaultToS sets a port's default_roce_tos through a WriteFS
// (DirWriter on the host: a hostfs.FS that can also Mkdir and WriteFile
// an existing file, under the same root). When rdma_cm/DEV does not
// exist it makes it, as `mkdir` would (make_cma_dev: ENODEV for a name
// that is not an RDMA device; the kernel makes ports/1..N), and leaves
// it. It reads the value in force before (the value is the device's, so
// a directory just made shows it), writes the decimal value
// (default_roce_tos_store, kstrtou8: EINVAL otherwise) and reads it
// back. The new ToS applies to connections rdma_cm makes from then on.
// UndoDefaultToS writes back the value read before, and refuses when it
// was not known; neither ever removes a directory, which would restore
// nothing.
//
// RoCE v2 is InfiniBand transport over UDP (port 4791) over IP, IBTA
// Annex A17; its GIDs are the netdev's IP addresses, IPv4 ones mapped as
// ::ffff:a.b.c.d. RoCE v1 (Annex A16) is not routable.
package rdma
