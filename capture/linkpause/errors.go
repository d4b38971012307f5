// SPDX-License-Identifier: Apache-2.0

package linkpause

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/nlclient"
)

// ErrMalformed is wrapped by every error about a reply this package cannot
// decode: a truncated or overlong attribute, a setting or counter of the
// wrong size, an attribute given twice, or a reply of the wrong command.
// No value of such a reply is returned.
var ErrMalformed = errors.New("malformed ethtool netlink reply")

// An Error is a failed request for an interface's pause settings. Op names
// the request ("PAUSE_GET", "CTRL_GETFAMILY" or "GPAUSEPARAM"), Ifname the
// interface. Err is the errno (a syscall.Errno) or an error wrapping
// ErrMalformed.
//
// Errors satisfy errors.Is with os.ErrNotExist for ENODEV (no such
// interface in this network namespace), os.ErrPermission for EPERM and
// EACCES, ErrMalformed, and the errno itself. Error() is a lowercase
// one-liner that can follow "dcbtop: ". A driver without pause operations
// is no Error: see Pause.Unsupported.
type Error struct {
	Op     string
	Ifname string
	Err    error
	// Detail is the kernel's extended acknowledgement message, if any.
	Detail string

	// badName is set when the name cannot exist (empty, longer than
	// IFNAMSIZ-1 or holding a NUL) and was refused without asking.
	badName bool
}

// Error implements error.
func (e *Error) Error() string {
	if errno, _ := e.Err.(syscall.Errno); !e.badName && (errno == syscall.EPERM || errno == syscall.EACCES) {
		return fmt.Sprintf("%s: permission denied reading pause settings", e.shared().Subject())
	}
	// An unknown interface, a name that cannot be one, anything else.
	return e.shared().Error()
}

// shared returns e as the Error every netlink client of dcbtop tells the
// same way.
func (e *Error) shared() *nlclient.Error {
	return &nlclient.Error{Op: e.Op, Ifname: e.Ifname, Err: e.Err, Detail: e.Detail, BadName: e.badName}
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is matches os.ErrNotExist for ENODEV; other targets (os.ErrPermission,
// the errno, ErrMalformed) are matched through Unwrap.
func (e *Error) Is(target error) bool { return e.shared().Is(target) }

// nl is what package nlclient knows of linkpause: its ErrMalformed.
var nl = nlclient.Family{ErrMalformed: ErrMalformed}
