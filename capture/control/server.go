// SPDX-License-Identifier: Apache-2.0

package control

// The agent's side: the control socket, its connections, the calls to
// the engine goroutine.

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A Call carries a request from a connection to the engine
// goroutine, which answers on reply (buffered: it never blocks). The
// engine carries a request out only once it has claimed it (Claim): a
// connection that has given up on its answer (its deadline passed) claims
// it first, and the request is then never carried out. A client that was
// told "no answer" can count on that: nothing is applied later.
type Call struct {
	Iface string
	Req   Request
	Reply chan Response
	// View says the call came on a view socket (ListenView): a dcbtop
	// without an agent there answers "show" and "get" only.
	View bool
	// Deadline is the request's (or, without one, the connection's):
	// past it, the engine may not claim the call (a process stopped and
	// resumed finds its calls stale).
	Deadline time.Time
	state    *atomic.Int32 // callPending, callClaimed or callAbandoned
	// take, for a request with a deadline, tells the client the request
	// is taken ({"taken":true}) and reports whether that was written.
	take func() bool
}

// A Call's states.
const (
	callPending = iota
	callClaimed
	callAbandoned
)

// Claim reports whether the engine may carry the call out, and makes it
// the engine's: false when its connection gave up on it, when the client
// could not be told it is taken (it closed the connection), or when its
// deadline has passed. The deadline is checked last, after the client
// was told: a client that read no "taken" by its deadline and a second
// more can say "not applied" and be right (the package comment says
// why). On false the engine answers with a refusal, which goes to a
// connection still waiting, or nowhere.
func (c Call) Claim() bool {
	if c.state == nil {
		return true // a Call not made by a Server (tests)
	}
	if !c.state.CompareAndSwap(callPending, callClaimed) {
		return false
	}
	if c.take != nil && !c.take() {
		return false
	}
	return c.Deadline.IsZero() || time.Now().Before(c.Deadline)
}

// abandon marks the call given up by its connection, unless the engine
// has claimed it; it reports whether it did.
func (c Call) abandon() bool { return c.state.CompareAndSwap(callPending, callAbandoned) }

// A Server listens on one agent interface's control socket.
type Server struct {
	iface string
	path  string
	ln    *net.UnixListener
	calls chan<- Call
	done  chan struct{} // closed by Close
	sem   chan struct{} // bounds the connections served at once
	// timeout bounds each connection (Timeout).
	timeout time.Duration
	wg      sync.WaitGroup
	once    sync.Once
	view    bool   // a view socket (ListenView): read-only
	runDir  string // a view socket's run directory (its view directory goes with the last)
}

// ErrAgentRunning means another live dcbtop serves the control socket.
var ErrAgentRunning = errors.New("another dcbtop agent runs")

// Listen creates dir (0700) if needed and listens on ifname's
// control socket in it (0600 from its first instant: listenPrivate). A socket file left behind by a dcbtop that
// died is removed, but only when nothing answers on it: when another
// dcbtop does, the error wraps ErrAgentRunning and names its pid. Requests
// are sent to calls; Start accepts connections.
func Listen(dir, ifname string, calls chan<- Call) (*Server, error) {
	return listen(dir, Path(dir, ifname), ifname, calls, false)
}

// ErrViewTaken means another live dcbtop serves the view socket of the
// interface (two dcbtops without an agent capture it): the first keeps it.
var ErrViewTaken = errors.New("another dcbtop serves its view socket")

// ListenView listens on ifname's view socket in dir (ViewPath): what a
// live dcbtop without an agent there (an exporter, the screen) serves so
// that dcbtop show and dcbtop check answer at once from what it heard.
// It answers "show" (and "get", the pid, for Probe) only, to whom the control socket answers (root or
// CAP_NET_ADMIN); the socket file is 0600 like the control socket's. When
// another live dcbtop serves it, the error wraps ErrViewTaken.
//
// The view directory is made when the first view socket is and removed
// with the last (Close), so that a dcbtop leaves its run directory as it
// found it; both happen under the run directory's lock.
func ListenView(dir, ifname string, calls chan<- Call) (*Server, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ensureDir(filepath.Join(dir, viewDir)); err != nil {
		return nil, err
	}
	s, err := listenLocked(ViewPath(dir, ifname), ifname, calls, true)
	if err != nil {
		removeViewDir(dir)
		return nil, err
	}
	s.runDir = dir
	return s, nil
}

