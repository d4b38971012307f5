// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Creating named namespaces safely on any machine.
//
// `ip netns add` keeps a namespace as a bind mount on a file in
// /run/netns, and first makes /run/netns a mount point of its own with
// shared propagation (a bind mount of the directory onto itself), so that
// namespace mounts and unmounts propagate between mount namespaces. On a
// new machine, or under an empty tmpfs /run, that step comes with the
// first namespace, and `go test ./...` creates the first namespaces from
// several test binaries at once. Done twice, the second bind mount stacks
// on the first; done after a namespace was bound in /run/netns, it covers
// that namespace (non-recursively: the name is left as an empty file,
// `ip netns exec` fails and removal fails with EBUSY; recursively: a
// second copy stays mounted underneath). iproute2 has taken an flock on
// /run/netns around the step since 2020 (Debian bug 949235); older
// versions, and programs that bind namespaces themselves, take none.
//
// So the harness does not leave the step to whichever `ip` runs first:
// addNetns holds netnsLockFile across the preparation and `ip netns add`
// (serializing the harness's processes whatever iproute2 does), and
// prepareNetnsDir makes /run/netns a shared mount point exactly as
// iproute2 does, under iproute2's own lock, before `ip netns add` runs,
// which then finds nothing left to do. Nothing assumes that /run/netns
// exists, or that it does not. `ip netns del` and `ip netns exec` never
// mount /run/netns and need no lock.

// netnsLockFile is the name, in os.TempDir(), of the lock file addNetns
// holds. os.TempDir() exists on a new machine and is not under /run, which
// may be an empty tmpfs; test binaries of one `go test` share it.
const netnsLockFile = "dcbtop-testbed-netns.lock"

// addNetns runs `ip netns add NAME` with /run/netns prepared, holding the
// harness's namespace lock throughout.
func addNetns(name string) error {
	unlock, err := lockNetns()
	if err != nil {
		return err
	}
	defer unlock()
	if err := prepareNetnsDir(); err != nil {
		return err
	}
	_, err = run("ip", "netns", "add", name)
	return err
}

// lockNetns takes an exclusive flock on os.TempDir()/netnsLockFile and
// returns the function that releases it. The kernel releases the lock when
// a holder dies; holders hold it for at most one `ip netns add`
// (CommandTimeout).
func lockNetns() (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), netnsLockFile)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("testbed: namespace lock %s: %w", path, err)
	}
	if err := flock(fd); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("testbed: namespace lock %s: %w", path, err)
	}
	return func() { unix.Close(fd) }, nil // closing the only descriptor releases the lock
}

// flock takes an exclusive flock on fd, waiting as long as it takes.
func flock(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// prepareNetnsDir creates NetnsDir if needed and makes it a mount point
// with shared propagation, as `ip netns add` does (iproute2's
// netns_add: mkdir; under an flock on the directory, mount --make-rshared,
// and when that fails with EINVAL because it is no mount point yet, a
// recursive bind mount of the directory onto itself first). The caller
// holds the harness's lock; the flock on the directory excludes other
// programs' `ip netns add` (iproute2 since 2020).
func prepareNetnsDir() error {
	if err := os.MkdirAll(NetnsDir, 0o755); err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	fd, err := unix.Open(NetnsDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("testbed: open %s: %w", NetnsDir, err)
	}
	defer unix.Close(fd)
	if err := flock(fd); err != nil {
		return fmt.Errorf("testbed: flock %s: %w", NetnsDir, err)
	}
	for bound := false; ; bound = true {
		err := unix.Mount("", NetnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINVAL) || bound {
			return fmt.Errorf("testbed: make %s a shared mount point: %w", NetnsDir, err)
		}
		if err := unix.Mount(NetnsDir, NetnsDir, "none", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("testbed: bind-mount %s onto itself: %w", NetnsDir, err)
		}
	}
}
