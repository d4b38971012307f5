// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture

import "golang.org/x/sys/unix"

// NetAdmin reports whether this process has CAP_NET_ADMIN in its
// effective set (root has it; so has a binary given it with setcap), which
// DCB netlink writes need.
func NetAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_NET_ADMIN/32].Effective&(1<<(unix.CAP_NET_ADMIN%32)) != 0
}
