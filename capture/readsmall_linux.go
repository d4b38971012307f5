// SPDX-License-Identifier: Apache-2.0

//go:build linux

package capture

import "golang.org/x/sys/unix"

// readSmall reads up to len(buf) bytes of the file at path into buf,
// in three system calls (open, read, close) and no allocation: what a
// scan of every process's proc entries needs (os.ReadFile adds a stat,
// the poller's fcntl and epoll calls, and a buffer for each file).
func readSmall(path string, buf []byte) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		return max(n, 0), err
	}
}
