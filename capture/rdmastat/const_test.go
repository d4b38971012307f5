package rdmastat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// constants lists every constant of const.go that a UAPI header defines,
// by its C name, with the value the kernel's headers give it.
var constants = []struct {
	name      string
	got, want int
	header    string // where it is defined
}{
	{"NETLINK_RDMA", NETLINK_RDMA, 20, "linux/netlink.h"},
	{"RDMA_NL_NLDEV", RDMA_NL_NLDEV, 5, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_GET", RDMA_NLDEV_CMD_GET, 1, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_STAT_GET", RDMA_NLDEV_CMD_STAT_GET, 17, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_CMD_STAT_GET_STATUS", RDMA_NLDEV_CMD_STAT_GET_STATUS, 24, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_PAD", RDMA_NLDEV_ATTR_PAD, 0, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_DEV_INDEX", RDMA_NLDEV_ATTR_DEV_INDEX, 1, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_DEV_NAME", RDMA_NLDEV_ATTR_DEV_NAME, 2, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_PORT_INDEX", RDMA_NLDEV_ATTR_PORT_INDEX, 3, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTERS", RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 80, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, 81, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 82, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 83, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 94, "rdma/rdma_netlink.h"},
	{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC", RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 95, "rdma/rdma_netlink.h"},
}

// TestConstants pins every constant, the message types built from them,
// and the kernel-internal values of include/rdma/ib_verbs.h (which no
// installed header has).
func TestConstants(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range constants {
		if seen[c.name] {
			t.Errorf("%s listed twice", c.name)
		}
		seen[c.name] = true
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"RDMA_NL_CLIENT_SHIFT", RDMA_NL_CLIENT_SHIFT, 10},
		{"RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)", int(typeGet), 0x1401},
		{"RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET)", int(typeStatGet), 0x1411},
		{"RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET_STATUS)", int(typeStatGetStatus), 0x1418},
		{"IB_DEVICE_NAME_MAX", IB_DEVICE_NAME_MAX, 64},
		{"IB_STAT_FLAG_OPTIONAL", IB_STAT_FLAG_OPTIONAL, 1},
		{"maxDeviceName", maxDeviceName, 63},
		{"maxCounterName", maxCounterName, 64},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// TestHeaderConstants cross-checks the constants against the installed
// UAPI headers of linux-libc-dev (/usr/include/rdma/rdma_netlink.h and
// /usr/include/linux/netlink.h), parsed as text: #defines and enum
// members, with implicit values counted. It also checks that the
// header's RDMA_NL_GET_TYPE is the shift this package uses. It skips when
// the headers are absent, unless DCBTOP_REQUIRE_PRIV=1 (as in CI).
func TestHeaderConstants(t *testing.T) {
	headers := map[string]map[string]int{}
	var getType string
	for _, h := range []string{"rdma/rdma_netlink.h", "linux/netlink.h"} {
		src := readHeader(t, "/usr/include/"+h)
		consts, err := parseHeader(src)
		if err != nil {
			t.Fatalf("parse %s: %v", h, err)
		}
		headers[h] = consts
		if m := regexp.MustCompile(`(?m)^#define\s+RDMA_NL_GET_TYPE\(client,\s*op\)\s+(.+?)\s*$`).FindStringSubmatch(src); m != nil {
			getType = m[1]
		}
	}
	for _, c := range constants {
		v, ok := headers[c.header][c.name]
		switch {
		case !ok:
			t.Errorf("%s: not found in %s", c.name, c.header)
		case v != c.want:
			t.Errorf("%s = %d in %s, %d here", c.name, v, c.header, c.want)
		}
	}
	if want := "((client << " + strconv.Itoa(RDMA_NL_CLIENT_SHIFT) + ") + op)"; getType != want {
		t.Errorf("RDMA_NL_GET_TYPE(client, op) is %q in the header, want %q", getType, want)
	}
}

// readHeader returns the text of the C header at path, or skips t when it
// is absent (failing instead when DCBTOP_REQUIRE_PRIV=1).
func readHeader(t *testing.T, path string) string {
	t.Helper()
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

// parseHeader returns the integer #defines and enum members of a C header.
// A value may be a number, a name defined before it, "(1 << n)", or
// "NAME + n"/"NAME - n"; an enum member whose value is beyond that leaves
// it and the implicit members after it out.
func parseHeader(src string) (map[string]int, error) {
	src = cComment.ReplaceAllString(src, " ")
	consts := map[string]int{}
	for _, m := range cDefine.FindAllStringSubmatch(src, -1) {
		if v, err := evalC(m[2], consts); err == nil {
			consts[m[1]] = v
		}
	}
	for _, m := range cEnum.FindAllStringSubmatch(src, -1) {
		body := cPreproc.ReplaceAllString(m[1], "")
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

// evalC evaluates the constant expressions parseHeader supports.
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
		switch op {
		case " << ":
			return a << b, nil
		case " - ":
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

// TestParseHeader checks the header parser on the forms rdma_netlink.h
// uses.
func TestParseHeader(t *testing.T) {
	got, err := parseHeader(`
/* enum x { NOT_ME } */
#define NETLINK_X	20	/* trailing */
#define NLA_F_X		(1 << 15)
#define GET_TYPE(client, op) ((client << 10) + op)
enum {
	CL_A = 1,
	CL_B,
	CL_C, // comment
};
enum cmd {
	CMD_UNSPEC,

	CMD_GET, /* can dump */

	/* 2 - 4 are free to use */

	CMD_PORT = 5,
	CMD_NEXT,
};
enum attr {
	ATTR_UNSPEC,
	ATTR_PAD = ATTR_UNSPEC,
	ATTR_ONE,
	ATTR_MASK = ~(NLA_F_X | 4),
	ATTR_LOST,
	ATTR_SET = 40,
	ATTR_AFTER,
};
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"NETLINK_X": 20, "NLA_F_X": 1 << 15, "CL_A": 1, "CL_B": 2, "CL_C": 3,
		"CMD_UNSPEC": 0, "CMD_GET": 1, "CMD_PORT": 5, "CMD_NEXT": 6,
		"ATTR_UNSPEC": 0, "ATTR_PAD": 0, "ATTR_ONE": 1, "ATTR_SET": 40, "ATTR_AFTER": 41}
	for k, v := range want {
		if w, ok := got[k]; !ok || w != v {
			t.Errorf("%s = %d (present %v), want %d", k, w, ok, v)
		}
	}
	for _, name := range []string{"NOT_ME", "GET_TYPE", "ATTR_MASK", "ATTR_LOST"} {
		if v, ok := got[name]; ok {
			t.Errorf("%s = %d, want no value", name, v)
		}
	}
}
