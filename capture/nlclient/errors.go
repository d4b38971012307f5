// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/mdlayher/netlink"
)

// A Family is what this package needs to know of one client package, which
// is nothing of its messages: the sentinel its undecodable replies match,
// and how its errors print a message type. Each client package keeps one
// Family in a package variable.
type Family struct {
	// ErrMalformed is the package's sentinel (dcbnl.ErrMalformed,
	// linkpause.ErrMalformed, rdmastat.ErrMalformed): every
	// *MalformedError of the family matches it with errors.Is, and its
	// text starts the error's message.
	ErrMalformed error
	// HexTypes prints message types in hexadecimal ("0x1411") in errors,
	// for a family whose types pack two numbers (RDMA netlink's
	// RDMA_NL_GET_TYPE(client, op), include/uapi/rdma/rdma_netlink.h);
	// otherwise they are decimal.
	HexTypes bool
}

// Malformed returns a *MalformedError of f about attr (the attribute being
// decoded, "" when none is), with the message format and args.
func (f Family) Malformed(attr, format string, args ...any) error {
	return &MalformedError{Kind: f.ErrMalformed, Attr: attr, Msg: fmt.Sprintf(format, args...)}
}

// InAttr returns err as an error of f about attr: a *MalformedError that
// names no attribute yet is given attr, one that names one is returned as
// it is (the innermost attribute is the most precise), and any other error,
// such as netlink.AttributeDecoder's "invalid attribute", becomes a
// *MalformedError about attr with err's text. A nil err stays nil.
func (f Family) InAttr(attr string, err error) error {
	if err == nil {
		return nil
	}
	if me, ok := errors.AsType[*MalformedError](err); ok {
		if me.Attr != "" {
			return me
		}
		return &MalformedError{Kind: f.ErrMalformed, Attr: attr, Msg: me.Msg}
	}
	return &MalformedError{Kind: f.ErrMalformed, Attr: attr, Msg: err.Error()}
}

// NewDecoder returns a netlink.AttributeDecoder over the attributes b of
// attr, or why b cannot be one as an error of f about attr. The decoder
// masks NLA_F_NESTED and NLA_F_NET_BYTEORDER out of the types it reports
// (NLA_TYPE_MASK, include/uapi/linux/netlink.h), so nests decode the same
// with the flag (nla_nest_start) and without (nla_nest_start_noflag).
func (f Family) NewDecoder(attr string, b []byte) (*netlink.AttributeDecoder, error) {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return nil, f.InAttr(attr, err)
	}
	return ad, nil
}

// A MalformedError is a reply or notification its package cannot decode.
// Its message is Kind's text, Attr when set, and Msg, joined by ": "
// ("malformed dcbnl message: DCB_ATTR_IEEE_ETS: struct ieee_ets needs 59
// bytes, got 58"); it matches Kind with errors.Is. Make one with
// Family.Malformed or Family.InAttr.
type MalformedError struct {
	Kind error  // the package's sentinel, Family.ErrMalformed
	Attr string // the attribute being decoded, by its C name; "" when none
	Msg  string // what is wrong with it
}

// Error implements error.
func (e *MalformedError) Error() string {
	if e.Attr == "" {
		return e.Kind.Error() + ": " + e.Msg
	}
	return e.Kind.Error() + ": " + e.Attr + ": " + e.Msg
}

// Is reports whether target is e's Kind.
func (e *MalformedError) Is(target error) bool { return target == e.Kind }

// Cause returns what a failed request's err means to an Error: the errno
// when err carries one (a *netlink.OpError from the kernel's NLMSG_ERROR,
// an *os.SyscallError from the socket), and err itself otherwise.
func Cause(err error) error {
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return errno
	}
	return err
}

// Detail returns the kernel's extended acknowledgement message in a failed
// request's err (see Dial), or "" when it carries none.
func Detail(err error) string {
	if oe, ok := errors.AsType[*netlink.OpError](err); ok {
		return oe.Message
	}
	return ""
}

// An Error is a failed request about a network interface, in the words
// the clients of this package share. A client's own Error type gives its
// family's meaning to some errnos (EOPNOTSUPP from dcbnl is a device
// without DCB), and hands the rest to an Error of this package.
//
// Error() is a lowercase one-liner that can follow "dcbtop: ". Errors
// satisfy errors.Is with os.ErrNotExist for ENODEV (no interface of that
// name in the network namespace: dcb_doit in net/dcb/dcbnl.c, for one,
// answers ENODEV when __dev_get_by_name finds none), and with what Err
// matches, through Unwrap.
type Error struct {
	Op     string // the request, in its family's words ("IEEE_GET", "PAUSE_GET")
	Ifname string // the interface asked about; "" when the request names none
	Err    error  // the cause: a syscall.Errno (see Cause), a *MalformedError, or another error
	Detail string // the kernel's extended acknowledgement message, if any

	// BadName is set when Ifname cannot name an interface (see
	// ValidIfname) and the request was refused without asking the
	// kernel; Err is then ENODEV.
	BadName bool
}

// Error implements error.
func (e *Error) Error() string {
	errno, _ := e.Err.(syscall.Errno)
	switch {
	case e.BadName:
		return fmt.Sprintf("%q: no such device (interface names are 1 to %d bytes)", e.Ifname, MaxIfnameLen)
	case errno == syscall.ENODEV:
		return fmt.Sprintf("%s: no such device", e.Ifname)
	case e.Detail != "":
		return fmt.Sprintf("%s: %v (%s)", e.Subject(), e.Err, e.Detail)
	}
	return fmt.Sprintf("%s: %v", e.Subject(), e.Err)
}

// Subject names the request in a message: Op and Ifname ("PAUSE_GET
// eth0"), or Op alone when the request names no interface.
func (e *Error) Subject() string {
	if e.Ifname == "" {
		return e.Op
	}
	return e.Op + " " + e.Ifname
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is matches os.ErrNotExist for ENODEV; other targets are matched through
// Unwrap (a syscall.Errno matches os.ErrPermission for EPERM and EACCES).
func (e *Error) Is(target error) bool {
	errno, ok := e.Err.(syscall.Errno)
	return ok && errno == syscall.ENODEV && target == os.ErrNotExist
}
