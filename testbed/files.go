// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to a file name in a fresh temporary directory
// of t and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ShortTempDir returns a temporary directory with a short path (unix
// socket paths are limited to 108 bytes, which t.TempDir can exceed),
// removed when t ends.
func ShortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dcbtop-ctl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
