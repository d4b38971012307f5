// SPDX-License-Identifier: Apache-2.0

//go:build unix

package control

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on dir until unlock is called.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, sysErr(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// fileOwner returns the owner's uid of a file.
func fileOwner(st fs.FileInfo) (int, bool) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), true
	}
	return 0, false
}
