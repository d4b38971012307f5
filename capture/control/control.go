// SPDX-License-Identifier: Apache-2.0

// Package control is the transport of dcbtop's agent control socket:
// while dcbtop runs with --agent it listens on a unix socket per agent
// interface, through which `dcbtop apply` (or any root process) reads and
// changes the agent's local parameters and Willing state. One JSON
// request, one JSON response per connection:
//
//	{"op":"get"}
//	  -> {"ok":true,"interface":"h0","pid":N,"willing":..,"local":PARAMS,"operational":PARAMS}
//	{"op":"apply","params":PARTIAL_PARAMS or null,"willing":true|false|null}
//	  -> {"ok":true,"interface":"h0","pid":N,"previous":{"willing":..,"local":..},
//	      "willing":..,"local":..,"operational":..,"changed":["pfc","willing"]}
//	{"op":"undo"}
//	  -> like apply: the local parameters and Willing state before the last
//	     apply are restored (one level)
//	errors -> {"ok":false,"error":"one line"}
//
// A request may carry "deadline_ns", its deadline on CLOCK_MONOTONIC (the
// clock every process of the host shares, which a stopped process does
// not stop). The agent then takes it only before that instant, and says
// so first: it writes {"taken":true} before it carries the request out,
// and checks the deadline only after that line was written. A client
// that waits a second past its deadline and has read no such line knows
// the request was not applied and never will be: a line written after
// the client gave up fails (the connection is closed), and one written
// before the client gave up but after the deadline is followed by the
// refusal. Do sends a deadline Timeout ahead; a request without one (a
// script's) has the agent's own, Timeout after it accepted the
// connection, and gets one response line only.
//
// Only root, or a process with CAP_NET_ADMIN in the agent's user
// namespace, is served (SO_PEERCRED); the socket file is 0600 from its
// first instant, in a directory of the agent's user that no one else may
// write to.
//
// A Server decodes requests and hands them, as Calls, to the goroutine
// that owns the engine (the runtime), never answering on its own; Do is
// the client.
package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/jsondoc"
)

const (
	// DefaultRunDir holds the control sockets; EnvRunDir overrides it.
	DefaultRunDir = "/run/dcbtop"
	// EnvRunDir names the environment variable that overrides the
	// directory of the control sockets (for tests, or for an unprivileged
	// user running dcbtop with file capabilities).
	EnvRunDir = "DCBTOP_RUN_DIR"

	// MaxRequest bounds a request; a PARAMS object is far smaller (the
	// largest valid one is under 16 KiB).
	MaxRequest = 64 << 10
	// Timeout bounds a connection: reading the request, waiting for
	// the engine goroutine and writing the response; Do's requests carry
	// a deadline Timeout after they were sent.
	Timeout = 5 * time.Second
	// answerGrace is how long past its deadline Do waits for the agent's
	// first line: longer than the agent takes from its deadline check to
	// its answer, so a refusal written at the deadline still arrives.
	answerGrace = time.Second

	// maxAhead bounds a request's deadline: a client in another time
	// namespace (another CLOCK_MONOTONIC) is refused, not served late.
	maxAhead = time.Minute
	// maxConns bounds the connections served at once.
	maxConns = 8
)

// runDir returns the directory of the control sockets.
func RunDir() string {
	if d := os.Getenv(EnvRunDir); d != "" {
		return d
	}
	return DefaultRunDir
}

// netnsID returns the inode number of the calling process's network
// namespace ("4026531840"), or "" where there is no /proc/self/ns/net.
// (The link reads "net:[4026531840]"; its target's inode is that number.)
func netnsID() string {
	l, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return ""
	}
	id, ok := strings.CutPrefix(l, "net:[")
	id, ok2 := strings.CutSuffix(id, "]")
	if !ok || !ok2 || id == "" || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return id
}

// Path returns the control socket of ifname's agent in dir:
// DIR/<netns inode>-IFNAME.sock, so that agents in different network
// namespaces with the same interface name do not collide, and a client
// finds the agent of its own namespace.
func Path(dir, ifname string) string { return PathFunc(dir)(ifname) }

