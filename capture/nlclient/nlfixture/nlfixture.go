// SPDX-License-Identifier: Apache-2.0

// Package nlfixture is the test support of dcbtop's netlink clients
// (capture/dcbnl, capture/linkpause, capture/rdmastat): a fake kernel
// behind an nltest connection that answers the way the kernel's netlink
// core does (Kernel), helpers for the byte-exact fixtures their tests write
// by hand (Cat, Wire, RequireLittleEndian), and the checks of their
// constants against the installed UAPI headers (CheckConstants,
// CheckHeaders). Import it from _test.go files only.
//
// Like nlclient it knows no family's messages: the fixtures themselves
// stay with the tests of each family.
package nlfixture

import (
	"encoding/binary"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// RequireLittleEndian skips t on a big-endian host: netlink carries its
// numbers in host byte order, and hand-written fixtures are little-endian.
func RequireLittleEndian(t testing.TB) {
	t.Helper()
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("skipping: the byte fixtures are little-endian, this host is big-endian")
	}
}

// Cat concatenates hand-written pieces of a message.
func Cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// Wire returns the bytes of the request m as it was sent through an
// nltest connection, with its sequence number and port ID replaced by
// zeros (bytes 8 to 15 of struct nlmsghdr) after checking them: the
// sequence number is not 0, and the port ID is nltest.PID.
func Wire(t testing.TB, m netlink.Message) []byte {
	t.Helper()
	if m.Header.Sequence == 0 {
		t.Errorf("request has sequence number 0")
	}
	if m.Header.PID != nltest.PID {
		t.Errorf("request port ID = %d, want %d", m.Header.PID, nltest.PID)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("marshal request: %v", err)
	}
	clear(b[8:16])
	return b
}
