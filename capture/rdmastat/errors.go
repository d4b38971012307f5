// SPDX-License-Identifier: Apache-2.0

package rdmastat

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

var (
	// ErrNoRDMA matches (with errors.Is) the error of Dial on a kernel
	// without the RDMA subsystem: socket(AF_NETLINK, SOCK_RAW,
	// NETLINK_RDMA) fails with EPROTONOSUPPORT until ib_core is loaded
	// (or on a kernel built without CONFIG_INFINIBAND). It is not a tool
	// failure: the host simply has no RDMA statistics to read.
	ErrNoRDMA = errors.New("no RDMA subsystem")

	// ErrMalformed is wrapped by every error about a reply this package
	// cannot decode at all: broken attribute framing, a device or port
	// index that is not a u32, a reply for another device or port, or no
	// reply of the expected type.
	ErrMalformed = errors.New("malformed RDMA netlink reply")
)

// An Error is a failed request. Op names it ("dial", "GET" for the device
// dump, "STAT_GET"); Device and Port name the port asked for (Port is 0
// when the request names none). Err is the cause: a syscall.Errno from the
// kernel, an error wrapping ErrMalformed, or another error from the
// netlink socket.
//
// Errors satisfy errors.Is with:
//   - ErrNoRDMA for a Dial without the RDMA subsystem (EPROTONOSUPPORT);
//   - os.ErrNotExist when the device is not in the kernel's list, or has
//     no such port (the kernel answers EINVAL for both: nldev.c
//     stat_get_doit_default_counter);
//   - os.ErrPermission for EPERM or EACCES;
//   - the errno itself, through Unwrap.
//
// Error() is a lowercase one-liner that can follow "dcbtop: ".
type Error struct {
	Op     string
	Device string
	Port   int
	Err    error

	kind  errKind
	ports int // kindNoPort: the device's number of ports
}

// An errKind says what an Error is about, beyond its errno.
type errKind uint8

const (
	kindOther      errKind = iota
	kindNoRDMA             // dial: EPROTONOSUPPORT
	kindPermission         // EPERM or EACCES
	kindBadName            // a device name that cannot exist, refused before asking
	kindNoDevice           // not in the GET dump
	kindNoPort             // port 0 or beyond the device's port count
	kindNoCounters         // EINVAL for a device and port the dump has: no hardware counters
)

// Error implements error.
func (e *Error) Error() string {
	link := e.Device
	if e.Port != 0 {
		link += "/" + strconv.Itoa(e.Port)
	}
	switch e.kind {
	case kindNoRDMA:
		return "no RDMA subsystem: NETLINK_RDMA is unavailable (ib_core not loaded, or a kernel without CONFIG_INFINIBAND)"
	case kindPermission:
		return fmt.Sprintf("%s: permission denied (%v)", e.where(link), e.Err)
	case kindBadName:
		return fmt.Sprintf("%q: no such RDMA device (names are 1 to %d bytes of printable ASCII without spaces, commas or slashes)", e.Device, maxDeviceName)
	case kindNoDevice:
		return fmt.Sprintf("%s: no such RDMA device", e.Device)
	case kindNoPort:
		switch e.ports {
		case 0:
			return fmt.Sprintf("%s: no such port (%s reports no ports)", link, e.Device)
		case 1:
			return fmt.Sprintf("%s: no such port (%s has port 1 only)", link, e.Device)
		}
		return fmt.Sprintf("%s: no such port (%s has ports 1 to %d)", link, e.Device, e.ports)
	case kindNoCounters:
		return fmt.Sprintf("%s: the driver reports no hardware counters for this port (STAT_GET: %v)", link, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.where(link), oneLine(fmt.Sprint(e.Err)))
}

// where names the request in a message: "STAT_GET mlx5_0/1", or the bare
// operation when it names no device.
func (e *Error) where(link string) string {
	if link == "" {
		return e.Op
	}
	return e.Op + " " + link
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether e matches ErrNoRDMA, os.ErrNotExist or
// os.ErrPermission as described on Error; other targets are compared
// through Unwrap by errors.Is.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoRDMA:
		return e.kind == kindNoRDMA
	case os.ErrNotExist:
		return e.kind == kindBadName || e.kind == kindNoDevice || e.kind == kindNoPort
	case os.ErrPermission:
		return e.kind == kindPermission
	}
	return false
}

// nl is what package nlclient knows of rdmastat: its ErrMalformed, and
// that message types read best in hexadecimal (0x1411 is
// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET)).
var nl = nlclient.Family{ErrMalformed: ErrMalformed, HexTypes: true}
