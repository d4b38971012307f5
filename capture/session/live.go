package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/metricserver"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/capture/replay"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// A liveIface is one captured interface: its current socket (replaced
// when the interface goes away and comes back), and the system resources
// of dcbtop's agent on it, if one runs (the agent itself is the host
// layer's, engine/host).
type liveIface struct {
	name string
	link capture.Link
	kick chan struct{} // a link event: retry opening now
	// stop ends this interface's capture alone (set by the loop when it
	// starts it): an interface removed from an all-interfaces run.
	stop   context.CancelFunc
	open   func(name string) (Conn, error)
	mu     sync.Mutex
	conn   Conn
	prev   capture.LiveStats // accumulated from closed sockets
	sent   uint64
	errMsg string // the capture's error, "" while capturing
	txErr  string // the agent's last transmit error, "" after a success
	// advErr is the host's word on why the agent cannot advertise the
	// current state ("" when it can), kept here for status, which the
	// capture goroutine builds too.
	advErr string
	// ctl is the agent's control socket (nil without an agent), owned by
	// the engine goroutine.
	ctl *control.Server
	// lock is held while the agent runs on a kernel interface: one agent
	// per interface and network namespace (nil otherwise).
	lock *control.AgentLock
}

// closeControl closes the agent's control socket and gives its lock up.
func (li *liveIface) closeControl() {
	if li.ctl != nil {
		li.ctl.Close()
		li.ctl = nil
	}
	li.lock.Release()
	li.lock = nil
}

func (li *liveIface) current() Conn {
	li.mu.Lock()
	defer li.mu.Unlock()
	return li.conn
}

func (li *liveIface) set(l Conn) {
	li.mu.Lock()
	defer li.mu.Unlock()
	li.conn = l
}

// closeSem bounds the sockets closed at once: closing a packet socket
// waits for an RCU grace period (packet_release calls synchronize_net,
// net/packet/af_packet.c), some 10 ms. One after the other, a thousand
// interfaces took 12 s to quit; closes that wait together share grace
// periods, and no more than closeConcurrency threads block in them.
var closeSem = make(chan struct{}, closeConcurrency)

// closeConcurrency is how many sockets close at once.
const closeConcurrency = 64

// drop closes the current socket, keeping its counters.
func (li *liveIface) drop() {
	closeSem <- struct{}{}
	defer func() { <-closeSem }()
	li.mu.Lock()
	defer li.mu.Unlock()
	if li.conn == nil {
		return
	}
	if st, err := li.conn.Stats(); err == nil {
		li.prev.Packets += st.Packets
		li.prev.Drops += st.Drops
	}
	li.conn.Close()
	li.conn = nil
}

// dropAll closes the interfaces' sockets together (see closeSem).
func dropAll(ifaces []*liveIface) {
	var wg sync.WaitGroup
	for _, li := range ifaces {
		wg.Go(li.drop)
	}
	wg.Wait()
}

// status returns the interface's capture status for the engine.
func (li *liveIface) status(now time.Time) engine.CaptureStatus {
	li.mu.Lock()
	defer li.mu.Unlock()
	st := li.prev
	if li.conn != nil {
		if s, err := li.conn.Stats(); err == nil {
			st.Drops += s.Drops
		}
	}
	msg := li.errMsg
	for _, e := range []string{li.txErr, li.advErr} {
		if e != "" {
			if msg != "" {
				msg += "; "
			}
			msg += e
		}
	}
	return engine.CaptureStatus{Interface: li.name, At: now, Err: msg, KernelDrops: st.Drops, Sent: li.sent}
}

// setErr records the capture's error ("" while capturing) and reports
// whether it changed.
func (li *liveIface) setErr(msg string) bool { return li.setMsg(&li.errMsg, msg) }

// setTxErr records the outcome of a transmission: its error, or "" after
// a success (so a transient failure, such as the link being down, does not
// stay reported once frames go out again).
func (li *liveIface) setTxErr(msg string) bool { return li.setMsg(&li.txErr, msg) }

// setMsg sets one of the interface's messages under its lock and reports
// whether it changed.
func (li *liveIface) setMsg(field *string, msg string) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	changed := *field != msg
	*field = msg
	return changed
}

// hostAgents lists the LLDP agent processes of this network namespace,
// and netAdmin whether this process may write DCB netlink: what the
// engine decides capabilities from (engine.HostObserved). Variables for
// tests.
var (
	hostAgents = func() []engine.HostAgent { return capture.LLDPAgents("/proc") }
	netAdmin   = capture.NetAdmin
)

// observeHost tells the engine what the host allows now (engine
// goroutine): the LLDP agents running here and CAP_NET_ADMIN. Every
// snapshot's capabilities come from the last such event.
func (r *liveRun) observeHost(now time.Time) { r.observeHostAgents(now, true) }

// observeHostAgents is observeHost; full reads the name of every process
// (capture.AgentScan), else only of those new since the last look.
func (r *liveRun) observeHostAgents(now time.Time, full bool) {
	if r.agentScan == nil {
		r.agentScan = &capture.AgentScan{ProcRoot: "/proc"}
	}
	r.apply(engine.HostObserved{At: now, NetAdmin: netAdmin(), Agents: r.agentScan.Scan(full)})
}