// PathFunc returns Path for dir with the namespace read once: for
// naming the sockets of many interfaces together.
func PathFunc(dir string) func(ifname string) string {
	prefix := ""
	if id := netnsID(); id != "" {
		prefix = id + "-"
	}
	return func(ifname string) string { return filepath.Join(dir, prefix+ifname+".sock") }
}

// A Request is a decoded request.
type Request struct {
	Op      string
	Params  *dcb.Params // apply: the features to change; nil: none
	Willing *bool       // apply: the new Willing state; nil: unchanged
	// DeadlineNS is the request's deadline on CLOCK_MONOTONIC, in
	// nanoseconds; 0: none (the agent's own applies). Do sets it.
	DeadlineNS int64
}

// requestJSON is a request on the wire.
type requestJSON struct {
	Op         string         `json:"op"`
	Params     jsontext.Value `json:"params,omitempty"`
	Willing    *bool          `json:"willing,omitempty"`
	DeadlineNS int64          `json:"deadline_ns,omitempty"`
}

// A LocalState is an agent's local parameters and Willing state: on the
// wire {"willing":..,"local":PARAMS}.
type LocalState = engine.LocalState

// A Response is a response on the wire. An error response has only
// ok (false) and error.
type Response struct {
	OK          bool        `json:"ok"`
	Error       string      `json:"error,omitempty"`
	Interface   string      `json:"interface,omitempty"`
	PID         int         `json:"pid,omitempty"`
	Previous    *LocalState `json:"previous,omitempty"`
	Willing     *bool       `json:"willing,omitempty"`
	Local       *dcb.Params `json:"local,omitempty"`
	Operational *dcb.Params `json:"operational,omitempty"`
	// Changed lists what an apply or undo changed: "ets", "ets_reco",
	// "pfc", "app", "willing" (empty when nothing did).
	Changed []string `json:"changed,omitempty"`
	// Taken is the agent's first line to a request with a deadline: it
	// has taken the request and carries it out now (no other field).
	Taken bool `json:"taken,omitempty"`
}

func Errorf(format string, args ...any) Response {
	return Response{Error: fmt.Sprintf(format, args...)}
}

