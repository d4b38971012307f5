// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package control

import "io/fs"

// lockDir does nothing where there is no flock.
func lockDir(string) (func(), error) { return func() {}, nil }

// fileOwner knows no owner here.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
