// SPDX-License-Identifier: Apache-2.0

package metricserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// The endpoint's limits, so that slow or idle clients can neither pile up
// descriptors nor keep a scrape from being answered. A scrape is one small
// request whose header comes whole right after its connection, answered
// from a snapshot in memory; a slow client is one whose header does not
// come. The server tells them apart by what it has read from each
// connection, and closes the oldest slow connections in favour of new ones
// beyond a budget. Variables for the tests.
var (
	// maxPreRequest is how many connections may be open without
	// having completed a request header: 64. When another one arrives with
	// the budget full, one of them is closed: the oldest that sent part of
	// a header, else the oldest that sent nothing for
	// firstByteGrace. A connection the server has not read yet, or
	// whose header it has read whole, is never closed to make room; with
	// none to close, the next connection waits in the listen backlog. A
	// scraper's header comes whole, so clients trickling theirs, however
	// fast they reconnect, only close each other.
	maxPreRequest = 64
	// firstByteGrace is how long a new connection may send nothing
	// before it can be closed to make room: 500 ms, for a scraper's request
	// to follow its connection even on a busy host. Clients that connect
	// and send nothing thus leave room for 128 new connections a second.
	firstByteGrace = 500 * time.Millisecond
	// maxServed is how many connections that have completed a
	// request header may stay open: 64. When one more completes its first
	// request, the one idle the longest is closed (or, none idle, the one
	// whose request started the longest ago: a client that does not read
	// its response). With maxPreRequest, the endpoint holds at most
	// 129 connections.
	maxServed = 64
	// idleTimeout closes a keep-alive connection with no request
	// for 30 s (Prometheus scrapes every 15-60 s and reconnects when
	// needed).
	idleTimeout = 30 * time.Second
	// readHeaderTimeout closes a connection whose request header is
	// not complete within 2 s: counted from the connection for its first
	// request, from the first bytes of each next one on a keep-alive
	// connection.
	readHeaderTimeout = 2 * time.Second
	// readTimeout bounds the reading of a whole request: 10 s.
	readTimeout = 10 * time.Second
	// writeTimeout bounds the writing of a response: 30 s.
	writeTimeout = 30 * time.Second
)

// A Server is a Prometheus endpoint: a registry's metrics at /metrics,
// over HTTP or HTTPS, within the limits above.
type Server struct {
	srvs   []*http.Server
	served sync.WaitGroup // the Serve goroutines
}

// Listen says where and how the endpoint is served, as every Prometheus
// exporter says it (github.com/prometheus/exporter-toolkit's flags:
// --web.listen-address, --web.systemd-socket, --web.config.file).
type Listen struct {
	// Addrs are the TCP addresses to listen on (host:port, as net.Listen
	// takes them).
	Addrs []string
	// SystemdSocket serves on the sockets systemd passes (socket
	// activation, sd_listen_fds(3): LISTEN_FDS, LISTEN_PID) instead.
	SystemdSocket bool
	// ConfigFile is an exporter-toolkit web configuration file (TLS
	// server settings, basic_auth_users with bcrypt hashes, HTTP
	// headers), docs/metrics.md; empty: plain HTTP to anyone. It is read
	// once before listening, so that a bad one is an error at the start,
	// and again for each new TLS connection (a renewed certificate is
	// taken without a restart).
	ConfigFile string
	// ErrorLog gets the server's complaints after the start (TLS
	// handshakes that failed, a configuration file broken since), one
	// line each; nil: discarded.
	ErrorLog io.Writer
}

// Enabled reports whether l asks for an endpoint.
func (l Listen) Enabled() bool { return len(l.Addrs) > 0 || l.SystemdSocket }

// Start serves c's metrics as Serve does, on a registry of its own, for
// the command line: its errors name the flag at fault ("--web.config.file
// FILE: cause", "--metrics ADDR: cause").
func Start(l Listen, c prometheus.Collector) (*Server, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	srv, err := Serve(l, reg)
	if ce, ok := errors.AsType[*ConfigError](err); ok {
		return nil, fmt.Errorf("--web.config.file %s: %s", ce.File, ce.Msg)
	}
	if err != nil {
		return nil, fmt.Errorf("--metrics %w", err)
	}
	return srv, nil
}