// removeViewDir removes dir's view directory if it is empty; the caller
// holds dir's lock.
func removeViewDir(dir string) { _ = os.Remove(filepath.Join(dir, viewDir)) }

// listen is Listen: the socket at path, in directory dir.
func listen(dir, path, ifname string, calls chan<- Call, view bool) (*Server, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	// Serialize the check-remove-listen sequence with other dcbtops
	// starting at the same moment.
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return listenLocked(path, ifname, calls, view)
}

// listenLocked listens on path; the caller holds its directory's lock.
func listenLocked(path, ifname string, calls chan<- Call, view bool) (*Server, error) {
	ln, err := listenPrivate(path)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if pid, alive := Probe(path); alive {
			who := "unknown pid"
			if pid > 0 {
				who = fmt.Sprintf("pid %d", pid)
			}
			if view {
				return nil, fmt.Errorf("%w (%s, %s)", ErrViewTaken, who, path)
			}
			return nil, fmt.Errorf("%w here (%s, control socket %s); stop it first, or change its parameters with dcbtop apply -i %s",
				ErrAgentRunning, who, path, ifname)
		}
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, fmt.Errorf("control socket %s: remove the stale socket: %w", path, errors.Unwrap(rerr))
		}
		ln, err = listenPrivate(path)
	}
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, sysErr(err))
	}
	ln.SetUnlinkOnClose(true)
	return &Server{iface: ifname, path: path, ln: ln, calls: calls, view: view,
		done: make(chan struct{}), sem: make(chan struct{}, maxConns), timeout: Timeout}, nil
}

// sysErr strips the operation and path of an *os.PathError, *os.SyscallError
// or *net.OpError (the caller names the path) and adds a remedy to a
// permission error.
func sysErr(err error) error {
	inner := err
	for {
		u := errors.Unwrap(inner)
		if u == nil {
			break
		}
		inner = u
	}
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("%w (run as root, or set %s to a directory of yours)", inner, EnvRunDir)
	}
	return inner
}

// ensureDir creates dir with mode 0700, or checks that an existing one
// is a directory of this user that no one else may write to (it holds
// sockets that change what the host advertises). An existing directory is
// never changed.
func ensureDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, sysErr(err))
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, sysErr(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory; remove it, or set %s", dir, EnvRunDir)
	}
	if uid, ok := fileOwner(st); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d); remove it, or set %s", dir, uid, os.Geteuid(), EnvRunDir)
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		// Never chmod it: it may be /tmp. Others could plant a socket.
		return fmt.Errorf("%s is writable by others (mode %#o); use a directory only you can write to (%s)", dir, perm, EnvRunDir)
	}
	return nil
}

// Probe reports whether something accepts connections on path,
// and the pid of the dcbtop that answers a get there (0 if none did).
func Probe(path string) (pid int, alive bool) {
	resp, err := Do(path, Request{Op: "get"}, time.Second)
	if err == nil {
		return resp.PID, true
	}
	var ce *DialError
	if errors.As(err, &ce) {
		// Refused or vanished: a socket file without a listener. Other
		// dial errors (a full backlog) mean someone is there.
		return 0, !errors.Is(ce.Err, syscall.ECONNREFUSED) && !errors.Is(ce.Err, os.ErrNotExist)
	}
	return 0, true // connected, but no answer
}

// Start accepts connections, on another goroutine, until Close.
func (s *Server) Start() { s.wg.Go(s.serve) }

func (s *Server) serve() {
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: retry
			continue
		}
		select {
		case s.sem <- struct{}{}:
		default:
			s.wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(time.Second))
				writeResponse(c, Errorf("busy: %d requests in progress", maxConns))
			})
			continue
		}
		s.wg.Go(func() {
			defer func() { <-s.sem }()
			s.handle(c)
		})
	}
}

