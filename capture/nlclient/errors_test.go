// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
)

var (
	errTestMalformed  = errors.New("malformed test message")
	errOtherMalformed = errors.New("malformed other message")
	testFamily        = Family{ErrMalformed: errTestMalformed}
)

// TestMalformed checks the errors a Family makes: their messages, what
// they match, and the attribute InAttr keeps.
func TestMalformed(t *testing.T) {
	inner := testFamily.Malformed("DCB_ATTR_IEEE_ETS", "struct ieee_ets needs 59 bytes, got 58")
	_, decErr := testFamily.NewDecoder("DCB_ATTR_IEEE", []byte{0x04, 0x00, 0x01, 0x00, 0x01, 0x00}) // two bytes after an attribute
	type result struct {
		Msg          string
		Attr         string
		Kind, Other  bool // matches errTestMalformed, errOtherMalformed
		NotMalformed bool // not a *MalformedError
	}
	tests := []struct {
		name string
		err  error
		want result
	}{
		{"no attribute", testFamily.Malformed("", "reply of %d bytes is shorter than struct dcbmsg", 2),
			result{Msg: "malformed test message: reply of 2 bytes is shorter than struct dcbmsg", Kind: true}},
		{"an attribute", inner,
			result{Msg: "malformed test message: DCB_ATTR_IEEE_ETS: struct ieee_ets needs 59 bytes, got 58", Attr: "DCB_ATTR_IEEE_ETS", Kind: true}},
		{"InAttr of another error", testFamily.InAttr("DCB_ATTR_IEEE", errors.New("invalid attribute")),
			result{Msg: "malformed test message: DCB_ATTR_IEEE: invalid attribute", Attr: "DCB_ATTR_IEEE", Kind: true}},
		{"InAttr names an error about no attribute", testFamily.InAttr("DCB_ATTR_CEE", testFamily.Malformed("", "no %s nest", "X")),
			result{Msg: "malformed test message: DCB_ATTR_CEE: no X nest", Attr: "DCB_ATTR_CEE", Kind: true}},
		{"InAttr keeps the innermost attribute", testFamily.InAttr("DCB_ATTR_IEEE", inner),
			result{Msg: inner.Error(), Attr: "DCB_ATTR_IEEE_ETS", Kind: true}},
		{"InAttr finds it wrapped", testFamily.InAttr("DCB_ATTR_IEEE", fmt.Errorf("decoding: %w", inner)),
			result{Msg: inner.Error(), Attr: "DCB_ATTR_IEEE_ETS", Kind: true}},
		{"InAttr of nil", testFamily.InAttr("DCB_ATTR_IEEE", nil), result{NotMalformed: true}},
		{"another family's", Family{ErrMalformed: errOtherMalformed}.Malformed("X", "y"),
			result{Msg: "malformed other message: X: y", Attr: "X", Other: true}},
		{"NewDecoder of bytes that are no attribute", decErr,
			result{Msg: "malformed test message: DCB_ATTR_IEEE: invalid attribute; length too short or too large", Attr: "DCB_ATTR_IEEE", Kind: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			me, ok := errors.AsType[*MalformedError](tt.err)
			if ok {
				got.Msg, got.Attr = tt.err.Error(), me.Attr
			}
			got.NotMalformed = !ok
			got.Kind, got.Other = errors.Is(tt.err, errTestMalformed), errors.Is(tt.err, errOtherMalformed)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if ad, err := testFamily.NewDecoder("X", []byte{0x05, 0x00, 0x01, 0x00, 0x07, 0, 0, 0}); err != nil || !ad.Next() || ad.Uint8() != 7 {
		t.Errorf("NewDecoder of a u8 attribute: %v", err)
	}
}

// TestError checks the shared messages of a failed request and what they
// match.
func TestError(t *testing.T) {
	malformed := testFamily.Malformed("", "no reply of type 78 among 1 messages")
	type result struct {
		Msg                        string
		NotExist, Permission, Test bool // os.ErrNotExist, os.ErrPermission, errTestMalformed
		Errno                      syscall.Errno
	}
	tests := []struct {
		name string
		err  *Error
		want result
	}{
		{"no such interface", &Error{Op: "IEEE_GET", Ifname: "eth9", Err: syscall.ENODEV},
			result{Msg: "eth9: no such device", NotExist: true, Errno: syscall.ENODEV}},
		{"a name that cannot be one", &Error{Op: "PAUSE_GET", Ifname: "a-name-of-16-chr", Err: syscall.ENODEV, BadName: true},
			result{Msg: `"a-name-of-16-chr": no such device (interface names are 1 to 15 bytes)`, NotExist: true, Errno: syscall.ENODEV}},
		{"an empty name", &Error{Op: "PAUSE_GET", Err: syscall.ENODEV, BadName: true},
			result{Msg: `"": no such device (interface names are 1 to 15 bytes)`, NotExist: true, Errno: syscall.ENODEV}},
		{"another errno", &Error{Op: "PAUSE_GET", Ifname: "eth0", Err: syscall.EBUSY},
			result{Msg: "PAUSE_GET eth0: device or resource busy", Errno: syscall.EBUSY}},
		{"EPERM matches through the errno", &Error{Op: "IEEE_SET", Ifname: "eth0", Err: syscall.EPERM},
			result{Msg: "IEEE_SET eth0: operation not permitted", Permission: true, Errno: syscall.EPERM}},
		{"with the kernel's message", &Error{Op: "PAUSE_GET", Ifname: "eth0", Err: syscall.EINVAL, Detail: "unrecognized request flags"},
			result{Msg: "PAUSE_GET eth0: invalid argument (unrecognized request flags)", Errno: syscall.EINVAL}},
		{"no interface named", &Error{Op: "CTRL_GETFAMILY", Err: syscall.EIO},
			result{Msg: "CTRL_GETFAMILY: input/output error", Errno: syscall.EIO}},
		{"malformed", &Error{Op: "IEEE_GET", Ifname: "eth0", Err: malformed},
			result{Msg: "IEEE_GET eth0: malformed test message: no reply of type 78 among 1 messages", Test: true}},
		{"not an errno", &Error{Op: "watch", Err: errors.New("another Watch is running")},
			result{Msg: "watch: another Watch is running"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := result{
				Msg:        tt.err.Error(),
				NotExist:   errors.Is(tt.err, os.ErrNotExist),
				Permission: errors.Is(tt.err, os.ErrPermission),
				Test:       errors.Is(tt.err, errTestMalformed),
			}
			got.Errno, _ = errors.AsType[syscall.Errno](tt.err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubject(t *testing.T) {
	for _, tt := range []struct {
		err  Error
		want string
	}{
		{Error{Op: "PAUSE_GET", Ifname: "eth0"}, "PAUSE_GET eth0"},
		{Error{Op: "CTRL_GETFAMILY"}, "CTRL_GETFAMILY"},
	} {
		if got := tt.err.Subject(); got != tt.want {
			t.Errorf("Subject of %+v = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestCause checks what Cause and Detail find in the errors netlink.Conn
// returns.
func TestCause(t *testing.T) {
	plain := errors.New("use of closed file")
	malformed := testFamily.Malformed("", "x")
	tests := []struct {
		name       string
		err        error
		wantCause  error
		wantDetail string
	}{
		{"a kernel's NLMSG_ERROR", &netlink.OpError{Op: "receive", Err: syscall.ENODEV}, syscall.ENODEV, ""},
		{"with its extended acknowledgement", &netlink.OpError{Op: "receive", Err: syscall.EINVAL, Message: "bad attribute"}, syscall.EINVAL, "bad attribute"},
		{"a socket error", &netlink.OpError{Op: "socket", Err: os.NewSyscallError("socket", syscall.EPROTONOSUPPORT)}, syscall.EPROTONOSUPPORT, ""},
		{"a bare errno", syscall.EPERM, syscall.EPERM, ""},
		{"no errno", plain, plain, ""},
		{"an OpError without an errno", &netlink.OpError{Op: "receive", Err: plain, Message: "m"}, &netlink.OpError{Op: "receive", Err: plain, Message: "m"}, "m"},
		{"malformed", malformed, malformed, ""},
		{"nil", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cause, detail := Cause(tt.err), Detail(tt.err)
			if diff := cmp.Diff(tt.wantCause, cause, cmp.Comparer(func(a, b error) bool {
				return a == b || a != nil && b != nil && a.Error() == b.Error()
			})); diff != "" {
				t.Errorf("cause (-want +got):\n%s", diff)
			}
			if detail != tt.wantDetail {
				t.Errorf("detail = %q, want %q", detail, tt.wantDetail)
			}
		})
	}
}