// encodeRequest renders a request for the wire.
func encodeRequest(req Request) ([]byte, error) {
	j := requestJSON{Op: req.Op, Willing: req.Willing, DeadlineNS: req.DeadlineNS}
	if req.Params != nil {
		b, err := json.Marshal(req.Params)
		if err != nil {
			return nil, err
		}
		j.Params = b
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeRequest decodes the request raw, naming each problem at its
// place as PARAMS' errors do: "bad request: line 1, column 13: unknown
// field "force" (want op, params or willing)".
func decodeRequest(raw []byte) (requestJSON, error) {
	var j requestJSON
	d, root := jsondoc.Read(raw)
	if root != nil && d.WantObject(root, "", "a request object") {
		for _, m := range root.Members {
			switch v := m.Value; m.Key {
			case "op":
				d.Leaf(v, "op", "a string", &j.Op)
			case "willing":
				d.Leaf(v, "willing", "true, false or null", &j.Willing)
			case "params":
				j.Params = raw[v.Off:v.End]
			case "deadline_ns":
				d.Leaf(v, "deadline_ns", "nanoseconds of CLOCK_MONOTONIC", &j.DeadlineNS)
			default:
				d.Unknown(m, "", "op, params, willing or deadline_ns")
			}
		}
	} else if root != nil && root.Null() {
		d.Errorf(root.Off, "", "want a request object, got null")
	}
	return j, d.Err("bad request")
}

// readRequest reads and decodes one request of at most
// MaxRequest bytes. Its errors are one line, for the response.
func readRequest(r io.Reader) (Request, error) {
	lr := &io.LimitedReader{R: r, N: MaxRequest + 1}
	// The depth is checked as the bytes arrive, before any work per
	// level (jsondoc.MaxDepth).
	raw, err := jsondoc.ReadValue(lr)
	if err != nil {
		if lr.N <= 0 {
			return Request{}, fmt.Errorf("request larger than %d KiB", MaxRequest>>10)
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return Request{}, fmt.Errorf("no complete request in time: %w", err)
		}
		if errors.Is(err, io.EOF) {
			return Request{}, errors.New("bad request: empty")
		}
		return Request{}, fmt.Errorf("bad request: %s", OneLine(err.Error()))
	}
	j, err := decodeRequest(raw)
	if err != nil {
		return Request{}, errors.New(OneLine(err.Error()))
	}
	req := Request{Op: j.Op, Willing: j.Willing, DeadlineNS: j.DeadlineNS}
	if len(j.Params) > 0 && !bytes.Equal(bytes.TrimSpace(j.Params), []byte("null")) {
		p, err := dcb.ParseParams(bytes.NewReader(j.Params))
		if err != nil {
			return Request{}, fmt.Errorf("params: %s", OneLine(err.Error()))
		}
		req.Params = p
	}
	switch req.Op {
	case "get", "undo":
		if req.Params != nil || req.Willing != nil {
			return Request{}, fmt.Errorf("%s takes no params or willing", req.Op)
		}
	case "apply":
		if req.Params == nil && req.Willing == nil {
			return Request{}, errors.New("apply: nothing to apply (give params, willing or both)")
		}
	case "":
		return Request{}, errors.New(`bad request: no "op" (want get, apply or undo)`)
	default:
		return Request{}, fmt.Errorf("unknown op %q (want get, apply or undo)", OneLine(req.Op))
	}
	return req, nil
}

// oneLine keeps an error message on one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(engine.Sanitize(s)), " ")
}

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
}

// ErrAgentRunning means another live dcbtop serves the control socket.
var ErrAgentRunning = errors.New("another dcbtop agent runs")

