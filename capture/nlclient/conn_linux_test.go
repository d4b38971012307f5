// SPDX-License-Identifier: Apache-2.0

//go:build linux

package nlclient

import (
	"encoding/binary"
	"errors"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// TestMaxIfnameLen pins MaxIfnameLen to IFNAMSIZ-1.
func TestMaxIfnameLen(t *testing.T) {
	if MaxIfnameLen != unix.IFNAMSIZ-1 {
		t.Errorf("MaxIfnameLen = %d, want IFNAMSIZ-1 = %d", MaxIfnameLen, unix.IFNAMSIZ-1)
	}
}

// TestDial opens a NETLINK_ROUTE socket on the running kernel (no privilege
// needed), checks that it asked for extended acknowledgements, and that
// the kernel's error for an interface index that does not exist comes
// back as ENODEV through a Conn and Cause.
func TestDial(t *testing.T) {
	raw, err := Dial(unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	c := testFamily.NewConn(raw)
	defer c.Close()

	sc, err := raw.SyscallConn()
	if err != nil {
		t.Fatalf("SyscallConn: %v", err)
	}
	var extAck int
	var serr error
	if err := sc.Control(func(fd uintptr) {
		extAck, serr = unix.GetsockoptInt(int(fd), unix.SOL_NETLINK, unix.NETLINK_EXT_ACK)
	}); err != nil || serr != nil {
		t.Fatalf("getsockopt NETLINK_EXT_ACK: %v, %v", err, serr)
	}
	if extAck != 1 {
		t.Errorf("NETLINK_EXT_ACK = %d, want 1", extAck)
	}

	// RTM_GETLINK for an ifindex no interface has: rtnl_getlink answers
	// ENODEV.
	ifinfo := make([]byte, unix.SizeofIfInfomsg)
	binary.NativeEndian.PutUint32(ifinfo[4:], 0x7fffffff) // struct ifinfomsg ifi_index
	_, err = c.Request(netlink.Message{
		Header: netlink.Header{Type: unix.RTM_GETLINK, Flags: netlink.Request},
		Data:   ifinfo,
	}, unix.RTM_NEWLINK)
	cause := Cause(err)
	if !errors.Is(cause, syscall.ENODEV) {
		t.Errorf("RTM_GETLINK of ifindex 0x7fffffff: %v (cause %v), want ENODEV", err, cause)
	}
}
