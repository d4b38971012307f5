//go:build !unix

package cli

import "io/fs"

// lockDir does nothing where there is no flock.
func lockDir(string) (func(), error) { return func() {}, nil }

// fileOwner knows no owner here.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }

// writableDir cannot tell here: it assumes dir is writable, and an export
// that fails says so.
func writableDir(string) bool { return true }
