// SPDX-License-Identifier: Apache-2.0

package ecn

import (
	"strconv"
	"testing"
)

// checkUint holds for every parser built on parseUint: no panic, a value
// within max when accepted, and the kernel's own rendering of an accepted
// value ("%u\n") parses back to it.
func checkUint(t *testing.T, b []byte, max, v uint64, err error) {
	t.Helper()
	if err != nil {
		if v != 0 {
			t.Errorf("%q: error %v with value %d, want 0", b, err, v)
		}
		return
	}
	if v > max {
		t.Errorf("%q: %d above %d", b, v, max)
	}
	if len(b) >= maxRead {
		t.Errorf("%q: accepted %d bytes", b, len(b))
	}
	again, err := parseUint([]byte(strconv.FormatUint(v, 10)+"\n"), max)
	if err != nil || again != v {
		t.Errorf("%q: %d rendered as %%u\\n parses to %d, %v", b, v, again, err)
	}
}

func FuzzParseUint(f *testing.F) {
	f.Add([]byte("4294967295\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseUint(b, u32)
		checkUint(t, b, u32, v, err)
	})
}

func FuzzParseBit(f *testing.F) {
	f.Add([]byte("1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		on, err := parseBit(b)
		v := uint64(0)
		if on {
			v = 1
		}
		checkUint(t, b, 1, v, err)
		if err == nil {
			if s := string(b); s != "0" && s != "1" && s != "0\n" && s != "1\n" && len(s) > 0 && s[0] != '0' {
				t.Errorf("%q accepted as a bit", b)
			}
		}
	})
}

func FuzzParseDSCP(f *testing.F) {
	f.Add([]byte("48\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseDSCP(b)
		checkUint(t, b, 63, uint64(v), err)
	})
}

func FuzzParsePriority(f *testing.F) {
	f.Add([]byte("6\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parsePriority(b)
		checkUint(t, b, 7, uint64(v), err)
	})
}

// FuzzValidIfname: whatever validIfname accepts can be spliced into
// class/net/NAME without leaving class/net or naming a second level.
func FuzzValidIfname(f *testing.F) {
	f.Add("eth0")
	f.Fuzz(func(t *testing.T, name string) {
		if validIfname(name) != "" {
			return
		}
		if name == "" || name == "." || name == ".." || len(name) > 15 {
			t.Errorf("%q accepted", name)
		}
		for i := 0; i < len(name); i++ {
			switch name[i] {
			case '/', ':', 0, ' ', '\t', '\n', '\v', '\f', '\r', 0xa0:
				t.Errorf("%q accepted with byte %q", name, name[i])
			}
		}
	})
}
