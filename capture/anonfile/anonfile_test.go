// SPDX-License-Identifier: Apache-2.0

package anonfile

import (
	"os"
	"path/filepath"
	"testing"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// An unnamed file is in no directory while it is written, nor after it
// is closed unlinked; linked, it is whole at its name, mode 0600, and
// replaces what was there.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "bundle.pcapng")
	if err := os.WriteFile(final, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Written by path, as the recording's writer does.
	if err := os.WriteFile(f.Path(), []byte("secret names"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "bundle.pcapng" {
		t.Errorf("while written, the directory holds %q; want only the old bundle", got)
	}
	if b, err := os.ReadFile(f.Path()); err != nil || string(b) != "secret names" {
		t.Errorf("read back by path: %q, %v", b, err)
	}
	if err := f.Link(final); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := os.ReadFile(final)
	if err != nil || string(b) != "secret names" {
		t.Errorf("linked: %q, %v", b, err)
	}
	if fi, err := os.Stat(final); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("linked: mode %v, %v; want 0600", fi.Mode(), err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("after the link the directory holds %q", got)
	}

	// Closed without a name: nothing left.
	g, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.Path(), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.Close()
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("an unlinked file left %q", got)
	}
}

// Without O_TMPFILE the file is unlinked at once and copied into place.
func TestFileWithoutTmpfile(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, ".x-*")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Name())
	a := &File{f: f, dir: dir}
	if _, err := f.WriteString("whole"); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "out")
	if err := a.Link(final); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if b, err := os.ReadFile(final); err != nil || string(b) != "whole" {
		t.Errorf("copied: %q, %v", b, err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %q", got)
	}
}
