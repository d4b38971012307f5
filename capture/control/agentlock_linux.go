// SPDX-License-Identifier: Apache-2.0

package control

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// agentLockName is the abstract Unix socket an agent on the interface
// with index ifindex holds. The abstract socket namespace belongs to the
// network namespace (unix(7): abstract sockets), as interface indexes do,
// so the name is unique per interface and network namespace, whatever
// DCBTOP_RUN_DIR says, and the kernel releases it when the process dies.
func agentLockName(ifindex int) string { return fmt.Sprintf("@dcbtop/agent/ifindex/%d", ifindex) }

// An AgentLock is held while dcbtop's agent runs on an interface.
type AgentLock struct {
	ln *net.UnixListener
	// squatter holds the name instead: a process without the privilege
	// an agent has (Squatter).
	squatter string
}

// LockAgent takes the lock of the interface ifname (index ifindex) in
// this network namespace: two agents on one port would look like two
// peers to the switch (multi-peer), whatever their run directories. When
// another agent holds it, the error wraps ErrAgentRunning and names its
// pid (SO_PEERCRED of the holder). Any user may bind an abstract name,
// so a holder that is neither root nor holds CAP_NET_ADMIN is no agent
// (an agent needs it to write DCB and send LLDPDUs): it cannot block
// dcbtop, which runs without the name and says so (Squatter).
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
	if p, ok := lockHolder(name); ok {
		if !p.Privileged {
			return &AgentLock{squatter: fmt.Sprintf("the agent lock %s of %s is held by %s, which is no dcbtop agent (%s): dcbtop runs without it, and only the control socket's directory keeps a second agent off %s",
				name, ifname, p, p.Why, ifname)}, nil
		}
		who = fmt.Sprintf("pid %d", p.PID)
	}
	return nil, fmt.Errorf("%w on %s in this network namespace (%s); stop it first, or change its parameters with dcbtop apply -i %s",
		ErrAgentRunning, ifname, who, ifname)
}

// Squatter says, when the lock's name was held by a process that is no
// agent, who it is and what that means; "" otherwise.
func (l *AgentLock) Squatter() string {
	if l == nil {
		return ""
	}
	return l.squatter
}

// lockHolder returns the process listening on the abstract socket name
// (SO_PEERCRED of a connection to it: the listener's credentials),
// false when it cannot tell.
func lockHolder(name string) (Peer, bool) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return Peer{}, false
	}
	defer c.Close()
	p, err := peerOf(c)
	return p, err == nil
}

// Release gives the lock up. It may be called more than once, and on nil.
func (l *AgentLock) Release() {
	if l != nil && l.ln != nil {
		l.ln.Close()
		l.ln = nil
	}
}
