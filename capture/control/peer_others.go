// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package control

import (
	"net"
	"os"
	"syscall"
)

// A Peer is the process at the other end of a control connection.
type Peer struct {
	PID, UID   int
	Privileged bool
	Why        string
}

// String names the peer.
func (p Peer) String() string { return "a process" }

// peerOf cannot read a peer's credentials outside Linux: every peer is
// refused (the agent runs on Linux only).
func peerOf(syscall.Conn) (Peer, error) {
	return Peer{Why: "peer credentials cannot be read on this system"}, nil
}

// Privileged reports whether this process runs as root.
func Privileged() bool { return os.Geteuid() == 0 }

// monotonic has no shared clock to offer here: requests carry no
// deadline of their own.
func monotonic() (int64, bool) { return 0, false }

// listenPrivate listens on path and makes the file 0600.
func listenPrivate(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
