// SPDX-License-Identifier: Apache-2.0

package counters

// This target is in package counters, not counters_test like the other
// tests: what turns a sysfs file into a value (parseCounter, reader.uint,
// reader.ecn) is unexported. Ethtool statistics need no such target: they
// arrive as numbers (map[string]uint64, decoded by the ethtool package
// from the ioctl) and are only looked up by name (TestPFC).

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// FuzzParseCounter fuzzes the parsing of a sysfs counter file's content b,
// by parseCounter and as the file a reader reads, as a counter (uint) and
// as an ECN enable flag (ecn). Invariants:
//   - b is a value exactly when it is at most 256 bytes of one or more
//     decimal digits and at most one trailing newline, and the number is
//     at most 2^64-1; the value is that number, whose decimal form is the
//     digits without leading zeros, and which parses from that form again;
//   - anything else is "not a number" (or "out of range" for digits too
//     large) and gives no value: never a counter of 0;
//   - the reader gives the same from the file, and records one error
//     naming the file and the problem exactly when it is not a value.
//
// (ECN flag files are capture/ecn's, fuzzed there.)
func FuzzParseCounter(f *testing.F) {
	// Every file of the fixture trees: counters, and what is not one.
	err := filepath.WalkDir("testdata/sysfs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || d.Name() == "README.md" {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil {
			f.Add(b)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	// More in testdata/fuzz/FuzzParseCounter: the limits.
	for _, s := range []string{"", "\n", "0", "1\n", "abc\n", "-1\n", "+1\n", "0x10\n", "12 34\n", "1000\n\n", " 1000\n", "10\x0000\n", "5.0\n"} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	const rel = "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, problem := parseCounter(b)
		want, wantProblem := counterOracle(b)
		if v != want || problem != wantProblem {
			t.Fatalf("parseCounter(%q) = %d, %q; want %d, %q", b, v, problem, want, wantProblem)
		}
		if problem == "" {
			s := strconv.FormatUint(v, 10)
			if digits := strings.TrimLeft(strings.TrimSuffix(string(b), "\n"), "0"); s != digits && !(v == 0 && digits == "") {
				t.Fatalf("parseCounter(%q) = %d, whose decimal form is not the digits %q", b, v, digits)
			}
			if again, p := parseCounter([]byte(s + "\n")); again != v || p != "" {
				t.Fatalf("%d does not round-trip: %d, %q", v, again, p)
			}
		}

		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &reader{fs: hostfs.Dir(root)}
		got, ok := r.uint(rel)
		if ok != (problem == "") || got != v {
			t.Fatalf("reader.uint of a file of %q = %d, %v; parseCounter gives %d, %q", b, got, ok, v, problem)
		}
		if wantErrs := badList(rel, problem); !slices.Equal(r.errs, wantErrs) {
			t.Fatalf("reader errors %q, want %q", r.errs, wantErrs)
		}
	})
}

// counterOracle is what parseCounter must make of b, found another way:
// the digits compared as text with 2^64-1.
func counterOracle(b []byte) (uint64, string) {
	if len(b) > maxFileSize {
		return 0, "not a number"
	}
	s := string(b)
	s, _ = strings.CutSuffix(s, "\n")
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, "not a number"
	}
	s = strings.TrimLeft(s, "0")
	const max = "18446744073709551615"
	if len(s) > len(max) || len(s) == len(max) && s > max {
		return 0, "out of range"
	}
	var v uint64
	for _, c := range []byte(s) {
		v = v*10 + uint64(c-'0')
	}
	return v, ""
}

// badList is the errors a reader records for the file at rel with
// problem: none when there is none.
func badList(rel, problem string) []string {
	if problem == "" {
		return nil
	}
	return []string{rel + ": " + problem}
}
