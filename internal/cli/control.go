package cli

// The agent's control socket: while dcbtop runs with --agent it listens on
// a unix socket per agent interface, through which `dcbtop apply` (or any
// root process) reads and changes the agent's local parameters and Willing
// state. One JSON request, one JSON response per connection:
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
// Requests are handled by the live run's engine goroutine (liveRun.loop),
// never by the connection's goroutine.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/ui"
)

const (
	// defaultRunDir holds the control sockets; EnvRunDir overrides it.
	defaultRunDir = "/run/dcbtop"
	// EnvRunDir names the environment variable that overrides the
	// directory of the control sockets (for tests, or for an unprivileged
	// user running dcbtop with file capabilities).
	EnvRunDir = "DCBTOP_RUN_DIR"

	// controlMaxRequest bounds a request; a PARAMS object is far smaller.
	controlMaxRequest = 64 << 10
	// controlTimeout bounds a connection: reading the request, waiting for
	// the engine goroutine and writing the response.
	controlTimeout = 5 * time.Second
	// controlMaxConns bounds the connections served at once.
	controlMaxConns = 8
)

// runDir returns the directory of the control sockets.
func runDir() string {
	if d := os.Getenv(EnvRunDir); d != "" {
		return d
	}
	return defaultRunDir
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

// controlPath returns the control socket of ifname's agent in dir:
// DIR/<netns inode>-IFNAME.sock, so that agents in different network
// namespaces with the same interface name do not collide, and a client
// finds the agent of its own namespace.
func controlPath(dir, ifname string) string {
	name := ifname + ".sock"
	if id := netnsID(); id != "" {
		name = id + "-" + name
	}
	return filepath.Join(dir, name)
}

// A controlRequest is a decoded request.
type controlRequest struct {
	Op      string
	Params  *engine.Params // apply: the features to change; nil: none
	Willing *bool          // apply: the new Willing state; nil: unchanged
}

// controlRequestJSON is a request on the wire.
type controlRequestJSON struct {
	Op      string          `json:"op"`
	Params  json.RawMessage `json:"params,omitempty"`
	Willing *bool           `json:"willing,omitempty"`
}

// A localState is an agent's local parameters and Willing state.
type localState struct {
	Willing bool           `json:"willing"`
	Local   *engine.Params `json:"local"`
}

// A controlResponse is a response on the wire. An error response has only
// ok (false) and error.
type controlResponse struct {
	OK          bool           `json:"ok"`
	Error       string         `json:"error,omitempty"`
	Interface   string         `json:"interface,omitempty"`
	PID         int            `json:"pid,omitempty"`
	Previous    *localState    `json:"previous,omitempty"`
	Willing     *bool          `json:"willing,omitempty"`
	Local       *engine.Params `json:"local,omitempty"`
	Operational *engine.Params `json:"operational,omitempty"`
	// Changed lists what an apply or undo changed: "ets", "ets_reco",
	// "pfc", "app", "willing" (empty when nothing did).
	Changed []string `json:"changed,omitempty"`
}

func controlError(format string, args ...any) controlResponse {
	return controlResponse{Error: fmt.Sprintf(format, args...)}
}

// encodeControlRequest renders a request for the wire.
func encodeControlRequest(req controlRequest) ([]byte, error) {
	j := controlRequestJSON{Op: req.Op, Willing: req.Willing}
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

// readControlRequest reads and decodes one request of at most
// controlMaxRequest bytes. Its errors are one line, for the response.
func readControlRequest(r io.Reader) (controlRequest, error) {
	lr := &io.LimitedReader{R: r, N: controlMaxRequest + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	var j controlRequestJSON
	if err := dec.Decode(&j); err != nil {
		if lr.N <= 0 {
			return controlRequest{}, fmt.Errorf("request larger than %d KiB", controlMaxRequest>>10)
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return controlRequest{}, fmt.Errorf("no complete request in time: %w", err)
		}
		if errors.Is(err, io.EOF) {
			return controlRequest{}, errors.New("bad request: empty")
		}
		return controlRequest{}, fmt.Errorf("bad request: %s", oneLine(err.Error()))
	}
	req := controlRequest{Op: j.Op, Willing: j.Willing}
	if len(j.Params) > 0 && !bytes.Equal(bytes.TrimSpace(j.Params), []byte("null")) {
		p, err := engine.ParseParams(bytes.NewReader(j.Params))
		if err != nil {
			return controlRequest{}, fmt.Errorf("params: %s", oneLine(err.Error()))
		}
		req.Params = p
	}
	switch req.Op {
	case "get", "undo":
		if req.Params != nil || req.Willing != nil {
			return controlRequest{}, fmt.Errorf("%s takes no params or willing", req.Op)
		}
	case "apply":
		if req.Params == nil && req.Willing == nil {
			return controlRequest{}, errors.New("apply: nothing to apply (give params, willing or both)")
		}
	case "":
		return controlRequest{}, errors.New(`bad request: no "op" (want get, apply or undo)`)
	default:
		return controlRequest{}, fmt.Errorf("unknown op %q (want get, apply or undo)", oneLine(req.Op))
	}
	return req, nil
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(ui.Sanitize(s)), " ")
}

// A controlCall carries a request from a connection to the engine
// goroutine, which answers on reply (buffered: it never blocks).
type controlCall struct {
	iface string
	req   controlRequest
	reply chan controlResponse
}

// A controlServer listens on one agent interface's control socket.
type controlServer struct {
	iface string
	path  string
	ln    *net.UnixListener
	calls chan<- controlCall
	done  chan struct{} // closed by Close
	sem   chan struct{} // bounds the connections served at once
	// timeout bounds each connection (controlTimeout).
	timeout time.Duration
	wg      sync.WaitGroup
	once    sync.Once
}

// errAgentRunning means another live dcbtop serves the control socket.
var errAgentRunning = errors.New("another dcbtop agent runs")

// listenControl creates dir (0700) if needed and listens on ifname's
// control socket in it (0600). A socket file left behind by a dcbtop that
// died is removed, but only when nothing answers on it: when another
// dcbtop does, the error wraps errAgentRunning and names its pid. Requests
// are sent to calls; Start accepts connections.
func listenControl(dir, ifname string, calls chan<- controlCall) (*controlServer, error) {
	if err := ensureRunDir(dir); err != nil {
		return nil, err
	}
	path := controlPath(dir, ifname)
	// Serialize the check-remove-listen sequence with other dcbtops
	// starting at the same moment.
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if pid, alive := probeControl(path); alive {
			who := "unknown pid"
			if pid > 0 {
				who = fmt.Sprintf("pid %d", pid)
			}
			return nil, fmt.Errorf("%w here (%s, control socket %s); stop it first, or change its parameters with dcbtop apply -i %s",
				errAgentRunning, who, path, ifname)
		}
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, fmt.Errorf("control socket %s: remove the stale socket: %w", path, errors.Unwrap(rerr))
		}
		ln, err = net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	}
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, sysErr(err))
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, sysErr(err))
	}
	return &controlServer{iface: ifname, path: path, ln: ln, calls: calls,
		done: make(chan struct{}), sem: make(chan struct{}, controlMaxConns), timeout: controlTimeout}, nil
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

