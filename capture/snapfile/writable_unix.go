// SPDX-License-Identifier: Apache-2.0

//go:build unix

package snapfile

import "syscall"

// writableDir reports whether this process may create files in dir.
func writableDir(dir string) bool {
	return syscall.Access(dir, 0x2|0x1) == nil // W_OK|X_OK
}