// Serve listens as l says and serves reg's metrics at /metrics, and one
// line saying so at /, until Close. Only GET and HEAD are answered (405
// Method Not Allowed otherwise: a scrape never changes anything). A
// sample that fails to collect is left out, not the whole scrape, and
// counted in reg's promhttp_metric_handler_errors_total. Its errors are
// one line: "ADDR: cause" for a failed listen, "web config FILE: cause"
// for a configuration exporter-toolkit refuses (web.Validate: the YAML,
// its certificate and key files, its users' bcrypt hashes).
func Serve(l Listen, reg *prometheus.Registry) (*Server, error) {
	if l.ConfigFile != "" {
		if err := web.Validate(l.ConfigFile); err != nil {
			// Its path said once ("open: no such file or directory").
			msg := strings.ReplaceAll(err.Error(), " "+l.ConfigFile, "")
			return nil, &ConfigError{File: l.ConfigFile, Msg: oneLine(msg)}
		}
	}
	lns, err := listen(l)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "dcbtop: metrics at /metrics")
	})
	tr := newTracker(maxPreRequest, maxServed, firstByteGrace)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := tr.begin(r.Context()) // the request's header is complete
		if !ok {
			// Closed to make room while its request came in (the
			// close runs apart, closeAsync): no answer on it.
			panic(http.ErrAbortHandler)
		}
		defer tr.end(c)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "dcbtop: only GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		mux.ServeHTTP(w, r)
	})
	errLog := log.New(io.Discard, "", 0)
	if l.ErrorLog != nil {
		errLog = log.New(l.ErrorLog, "dcbtop: metrics: ", 0)
	}
	// exporter-toolkit says at Info where it listens and whether TLS is
	// on; dcbtop says nothing when all is well, its errors as errLog's.
	logger := slog.New(slog.NewTextHandler(errLogWriter{errLog}, &slog.HandlerOptions{Level: slog.LevelError}))
	cfgFile := l.ConfigFile
	flags := &web.FlagConfig{WebListenAddresses: &[]string{}, WebSystemdSocket: new(bool), WebConfigFile: &cfgFile}
	s := &Server{}
	for _, ln := range lns {
		// One http.Server per listener: web.Serve sets its handler
		// (basic auth) and TLS configuration. The connection budgets
		// are shared.
		srv := &http.Server{
			Handler:           handler,
			ConnState:         tr.state,
			ConnContext:       tr.context,
			ErrorLog:          errLog,
			ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
			WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 16 << 10,
		}
		s.srvs = append(s.srvs, srv)
		s.served.Go(func() {
			err := web.Serve(&listener{Listener: ln, m: tr, done: make(chan struct{})}, srv, flags, logger)
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				errLog.Print(oneLine(err.Error()))
			}
		})
	}
	return s, nil
}

// A ConfigError is a web configuration file exporter-toolkit refuses.
type ConfigError struct {
	File string
	Msg  string // one line
}

// Error says "web config FILE: why".
func (e *ConfigError) Error() string { return "web config " + e.File + ": " + e.Msg }