// ensureRunDir creates dir with mode 0700, or checks that an existing one
// is a directory of this user that no one else may write to (it holds
// sockets that change what the host advertises). An existing directory is
// never changed.
func ensureRunDir(dir string) error {
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

// probeControl reports whether something accepts connections on path,
// and the pid of the dcbtop that answers a get there (0 if none did).
func probeControl(path string) (pid int, alive bool) {
	resp, err := callControl(path, controlRequest{Op: "get"}, time.Second)
	if err == nil {
		return resp.PID, true
	}
	var ce *controlDialError
	if errors.As(err, &ce) {
		// Refused or vanished: a socket file without a listener. Other
		// dial errors (a full backlog) mean someone is there.
		return 0, !errors.Is(ce.err, syscall.ECONNREFUSED) && !errors.Is(ce.err, os.ErrNotExist)
	}
	return 0, true // connected, but no answer
}

// Start accepts connections, on another goroutine, until Close.
func (s *controlServer) Start() { s.wg.Go(s.serve) }

func (s *controlServer) serve() {
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
				writeControlResponse(c, controlError("busy: %d requests in progress", controlMaxConns))
			})
			continue
		}
		s.wg.Go(func() {
			defer func() { <-s.sem }()
			s.handle(c)
		})
	}
}

func (s *controlServer) handle(c *net.UnixConn) {
	defer c.Close()
	deadline := time.Now().Add(s.timeout)
	_ = c.SetDeadline(deadline)
	req, err := readControlRequest(c)
	if ne, ok := errors.AsType[net.Error](errors.Unwrap(err)); ok && ne.Timeout() {
		err = fmt.Errorf("no complete request within %v", s.timeout)
	}
	if err != nil {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second)) // the deadline may have passed
		writeControlResponse(c, controlError("%s", err.Error()))
		return
	}
	call := controlCall{iface: s.iface, req: req, reply: make(chan controlResponse, 1)}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var resp controlResponse
	select {
	case s.calls <- call:
		select {
		case resp = <-call.reply:
		case <-s.done:
			resp = controlError("dcbtop is stopping")
		case <-timer.C:
			resp = controlError("no answer from the engine within %v", s.timeout)
		}
	case <-s.done:
		resp = controlError("dcbtop is stopping")
	case <-timer.C:
		resp = controlError("no answer from the engine within %v", s.timeout)
	}
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	writeControlResponse(c, resp)
}

func writeControlResponse(w io.Writer, resp controlResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(controlError("encode response: %v", err))
	}
	_, _ = w.Write(append(b, '\n'))
}

// Close stops accepting, removes the socket file, answers the requests in
// flight with an error and waits for the accepting goroutine and the
// connections to end.
func (s *controlServer) Close() {
	s.once.Do(func() {
		close(s.done)
		s.ln.Close() // unlinks the socket file
		s.wg.Wait()
	})
}

// A controlDialError is a failure to connect to a control socket (as
// opposed to a failure after connecting).
type controlDialError struct{ err error }

