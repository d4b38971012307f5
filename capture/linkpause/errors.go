package linkpause

import (
	"errors"
	"fmt"
	"os"
	"syscall"
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
	errno, isErrno := e.Err.(syscall.Errno)
	what := e.Op
	if e.Ifname != "" {
		what += " " + e.Ifname
	}
	switch {
	case e.badName:
		return fmt.Sprintf("%q: no such device (interface names are 1 to %d bytes)", e.Ifname, maxIfnameLen)
	case isErrno && errno == syscall.ENODEV:
		return fmt.Sprintf("%s: no such device", e.Ifname)
	case isErrno && (errno == syscall.EPERM || errno == syscall.EACCES):
		return fmt.Sprintf("%s: permission denied reading pause settings", what)
	case e.Detail != "":
		return fmt.Sprintf("%s: %v (%s)", what, e.Err, e.Detail)
	}
	return fmt.Sprintf("%s: %v", what, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is matches os.ErrNotExist for ENODEV; other targets (os.ErrPermission,
// the errno, ErrMalformed) are matched through Unwrap.
func (e *Error) Is(target error) bool {
	errno, ok := e.Err.(syscall.Errno)
	return ok && target == os.ErrNotExist && errno == syscall.ENODEV
}

// A malformedError describes a reply the package cannot decode; it matches
// ErrMalformed with errors.Is.
type malformedError struct {
	attr string // the attribute being decoded, if known
	msg  string
}

func (e *malformedError) Error() string {
	if e.attr == "" {
		return ErrMalformed.Error() + ": " + e.msg
	}
	return ErrMalformed.Error() + ": " + e.attr + ": " + e.msg
}

func (e *malformedError) Is(target error) bool { return target == ErrMalformed }

// malformed returns a malformedError about attr.
func malformed(attr, format string, args ...any) error {
	return &malformedError{attr: attr, msg: fmt.Sprintf(format, args...)}
}
