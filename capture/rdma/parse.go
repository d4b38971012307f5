// SPDX-License-Identifier: Apache-2.0

package rdma

import (
	"bytes"
	"net/netip"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxFileSize bounds what is read of a file: the longest the kernel
// prints here is a GID, 40 bytes; a longer file is not one of these.
const maxFileSize = 256

// gidTextLen is the length of a GID as the kernel's "%pI6" prints it:
// eight groups of four hexadecimal digits separated by colons
// (lib/vsprintf.c ip6_string, drivers/infiniband/core/sysfs.c
// show_port_gid), without the newline.
const gidTextLen = 8*4 + 7

// line returns b without the one newline the kernel ends a sysfs or
// configfs value with, or the problem when b is not one line of text.
func line(b []byte) ([]byte, string) {
	if len(b) > maxFileSize {
		return nil, "longer than " + strconv.Itoa(maxFileSize) + " bytes"
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	switch {
	case len(b) == 0:
		return nil, "empty"
	case !utf8.Valid(b) || bytes.ContainsFunc(b, unicode.IsControl):
		return nil, "not one line of text"
	}
	return b, ""
}

// parseGID parses a GID table entry as class/infiniband/DEV/ports/P/gids/N
// holds it (drivers/infiniband/core/sysfs.c show_port_gid, "%pI6\n":
// "fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d", optionally followed by one
// newline; hexadecimal digits of either case). It returns the problem
// ("" when none) when b is anything else. The all-zero GID, which the
// kernel prints for an unused entry, parses like any other.
func parseGID(b []byte) (netip.Addr, string) {
	if len(b) > maxFileSize {
		return netip.Addr{}, "not a GID: longer than " + strconv.Itoa(maxFileSize) + " bytes"
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) != gidTextLen {
		return netip.Addr{}, "not a GID: " + strconv.Itoa(len(b)) + " bytes, want " + strconv.Itoa(gidTextLen)
	}
	var raw [16]byte
	for g := range 8 {
		group := b[g*5 : g*5+4]
		if g < 7 && b[g*5+4] != ':' {
			return netip.Addr{}, "not a GID: no ':' after group " + strconv.Itoa(g+1)
		}
		for i, c := range group {
			v, ok := hexVal(c)
			if !ok {
				return netip.Addr{}, "not a GID: " + strconv.Quote(string([]byte{c})) + " is not a hexadecimal digit"
			}
			raw[g*2+i/2] |= v << (4 * (1 - i%2))
		}
	}
	return netip.AddrFrom16(raw), ""
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// The GID type names the kernel prints (drivers/infiniband/core/cache.c
// gid_type_str, through ib_cache_gid_type_str): one name for both
// IB_GID_TYPE_IB and IB_GID_TYPE_ROCE, kept so for user space.
const (
	gidTypeNameIBRoCEv1 = "IB/RoCE v1"
	gidTypeNameRoCEv2   = "RoCE v2"
)

// parseGIDTypeName parses a GID type as gid_attrs/types/N and the rdma_cm
// configfs default_roce_mode hold it: "IB/RoCE v1" or "RoCE v2"
// (drivers/infiniband/core/cache.c gid_type_str), optionally followed by
// one newline. It returns the name, or the problem when b is anything
// else (the kernel's "Invalid GID type" among them).
func parseGIDTypeName(b []byte) (string, string) {
	s, problem := line(b)
	if problem != "" {
		return "", "not a GID type: " + problem
	}
	switch string(s) {
	case gidTypeNameIBRoCEv1, gidTypeNameRoCEv2:
		return string(s), ""
	}
	return "", "unknown GID type " + strconv.Quote(string(s))
}

// parseToS parses the rdma_cm configfs default_roce_tos of a port
// (drivers/infiniband/core/cma_configfs.c default_roce_tos_show, a u8 as
// "%u\n"): decimal digits, optionally followed by one newline, 0 to 255.
// It returns the problem ("not a number", "out of range 0..255") when b
// is anything else.
func parseToS(b []byte) (ToS, string) {
	s, problem := line(b)
	if problem != "" {
		return ToS{}, "not a number: " + problem
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return ToS{}, "not a number"
		}
	}
	v, err := strconv.ParseUint(string(s), 10, 8)
	if err != nil { // only digits: too large
		return ToS{}, "out of range 0..255"
	}
	return DecodeToS(uint8(v)), ""
}
