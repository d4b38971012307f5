// SPDX-License-Identifier: Apache-2.0

package nlfixture

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/mdlayher/netlink"
)

// Recorded replies: the real kernel's answers to the requests the clients
// send, recorded in testbed/vm's guest (Debian's kernel, testbed/kmod's
// DCB test device, Soft-RoCE) by testbed/realkernel's
// TestRecordedReplies, kept under each client's testdata/kernel/. The
// guest test fails when the kernel's answer no longer has the recorded
// layout; each client's unit tests hold their hand-written fixtures to
// the recording (same attributes, nesting, lengths, padding), so a fixture
// that drifts from the kernel fails in make test, not in production.

// ReadRecorded returns the bytes of a recorded reply: hexadecimal text,
// whitespace ignored, lines from '#' on comments.
func ReadRecorded(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var digits strings.Builder
	for _, line := range strings.Split(string(text), "\n") {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// FormatRecorded is the text ReadRecorded reads: the comment (one line per
// line of it), then b in lines of 16 bytes.
func FormatRecorded(comment string, b []byte) string {
	var s strings.Builder
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		s.WriteString("# " + line + "\n")
	}
	for len(b) > 0 {
		n := min(16, len(b))
		s.WriteString(hex.EncodeToString(b[:n]) + "\n")
		b = b[n:]
	}
	return s.String()
}

// Layout describes netlink attributes b, one line per attribute in the
// order they come: its path of types from the top ("/1/2"), its type
// field with flags, and its length; an attribute with NLA_F_NESTED, or
// whose path nested reports, is descended into. Values are left out:
// two replies of the same layout differ only in what they say.
func Layout(b []byte, nested func(path string) bool) ([]string, error) {
	var out []string
	var walk func(b []byte, path string) error
	walk = func(b []byte, path string) error {
		for len(b) > 0 {
			if len(b) < 4 {
				return fmt.Errorf("%s: %d trailing bytes", path, len(b))
			}
			n := int(netlinkUint16(b[0:2]))
			typ := netlinkUint16(b[2:4])
			if n < 4 || n > len(b) {
				return fmt.Errorf("%s: attribute length %d of %d bytes", path, n, len(b))
			}
			p := fmt.Sprintf("%s/%d", path, typ&^(netlink.Nested|netlink.NetByteOrder))
			out = append(out, fmt.Sprintf("%s type=%#x len=%d", p, typ, n))
			if typ&netlink.Nested != 0 || (nested != nil && nested(p)) {
				if err := walk(b[4:n], p); err != nil {
					return err
				}
			}
			adv := (n + 3) &^ 3
			if adv > len(b) {
				adv = len(b)
			}
			b = b[adv:]
		}
		return nil
	}
	err := walk(b, "")
	return out, err
}

// netlinkUint16 reads a u16 of netlink framing, in host byte order.
func netlinkUint16(b []byte) uint16 { return binary.NativeEndian.Uint16(b) }
