// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/dcbtop/dcbtop/capture/nlclient/nlfixture"
)

// constants lists every constant of const.go that a UAPI header defines,
// by its C name, with the value the kernel's headers give it.
var constants = []struct {
	name      string
	got, want int
	header    string // where it is defined
}{
	{"NETLINK_RDMA", NETLINK_RDMA, 20, "linux/netlink.h"},
	{"RDMA_NL_NLDEV", RDMA_NL_NLDEV, 5, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_GET", RDMA_NLDEV_CMD_GET, 1, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_STAT_GET", RDMA_NLDEV_CMD_STAT_GET, 17, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_STAT_GET_STATUS", RDMA_NLDEV_CMD_STAT_GET_STATUS, 24, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_PAD", RDMA_NLDEV_ATTR_PAD, 0, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_DEV_INDEX", RDMA_NLDEV_ATTR_DEV_INDEX, 1, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_DEV_NAME", RDMA_NLDEV_ATTR_DEV_NAME, 2, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_PORT_INDEX", RDMA_NLDEV_ATTR_PORT_INDEX, 3, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTERS", RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 80, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, 81, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 82, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 83, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 94, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 95, "rdma/rdma_netlink.h"},
}

// headerConstants returns constants for nlfixture.
func headerConstants() []nlfixture.Constant {
	var out []nlfixture.Constant
	for _, c := range constants {
		out = append(out, nlfixture.Constant{Name: c.name, Got: c.got, Want: c.want, Header: c.header})
	}
	return out
}

// TestConstants pins every constant, the message types built from them,
// and the kernel-internal values of include/rdma/ib_verbs.h (which no
// installed header has).
func TestConstants(t *testing.T) {
	nlfixture.CheckConstants(t, headerConstants())
	nlfixture.CheckConstants(t, []nlfixture.Constant{
		{Name: "RDMA_NL_CLIENT_SHIFT", Got: RDMA_NL_CLIENT_SHIFT, Want: 10},
		{Name: "RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)", Got: int(typeGet), Want: 0x1401},
		{Name: "RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET)", Got: int(typeStatGet), Want: 0x1411},
		{Name: "RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET_STATUS)", Got: int(typeStatGetStatus), Want: 0x1418},
		{Name: "IB_DEVICE_NAME_MAX", Got: IB_DEVICE_NAME_MAX, Want: 64},
		{Name: "IB_STAT_FLAG_OPTIONAL", Got: IB_STAT_FLAG_OPTIONAL, Want: 1},
		{Name: "maxDeviceName", Got: maxDeviceName, Want: 63},
		{Name: "maxCounterName", Got: maxCounterName, Want: 64},
	})
}

// TestHeaderConstants cross-checks the constants against the installed
// UAPI headers of linux-libc-dev (/usr/include/rdma/rdma_netlink.h and
// /usr/include/linux/netlink.h), and checks that the header's
// RDMA_NL_GET_TYPE is the shift this package uses. It skips when the
// headers are absent, unless DCBTOP_REQUIRE_PRIV=1 (as in CI).
func TestHeaderConstants(t *testing.T) {
	nlfixture.CheckHeaders(t, headerConstants())
	src := nlfixture.ReadHeader(t, "rdma/rdma_netlink.h")
	var getType string
	if m := regexp.MustCompile(`(?m)^#define\s+RDMA_NL_GET_TYPE\(client,\s*op\)\s+(.+?)\s*$`).FindStringSubmatch(src); m != nil {
		getType = m[1]
	}
	if want := "((client << " + strconv.Itoa(RDMA_NL_CLIENT_SHIFT) + ") + op)"; getType != want {
		t.Errorf("RDMA_NL_GET_TYPE(client, op) is %q in the header, want %q", getType, want)
	}
}
