// SPDX-License-Identifier: Apache-2.0

// Package anonfile makes files that have no name until they are complete:
// what a bundle records before it is redacted, and what redaction writes,
// never survive a kill -9 as a file someone could read. A File is made
// with O_TMPFILE (open(2): an unnamed file in a directory's file system,
// freed when its last descriptor closes) and given its name at the end
// with linkat(2) through /proc/self/fd; on a file system without
// O_TMPFILE it is a file unlinked the instant it is created, copied into
// place at the end.
package anonfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// A File is an unnamed file, mode 0600.
type File struct {
	f        *os.File
	dir      string
	linkable bool // O_TMPFILE: linkat can name it
}

// Create makes an unnamed file in dir's file system.
func Create(dir string) (*File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return &File{f: os.NewFile(uintptr(fd), dir), dir: dir, linkable: true}, nil
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, fmt.Errorf("create an unnamed file in %s: %w", dir, err)
	}
	// No O_TMPFILE here: a named file, unlinked at once.
	f, err := os.CreateTemp(dir, ".dcbtop-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, dir: dir}, nil
}

// Path is a name other code can open the file by while it is open
// (/proc/self/fd/N): to write it, or to read it twice.
func (a *File) Path() string { return "/proc/self/fd/" + strconv.Itoa(int(a.f.Fd())) }

// Link gives the file the name path (in its directory's file system),
// replacing a file there, once it is synced: through a hidden name
// linked to it and renamed over path, so that path is always either the
// old file or the whole new one.
func (a *File) Link(path string) error {
	if err := a.f.Sync(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	hidden := tmp.Name()
	if a.linkable {
		tmp.Close()
		os.Remove(hidden)
		if err := unix.Linkat(unix.AT_FDCWD, a.Path(), unix.AT_FDCWD, hidden, unix.AT_SYMLINK_FOLLOW); err != nil {
			return fmt.Errorf("linkat: %w", err)
		}
	} else {
		_, err := io.Copy(tmp, io.NewSectionReader(a.f, 0, 1<<62))
		if err == nil {
			err = tmp.Chmod(0o600)
		}
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(hidden)
			return err
		}
	}
	if err := os.Rename(hidden, path); err != nil {
		os.Remove(hidden)
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Close frees the file (a file not linked is gone).
func (a *File) Close() error { return a.f.Close() }
