// SPDX-License-Identifier: Apache-2.0

package rdma

// These tests are in package rdma, not rdma_test: the parsers are
// unexported.

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGID(t *testing.T) {
	for _, tc := range []struct {
		in, want, problem string
	}{
		{"fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\n", "fe80::e42:a1ff:fe2b:3c4d", ""},
		{"0000:0000:0000:0000:0000:ffff:c0a8:0a0b\n", "::ffff:192.168.10.11", ""},
		{"fd93:16d3:59b6:0001:0000:0000:0000:0011", "fd93:16d3:59b6:1::11", ""},
		{"FE80:0000:0000:0000:0E42:A1FF:FE2B:3C4D\n", "fe80::e42:a1ff:fe2b:3c4d", ""},
		{"0000:0000:0000:0000:0000:0000:0000:0000\n", "::", ""},
		{"", "", "not a GID: 0 bytes, want 39"},
		{"fe80::1\n", "", "not a GID: 7 bytes, want 39"},
		{"fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\n\n", "", "not a GID: 40 bytes, want 39"},
		{"fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\r\n", "", "not a GID: 40 bytes, want 39"},
		{"fe80-0000:0000:0000:0e42:a1ff:fe2b:3c4d\n", "", "not a GID: no ':' after group 1"},
		{"fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4g\n", "", `not a GID: "g" is not a hexadecimal digit`},
		{"fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4\xff\n", "", `not a GID: "\xff" is not a hexadecimal digit`},
		{strings.Repeat("0", 300), "", "not a GID: longer than 256 bytes"},
	} {
		got, problem := parseGID([]byte(tc.in))
		var want netip.Addr
		if tc.want != "" {
			want = netip.MustParseAddr(tc.want)
		}
		if got != want || problem != tc.problem {
			t.Errorf("parseGID(%q) = %v, %q; want %v, %q", tc.in, got, problem, want, tc.problem)
		}
	}
}

func TestParseToS(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    ToS
		problem string
	}{
		{"0\n", ToS{}, ""},
		{"106\n", ToS{Byte: 106, DSCP: 26, ECN: 2}, ""},
		{"255", ToS{Byte: 255, DSCP: 63, ECN: 3}, ""},
		{"0255\n", ToS{Byte: 255, DSCP: 63, ECN: 3}, ""},
		{"256\n", ToS{}, "out of range 0..255"},
		{"300\n", ToS{}, "out of range 0..255"},
		{"99999999999999999999999\n", ToS{}, "out of range 0..255"},
		{"-1\n", ToS{}, "not a number"},
		{"0x6a\n", ToS{}, "not a number"}, // the kernel takes hex written to it, but prints "%u"
		{" 106\n", ToS{}, "not a number"},
		{"106\n\n", ToS{}, "not a number: not one line of text"},
		{"\n", ToS{}, "not a number: empty"},
		{"", ToS{}, "not a number: empty"},
	} {
		got, problem := parseToS([]byte(tc.in))
		if got != tc.want || problem != tc.problem {
			t.Errorf("parseToS(%q) = %+v, %q; want %+v, %q", tc.in, got, problem, tc.want, tc.problem)
		}
	}
}

