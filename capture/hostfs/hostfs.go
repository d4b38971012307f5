// SPDX-License-Identifier: Apache-2.0

// Package hostfs is the one way dcbtop reads the files of a tree that
// stands for /sys (sysfs, and configfs and debugfs mounted below it): an
// FS with the four operations the readers need (Stat, ReadDir, Readlink,
// ReadFile), on the host's files (Dir), recorded as they are read
// (Recording, for `dcbtop -w`), or served from a recording (Replay, for
// `dcbtop -r`), so that a replay reads what the live run read through the
// same parsers.
//
// Names are slash-separated and relative to the tree's root
// ("class/net/eth0/device"), never absolute: a recording made with the
// sysfs root at /sys replays the same under any root.
package hostfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Info is what a Stat says of a name (after symlinks).
type Info struct {
	// Dir: a directory.
	Dir bool
	// Regular: a regular file (sysfs attributes are).
	Regular bool
}

// An FS reads a tree standing for /sys. Errors wrap the operation's cause
// as os's do (*fs.PathError around a syscall.Errno: errors.Is with
// fs.ErrNotExist, fs.ErrPermission), or are ErrIsDir or ErrNotRegular.
type FS interface {
	// Stat says what name is, following symlinks.
	Stat(name string) (Info, error)
	// ReadDir returns the names in the directory, sorted.
	ReadDir(name string) ([]string, error)
	// Readlink returns the target of the symlink.
	Readlink(name string) (string, error)
	// ReadFile returns at most limit+1 bytes of the regular file (more
	// than limit is the caller's sign of a file too long). It never
	// reads anything else: a directory is ErrIsDir, a FIFO or device
	// ErrNotRegular (opened without blocking, never read).
	ReadFile(name string, limit int64) ([]byte, error)
}

// ErrIsDir is ReadFile's error for a directory.
var ErrIsDir = errors.New("a directory, not a file")

// ErrNotRegular is ReadFile's error for a file that is not a regular
// file (a FIFO where an attribute should be would block a read).
var ErrNotRegular = errors.New("not a regular file")

// Dir returns the FS of the host's files under root (a directory that
// stands for /sys).
func Dir(root string) FS { return osFS{root: root} }

// osFS reads the host's files under root.
type osFS struct{ root string }

func (o osFS) path(name string) string { return filepath.Join(o.root, filepath.FromSlash(name)) }

func (o osFS) Stat(name string) (Info, error) {
	fi, err := os.Stat(o.path(name))
	if err != nil {
		return Info{}, err
	}
	return Info{Dir: fi.IsDir(), Regular: fi.Mode().IsRegular()}, nil
}

func (o osFS) ReadDir(name string) ([]string, error) {
	f, err := os.Open(o.path(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

func (o osFS) Readlink(name string) (string, error) { return os.Readlink(o.path(name)) }

func (o osFS) ReadFile(name string, limit int64) ([]byte, error) {
	// O_NONBLOCK: a FIFO where a file should be must not hang the
	// reader; it is refused below as not a regular file.
	f, err := os.OpenFile(o.path(name), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, ErrIsDir
	case !fi.Mode().IsRegular():
		return nil, ErrNotRegular
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}
