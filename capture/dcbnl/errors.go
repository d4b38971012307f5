// SPDX-License-Identifier: Apache-2.0

package dcbnl

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

var (
	// ErrNoDCB matches (with errors.Is) an *Error whose request the kernel
	// refused with EOPNOTSUPP before reaching the driver: the interface
	// has no dcbnl_ops (veth, virtio_net, bonds, VLANs, most VFs), or the
	// kernel was built without CONFIG_DCB. It is not a tool failure: the
	// port simply cannot be read or configured through dcbnl.
	ErrNoDCB = errors.New("no DCB netlink support")

	// ErrMalformed is wrapped by every error about a reply or notification
	// this package cannot decode: a missing attribute, or a payload shorter
	// than its C structure.
	ErrMalformed = errors.New("malformed dcbnl message")

	// ErrRefused is the Err of a driver error whose status is a positive
	// number rather than a negative errno: the u8 that DCB_CMD_SDCBX
	// returns from the driver's setdcbx (mlx5, bnxt_en and i40e return 1
	// to refuse a mode; ice also returns 1 when the port already is in the
	// requested mode).
	ErrRefused = errors.New("refused")
)

// An Error is a failed dcbnl request. Op names the command ("IEEE_GET",
// "IEEE_SET", "IEEE_DEL", "GDCBX", "SDCBX", "CEE_GET", or "watch"), Ifname
// the interface. Err is the errno (a syscall.Errno) the kernel or driver
// returned, ErrRefused, or an error wrapping ErrMalformed.
//
// Errors satisfy errors.Is with:
//   - ErrNoDCB for EOPNOTSUPP from the kernel (not from the driver);
//   - os.ErrNotExist for ENODEV (no such interface in this network namespace);
//   - os.ErrPermission for EPERM (SET commands need CAP_NET_ADMIN in the
//     initial user namespace);
//   - the errno itself, through Unwrap, including a driver's status (which
//     matches nothing else: a driver's ENOENT is not os.ErrNotExist).
//
// Error() is a lowercase one-liner that can follow "dcbtop: ".
type Error struct {
	Op     string
	Ifname string
	Err    error
	// Driver is true when the kernel accepted the request and the status
	// came back inside the reply: the u8 of DCB_ATTR_IEEE after IEEE_SET
	// or IEEE_DEL ((u8)-errno from the driver callback or from the
	// kernel's own APP list), or the u8 of DCB_ATTR_DCBX after SDCBX.
	Driver bool
	// Status is the raw u8 status when Driver is true.
	Status uint8

	// missingOp names the dcbnl_ops callback the driver lacks, when an
	// EOPNOTSUPP came from a driver that does have dcbnl_ops.
	missingOp string
	// badName is set when the interface name cannot exist (empty or
	// longer than IFNAMSIZ-1) and was refused without asking the kernel.
	badName bool
}

// Error implements error.
func (e *Error) Error() string {
	errno, _ := e.Err.(syscall.Errno)
	switch {
	case e.Driver && e.Err == ErrRefused:
		return fmt.Sprintf("driver rejected %s on %s: refused (status %d)", e.Op, e.Ifname, e.Status)
	case e.Driver:
		return fmt.Sprintf("driver rejected %s on %s: %v", e.Op, e.Ifname, e.Err)
	case e.badName:
		// Refused before asking: told the shared way, below.
	case errno == syscall.EOPNOTSUPP && e.missingOp != "":
		return fmt.Sprintf("%s: %s not supported by the driver (dcbnl_ops without %s)", e.Ifname, e.Op, e.missingOp)
	case errno == syscall.EOPNOTSUPP:
		return fmt.Sprintf("%s has no DCB netlink support (driver without dcbnl_ops)", e.Ifname)
	case errno == syscall.EPERM:
		return fmt.Sprintf("%s %s: permission denied (needs CAP_NET_ADMIN)", e.Op, e.Ifname)
	}
	// An unknown interface, a name that cannot be one, anything else.
	return e.shared().Error()
}

// shared returns e as the Error every netlink client of dcbtop tells the
// same way.
func (e *Error) shared() *nlclient.Error {
	return &nlclient.Error{Op: e.Op, Ifname: e.Ifname, Err: e.Err, BadName: e.badName}
}

// Unwrap returns Err; for a driver status errno, a wrapper that matches
// only that errno (with errors.Is and errors.As), so that a driver's ENOENT
// or EPERM is not mistaken for a missing interface or a missing privilege
// by errors.Is(err, os.ErrNotExist) or errors.Is(err, os.ErrPermission).
func (e *Error) Unwrap() error {
	if errno, ok := e.Err.(syscall.Errno); ok && e.Driver {
		return driverErrno{errno}
	}
	return e.Err
}

// A driverErrno is an errno from a driver status byte.
type driverErrno struct{ errno syscall.Errno }

func (d driverErrno) Error() string { return d.errno.Error() }

// Is matches the errno itself only, not the os errors it stands for.
func (d driverErrno) Is(target error) bool {
	t, ok := target.(syscall.Errno)
	return ok && t == d.errno
}

// As sets a *syscall.Errno target to the errno.
func (d driverErrno) As(target any) bool {
	if p, ok := target.(*syscall.Errno); ok {
		*p = d.errno
		return true
	}
	return false
}

// Is reports whether e matches target: ErrNoDCB, os.ErrNotExist or
// os.ErrPermission as described on Error. Other targets are compared
// through Unwrap by errors.Is.
func (e *Error) Is(target error) bool {
	if e.Driver {
		return false
	}
	errno, ok := e.Err.(syscall.Errno)
	switch target {
	case ErrNoDCB:
		return ok && errno == syscall.EOPNOTSUPP && e.missingOp == ""
	case os.ErrPermission:
		return ok && errno == syscall.EPERM
	}
	return e.shared().Is(target) // os.ErrNotExist for ENODEV
}

// nl is what package nlclient knows of dcbnl: its ErrMalformed.
var nl = nlclient.Family{ErrMalformed: ErrMalformed}

// shortError returns the error for a payload shorter than the C structure
// what of size want.
func shortError(what string, want, got int) error {
	return nl.Malformed("", "%s needs %d bytes, got %d", what, want, got)
}