func TestParseGIDTypeName(t *testing.T) {
	for _, tc := range []struct{ in, want, problem string }{
		{"IB/RoCE v1\n", "IB/RoCE v1", ""},
		{"RoCE v2\n", "RoCE v2", ""},
		{"RoCE v2", "RoCE v2", ""},
		{"Invalid GID type\n", "", `unknown GID type "Invalid GID type"`},
		{"roce v2\n", "", `unknown GID type "roce v2"`},
		{"RoCE v2 \n", "", `unknown GID type "RoCE v2 "`},
		{"RoCE v2\n\n", "", "not a GID type: not one line of text"},
		{"", "", "not a GID type: empty"},
	} {
		got, problem := parseGIDTypeName([]byte(tc.in))
		if got != tc.want || problem != tc.problem {
			t.Errorf("parseGIDTypeName(%q) = %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.problem)
		}
	}
}

// sysfsGID formats a as the kernel's "%pI6" does.
func sysfsGID(a netip.Addr) string {
	b := a.As16()
	var s strings.Builder
	for g := range 8 {
		if g > 0 {
			s.WriteByte(':')
		}
		fmt.Fprintf(&s, "%02x%02x", b[2*g], b[2*g+1])
	}
	return s.String()
}

// FuzzParseGID: b is a GID exactly when it is 39 bytes of eight groups of
// four hexadecimal digits separated by ':', with at most one trailing
// newline; the GID is then those digits (as the kernel would print them
// again, lowercase), an IPv6 address of 16 bytes. Anything else is
// invalid, with a problem that is one line.
func FuzzParseGID(f *testing.F) {
	f.Add([]byte("fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, problem := parseGID(b)
		s := bytes.TrimSuffix(b, []byte("\n"))
		if problem != "" {
			if a.IsValid() || strings.ContainsAny(problem, "\n\r") {
				t.Fatalf("parseGID(%q) = %v, %q", b, a, problem)
			}
			if len(s) == gidTextLen {
				if pa, err := netip.ParseAddr(string(s)); err == nil && pa.Zone() == "" && !bytes.ContainsAny(s, ".") && bytes.Count(s, []byte(":")) == 7 && !bytes.Contains(s, []byte("::")) {
					t.Fatalf("parseGID(%q) refused a full-form address: %s", b, problem)
				}
			}
			return
		}
		if !a.Is6() || a.Zone() != "" {
			t.Fatalf("parseGID(%q) = %v, not 16 bytes", b, a)
		}
		if got := sysfsGID(a); got != strings.ToLower(string(s)) {
			t.Fatalf("parseGID(%q) = %v, printed %q", b, a, got)
		}
		if again, p := parseGID([]byte(sysfsGID(a) + "\n")); again != a || p != "" {
			t.Fatalf("parseGID(%q) = %v; its print parses as %v, %q", b, a, again, p)
		}
	})
}

// FuzzParseToS: b is a ToS exactly when it is one or more decimal digits
// with at most one trailing newline, whose number is at most 255; the
// ToS is then that number, split into DSCP<<2|ECN.
func FuzzParseToS(f *testing.F) {
	f.Add([]byte("106\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tos, problem := parseToS(b)
		s := string(bytes.TrimSuffix(b, []byte("\n")))
		n, err := strconv.ParseUint(s, 10, 64)
		digits := s != "" && strings.Trim(s, "0123456789") == ""
		want := digits && len(b) <= maxFileSize && (err == nil && n <= 255)
		if (problem == "") != want {
			t.Fatalf("parseToS(%q) = %+v, %q; want a ToS: %v", b, tos, problem, want)
		}
		if problem != "" {
			if tos != (ToS{}) || strings.ContainsAny(problem, "\n\r") {
				t.Fatalf("parseToS(%q) = %+v, %q", b, tos, problem)
			}
			return
		}
		if uint64(tos.Byte) != n || tos.DSCP<<2|tos.ECN != tos.Byte || tos.DSCP > 63 || tos.ECN > 3 {
			t.Fatalf("parseToS(%q) = %+v", b, tos)
		}
	})
}

// FuzzParseGIDTypeName: b is a type name exactly when, without one
// trailing newline, it is one of the kernel's two names.
func FuzzParseGIDTypeName(f *testing.F) {
	f.Add([]byte("RoCE v2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, problem := parseGIDTypeName(b)
		s := string(bytes.TrimSuffix(b, []byte("\n")))
		want := s == "IB/RoCE v1" || s == "RoCE v2"
		if (problem == "") != want || (want && name != s) || (!want && name != "") {
			t.Fatalf("parseGIDTypeName(%q) = %q, %q", b, name, problem)
		}
		if strings.ContainsAny(problem, "\n\r") {
			t.Fatalf("parseGIDTypeName(%q): problem %q is not one line", b, problem)
		}
	})
}

// TestGIDTypeOfLinkLayer: "IB/RoCE v1" is told apart by the port's link
// layer, and is unknown when that is.
func TestGIDTypeOfLinkLayer(t *testing.T) {
	name := func(s string) Value[string] { return known(s, "t") }
	for _, tc := range []struct {
		name, link Value[string]
		want       Value[GIDType]
	}{
		{name("RoCE v2"), unknown[string]("l", "missing"), known(GIDTypeRoCEv2, "t")},
		{name("IB/RoCE v1"), known("Ethernet", "l"), known(GIDTypeRoCEv1, "t")},
		{name("IB/RoCE v1"), known("InfiniBand", "l"), known(GIDTypeIB, "t")},
		{name("IB/RoCE v1"), known("Unknown", "l"), unknown[GIDType]("t", `IB/RoCE v1 on link layer "Unknown"`)},
		{unknown[string]("t", "missing"), known("Ethernet", "l"), unknown[GIDType]("t", "missing")},
	} {
		if diff := cmp.Diff(tc.want, gidType(tc.name, tc.link)); diff != "" {
			t.Errorf("gidType(%v, %v) (-want +got):\n%s", tc.name, tc.link, diff)
		}
	}
}
