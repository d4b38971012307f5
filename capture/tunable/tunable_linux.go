// SPDX-License-Identifier: Apache-2.0

//go:build linux

package tunable

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A Client does the ioctls on an AF_INET datagram socket of the calling
// thread's network namespace (what ethtool itself opens). It may be used
// from several goroutines.
type Client struct{ fd int }

// Open opens the ioctl's socket. Close it when done.
func Open() (*Client, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &Client{fd: fd}, nil
}

// Close closes the socket.
func (c *Client) Close() { unix.Close(c.fd) }

// PFCStormTimeout reads ifname's PFC storm prevention timeout in ms (0
// off, Auto the driver's default where it reads back as such).
func (c *Client) PFCStormTimeout(ifname string) (uint16, error) {
	var buf [sizeofTunableHeader + 4]byte
	if err := c.do(ethtoolGTunable, ifname, buf[:]); err != nil {
		return 0, &Error{Op: "ETHTOOL_GTUNABLE", Ifname: ifname, Err: err}
	}
	return binary.NativeEndian.Uint16(buf[sizeofTunableHeader:]), nil
}

// SetPFCStormTimeout writes ifname's PFC storm prevention timeout (needs
// CAP_NET_ADMIN). A value the driver refuses is an EINVAL Error (mlx5:
// 80-8000 ms, 0 or Auto).
func (c *Client) SetPFCStormTimeout(ifname string, ms uint16) error {
	var buf [sizeofTunableHeader + 4]byte
	binary.NativeEndian.PutUint16(buf[sizeofTunableHeader:], ms)
	if err := c.do(ethtoolSTunable, ifname, buf[:]); err != nil {
		return &Error{Op: "ETHTOOL_STUNABLE", Ifname: ifname, Err: err}
	}
	return nil
}

// ifreq is struct ifreq with ifr_data: the name, the pointer, padding to
// the union's size (sizeof(struct ifmap), 24 bytes on LP64).
type ifreq struct {
	name [ifnamsiz]byte
	data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// do sends SIOCETHTOOL cmd with struct ethtool_tunable in buf: the header
// (cmd, ETHTOOL_PFC_PREVENTION_TOUT, ETHTOOL_TUNABLE_U16, len 2, as
// ethtool_tunable_valid requires) then the u16, which the kernel fills
// for a get (copy_to_user after the header).
func (c *Client) do(cmd uint32, ifname string, buf []byte) error {
	if ifname == "" || len(ifname) >= ifnamsiz {
		return syscall.ENODEV
	}
	binary.NativeEndian.PutUint32(buf[0:], cmd)
	binary.NativeEndian.PutUint32(buf[4:], pfcPreventionTout)
	binary.NativeEndian.PutUint32(buf[8:], ethtoolTunableU16)
	binary.NativeEndian.PutUint32(buf[12:], 2)
	var ifr ifreq
	copy(ifr.name[:], ifname)
	ifr.data = unsafe.Pointer(&buf[0])
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(c.fd), siocEthtool, uintptr(unsafe.Pointer(&ifr)))
	if errno != 0 {
		return errno
	}
	return nil
}