// RefreshHost observes the host now, in the engine goroutine, so that the
// next snapshot's capabilities are current (the screen asks before acting).
func (r *liveRun) RefreshHost() error {
	return r.do(func() { r.observeHost(r.now()) })
}

// loadLocal returns the agent's local parameters: --local FILE or the
// documented defaults, validated like received TLVs.
func loadLocal(path string) (*dcb.Params, error) {
	if path == "" {
		return agent.DefaultLocal(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	p, err := dcb.ParseParams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("%s: invalid parameters: %w", path, err)
	}
	return p, nil
}

// Config says what a live run captures on, whether dcbtop is the host's
// DCBX agent there, what it records and prints, and where its time comes
// from.
type Config struct {
	// Interfaces names the interfaces to capture on (-i); empty: every
	// up Ethernet interface. Links, when set, are used instead (the
	// demo's in-memory link), opened with Open, and no kernel link
	// changes are watched for them. Replay, when set, names a
	// capture file (pcap or pcapng) to replay instead of capturing, at
	// Speed (1 recorded speed, 0 as fast as possible), its timestamps the
	// run's clock; Post then follows its progress. A headless replay's
	// Loop ends at the end of the file; a screen's waits for its context.
	Replay string
	Speed  float64
	// LocalMAC, for a replay of a capture without direction, names this
	// host's end of the link (--local-mac); nil: engine.LocalEnds' rule.
	LocalMAC   *lldp.MAC
	Post       replay.Poster
	Interfaces []string
	Links      []capture.Link
	// Open opens an interface's capture socket; nil: capture.OpenLive.
	Open func(name string) (Conn, error)
	// Clock is the run's time (the zero value: the real clock).
	Clock capture.Clock
	// Duration stops the run after it (0: when the context is done).
	Duration time.Duration
	// Agent makes dcbtop the host DCBX agent on every interface, with
	// the local parameters LocalParams, else those of the PARAMS file
	// Local, else the defaults, and the Willing state Willing, sending
	// every TxInterval. Force starts it beside another LLDP agent;
	// NoControl serves no control socket (the demo).
	Agent       bool
	LocalParams *dcb.Params
	Local       string
	Willing     bool
	TxInterval  time.Duration
	Force       bool
	NoControl   bool
	// CountersInterval is how often the lossless counters (RDMA, PFC
	// pauses, congestion) are sampled: 0 DefaultCountersInterval, negative
	// never (replays never sample). SysfsRoot is where sysfs is read
	// ("" /sys; DCBTOP_SYSFS_ROOT points it at a fixture tree).
	CountersInterval time.Duration
	SysfsRoot        string
	// EthtoolRoot names recorded ethtool outputs read instead of the
	// ethtool ioctls ("" the ioctls; DCBTOP_ETHTOOL_ROOT, see
	// counters.EnvEthtoolRoot).
	EthtoolRoot string
	// Sampler reads the counters instead of one over SysfsRoot, ethtool
	// and dcbnl (nil: that one).
	Sampler Sampler
	// Record names a pcapng file that gets every LLDPDU seen (-w).
	Record string
	// Metrics is the address of the Prometheus endpoint (--metrics).
	Metrics string
	// Screen: snapshots are published to Feed for a screen.
	Screen bool
	// Events prints each indication to Out as NDJSON; JSON prints the
	// final snapshot to Out.
	Events, JSON bool
	// TextEvents prints the indications as plain lines instead of NDJSON
	// (a TERM=dumb terminal).
	TextEvents bool
	Out        io.Writer
	// Warn receives one-line warnings a headless run says once (the
	// engine's Outcome.Notices); nil discards them.
	Warn io.Writer
	// Version and Revision name this build (agent's system description,
	// metrics build info).
	Version, Revision string
}

// A Runtime is a live run: the goroutine that owns the engine (Loop), the
// capture sockets, agents and control sockets it drives, and the feed the
// screen and the metrics read.
type Runtime struct {
	*liveRun
	ifaces  []*liveIface
	closers []func() error
}

// Start opens everything a live run needs: the interfaces' capture
// sockets, the -w file, the metrics endpoint, the agents and their control
// sockets, and the DCB netlink reader; the engine learns the links and the
// agents' local parameters. Loop then runs it; Close releases it all.
func Start(cfg Config) (rt *Runtime, err error) {
	if cfg.Warn == nil {
		cfg.Warn = io.Discard
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	rt = &Runtime{}
	defer func() {
		if err != nil {
			rt.Close()
			rt = nil
		}
	}()
	if cfg.Replay != "" {
		return rt, rt.startReplay(cfg)
	}
	links := cfg.Links
	dynamic := false
	var over []capture.Link // interfaces past the engine's bound: not captured
	if links == nil {
		if links, err = capture.PickLinks(cfg.Interfaces); err != nil {
			return rt, err
		}
		// Every interface (no -i): those that appear later are captured
		// too, those removed let go.
		dynamic = len(cfg.Interfaces) == 0
		if len(links) > engine.DefaultMaxInterfaces {
			links, over = links[:engine.DefaultMaxInterfaces], links[engine.DefaultMaxInterfaces:]
		}
	}
	if cfg.Agent {
		// The agents start below (startAgent); a bad --local file or
		// another agent is reported before anything opens.
		if _, err := loadLocal(cfg.Local); err != nil {
			return rt, err
		}
		if others := host.Transmitting(hostAgents()); len(others) > 0 && !cfg.Force {
			return rt, fmt.Errorf("%s: another LLDP agent runs in this network namespace: %s; stop it, or use --force", links[0].Name, strings.Join(others, ", "))
		}
	}
	rt.closers = append(rt.closers, func() error {
		for _, li := range rt.ifaces {
			li.closeControl()
		}
		dropAll(rt.ifaces)
		if rt.liveRun != nil {
			dropAll(rt.added) // interfaces that appeared (the loop has returned)
			rt.letGo.Wait()
		}
		return nil
	})
	for _, l := range links {
		conn, err := cfg.open(l.Name)
		if err != nil {
			return rt, fmt.Errorf("%s: %w", l.Name, err)
		}
		rt.ifaces = append(rt.ifaces, &liveIface{name: l.Name, link: l, conn: conn, kick: make(chan struct{}, 1), open: cfg.open})
	}
	var rec *capture.Writer
	switch cfg.Record {
	case "":
	case "-": // pcapng on standard output, as tcpdump -w -
		if rec, err = capture.NewWriter(cfg.Out); err != nil {
			return rt, fmt.Errorf("-w -: %w", err)
		}
	default:
		if rec, err = capture.CreateWriter(cfg.Record); err != nil {
			return rt, fmt.Errorf("%s: %w", cfg.Record, err)
		}
	}
	if rec != nil {
		rt.closers = append(rt.closers, func() error {
			if err := rec.Close(); err != nil {
				return fmt.Errorf("%s: %w", cfg.Record, err)
			}
			return nil
		})
	}
	r, err := newLiveRun(&cfg, rec)
	if err != nil {
		return rt, err
	}
	rt.liveRun = r
	r.dynamic = dynamic
	if cfg.Metrics != "" || cfg.Screen {
		r.feed = NewFeed()
	}
	if cfg.Metrics != "" {
		stop, err := r.serveMetrics(cfg.Metrics)
		if err != nil {
			return rt, err
		}
		rt.closers = append(rt.closers, func() error { stop(); return nil })
	}
	now := r.now()
	for _, li := range rt.ifaces {
		r.byName[li.name] = li
		r.apply(engine.LinkChanged{Interface: li.name, At: now, Ifindex: li.link.Index, MAC: li.link.MAC, Up: li.link.Up})
	}
	for _, l := range over {
		// The engine counts them: the too-many-interfaces diagnostic.
		r.apply(engine.LinkChanged{Interface: l.Name, At: now, Ifindex: l.Index, MAC: l.MAC, Up: l.Up})
	}
	r.publishNames(rt.ifaces)
	if cfg.Agent {
		// The same start as the screen's a key: local parameters, a
		// control socket (its requests wait in r.control until the loop
		// runs), the first LLDPDU.
		for _, li := range rt.ifaces {
			if _, err := r.startAgent(li.name, now); err != nil {
				return rt, fmt.Errorf("%s: %w", li.name, err)
			}
		}
	}
	stopDCB := r.startDCB(rt.ifaces)
	rt.closers = append(rt.closers, func() error { stopDCB(); return nil })
	if !cfg.Agent {
		stopOthers := r.startOtherAgents(rt.ifaces)
		rt.closers = append(rt.closers, func() error { stopOthers(); return nil })
	}
	stopCounters := r.startCounters(rt.ifaces)
	rt.closers = append(rt.closers, func() error { stopCounters(); return nil })
	if r.feed != nil {
		r.dirty = true
		r.flush() // a screen has a snapshot from the start
	}
	return rt, nil
}

// serveMetrics starts the Prometheus endpoint of --metrics on addr
// (capture/metricserver), on a registry of its own: the engine's metrics
// (engine/metrics) from the latest snapshot published to the feed, the
// indications counted as the loop carries them out, and how the counter
// sources fared (counterStatus). It returns a stop function.
func (r *liveRun) serveMetrics(addr string) (stop func(), err error) {
	col := metrics.New(func() engine.Snapshot {
		s, _ := r.feed.Snapshot()
		return s
	}, metrics.WithBuildInfo(r.cfg.Version, r.cfg.Revision), metrics.WithCounterSources(r.counterStatus))
	reg := prometheus.NewRegistry()
	if err := reg.Register(col); err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	srv, err := metricserver.Serve(addr, reg)
	if err != nil {
		return nil, fmt.Errorf("--metrics %w", err)
	}
	r.metrics = col
	return srv.Close, nil
}

// startReplay opens the capture file of cfg.Replay as the run's source
// and clock.
func (rt *Runtime) startReplay(cfg Config) error {
	src, err := replay.Open(cfg.Replay, cfg.Speed, cfg.Post)
	if err != nil {
		return err
	}
	rt.closers = append(rt.closers, src.Close)
	r, err := newLiveRun(&cfg, nil)
	if err != nil {
		return err
	}
	r.clk, r.replay = src, src
	rt.liveRun = r
	if r.replayEnds, err = src.LocalEnds(cfg.LocalMAC); err != nil {
		return err
	}
	for _, e := range r.replayEnds {
		r.apply(e)
	}
	if cfg.Screen {
		// The screen's replay is a player: it stays after the end for a
		// seek back, which starts the engine afresh first.
		src.SetPlayer(r.resetReplay)
		r.feed = NewFeed()
		r.dirty = true
		r.flush()
	}
	return nil
}

// resetReplay starts the engine afresh for a seek of the replay's
// player, on the engine goroutine: the host layer reset, the link ends
// applied again. It gives up once ctx is done (the replay gave the seek
// up: the run is stopping).
func (r *liveRun) resetReplay(ctx context.Context) {
	_ = r.doCtx(ctx, func() {
		r.h.Reset()
		for _, e := range r.replayEnds {
			r.apply(e)
		}
		r.dirty = true
	})
}

// Backend returns the screen's backend for the run (capture/operator);
// exports go to dir. A replay's backend writes nothing but exports.
func (rt *Runtime) Backend(dir string) *operator.Backend {
	if rt.replay != nil {
		return operator.NewBackend(dir, rt.feed.Snapshot, nil)
	}
	return operator.NewBackend(dir, rt.feed.Snapshot, rt.liveRun)
}

// ReplayProgress returns a replay's progress (zero for a live run).
func (rt *Runtime) ReplayProgress() replay.Progress {
	if rt.replay == nil {
		return replay.Progress{}
	}
	return rt.replay.Progress()
}

// Player returns the replay's player (nil for a live run): the screen's
// controls (ui.Player).
func (rt *Runtime) Player() *replay.Player {
	if rt.replay == nil {
		return nil
	}
	return rt.replay.Player()
}

// Feed returns the feed snapshots are published to (nil unless the
// Config asked for a screen or metrics).
func (rt *Runtime) Feed() *Feed { return rt.feed }

// Snapshot returns the run's snapshot. The engine belongs to Loop's
// goroutine: call it only once Loop has returned, when it is the run's
// final state (dcbtop check judges it).
func (rt *Runtime) Snapshot() engine.Snapshot { return rt.h.Engine().Snapshot() }

// Loop runs the engine's goroutine (the caller's) until ctx is done or
// the Config's Duration has passed; then the agents send their shutdown
// LLDPDUs and, with JSON, the final snapshot is printed.
func (rt *Runtime) Loop(ctx context.Context) error {
	if rt.cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rt.cfg.Duration)
		defer cancel()
	}
	return rt.loop(ctx, rt.ifaces)
}

