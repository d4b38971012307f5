// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture

import "golang.org/x/sys/unix"

// This file exports internals to the tests of package capture_test.

// LLDPFilter is the BPF program of a Live.
var LLDPFilter = lldpFilter

// LiveSockopt returns the value of the integer socket option level/opt of
// the packet socket of l.
func LiveSockopt(l *Live, level, opt int) (int, error) {
	var (
		v   int
		err error
	)
	if cerr := l.sys.rc.Control(func(fd uintptr) { v, err = unix.GetsockoptInt(int(fd), level, opt) }); cerr != nil {
		return 0, cerr
	}
	return v, err
}