func (s *Server) handle(c *net.UnixConn) {
	defer c.Close()
	deadline := time.Now().Add(s.timeout)
	_ = c.SetDeadline(deadline)
	var wmu sync.Mutex // the taken line (engine goroutine) and the answer
	respond := func(resp Response) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(time.Second)) // the deadline may have passed
		writeResponse(c, resp)
	}
	req, err := readRequest(c)
	// Who asks, before anything they ask is looked at. (The request is
	// read first: a connection closed with unread bytes would reset the
	// client before it reads the refusal.)
	if p, perr := peerOf(c); perr != nil {
		respond(Errorf("the agent cannot read the credentials of this connection (%v): refused", perr))
		return
	} else if !p.Privileged {
		respond(Errorf("permission denied: the dcbtop agent on %s answers only root or a process with CAP_NET_ADMIN, and %s: %s", s.iface, p, p.Why))
		return
	}
	if ne, ok := errors.AsType[net.Error](errors.Unwrap(err)); ok && ne.Timeout() {
		err = fmt.Errorf("no complete request within %v", s.timeout)
	}
	if err != nil {
		respond(Errorf("%s", err.Error()))
		return
	}
	if s.view && req.Op != "show" && req.Op != "get" {
		respond(Errorf("%s: this dcbtop runs no agent here (its view socket answers \"show\" and \"get\" only): not applied", s.iface))
		return
	}
	call := Call{Iface: s.iface, Req: req, Reply: make(chan Response, 1), Deadline: deadline, state: new(atomic.Int32), View: s.view}
	if req.DeadlineNS != 0 {
		left, err := untilDeadline(req.DeadlineNS)
		if err != nil {
			respond(Errorf("%v", err))
			return
		}
		call.Deadline = time.Now().Add(left)
		call.take = func() bool {
			wmu.Lock()
			defer wmu.Unlock()
			// The engine goroutine waits on this write: a line into an
			// empty socket buffer, or a closed connection's error.
			_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
			_, err := c.Write([]byte("{\"taken\":true}\n"))
			return err == nil
		}
	}
	budget := time.Until(call.Deadline)
	timer := time.NewTimer(budget)
	defer timer.Stop()
	budget = budget.Round(time.Millisecond)
	notApplied := func(why string) Response {
		if call.abandon() {
			return Errorf("%s: not applied (a request is never carried out after its answer is given up)", why)
		}
		// The engine has claimed it: its answer follows (its kernel
		// writes and read-backs), or its refusal at once.
		select {
		case resp := <-call.Reply:
			return resp
		case <-time.After(max(takenWait-answerGrace, 100*time.Millisecond)):
			return Errorf("%s, while the engine was carrying it out: it may be applied; dcbtop --json -i %s shows the local parameters", why, s.iface)
		}
	}
	var resp Response
	select {
	case s.calls <- call:
		select {
		case resp = <-call.Reply:
		case <-s.done:
			resp = notApplied("dcbtop is stopping")
		case <-timer.C:
			resp = notApplied(fmt.Sprintf("no answer from the engine within %v", budget))
		}
	case <-s.done:
		call.abandon()
		resp = Errorf("dcbtop is stopping")
	case <-timer.C:
		call.abandon()
		resp = Errorf("no answer from the engine within %v: not applied (a request is never carried out after its answer is given up)", budget)
	}
	respond(resp)
}

// untilDeadline is how long until a request's deadline (CLOCK_MONOTONIC
// nanoseconds), or why it is refused: passed already (the agent was
// stopped or busy since it was sent), or too far ahead to be this
// clock's.
func untilDeadline(ns int64) (time.Duration, error) {
	now, ok := monotonic()
	if !ok {
		return 0, errors.New("deadline_ns: this agent cannot read CLOCK_MONOTONIC: not applied")
	}
	left := time.Duration(ns - now)
	switch {
	case left <= 0:
		return 0, fmt.Errorf("not applied: the request's deadline passed %v before the agent read it (it was stopped or busy); it is never carried out", (-left).Round(time.Millisecond))
	case left > maxAhead:
		return 0, fmt.Errorf("not applied: deadline_ns is %v ahead, more than %v: not this host's CLOCK_MONOTONIC (a client in another time namespace?)", left.Round(time.Second), maxAhead)
	}
	return left, nil
}

func writeResponse(w io.Writer, resp Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(Errorf("encode response: %v", err))
	}
	_, _ = w.Write(append(b, '\n'))
}

// Addr returns the path of the socket file.
func (s *Server) Addr() string { return s.path }

// SetTimeout bounds each connection (default Timeout); call it before
// Start.
func (s *Server) SetTimeout(d time.Duration) { s.timeout = d }

// Close stops accepting, removes the socket file, answers the requests in
// flight with an error and waits for the accepting goroutine and the
// connections to end.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.ln.Close() // unlinks the socket file
		s.wg.Wait()
		if s.runDir != "" {
			if unlock, err := lockDir(s.runDir); err == nil {
				removeViewDir(s.runDir)
				unlock()
			}
		}
	})
}
