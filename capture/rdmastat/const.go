// SPDX-License-Identifier: Apache-2.0

package rdmastat

import "github.com/mdlayher/netlink"

// The numbers of RDMA netlink that this package uses, with their C names.
// Each one is defined once here; const_test.go pins every value and, where
// linux-libc-dev is installed, cross-checks it against
// /usr/include/rdma/rdma_netlink.h and /usr/include/linux/netlink.h.
// golang.org/x/sys/unix has NETLINK_RDMA but none of the others.

// The netlink protocol and client (include/uapi/linux/netlink.h,
// include/uapi/rdma/rdma_netlink.h).
const (
	// NETLINK_RDMA is the netlink protocol of the RDMA subsystem
	// (linux/netlink.h), served by ib_core (drivers/infiniband/core/netlink.c
	// rdma_nl_init). Without ib_core, socket(2) fails with EPROTONOSUPPORT.
	NETLINK_RDMA = 20

	// RDMA_NL_NLDEV is the RDMA netlink client of the device interface
	// (rdma_netlink.h, the anonymous enum starting RDMA_NL_RDMA_CM = 1:
	// RDMA_CM 1, IWCM 2, RSVD 3, LS 4, NLDEV 5).
	RDMA_NL_NLDEV = 5

	// RDMA_NL_CLIENT_SHIFT is the shift of RDMA_NL_GET_TYPE(client, op),
	// defined in rdma_netlink.h as ((client << 10) + op): a message type
	// carries the client in bits 10-15 and the operation in bits 0-9.
	RDMA_NL_CLIENT_SHIFT = 10
)

// Commands of the device interface (rdma_netlink.h enum rdma_nldev_command),
// the op of RDMA_NL_GET_TYPE. Replies carry the type of their request
// (drivers/infiniband/core/nldev.c: nldev_get_dumpit,
// stat_get_doit_default_counter and nldev_stat_get_counter_status_doit all
// nlmsg_put RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, the same command)).
const (
	RDMA_NLDEV_CMD_GET             = 1  // devices: a dump gives one message per device
	RDMA_NLDEV_CMD_STAT_GET        = 17 // without RDMA_NLDEV_ATTR_STAT_RES: a port's hardware counters
	RDMA_NLDEV_CMD_STAT_GET_STATUS = 24 // every counter of a port, with its optional/enabled state (Linux 5.16+)
)

// Attributes (rdma_netlink.h enum rdma_nldev_attr, whose members are
// numbered implicitly from RDMA_NLDEV_ATTR_UNSPEC = 0; the header warns
// "don't change the order or add anything between, this is ABI!").
const (
	// RDMA_NLDEV_ATTR_PAD (= RDMA_NLDEV_ATTR_UNSPEC) pads a u64 to 8 bytes
	// on architectures without efficient unaligned access
	// (nla_put_u64_64bit with RDMA_NLDEV_ATTR_PAD in nldev.c); decoders
	// skip it like any unknown attribute.
	RDMA_NLDEV_ATTR_PAD                        = 0
	RDMA_NLDEV_ATTR_DEV_INDEX                  = 1  // u32
	RDMA_NLDEV_ATTR_DEV_NAME                   = 2  // NUL-terminated string
	RDMA_NLDEV_ATTR_PORT_INDEX                 = 3  // u32; in a GET reply, the number of ports
	RDMA_NLDEV_ATTR_STAT_HWCOUNTERS            = 80 // nest of RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY       = 81 // nest: one counter
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME  = 82 // NUL-terminated string
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE = 83 // u64, host byte order
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX       = 94 // u32: the counter's index in the port's rdma_hw_stats
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC     = 95 // u8: present only for an optional counter; 1 enabled, 0 disabled
)

// Kernel-internal values that shape what the replies hold
// (include/rdma/ib_verbs.h). They are never sent.
const (
	// IB_DEVICE_NAME_MAX is the size of an RDMA device name with its NUL:
	// names are at most 63 bytes.
	IB_DEVICE_NAME_MAX = 64

	// IB_STAT_FLAG_OPTIONAL marks a counter descriptor (struct
	// rdma_stat_desc .flags) as optional: it can be enabled and disabled
	// per port, and nldev_stat_get_counter_status_doit reports it with
	// RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC = !test_bit(i, is_disabled).
	// stat_get_doit_default_counter skips disabled counters altogether.
	IB_STAT_FLAG_OPTIONAL = 1 << 0
)

// The netlink message types of the three requests:
// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command).
const (
	typeGet           netlink.HeaderType = RDMA_NL_NLDEV<<RDMA_NL_CLIENT_SHIFT + RDMA_NLDEV_CMD_GET             // 0x1401
	typeStatGet       netlink.HeaderType = RDMA_NL_NLDEV<<RDMA_NL_CLIENT_SHIFT + RDMA_NLDEV_CMD_STAT_GET        // 0x1411
	typeStatGetStatus netlink.HeaderType = RDMA_NL_NLDEV<<RDMA_NL_CLIENT_SHIFT + RDMA_NLDEV_CMD_STAT_GET_STATUS // 0x1418
)

// Limits this package applies to what a reply holds.
const (
	// maxCounterName is the longest counter name accepted, in bytes
	// without the NUL. The kernel sets no limit (rdma_stat_desc.name is a
	// C string), but every driver's names are short identifiers.
	maxCounterName = 64
	// maxDeviceName is the longest device name, IB_DEVICE_NAME_MAX-1.
	maxDeviceName = IB_DEVICE_NAME_MAX - 1
)
