// SPDX-License-Identifier: Apache-2.0

package ecn

import (
	"errors"
	"fmt"
	"strconv"
)

// maxRead is the most bytes read from one file. Every value here is one
// decimal number of at most 10 digits and a newline, so a file that fills
// the whole buffer is not one value, whatever follows.
const maxRead = 64

// errEmpty is a file with nothing in it. MLNX_OFED's show functions
// (en_ecn.c) return 0 bytes when the firmware query fails.
var errEmpty = errors.New("empty")

// parseUint parses what the kernel prints for one unsigned field: decimal
// digits, then at most one newline (sysfs and debugfs print "%u\n" or
// "%d\n"). Signs, spaces, hexadecimal and values above max are errors.
func parseUint(b []byte, max uint64) (uint64, error) {
	if len(b) >= maxRead {
		return 0, fmt.Errorf("%d bytes or more: not one value", maxRead)
	}
	s := string(b)
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if s == "" {
		if len(b) == 0 {
			return 0, errEmpty
		}
		return 0, errors.New("no digits before the newline")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("not a decimal number: %s", strconv.Quote(string(b)))
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, fmt.Errorf("%s is out of range 0..%d", s, max)
	}
	return v, nil
}

// parseBit parses a one-bit field: an enable/N file, np_cnp_prio_mode,
// clamp_tgt_rate. Only 0 and 1 are accepted.
func parseBit(b []byte) (bool, error) {
	v, err := parseUint(b, 1)
	return v == 1, err
}

// parseDSCP parses a 6-bit DSCP (cnp_dscp, np_cnp_dscp): 0..63.
func parseDSCP(b []byte) (uint8, error) {
	v, err := parseUint(b, bits6)
	return uint8(v), err
}

// parsePriority parses a 3-bit 802.1p priority (cnp_802p_prio,
// np_cnp_prio): 0..7.
func parsePriority(b []byte) (uint8, error) {
	v, err := parseUint(b, bits3)
	return uint8(v), err
}

// validIfname reports why name cannot be a Linux interface name, or ""
// when it can. The rules are the kernel's dev_valid_name
// (net/core/dev.c): 1..15 bytes (IFNAMSIZ is 16 with the NUL), not "."
// or "..", and no '/', ':' or isspace() byte (lib/ctype.c: \t \n \v \f
// \r, space and 0xA0). A NUL cannot be in a C string at all.
func validIfname(name string) string {
	switch {
	case name == "":
		return "empty"
	case len(name) > 15:
		return "longer than 15 bytes"
	case name == "." || name == "..":
		return "not a file name"
	}
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '/', ':', 0, '\t', '\n', '\v', '\f', '\r', ' ', 0xa0:
			return fmt.Sprintf("byte %d (%q) is not allowed", i, name[i])
		}
	}
	return ""
}
