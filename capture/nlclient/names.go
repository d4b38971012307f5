// SPDX-License-Identifier: Apache-2.0

package nlclient

import (
	"bytes"
	"strings"
)

// MaxIfnameLen is the longest interface name, in bytes: IFNAMSIZ-1
// (include/uapi/linux/if.h: IFNAMSIZ is 16, the NUL included).
const MaxIfnameLen = 15

// ValidIfname reports whether name can name a network interface: 1 to
// MaxIfnameLen bytes without a NUL. A client refuses any other name
// before asking the kernel, which would refuse a longer one with ERANGE or
// EINVAL when it checks the attribute against its policy (lib/nlattr.c;
// DCB_ATTR_IFNAME is NLA_NUL_STRING with .len IFNAMSIZ-1 in
// dcbnl_rtnl_policy, net/dcb/dcbnl.c), and reads a name as a C string, up
// to a NUL inside it.
// It checks the size only: the kernel's other rules for a new name
// (dev_valid_name in net/core/dev.c: no '/', ':' or white space) do not
// stop it from looking a name up, so a name that breaks them is simply
// not found.
func ValidIfname(name string) bool {
	return name != "" && len(name) <= MaxIfnameLen && strings.IndexByte(name, 0) < 0
}

// CString returns the string at the start of b up to its first NUL, or all
// of b when it has none: the value of a string attribute (nla_put_string
// sends the string with its NUL), or of a fixed-size char array.
func CString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
