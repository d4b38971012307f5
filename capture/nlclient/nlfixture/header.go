// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// IncludeDir is where linux-libc-dev installs the kernel's UAPI headers.
const IncludeDir = "/usr/include"

// A Constant is a number a package defines, by its C name.
type Constant struct {
	Name string // the C name ("DCB_CMD_IEEE_GET")
	Got  int    // the package's value
	Want int    // the value the kernel's header gives it, as the test writes it down
	// Header is the UAPI header that defines it, below IncludeDir
	// ("linux/dcbnl.h"); "" for a number no installed header has.
	Header string
	// Recent is true for a name that an older installed header may lack
	// (added by a later Linux than the oldest one supported).
	Recent bool
}

// CheckConstants pins consts: each name is listed once and has the value
// the test writes down.
func CheckConstants(t testing.TB, consts []Constant) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range consts {
		if seen[c.Name] {
			t.Errorf("%s listed twice", c.Name)
		}
		seen[c.Name] = true
		if c.Got != c.Want {
			t.Errorf("%s = %d, want %d", c.Name, c.Got, c.Want)
		}
	}
}

// CheckHeaders cross-checks the Want of each constant that has a Header
// against that installed header, read with ReadHeader and parsed as text
// with ParseHeader. A Recent constant missing from its header is logged;
// any other missing name fails t.
func CheckHeaders(t testing.TB, consts []Constant) {
	t.Helper()
	headers := map[string]map[string]int{}
	for _, c := range consts {
		if c.Header == "" {
			continue
		}
		h, ok := headers[c.Header]
		if !ok {
			var err error
			if h, err = ParseHeader(ReadHeader(t, c.Header)); err != nil {
				t.Fatalf("parse %s: %v", c.Header, err)
			}
			headers[c.Header] = h
		}
		v, ok := h[c.Name]
		switch {
		case !ok && c.Recent:
			t.Logf("%s: not in the installed %s (added in a later Linux)", c.Name, c.Header)
		case !ok:
			t.Errorf("%s: not found in %s", c.Name, c.Header)
		case v != c.Want:
			t.Errorf("%s = %d in %s, %d here", c.Name, v, c.Header, c.Want)
		}
	}
}

// ReadHeader returns the text of the installed UAPI header (below
// IncludeDir, "linux/dcbnl.h"). When it is absent it skips t, unless
// DCBTOP_REQUIRE_PRIV=1 (as in CI), where the headers must be there.
func ReadHeader(t testing.TB, header string) string {
	t.Helper()
	path := filepath.Join(IncludeDir, header)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("DCBTOP_REQUIRE_PRIV") == "1" {
			t.Fatalf("%s is missing (DCBTOP_REQUIRE_PRIV=1): apt-get install linux-libc-dev", path)
		}
		t.Skipf("skipping: %s is missing (apt-get install linux-libc-dev)", path)
	}
	if err != nil {
		t.Fatalf("read header: %v", err)
	}
	return string(b)
}

var (
	cComment  = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	cDefine   = regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.+?)\s*$`)
	cEnum     = regexp.MustCompile(`(?s)\benum\s+\w*\s*\{(.*?)\}`)
	cPreproc  = regexp.MustCompile(`(?m)^\s*#.*$`)
	cEnumItem = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?:=\s*(.+))?$`)
)

// ParseHeader returns the integer #defines and enum members of a C header,
// implicit enum values counted. A value may be a number, a name defined
// before it, or "A << B", "A - B", "A + B" of those, in parentheses or
// not, which covers the kernel's "(1 << 15)" and "__DCB_CMD_ENUM_MAX - 1".
// A #define of anything else (a type, a macro with arguments, a string) is
// left out, and so is an enum member whose value is beyond these forms,
// with the implicit members after it.
func ParseHeader(src string) (map[string]int, error) {
	src = cComment.ReplaceAllString(src, " ")
	consts := map[string]int{}
	for _, m := range cDefine.FindAllStringSubmatch(src, -1) {
		if v, err := evalC(m[2], consts); err == nil {
			consts[m[1]] = v
		}
	}
	for _, m := range cEnum.FindAllStringSubmatch(src, -1) {
		body := cPreproc.ReplaceAllString(m[1], "") // rtnetlink.h: "#define RTM_BASE RTM_BASE" inside enums
		next, known := 0, true
		for item := range strings.SplitSeq(body, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			im := cEnumItem.FindStringSubmatch(item)
			if im == nil {
				return nil, fmt.Errorf("enum member %q", item)
			}
			if im[2] != "" {
				v, err := evalC(im[2], consts)
				next, known = v, err == nil
			}
			if known {
				consts[im[1]] = next
			}
			next++
		}
	}
	return consts, nil
}

// evalC evaluates a constant expression of the forms ParseHeader supports.
func evalC(expr string, consts map[string]int) (int, error) {
	expr = strings.TrimSpace(expr)
	for strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") {
		expr = strings.TrimSpace(expr[1 : len(expr)-1])
	}
	for _, op := range []string{" << ", " - ", " + "} {
		l, r, ok := strings.Cut(expr, op)
		if !ok {
			continue
		}
		a, err := evalC(l, consts)
		if err != nil {
			return 0, err
		}
		b, err := evalC(r, consts)
		if err != nil {
			return 0, err
		}
		switch {
		case op == " << " && (b < 0 || b > 62):
			return 0, fmt.Errorf("shift by %d in %q", b, expr)
		case op == " << ":
			return a << b, nil
		case op == " - ":
			return a - b, nil
		}
		return a + b, nil
	}
	if v, err := strconv.ParseInt(strings.TrimRight(expr, "uUlL"), 0, 64); err == nil {
		return int(v), nil
	}
	if v, ok := consts[expr]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("cannot evaluate %q", expr)
}