// listen opens l's listeners: systemd's, or one per address.
func listen(l Listen) ([]net.Listener, error) {
	if l.SystemdSocket {
		lns, err := activation.Listeners()
		if err != nil {
			return nil, fmt.Errorf("systemd socket activation: %w", err)
		}
		lns = slices.DeleteFunc(lns, func(ln net.Listener) bool { return ln == nil }) // not a stream socket
		if len(lns) == 0 {
			return nil, errors.New("systemd socket activation: no listening socket passed (LISTEN_FDS; run by a .socket unit or systemd-socket-activate)")
		}
		return lns, nil
	}
	var lns []net.Listener
	for _, addr := range l.Addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, o := range lns {
				o.Close()
			}
			return nil, fmt.Errorf("%s: %w", addr, errors.Unwrap(err))
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// oneLine joins an error's lines (a YAML error lists one per field).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// errLogWriter writes slog's lines to a log.Logger.
type errLogWriter struct{ l *log.Logger }

func (w errLogWriter) Write(b []byte) (int, error) {
	w.l.Print(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// Close stops the endpoint: it stops listening, waits up to 2 s for the
// scrapes being answered, closes every connection and returns once the
// servers have stopped.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, srv := range s.srvs {
		_ = srv.Shutdown(ctx)
	}
	s.served.Wait()
}

// A tracker keeps the endpoint's connections within maxPreRequest
// and maxServed, closing the oldest ones in favour of new ones. It
// follows the connections through the server's ConnState hook and the
// reads on each (conn), learns from the handler when a request's
// header was complete (ConnState's StateActive cannot tell: it also fires
// for a header cut short by the read-header timeout), and holds the
// listener's Accept while the budget is full of connections it may not
// close.
type tracker struct {
	maxPre, maxServed int
	grace             time.Duration // firstByteGrace
	// changed wakes waitRoom (1 buffered): a connection without a complete
	// request went, or the server started reading one, or read its first
	// bytes.
	changed chan struct{}

	mu          sync.Mutex
	seq         uint64 // orders the connections by arrival or last request
	conns       map[*conn]struct{}
	pre, served int // connections with served false and true
}

func newTracker(maxPre, maxServed int, grace time.Duration) *tracker {
	return &tracker{maxPre: max(maxPre, 1), maxServed: max(maxServed, 1), grace: grace,
		changed: make(chan struct{}, 1), conns: map[*conn]struct{}{}}
}

// A conn is a connection of the endpoint, as the listener returns
// it: its reads tell whether the server has started reading it, whether
// the client sent anything, and whether what it sent ends a request header.
type conn struct {
	net.Conn
	m  *tracker
	at time.Time // accepted

	// Set by the goroutine serving the connection (its only reader).
	reading  atomic.Bool // the server has called Read
	got      atomic.Bool // Read has returned bytes
	complete atomic.Bool // an empty line, the end of a request header, was read
	last     [2]byte     // the last two bytes read, until complete

	// Guarded by m.mu.
	served bool   // a request's header was complete (the handler ran)
	busy   bool   // in the handler
	since  uint64 // m.seq at its arrival, or its last request's start or end
}

// Read reads from the connection, recording that the server reads it and
// whether the bytes so far contain the empty line that ends a request
// header (CRLF CRLF, or LF LF).
func (c *conn) Read(b []byte) (int, error) {
	if !c.reading.Load() {
		c.reading.Store(true)
		c.m.signal()
	}
	n, err := c.Conn.Read(b)
	if !c.complete.Load() {
		for _, x := range b[:n] {
			if x == '\n' && (c.last[1] == '\n' || c.last[1] == '\r' && c.last[0] == '\n') {
				c.complete.Store(true)
				break
			}
			c.last[0], c.last[1] = c.last[1], x
		}
	}
	// got after complete, so that partial never sees a whole header
	// between the two.
	if n > 0 && !c.got.Load() {
		c.got.Store(true)
		c.m.signal()
	}
	return n, err
}

// CloseWrite half-closes the connection, as the server does before closing
// one whose request it did not read to the end.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// partial reports whether c's client sent part of a request header and
// not its end.
func (c *conn) partial() bool {
	return !c.served && c.got.Load() && !c.complete.Load()
}

// silent reports whether the server is reading c and its client has sent
// nothing.
func (c *conn) silent() bool {
	return !c.served && c.reading.Load() && !c.got.Load()
}

// A listener wraps the endpoint's connections in conn and
// accepts one only when the pre-request budget has room or a connection to
// close for it.
type listener struct {
	net.Listener
	m    *tracker
	done chan struct{}
	once sync.Once
}

// Accept waits for room in the pre-request budget, then accepts.
func (l *listener) Accept() (net.Conn, error) {
	if !l.m.waitRoom(l.done) {
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, m: l.m, at: time.Now()}, nil
}

// Close closes the listener and ends a wait in Accept.
func (l *listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// waitRoom returns true when a new connection may be accepted: the
// pre-request budget has room, or a victim to close for it; false when
// done is closed first.
func (m *tracker) waitRoom(done <-chan struct{}) bool {
	for {
		m.mu.Lock()
		ok := m.pre < m.maxPre || m.victim(nil) != nil
		var wait time.Duration // until the oldest silent connection has had its grace
		if s := m.oldest(nil, (*conn).silent); !ok && s != nil {
			wait = m.grace - time.Since(s.at)
		}
		m.mu.Unlock()
		if ok {
			return true
		}
		if !m.waitChange(done, wait) {
			return false
		}
	}
}

// waitChange waits for a signal, or for d if positive; false when done is
// closed first.
func (m *tracker) waitChange(done <-chan struct{}, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-m.changed:
	case <-timeout:
	case <-done:
		return false
	}
	return true
}

// victim returns the pre-request connection other than self to close to
// make room, or nil: the oldest whose client sent part of a header, else
// the oldest whose client sent nothing for the grace period. m.mu is held.
func (m *tracker) victim(self *conn) *conn {
	if v := m.oldest(self, (*conn).partial); v != nil {
		return v
	}
	if v := m.oldest(self, (*conn).silent); v != nil && time.Since(v.at) >= m.grace {
		return v
	}
	return nil
}

// signal wakes waitRoom.
func (m *tracker) signal() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// connKey is the context key of the connection a request came on.
type connKey struct{}

// context is the server's ConnContext: it records the connection in its
// context, for begin.
func (m *tracker) context(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, tracked(c))
}

