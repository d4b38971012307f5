// SPDX-License-Identifier: Apache-2.0

package control

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// agentLockName is the abstract Unix socket an agent on the interface
// with index ifindex holds. The abstract socket namespace belongs to the
// network namespace (unix(7): abstract sockets), as interface indexes do,
// so the name is unique per interface and network namespace, whatever
// DCBTOP_RUN_DIR says, and the kernel releases it when the process dies.
func agentLockName(ifindex int) string { return fmt.Sprintf("@dcbtop/agent/ifindex/%d", ifindex) }

// An AgentLock is held while dcbtop's agent runs on an interface.
type AgentLock struct{ ln *net.UnixListener }

// LockAgent takes the lock of the interface ifname (index ifindex) in
// this network namespace: two agents on one port would look like two
// peers to the switch (multi-peer), whatever their run directories. When
// another process holds it, the error wraps ErrAgentRunning and names its
// pid (SO_PEERCRED of the holder).
func LockAgent(ifindex int, ifname string) (*AgentLock, error) {
	name := agentLockName(ifindex)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err == nil {
		return &AgentLock{ln: ln}, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("agent lock of %s: %w", ifname, sysErr(err))
	}
	who := "another process"
	if pid := lockHolder(name); pid > 0 {
		who = fmt.Sprintf("pid %d", pid)
	}
	return nil, fmt.Errorf("%w on %s in this network namespace (%s); stop it first, or change its parameters with dcbtop apply -i %s",
		ErrAgentRunning, ifname, who, ifname)
}

// lockHolder returns the pid of the process listening on the abstract
// socket name, 0 when it cannot tell.
func lockHolder(name string) int {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return 0
	}
	defer c.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = rc.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// Release gives the lock up. It may be called more than once, and on nil.
func (l *AgentLock) Release() {
	if l != nil && l.ln != nil {
		l.ln.Close()
		l.ln = nil
	}
}