func (e *controlDialError) Error() string { return e.err.Error() }
func (e *controlDialError) Unwrap() error { return e.err }

// callControl sends one request to the control socket at path and returns
// the response, within timeout. A failure to connect is a
// *controlDialError.
func callControl(path string, req controlRequest, timeout time.Duration) (controlResponse, error) {
	b, err := encodeControlRequest(req)
	if err != nil {
		return controlResponse{}, err
	}
	return callControlRaw(path, b, timeout)
}

// callControlRaw sends request bytes and decodes the response.
func callControlRaw(path string, request []byte, timeout time.Duration) (controlResponse, error) {
	var resp controlResponse
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return resp, &controlDialError{err}
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(request); err != nil {
		return resp, err
	}
	if uc, ok := c.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
	dec := json.NewDecoder(io.LimitReader(c, 4<<20))
	if err := dec.Decode(&resp); err != nil {
		if errors.Is(err, io.EOF) {
			return resp, errors.New("closed without an answer")
		}
		return resp, err
	}
	if !resp.OK && resp.Error == "" {
		resp.Error = "error without a message"
	}
	return resp, nil
}

// handleControl answers a control request on the engine goroutine.
func (r *liveRun) handleControl(c controlCall) controlResponse {
	li := r.byName[c.iface]
	if li == nil || li.agent == nil {
		return controlError("%s: no dcbtop agent on this interface", c.iface)
	}
	now := r.now()
	switch c.req.Op {
	case "get":
		return r.controlState(li, nil, nil)
	case "apply":
		next := li.local.Merge(c.req.Params)
		willing := li.willing
		if c.req.Willing != nil {
			willing = *c.req.Willing
		}
		next = next.WithWilling(willing)
		if err := next.Errors(); err != nil {
			return controlError("invalid parameters: %s", oneLine(err.Error()))
		}
		if err := agentCheck(li.agent, agent.Advert{Willing: willing, Local: next}); err != nil {
			return controlError("%s: not applied: dcbtop's agent cannot advertise these parameters: %s", li.name, oneLine(err.Error()))
		}
		prev := &localState{Willing: li.willing, Local: li.local.Clone()}
		changed := localChanges(prev.Willing, prev.Local, willing, next)
		r.setAgentLocal(li, willing, next, now)
		li.undo = prev
		return r.controlState(li, prev, changed)
	case "undo":
		prev := li.undo
		if prev == nil {
			return controlError("nothing to undo on %s", li.name)
		}
		if err := agentCheck(li.agent, agent.Advert{Willing: prev.Willing, Local: prev.Local}); err != nil {
			return controlError("%s: not undone: dcbtop's agent cannot advertise the earlier parameters: %s", li.name, oneLine(err.Error()))
		}
		cur := &localState{Willing: li.willing, Local: li.local.Clone()}
		changed := localChanges(cur.Willing, cur.Local, prev.Willing, prev.Local)
		r.setAgentLocal(li, prev.Willing, prev.Local, now)
		li.undo = nil
		return r.controlState(li, cur, changed)
	}
	return controlError("unknown op %q", c.req.Op) // unreachable: checked when read
}

// agentCheck checks that an agent can advertise what it is about to be
// given (a variable: tests inject failures).
var agentCheck = (*agent.Agent).Check

// controlState is a successful response with the interface's state.
func (r *liveRun) controlState(li *liveIface, prev *localState, changed []string) controlResponse {
	w := li.willing
	resp := controlResponse{OK: true, Interface: li.name, PID: os.Getpid(), Previous: prev,
		Willing: &w, Local: li.local.Clone(), Changed: changed}
	if s, ok := r.eng.Interface(li.name); ok {
		resp.Operational = s.Operational
	}
	if changed != nil && len(changed) == 0 {
		resp.Changed = nil
	}
	return resp
}

// setAgentLocal makes (willing, local) the agent's local state: the engine
// takes it as a local change (a QOS_LOCAL_PARAMETERS_CHANGE indication,
// then the operational parameters are resolved again), apply hands the
// result to the agent, which starts fast transmission, and its first
// LLDPDU goes out now.
func (r *liveRun) setAgentLocal(li *liveIface, willing bool, local *engine.Params, now time.Time) {
	li.willing, li.local = willing, local.Clone()
	r.apply(engine.LocalChanged{Interface: li.name, At: now, Source: engine.SourceAgent, Willing: willing, Params: local.Clone()})
	if li.agent == nil {
		return
	}
	if f, ok := li.agent.Due(now); ok {
		r.send(li, f, now)
	}
}

// localChanges lists what differs between two local states: the
// features of engine's Changes ("ets", "ets_reco", "pfc", "app"; the
// Willing bits aside) and "willing".
func localChanges(w0 bool, p0 *engine.Params, w1 bool, p1 *engine.Params) []string {
	out := []string{}
	for _, c := range p0.WithWilling(false).Changes(p1.WithWilling(false)) {
		if !slices.Contains(out, c.Feature) {
			out = append(out, c.Feature)
		}
	}
	if w0 != w1 {
		out = append(out, "willing")
	}
	return out
}