// Close releases what Start opened, in reverse order: the DCB netlink
// reader, the control sockets and capture sockets, the metrics endpoint
// and the -w file (whose error it returns). It may be called once.
func (rt *Runtime) Close() error {
	var first error
	for i := len(rt.closers) - 1; i >= 0; i-- {
		if err := rt.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	rt.closers = nil
	return first
}

// newLiveRun returns the state of the engine goroutine of a live run:
// the host layer configured for its agents (the --local file read once).
func newLiveRun(cfg *Config, rec *capture.Writer) (*liveRun, error) {
	ac := host.AgentConfig{TxInterval: cfg.TxInterval, Willing: cfg.Willing, Force: cfg.Force,
		SystemDesc: "dcbtop " + cfg.Version + " host DCBX agent"}
	ac.SystemName, _ = os.Hostname()
	switch {
	case cfg.LocalParams != nil:
		ac.Local, ac.LocalFrom = cfg.LocalParams.Clone(), "the demo host's"
	case cfg.Local != "" && cfg.Replay == "":
		p, err := loadLocal(cfg.Local)
		if err != nil {
			return nil, err
		}
		ac.Local, ac.LocalFrom = p, "from "+cfg.Local
	}
	h := host.New(host.Config{Engine: engine.Config{Replay: cfg.Replay != "", NeighborEvents: true}, Agent: ac})
	eventHost := "" // a replay's events happened on a host the capture does not name
	if cfg.Replay == "" {
		eventHost = ac.SystemName
	}
	return &liveRun{cfg: cfg, h: h, out: output.NewEvents(cfg.Out, cfg.Events, cfg.TextEvents, eventHost), rec: rec,
		events: make(chan engine.Event, 1024), byName: map[string]*liveIface{}, linkEvents: make(chan capture.LinkEvent, 64),
		control: make(chan control.Call), calls: make(chan loopCall), stopped: make(chan struct{}), clk: cfg.Clock}, nil
}

// now returns the run's clock reading (the demo's may run faster than
// real time), in UTC as the engine's events carry it.
func (r *liveRun) now() time.Time { return r.clk.Now().UTC() }

// A clock is the run's time: a capture.Clock (the real one, or the
// demo's faster one), or a replay's capture time.
type clock interface {
	Now() time.Time
	NewTicker(d time.Duration) *time.Ticker
	Real(d time.Duration) time.Duration
	Stamp(t time.Time) time.Time
}

// A Conn is an interface's capture socket: a *capture.Live, or the
// host end of the demo's in-memory link.
type Conn interface {
	ReadFrame(ctx context.Context) (capture.Frame, error)
	WriteFrame(b []byte) error
	Stats() (capture.LiveStats, error)
	Close() error
}

var _ Conn = (*capture.Live)(nil)

// open opens the capture socket of an interface: capture.OpenLive unless a
// demo link stands in for it.
func (c *Config) open(name string) (Conn, error) {
	if c.Open != nil {
		return c.Open(name)
	}
	return capture.OpenLive(name)
}

// A liveRun is the state of the single goroutine that owns the host layer
// (engine/host: the engine and dcbtop's agents). It decides nothing about
// DCBX: it feeds events to the host and carries out the effects the host
// returns, in order.
type liveRun struct {
	// agentScan lists the host's LLDP agents (observeHostAgents).
	agentScan *capture.AgentScan
	// metrics counts indications for --metrics (nil without it).
	metrics *metrics.Collector
	// counterSources samples this host's counters (startCounters; nil
	// before, or with Config.Sampler), for the metrics' goroutines.
	counterSources atomic.Pointer[counters.Sampler]
	cfg            *Config
	h              *host.Host
	out            *output.Events
	rec            *capture.Writer
	events         chan engine.Event
	byName         map[string]*liveIface
	// names holds the captured interfaces' names for the samplers'
	// goroutines (counters, other agents); the loop replaces it when an
	// interface appears or is let go.
	names atomic.Pointer[[]string]
	// dynamic says the run captures every Ethernet interface (no -i): one
	// that comes up later is captured too (up to the engine's bound), and
	// one that is removed is let go. added holds those the loop started
	// capturing; Close closes them after the loop has returned.
	dynamic bool
	added   []*liveIface
	// letGo closes the sockets of interfaces let go; Close waits for it.
	letGo sync.WaitGroup
	// linkEvents carries the link watcher's events to the loop.
	linkEvents chan capture.LinkEvent
	// control carries the control sockets' (and the screen's) requests to
	// the agents; calls the screen's other requests (see do).
	control chan control.Call
	calls   chan loopCall
	// stopped is closed when the loop has returned: requests no longer
	// wait for it.
	stopped chan struct{}
	// clk is the run's time; replay is the capture file replayed (nil
	// live), which is then the clock too.
	clk    clock
	replay *replay.Source
	// replayEnds are the ends of the replayed links (Source.LocalEnds),
	// applied again when a seek starts the engine afresh.
	replayEnds []engine.EndsAssumed
	// tickEvery is how often a replay on the screen moves the engine's
	// clock and reports the player's position (1 s; tests shorten it).
	tickEvery time.Duration
	err       error // first output error

	// The screen and the metrics (feed nil without them): the loop
	// publishes a snapshot after each event that changed the engine, after
	// a frame that only refreshed a peer's TTL at most every freshEvery,
	// and, while something ages, a second after the last (armAging).
	publisher
	agingAt    time.Time // when the next snapshot due to time alone is (zero: none)
	agingFired bool      // the snapshot now due is the aging one

	// wake is the run's one timer: armed by arm for the earliest of the
	// host's next deadline (a TTL, a hold-down, an agent's next LLDPDU),
	// the next aging snapshot and a throttled refresh.
	wake  *time.Timer
	wakeC <-chan time.Time // wake's channel while armed, else nil
}

func (r *liveRun) loop(ctx context.Context, ifaces []*liveIface) error {
	defer close(r.stopped)
	defer func() {
		if r.wake != nil {
			r.wake.Stop()
		}
	}()
	if r.replay != nil && !r.cfg.Screen && r.replay.Speed() <= 0 {
		// A headless replay as fast as possible (--json, --events, check
		// -r): nothing else asks the loop for anything, so the engine runs
		// on the reading goroutine, without a channel operation per frame
		// (which halved the speed of a replay).
		n := 0
		readErr := r.replay.Direct(ctx, func(fr engine.FrameReceived) bool {
			r.applyFrame(fr)
			if n++; n%1024 == 0 {
				r.flush() // --metrics reads the published snapshot
			}
			return r.err == nil
		})
		err := r.finish(ifaces)
		r.flush()
		return cmp.Or(r.err, readErr, err)
	}
	capCtx, stopCapture := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	start := func(li *liveIface) {
		ctx, stop := context.WithCancel(capCtx)
		li.stop = stop
		wg.Go(func() { li.capture(ctx, r.clk, r.events) })
	}
	for _, li := range ifaces {
		start(li)
	}
	if r.replay == nil && r.cfg.Links == nil {
		// The kernel's link messages name kernel interfaces: given
		// links (the demo's in-memory one) have none to follow.
		wg.Go(func() { r.watchLinks(capCtx) })
	}
	defer func() {
		stopCapture()
		wg.Wait()
	}()

	var srcDone chan error // the replay's end
	var replayTick <-chan time.Time
	if r.replay != nil {
		srcDone = make(chan error, 1)
		wg.Go(func() { r.replay.Run(capCtx, r.events, srcDone) })
		// A replay's clock is the file's: it moves as the player plays,
		// so the engine's clock follows it on a tick (which also reports
		// the player's position) rather than on a timer set for a time
		// the player may never reach.
		t := time.NewTicker(cmp.Or(r.tickEvery, time.Second))
		defer t.Stop()
		replayTick = t.C
	}
	var readErr error
	// What the host asks of the system is sampled every 5 s (I/O, not a
	// protocol timer): capture statistics, the LLDP agents running.
	statsEvery := time.NewTicker(5 * time.Second)
	defer statsEvery.Stop()
	if r.replay == nil {
		r.observeHost(r.now())
		r.apply(engine.Tick{At: r.now()}) // agents' frames already due
	}
	r.flush()
	for r.err == nil {
		select {
		case <-ctx.Done():
			if srcDone != nil {
				// A replay's end may be on its way: wait for the source,
				// and keep its read error.
				stopCapture()
				wg.Wait()
				select {
				case readErr = <-srcDone:
				default:
				}
			}
			r.drain()
			err := r.finish(ifaces)
			r.flush()
			return cmp.Or(readErr, err)
		case readErr = <-srcDone:
			// The replay ended: what it sent goes first. Headless, the
			// run ends; the screen keeps the final state until it quits.
			srcDone = nil
			r.drain()
			if !r.cfg.Screen {
				err := r.finish(ifaces)
				r.flush()
				return cmp.Or(readErr, err)
			}
			r.dirty = true
		case ev := <-r.events:
			if _, ok := ev.(engine.FrameReceived); ok {
				r.apply(ev)
				break
			}
			// Stamped with the clock: frames received earlier go first,
			// then ev, then what came after it, in order.
			r.settle(ifaces, ev)
		case le := <-r.linkEvents:
			ifaces = r.linkChanged(le, ifaces, start)
		case c := <-r.control:
			r.drain()
			resp := r.handleControl(c)
			r.flush() // the caller's next look at the screen sees the change
			c.Reply <- resp
		case c := <-r.calls:
			r.drain()
			c.fn()
			r.flush()
			close(c.done)
		case <-r.wakeC:
			// Frames captured before the deadline go first: a deadline
			// applied before an older frame would expire information that
			// frame refreshes.
			r.wakeC = nil
			now := r.now()
			if t, ok := r.h.NextWake(); ok && !t.After(now) {
				r.settle(ifaces)
				now = r.now()
			} else {
				// Nothing falls due (the wake is for an aging snapshot or
				// a refreshed peer's throttle): no information can expire
				// before a frame that refreshes it, and the sockets need
				// not be asked (SIOCINQ on each, every second).
				r.drain()
			}
			r.apply(engine.Tick{At: now})
			if !r.agingAt.IsZero() && !time.Now().Before(r.agingAt) {
				// A second since the last snapshot, and the clock alone
				// changes what it shows: publish one taken now.
				r.dirty, r.agingFired = true, true
			}
		case <-replayTick:
			r.settle(ifaces)
			r.apply(engine.Tick{At: r.now()})
			r.replay.Tick()
		case <-statsEvery.C:
			now := r.now()
			for _, li := range ifaces {
				r.apply(li.status(now))
			}
			if r.replay == nil {
				// An LLDP agent that started or exited changes what may
				// be written: the screen's keys follow within 5 s.
				r.observeHostAgents(now, false)
			}
		}
		r.flush()
	}
	// An output error: still withdraw the agents (shutdown LLDPDUs).
	err := r.finish(ifaces)
	r.flush()
	return err
}

// flush publishes a snapshot to the screen when the engine changed since
// the last one, or a frame refreshed a peer and the last one is older
// than freshEvery; then arms the run's timer.
func (r *liveRun) flush() {
	now := time.Now()
	if r.publisher.flush(now, r.h.Engine()) {
		r.armAging(now)
	}
	r.arm(now)
}

// armAging schedules the next snapshot published only because time
// passed (expiry countdowns, a stale peer, a hold-down: the screen draws
// them from the latest snapshot and has no clock of its own for them,
// and the Backend's exports and the metrics read them), after a snapshot
// published at now: agingAfter later, and then every second exactly, so
// that a countdown drawn from each steps by one second and never skips.
// Nothing is scheduled while nothing ages.
func (r *liveRun) armAging(now time.Time) {
	fired := r.agingFired
	r.agingFired = false
	if !r.h.Engine().TimeSensitive() {
		r.agingAt = time.Time{}
		return
	}
	next := now.Add(agingAfter)
	if fired {
		next = r.agingAt.Add(time.Second)
	}
	r.agingAt = next
}

// arm sets the run's one timer for the earliest of: the host's next wake
// (a deadline of the engine or an agent's next LLDPDU, on the run's clock,
// which the demo may run faster), the next aging snapshot, and the end
// of the throttle on a refreshed peer (freshEvery). A replay moves its
// clock on its own tick instead (loop).
func (r *liveRun) arm(now time.Time) {
	var d time.Duration
	armed := false
	at := func(t time.Time) {
		if dt := t.Sub(now); !armed || dt < d {
			d, armed = dt, true
		}
	}
	if r.replay == nil {
		if t, ok := r.h.NextWake(); ok {
			at(now.Add(r.clk.Real(t.Sub(r.now()))))
		}
	}
	if !r.agingAt.IsZero() {
		at(r.agingAt)
	}
	if r.feed != nil && r.fresh {
		at(r.lastPub.Add(freshEvery))
	}
	if !armed {
		if r.wake != nil {
			r.wake.Stop()
		}
		r.wakeC = nil
		return
	}
	d = max(d, time.Millisecond)
	if r.wake == nil {
		r.wake = time.NewTimer(d)
	} else {
		r.wake.Reset(d)
	}
	r.wakeC = r.wake.C
}

// agingAfter is how long after a snapshot published for an event the
// first one published because time passed comes: a second, and a tenth
// more so that a peer sending every second (each frame publishes) beats
// it and the screen redraws once a second, not twice.
const agingAfter = 1100 * time.Millisecond

// settleMax bounds how long a tick waits for the frames already queued in
// the capture sockets (settle).
const settleMax = 250 * time.Millisecond

// A pender is a Conn that tells whether a frame waits in its socket
// (capture.Live.Pending).
type pender interface{ Pending() bool }

// backlog reports whether a frame waits in any capture socket.
func backlog(ifaces []*liveIface) bool {
	for _, li := range ifaces {
		if p, ok := li.current().(pender); ok && p.Pending() {
			return true
		}
	}
	return false
}

// settle applies the frames that already wait, in the event queue and in
// the capture sockets, before anything stamped with the clock (a tick, a
// counters sample, a link or capture status) may age information out.
// After the process was stopped (SIGSTOP) or starved, the peer's LLDPDUs of
// the meantime sit in the socket buffers with their kernel receive times:
// they were received, so the information they refresh has not expired
// (IEEE Std 802.1AB-2016, 9.2.7.7: rxInfoAge counts from the last LLDPDU
// received), and an event applied first would report a false peer loss
// and then a first receipt. While frames wait, other events are held back
// and applied after them, in order, after held (events already taken
// from the queue, or none). settle returns once the sockets stayed empty for
// a millisecond (so that a frame read but not yet queued lands
// meanwhile), or after settleMax under a flood.
func (r *liveRun) settle(ifaces []*liveIface, held ...engine.Event) {
	if !backlog(ifaces) {
		for _, ev := range held {
			r.apply(ev)
		}
		r.drain()
		return
	}
	later := slices.Clone(held)
	deadline := time.NewTimer(settleMax)
	defer deadline.Stop()
	idle := time.NewTimer(time.Millisecond)
	defer idle.Stop()
wait:
	for r.err == nil {
		select {
		case ev := <-r.events:
			if _, ok := ev.(engine.FrameReceived); ok {
				r.apply(ev)
			} else {
				later = append(later, ev)
			}
			continue
		case <-deadline.C:
			break wait
		case <-idle.C:
		}
		if !backlog(ifaces) {
			break
		}
		idle.Reset(time.Millisecond)
	}
	for _, ev := range later {
		r.apply(ev)
	}
	r.drain()
}

// drain applies the events already queued (not those that arrive
// meanwhile, so it always returns).
func (r *liveRun) drain() {
	for n := len(r.events); n > 0 && r.err == nil; n-- {
		r.apply(<-r.events)
	}
}

// apply feeds one event to the host layer and carries out its result.
func (r *liveRun) apply(ev engine.Event) {
	if fr, ok := ev.(engine.FrameReceived); ok {
		r.applyFrame(fr)
		return
	}
	r.carryOut(r.h.Step(ev), false)
}

// applyFrame is apply for a frame, without boxing it in an engine.Event
// (a replay's frames come here straight from the file); -w records it.
func (r *liveRun) applyFrame(fr engine.FrameReceived) {
	if r.rec != nil {
		dir := capture.DirectionIncoming
		if fr.Outgoing {
			dir = capture.DirectionOutgoing
		}
		if err := r.rec.WriteFrame(capture.Frame{Interface: fr.Interface, At: fr.At, Dir: dir, Data: fr.Data}); err != nil && r.err == nil {
			r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
		}
	}
	r.carryOut(r.h.StepFrame(fr), !fr.Outgoing)
}

// carryOut does what a host result asks of the run: indications to the
// outputs, warnings said once, then the effects in order (LLDPDUs sent,
// control sockets released) and the capture status of the interfaces
// whose agent's state changed. received says the result is a peer's
// frame's (its TTL starts again).
func (r *liveRun) carryOut(res host.Result, received bool) {
	if r.metrics != nil {
		r.metrics.Observe(res.Indications)
	}
	if res.Changed {
		r.dirty = true
	}
	for _, n := range res.Notices {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s: %s\n", n.Code, n.Message)
	}
	if received {
		r.fresh = true
	}
	if err := r.out.Write(res.Indications); err != nil && r.err == nil {
		r.err = fmt.Errorf("write: %w", err)
	}
	if len(res.Effects) == 0 && len(res.Status) == 0 {
		return
	}
	// Carrying out applies events again (a sent frame): keep the lists,
	// which the next call reuses.
	effects, status := slices.Clone(res.Effects), slices.Clone(res.Status)
	now := r.h.Engine().Now()
	for _, name := range status {
		if li := r.byName[name]; li != nil && li.setMsg(&li.advErr, advertiseErr(r.h, name)) {
			r.apply(li.status(now))
		}
	}
	for _, e := range effects {
		switch e := e.(type) {
		case host.Transmit:
			if li := r.byName[e.Interface]; li != nil {
				r.send(li, e.Frame, now)
			}
		case host.Release:
			if li := r.byName[e.Interface]; li != nil {
				li.closeControl()
			}
		}
	}
}

// advertiseErr is the host's AdvertiseErr (a variable: tests inject the
// refusal an LLDPDU's limits would give).
var advertiseErr = (*host.Host).AdvertiseErr

// send transmits an agent's frame; once sent, the host sees it as this
// host's outgoing LLDPDU (a packet socket never sees its own frames).
func (r *liveRun) send(li *liveIface, f []byte, now time.Time) {
	conn := li.current()
	if conn == nil {
		return // down: nothing to send on; the next due frame retries
	}
	if err := conn.WriteFrame(f); err != nil {
		if li.setTxErr("transmit: " + err.Error()) {
			r.apply(li.status(now))
		}
		return
	}
	li.mu.Lock()
	li.sent++
	li.mu.Unlock()
	if li.setTxErr("") {
		r.apply(li.status(now))
	}
	r.applyFrame(engine.FrameReceived{Interface: li.name, At: now, Outgoing: true, Data: f})
}

// finish has the agents' shutdown LLDPDUs sent and prints the final
// snapshot for --json.
func (r *liveRun) finish(ifaces []*liveIface) error {
	now := r.now()
	r.carryOut(r.h.StopAll(now), false)
	for _, li := range ifaces {
		r.apply(li.status(now))
	}
	if r.cfg.JSON && r.err == nil {
		if err := output.WriteJSON(r.cfg.Out, r.h.Engine().Snapshot()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return r.err
}

// capture reads frames from the interface until ctx is done, reopening the
// socket with backoff after errors (interface removed, down, recreated).
func (li *liveIface) capture(ctx context.Context, clock clock, events chan<- engine.Event) {
	backoff := time.Second
	report := func(msg string) {
		if li.setErr(msg) {
			select {
			case events <- li.status(clock.Now().UTC()):
			case <-ctx.Done():
			}
		}
	}
	for ctx.Err() == nil {
		conn := li.current()
		if conn == nil {
			c, err := li.open(li.name)
			if err != nil {
				report(err.Error())
				select {
				case <-ctx.Done():
				case <-li.kick:
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 30*time.Second)
				continue
			}
			li.set(c)
			conn, backoff = c, time.Second
			report("")
		}
		f, err := conn.ReadFrame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			report(err.Error())
			li.drop()
			continue
		}
		select {
		case events <- f.Event(li.name, clock.Stamp(f.At).UTC()):
		case <-ctx.Done():
			return
		}
	}
}

// watchLinks hands the link changes to the loop (linkChanged). The
// watcher follows each link by its own messages (capture.WatchLinks),
// never by listing them all again.
func (r *liveRun) watchLinks(ctx context.Context) {
	for ctx.Err() == nil {
		if err := capture.WatchLinks(ctx, r.linkEvents); err != nil && ctx.Err() == nil {
			select { // resubscribe after an overflow
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// linkChanged carries out a link change on the loop's goroutine and
// returns the captured interfaces after it. A captured interface's
// capture is woken (it reopens its socket at once) and the engine told.
// In an all-interfaces run, an Ethernet interface that comes up is
// captured from now on (start starts its capture), up to the engine's
// bound past which the engine counts it (too-many-interfaces); one that is
// removed is let go (its capture stopped and its socket closed, unless
// dcbtop's agent runs there), and captured afresh should it come back.
// The engine keeps its port, down, until then.
func (r *liveRun) linkChanged(le capture.LinkEvent, ifaces []*liveIface, start func(*liveIface)) []*liveIface {
	// The changes already queued are carried out together and the
	// sockets settled once for all of them: a thousand interfaces coming
	// up would otherwise check up to a thousand sockets each.
	var evs []engine.Event
	ifaces, evs = r.linkChange(le, ifaces, start, evs)
	for n := len(r.linkEvents); n > 0; n-- {
		ifaces, evs = r.linkChange(<-r.linkEvents, ifaces, start, evs)
	}
	if len(evs) > 0 {
		r.settle(ifaces, evs...)
	}
	return ifaces
}

// linkChange is one change of linkChanged: it returns the captured
// interfaces after it and evs with the engine's event, if any, appended.
func (r *liveRun) linkChange(le capture.LinkEvent, ifaces []*liveIface, start func(*liveIface), evs []engine.Event) ([]*liveIface, []engine.Event) {
	li := r.byName[le.Name]
	switch {
	case li == nil && (!r.dynamic || !le.Up || le.Removed):
		return ifaces, evs // not captured (-i names others), or not up
	case li == nil && len(r.byName) >= engine.DefaultMaxInterfaces:
		// Applied below: the engine counts it past its bound.
	case li == nil:
		li = &liveIface{name: le.Name, link: le.Link, kick: make(chan struct{}, 1), open: r.cfg.open}
		r.byName[li.name] = li
		r.added = append(r.added, li)
		ifaces = append(ifaces, li)
		r.publishNames(ifaces)
		start(li)
	case le.Removed && r.dynamic && li.ctl == nil:
		li.stop()
		r.letGo.Go(li.drop) // not on the loop: a close waits ~10 ms
		delete(r.byName, li.name)
		ifaces = slices.DeleteFunc(ifaces, func(x *liveIface) bool { return x == li })
		r.added = slices.DeleteFunc(r.added, func(x *liveIface) bool { return x == li })
		r.publishNames(ifaces)
	default:
		select {
		case li.kick <- struct{}{}:
		default:
		}
	}
	ev := engine.LinkChanged{Interface: le.Name, At: r.clk.Stamp(le.At).UTC(), Ifindex: le.Index, MAC: lldp.MAC(le.MAC), Up: le.Up, Removed: le.Removed}
	return ifaces, append(evs, ev)
}

// publishNames publishes the captured interfaces' names to the samplers.
func (r *liveRun) publishNames(ifaces []*liveIface) {
	names := make([]string, len(ifaces))
	for i, li := range ifaces {
		names[i] = li.name
	}
	r.names.Store(&names)
}

// ifaceNames returns the captured interfaces' names (samplers' goroutines).
func (r *liveRun) ifaceNames() []string {
	if p := r.names.Load(); p != nil {
		return *p
	}
	return nil
}