// tracked is the listener's connection under nc: nc itself, or the one a
// TLS connection runs on (web.Serve wraps the listener in TLS).
func tracked(nc net.Conn) *conn {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	c, _ := nc.(*conn)
	return c
}

// state is the server's ConnState hook. A new connection counts against
// the pre-request budget, closing a victim when it is full; a closed one
// is forgotten; one that has been answered and waits for its next request
// is a served one, whatever answered it (a 401 of the basic auth that
// web.Serve puts before dcbtop's handler too: under TLS the header's end
// cannot be seen in the bytes).
func (m *tracker) state(nc net.Conn, s http.ConnState) {
	c := tracked(nc)
	if c == nil {
		return
	}
	var victim *conn
	m.mu.Lock()
	switch s {
	case http.StateNew:
		m.seq++
		c.since = m.seq
		m.conns[c] = struct{}{}
		m.pre++
		if m.pre > m.maxPre {
			victim = m.victim(c)
			m.forget(victim)
		}
	case http.StateIdle:
		if _, ok := m.conns[c]; ok {
			victim = m.promote(c)
		}
	case http.StateClosed, http.StateHijacked:
		m.forget(c)
	}
	m.mu.Unlock()
	closeAsync(victim)
}

// begin is called by the handler when a request's header is complete, and
// returns the request's connection, for end, and false when that
// connection was closed to make room meanwhile (its close may not have
// run yet: the request must not be answered). The connection becomes a
// served one; when that exceeds the served limit, the served connection
// idle the longest is closed, or, none idle, the one whose request started
// the longest ago.
func (m *tracker) begin(ctx context.Context) (*conn, bool) {
	c, _ := ctx.Value(connKey{}).(*conn)
	var victim *conn
	m.mu.Lock()
	_, tracked := m.conns[c]
	if tracked { // not: closed to make room meanwhile
		m.seq++
		c.busy, c.since = true, m.seq
		victim = m.promote(c)
	}
	m.mu.Unlock()
	closeAsync(victim)
	return c, tracked
}

// promote makes c a served connection, if it is not one yet, and returns
// the victim to close when that exceeds the served limit: the served
// connection idle the longest, or, none idle, the one whose request
// started the longest ago. m.mu is held.
func (m *tracker) promote(c *conn) (victim *conn) {
	if c.served {
		return nil
	}
	c.served = true
	m.pre--
	m.served++
	m.signal()
	if m.served > m.maxServed {
		idle := func(o *conn) bool { return o.served && !o.busy }
		if victim = m.oldest(c, idle); victim == nil {
			victim = m.oldest(c, func(o *conn) bool { return o.served })
		}
		m.forget(victim)
	}
	return victim
}

// end is called when the handler of a request on c returns: c is idle
// from now on (the response may still be on its way to the client).
func (m *tracker) end(c *conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.conns[c]; ok {
		m.seq++
		c.busy, c.since = false, m.seq
	}
}

// oldest returns the connection other than self that match accepts with
// the oldest since, or nil. m.mu is held.
func (m *tracker) oldest(self *conn, match func(*conn) bool) *conn {
	var o *conn
	for c := range m.conns {
		if c != self && match(c) && (o == nil || c.since < o.since) {
			o = c
		}
	}
	return o
}

// forget stops tracking c (nil or not tracked: nothing). m.mu is held.
func (m *tracker) forget(c *conn) {
	if _, ok := m.conns[c]; !ok {
		return
	}
	delete(m.conns, c)
	if c.served {
		m.served--
	} else {
		m.pre--
		m.signal()
	}
}

// closeAsync closes c, if not nil, without waiting: Close returns only
// once the goroutine serving c has returned from its Read, which would
// make the accept loop (or a scrape's handler) wait on the scheduling of
// the very connections being closed.
func closeAsync(c *conn) {
	if c != nil {
		go c.Close()
	}
}
