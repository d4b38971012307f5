// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package capture

import "os"

// readSmall reads up to len(buf) bytes of the file at path into buf.
func readSmall(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Read(buf)
}
