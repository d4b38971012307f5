// SPDX-License-Identifier: Apache-2.0

package control

// A Seat is what dcbtop's agent holds on an interface besides its state in
// the engine: the interface's control socket, where dcbtop apply reaches
// it, and, on a kernel interface, the agent lock that keeps a second
// agent off it in this network namespace (LockAgent). A nil Seat holds
// nothing; Close releases what it holds.
type Seat struct {
	srv   *Server
	lock  *AgentLock
	dir   string
	calls chan<- Call
}

// Take takes the seat of the interface ifname (index ifindex): its control
// socket in dir, sending requests to calls, unless serve is false (the
// demo's), then its agent lock when kernel is true (an in-memory link is
// no kernel interface). Nothing is held when it fails. warn says, when the
// lock's name was held by a process that is no agent, who holds it
// (AgentLock.Squatter); Start serves the socket.
func Take(dir, ifname string, ifindex int, serve, kernel bool, calls chan<- Call) (s *Seat, warn string, err error) {
	s = &Seat{dir: dir, calls: calls}
	if serve {
		if s.srv, err = Listen(dir, ifname, calls); err != nil {
			return nil, "", err
		}
	}
	if kernel {
		if s.lock, err = LockAgent(ifindex, ifname); err != nil {
			s.Close()
			return nil, "", err
		}
	}
	return s, s.lock.Squatter(), nil
}

// Start accepts connections on the seat's control socket, if it has one.
func (s *Seat) Start() {
	if s != nil && s.srv != nil {
		s.srv.Start()
	}
}

// Rename moves the seat's control socket to the interface's new name
// (ip link set name; the lock is the index's, which a rename keeps). When
// the new socket cannot be had, the seat keeps the lock without a socket
// and the error says why.
func (s *Seat) Rename(ifname string) error {
	if s == nil || s.srv == nil {
		return nil
	}
	s.srv.Close()
	s.srv = nil
	srv, err := Listen(s.dir, ifname, s.calls)
	if err != nil {
		return err
	}
	srv.Start()
	s.srv = srv
	return nil
}

// Close closes the control socket and gives the lock up.
func (s *Seat) Close() {
	if s == nil {
		return
	}
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
	s.lock.Release()
	s.lock = nil
}
