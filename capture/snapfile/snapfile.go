// SPDX-License-Identifier: Apache-2.0

// Package snapfile writes snapshots to disk for the screen's s key: the
// snapshot JSON contract (engine.MarshalOutput, the bytes --json prints),
// to DIR/dcbtop-IFACE-YYYYMMDDTHHMMSSZ.json.
//
// A file is written whole or not at all, and never replaces another: it
// is written to a temporary file in DIR, synced, then linked to its final
// name (-1, -2... added while the name is taken; where the file system
// has no hard links, renamed after checking the name is free), and the
// directory synced. On error nothing is left behind.
package snapfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

// beforeLink, when set (tests), runs after the temporary file is written
// and synced and before it gets its final name; an error aborts the
// export.
var beforeLink func(tmp string) error

// Export writes snap to DIR/dcbtop-IFACE-YYYYMMDDTHHMMSSZ.json as the
// package comment says, and returns the file's path. The time in the name
// is the snapshot's (TakenAt), else now, in UTC; IFACE names its
// interfaces (one, a few joined with "+", or the first and how many
// more), with every character but letters, digits and ._+@- replaced by
// "_". Errors name the path they are about; DirProblem tells those of
// the directory itself.
func Export(dir string, snap engine.Snapshot, now time.Time) (string, error) {
	data, err := engine.MarshalOutput(snap, true)
	if err != nil {
		return "", err
	}
	at := snap.TakenAt
	if at.IsZero() {
		at = now
	}
	base := "dcbtop-" + exportName(snap) + "-" + at.UTC().Format("20060102T150405Z")
	return writeExclusive(dir, base, ".json", data)
}

// DirProblem reports whether err means the export directory cannot take
// the file (missing, not a directory, not writable, full).
func DirProblem(err error) bool {
	for _, e := range []error{os.ErrNotExist, os.ErrPermission, syscall.ENOTDIR, syscall.EROFS, syscall.ENOSPC, syscall.EDQUOT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// DefaultDir is where the screen's s exports snapshots without
// --snapshot-dir: the current directory when this process may write
// there, else the home directory when it may, else the temporary
// directory (a read-only working directory, or dcbtop run as another
// user, must not make the export fail).
func DefaultDir() string {
	return firstWritable([]string{".", os.Getenv("HOME")}, writableDir)
}

// firstWritable returns the first of dirs that writable accepts, or the
// temporary directory.
func firstWritable(dirs []string, writable func(string) bool) string {
	for _, d := range dirs {
		if d != "" && writable(d) {
			return d
		}
	}
	return os.TempDir()
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._+@-]`)

// exportName names the interfaces of a snapshot for a file name: the one
// interface, a few joined with "+", or the first and how many more.
func exportName(s engine.Snapshot) string {
	var names []string
	for _, in := range s.Interfaces {
		names = append(names, unsafeFileChars.ReplaceAllString(in.Name, "_"))
	}
	switch n := strings.Join(names, "+"); {
	case len(names) == 0:
		return "none"
	case len(n) <= 40:
		return n
	default:
		return fmt.Sprintf("%s+%d", names[0], len(names)-1)
	}
}

// writeExclusive writes data to DIR/BASE+EXT, or BASE-N+EXT when that is
// taken, atomically, with mode 0644, and returns the path.
func writeExclusive(dir, base, ext string, data []byte) (path string, err error) {
	f, err := os.CreateTemp(dir, ".dcbtop-export-*.tmp")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		os.Remove(tmp) // linked under its final name, or abandoned
	}()
	if _, err := f.Write(data); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Chmod(0o644); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		f = nil
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	f = nil
	if beforeLink != nil {
		if err := beforeLink(tmp); err != nil {
			return "", err
		}
	}
	for n := 0; n < 1000; n++ {
		path = filepath.Join(dir, base+ext)
		if n > 0 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", base, n, ext))
		}
		err = os.Link(tmp, path)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) {
			return "", fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if err != nil {
			// No hard links here (vfat...): rename, after checking the
			// name is free (a race may still replace a file made since).
			if _, serr := os.Lstat(path); serr == nil {
				continue
			}
			if err := os.Rename(tmp, path); err != nil {
				return "", fmt.Errorf("%s: %w", path, unwrapPath(err))
			}
		}
		syncDir(dir)
		return path, nil
	}
	return "", fmt.Errorf("%s: too many files named %s-N%s", dir, base, ext)
}

// syncDir makes a new directory entry durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// unwrapPath drops the operation and path of an *os.PathError or
// *os.LinkError (the caller names the path).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
