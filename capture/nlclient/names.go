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
// before asking the kernel, which would answer ERANGE or EINVAL for a
// name longer than its policy allows (nla_validate: NLA_NUL_STRING with
// .len IFNAMSIZ-1 in net/dcb/dcbnl.c dcbnl_rtnl_policy, for example),
// and cannot store one with a NUL inside (it reads names as C strings).
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