// Listen creates dir (0700) if needed and listens on ifname's
// control socket in it (0600 from its first instant: listenPrivate). A socket file left behind by a dcbtop that
// died is removed, but only when nothing answers on it: when another
// dcbtop does, the error wraps ErrAgentRunning and names its pid. Requests
// are sent to calls; Start accepts connections.
func Listen(dir, ifname string, calls chan<- Call) (*Server, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	path := Path(dir, ifname)
	// Serialize the check-remove-listen sequence with other dcbtops
	// starting at the same moment.
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ln, err := listenPrivate(path)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if pid, alive := Probe(path); alive {
			who := "unknown pid"
			if pid > 0 {
				who = fmt.Sprintf("pid %d", pid)
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
	return &Server{iface: ifname, path: path, ln: ln, calls: calls,
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
	call := Call{Iface: s.iface, Req: req, Reply: make(chan Response, 1), Deadline: deadline, state: new(atomic.Int32)}
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
	})
}

// takenWait is how long Do waits for the answer once the agent has
// taken the request (its kernel writes and read-backs); a variable for
// the tests.
var takenWait = 10 * time.Second

// A DialError is a failure to connect to a control socket (as
// opposed to a failure after connecting).
type DialError struct{ Err error }

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// A NoAnswerError is a request the agent did not answer in time. For a
// request with a deadline (Do's) it says exactly what is known: not
// Taken, the request was not applied and never will be (the agent takes
// none past Deadline, and says so before it carries one out); Taken, the
// agent took it before the deadline and then gave no answer, so it may
// be applied.
type NoAnswerError struct {
	// Deadline is the request's deadline (the wall clock's reading of
	// it); zero for a request without one.
	Deadline time.Time
	Taken    bool
	Err      error // what the wait ended on
}

func (e *NoAnswerError) Error() string {
	switch {
	case e.Taken:
		return fmt.Sprintf("the agent took the request but gave no answer (%v): it may be applied", e.Err)
	case e.Deadline.IsZero():
		return fmt.Sprintf("no answer (%v)", e.Err)
	default:
		return fmt.Sprintf("the agent did not take the request by its deadline %s (%v): not applied, and never applied later", e.Deadline.Format("15:04:05.000"), e.Err)
	}
}

func (e *NoAnswerError) Unwrap() error { return e.Err }

// Do sends one request to the control socket at path and returns the
// response. The request carries a deadline timeout ahead (DeadlineNS),
// unless it has one: Do waits answerGrace past it for the agent's first
// line, and takenWait more once the agent has taken the request. A
// failure to connect is a *DialError, no answer a *NoAnswerError.
func Do(path string, req Request, timeout time.Duration) (Response, error) {
	var deadline time.Time
	if req.DeadlineNS == 0 {
		if now, ok := monotonic(); ok {
			req.DeadlineNS, deadline = now+int64(timeout), time.Now().Add(timeout)
		}
	}
	b, err := encodeRequest(req)
	if err != nil {
		return Response{}, err
	}
	if !deadline.IsZero() {
		timeout += answerGrace
	}
	return do(path, b, timeout, deadline)
}

// DoRaw sends request bytes and decodes the response, within timeout. A
// request over MaxRequest is refused before it is sent (the server would
// answer with the limit and close, and the rest of the write would fail
// with a broken pipe); if the write fails anyway, the server's answer is
// read and returned when it gave one.
func DoRaw(path string, request []byte, timeout time.Duration) (Response, error) {
	return do(path, request, timeout, time.Time{})
}

// do sends request and reads the answer: a taken line (which extends the
// wait by takenWait), then the response.
func do(path string, request []byte, timeout time.Duration, deadline time.Time) (Response, error) {
	var resp Response
	if len(request) > MaxRequest {
		return resp, fmt.Errorf("request of %d KiB exceeds the control socket's limit of %d KiB", len(request)>>10, MaxRequest>>10)
	}
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return resp, &DialError{Err: err}
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	r := &lineReader{r: bufio.NewReaderSize(io.LimitReader(c, 4<<20), 4096)}
	if _, werr := c.Write(request); werr != nil {
		// The server may have answered (and closed) before reading it all.
		if err := r.read(&resp); err == nil && resp.Error != "" {
			return resp, nil
		}
		return Response{}, werr
	}
	if uc, ok := c.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
	taken := false
	for {
		err := r.read(&resp)
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && !taken {
			// A taken line that came as the wait ended counts: read what
			// is there once more before saying it was not taken.
			_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			err = r.read(&resp)
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				return Response{}, &NoAnswerError{Deadline: deadline, Err: errors.New("no line within " + timeout.String())}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return Response{}, &NoAnswerError{Deadline: deadline, Taken: taken, Err: errors.New("closed without an answer")}
		case err != nil:
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				return Response{}, &NoAnswerError{Deadline: deadline, Taken: taken, Err: errors.New("no answer within " + takenWait.String() + " of it")}
			}
			return Response{}, err
		case resp.Taken && !resp.OK && resp.Error == "":
			taken = true
			resp = Response{}
			_ = c.SetReadDeadline(time.Now().Add(takenWait))
			continue
		}
		if !resp.OK && resp.Error == "" {
			resp.Error = "error without a message"
		}
		return resp, nil
	}
}

// A lineReader reads the answer's lines, keeping a line cut by a
// timeout for the next read.
type lineReader struct {
	r       *bufio.Reader
	pending []byte
}

// read reads one line of the answer into resp.
func (lr *lineReader) read(resp *Response) error {
	line, err := lr.r.ReadBytes('\n')
	lr.pending = append(lr.pending, line...)
	if err != nil && (len(lr.pending) == 0 || !errors.Is(err, io.EOF)) {
		return err
	}
	line, lr.pending = lr.pending, nil
	*resp = Response{}
	if err := json.Unmarshal(line, resp); err != nil {
		return fmt.Errorf("bad answer: %w", err)
	}
	return nil
}
