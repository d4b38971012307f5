// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseHeader checks the header parser on the forms the kernel's UAPI
// headers use (linux/dcbnl.h, linux/rtnetlink.h, rdma/rdma_netlink.h):
// every constant it finds, and none it should not.
func TestParseHeader(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want map[string]int
	}{
		{
			name: "defines",
			src: "#define A_HEX\t0x10\t/* trailing */\n#define A_DEC 7\n#define A_UL 8UL\n" +
				"#define A_SHIFT (1 << 15)\n#define NOT_A_CONST(x) ((x) + 1)\n#define A_STR \"ethtool\"\n",
			want: map[string]int{"A_HEX": 16, "A_DEC": 7, "A_UL": 8, "A_SHIFT": 1 << 15},
		},
		{
			name: "comments hide what they hold",
			src:  "/* comment with enum x { NOT_ME } */\n// enum y { NOT_ME_EITHER };\n#define B 2 // two\n",
			want: map[string]int{"B": 2},
		},
		{
			name: "implicit values and NAME - 1",
			src: `enum e {
	E_ZERO,
	E_ONE, // one
	E_TEN = 10,
	E_ELEVEN,
	__E_MAX,
	E_MAX = __E_MAX - 1,
};`,
			want: map[string]int{"E_ZERO": 0, "E_ONE": 1, "E_TEN": 10, "E_ELEVEN": 11, "__E_MAX": 12, "E_MAX": 11},
		},
		{
			name: "an anonymous enum starting from a define",
			src:  "#define A_HEX 0x10\nenum { F_A = A_HEX, F_B };",
			want: map[string]int{"A_HEX": 16, "F_A": 16, "F_B": 17},
		},
		{
			name: "a #define inside an enum, and a value beyond the parser",
			src: `enum g {
	G_A = 3,
#define G_A G_A
	G_B,
	G_MAX = (((G_B + 3) & ~3) - 1),
	G_AFTER,
	G_SET = 40,
	G_NEXT,
};`,
			want: map[string]int{"G_A": 3, "G_B": 4, "G_SET": 40, "G_NEXT": 41},
		},
		{
			name: "blank lines and comments between members",
			src: `enum cmd {
	CMD_UNSPEC,

	CMD_GET, /* can dump */

	/* 2 - 4 are free to use */

	CMD_PORT = 5,
	CMD_NEXT,
};`,
			want: map[string]int{"CMD_UNSPEC": 0, "CMD_GET": 1, "CMD_PORT": 5, "CMD_NEXT": 6},
		},
		{
			name: "aliases and shifts",
			src: `#define NLA_F_X		(1 << 15)
#define GET_TYPE(client, op) ((client << 10) + op)
enum attr {
	ATTR_UNSPEC,
	ATTR_PAD = ATTR_UNSPEC,
	ATTR_ONE,
	ATTR_MASK = ~(NLA_F_X | 4),
	ATTR_LOST,
	ATTR_SET = 40,
	ATTR_AFTER,
};`,
			want: map[string]int{"NLA_F_X": 1 << 15, "ATTR_UNSPEC": 0, "ATTR_PAD": 0, "ATTR_ONE": 1, "ATTR_SET": 40, "ATTR_AFTER": 41},
		},
		{
			name: "a shift out of range is no value",
			src:  "#define BIG (1 << 64)\n#define NEG (1 << -1)\n",
			want: map[string]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeader(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("constants (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseHeader("enum { 3BAD };"); err == nil || !strings.Contains(err.Error(), `"3BAD"`) {
		t.Errorf("ParseHeader of a member that is not a name: %v, want an error naming it", err)
	}
}

// A recorder is a testing.TB that records what a check reports. Fatal and
// Skip end the goroutine, as they do in a test; run the check with run.
type recorder struct {
	testing.TB
	errors, logs []string
	ended        string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run runs check against a new recorder on a goroutine of its own, and
// returns the recorder when check returns or ends.
func run(t *testing.T, check func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r
}

// TestCheckConstants checks what CheckConstants reports.
func TestCheckConstants(t *testing.T) {
	tests := []struct {
		name   string
		consts []Constant
		want   []string
	}{
		{"all pinned", []Constant{{Name: "A", Got: 1, Want: 1}, {Name: "B", Got: 2, Want: 2}}, nil},
		{"a wrong value", []Constant{{Name: "A", Got: 1, Want: 1}, {Name: "B", Got: 3, Want: 2}}, []string{"B = 3, want 2"}},
		{"a name twice", []Constant{{Name: "A", Got: 1, Want: 1}, {Name: "A", Got: 1, Want: 1}}, []string{"A listed twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, func(tb testing.TB) { CheckConstants(tb, tt.consts) })
			if diff := cmp.Diff(tt.want, r.errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckHeaders checks what CheckHeaders reports, against the installed
// linux/netlink.h.
func TestCheckHeaders(t *testing.T) {
	ReadHeader(t, "linux/netlink.h") // skips when it is absent
	type report struct {
		Errors, Logs []string
		Ended        string
	}
	tests := []struct {
		name   string
		consts []Constant
		want   report
	}{
		{
			name: "all as in the header",
			consts: []Constant{
				{Name: "NETLINK_ROUTE", Want: 0, Header: "linux/netlink.h"},
				{Name: "NETLINK_GENERIC", Want: 16, Header: "linux/netlink.h"},
				{Name: "NLA_F_NESTED", Want: 1 << 15, Header: "linux/netlink.h"},
				{Name: "NOT_IN_A_HEADER", Want: 7},
			},
		},
		{
			name:   "a value the header does not give",
			consts: []Constant{{Name: "NETLINK_GENERIC", Want: 17, Header: "linux/netlink.h"}},
			want:   report{Errors: []string{"NETLINK_GENERIC = 16 in linux/netlink.h, 17 here"}},
		},
		{
			name: "a name the header lacks, recent or not",
			consts: []Constant{
				{Name: "NETLINK_NO_SUCH", Header: "linux/netlink.h"},
				{Name: "NETLINK_NOT_YET", Header: "linux/netlink.h", Recent: true},
			},
			want: report{
				Errors: []string{"NETLINK_NO_SUCH: not found in linux/netlink.h"},
				Logs:   []string{"NETLINK_NOT_YET: not in the installed linux/netlink.h (added in a later Linux)"},
			},
		},
		{
			name:   "a header that is not installed",
			consts: []Constant{{Name: "X", Header: "linux/dcbtop-no-such-header.h"}},
			want:   report{Ended: "skip: skipping: /usr/include/linux/dcbtop-no-such-header.h is missing (apt-get install linux-libc-dev)"},
		},
	}
	t.Setenv("DCBTOP_REQUIRE_PRIV", "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, func(tb testing.TB) { CheckHeaders(tb, tt.consts) })
			if diff := cmp.Diff(tt.want, report{r.errors, r.logs, r.ended}); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}
