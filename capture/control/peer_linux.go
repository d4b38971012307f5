// SPDX-License-Identifier: Apache-2.0

package control

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// capNetAdmin is CAP_NET_ADMIN's bit (include/uapi/linux/capability.h).
const capNetAdmin = 12

// A Peer is the process at the other end of a control connection, as
// the kernel names it (SO_PEERCRED: the credentials it had at connect,
// translated into this process's user namespace).
type Peer struct {
	PID, UID int
	// Privileged: uid 0, or CAP_NET_ADMIN in its effective set in this
	// process's user namespace (what writing DCB and sending LLDPDUs
	// needs: the kernel's dcb_doit checks netlink_capable(CAP_NET_ADMIN)).
	Privileged bool
	// Why says, for an unprivileged peer, what it lacks.
	Why string
}

// String names the peer for an error: "pid 4242 (uid 65534, nc)".
func (p Peer) String() string {
	s := fmt.Sprintf("pid %d (uid %d", p.PID, p.UID)
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.PID)); err == nil {
		s += ", " + OneLine(strings.TrimSpace(string(comm)))
	}
	return s + ")"
}

// peerOf reads the credentials of c's peer and judges them. The peer's
// capabilities come from /proc/PID/status; the pid is held as a pidfd
// (SO_PEERPIDFD, Linux 6.5) while it is read, so that a peer that exits
// and whose pid is reused is not judged by another process's
// capabilities (without SO_PEERPIDFD the pid alone is used).
func peerOf(c syscall.Conn) (Peer, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var (
		cred  *unix.Ucred
		pidfd = -1
		cerr  error
	)
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if cerr == nil {
			if pfd, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); err == nil {
				pidfd = pfd
			}
		}
	}); err != nil {
		return Peer{}, err
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("SO_PEERCRED: %w", cerr)
	}
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	p := Peer{PID: int(cred.Pid), UID: int(cred.Uid)}
	if p.UID == 0 {
		p.Privileged = true
		return p, nil
	}
	p.Privileged, p.Why = capable(p.PID)
	if p.Privileged && pidfd >= 0 && unix.PidfdSendSignal(pidfd, 0, nil, 0) != nil {
		// The peer exited while its status was read: the pid may be
		// another process's now.
		p.Privileged, p.Why = false, "it exited before its capabilities could be read"
	}
	return p, nil
}

// capable reports whether pid holds CAP_NET_ADMIN in its effective set
// and lives in this process's user namespace (a capability of a child
// user namespace is no capability here: user_namespaces(7)).
func capable(pid int) (bool, string) {
	self, err1 := os.Readlink("/proc/self/ns/user")
	its, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	if err1 != nil || err2 != nil {
		return false, "its user namespace cannot be read"
	}
	if self != its {
		return false, "it runs in another user namespace"
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false, "its /proc status cannot be read"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "CapEff:")
		if !ok {
			continue
		}
		caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return false, "its CapEff cannot be read"
		}
		if caps&(1<<capNetAdmin) == 0 {
			return false, "it is not root and holds no CAP_NET_ADMIN"
		}
		return true, ""
	}
	return false, "its /proc status has no CapEff"
}

// Privileged reports whether this process is one an agent serves: root,
// or CAP_NET_ADMIN in its effective set.
func Privileged() bool {
	if os.Geteuid() == 0 {
		return true
	}
	ok, _ := capable(os.Getpid())
	return ok
}

// monotonic returns CLOCK_MONOTONIC in nanoseconds: the clock every
// process of one host (and one time namespace) shares, which a stopped
// process does not stop.
func monotonic() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// listenPrivate listens on a unix socket at path whose file is mode 0600
// from its first instant: the socket's inode is chmod'ed before bind,
// which creates the file with that mode less the umask (net/unix/
// af_unix.c, unix_bind_bsd: S_IFSOCK | (inode mode & ~umask)), so no
// connection can come between the bind and a chmod.
func listenPrivate(path string) (*net.UnixListener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := unix.Fchmod(fd, 0o600); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fchmod", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return nil, &net.OpError{Op: "listen", Net: "unix", Err: os.NewSyscallError("bind", err)}
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		os.Remove(path)
		return nil, os.NewSyscallError("listen", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close() // FileListener dups the descriptor
	ln, err := net.FileListener(f)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		os.Remove(path)
		return nil, errors.New("not a unix listener")
	}
	return ul, nil
}
