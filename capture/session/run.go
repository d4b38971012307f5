// SPDX-License-Identifier: Apache-2.0

package session

// The run: its Config, Start (everything a run opens), Close, and the
// state of its engine goroutine (liveRun, whose loop is loop.go's).

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/metricserver"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/capture/paramfile"
	"github.com/dcbtop/dcbtop/capture/poll"
	"github.com/dcbtop/dcbtop/capture/rdma"
	"github.com/dcbtop/dcbtop/capture/replay"
	"github.com/dcbtop/dcbtop/capture/statedir"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/frames"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

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
	// host's end of the link (--local-mac); nil: engine.LocalEnds' other
	// rules, this host's interfaces' addresses (capture.HostMACs) among
	// them.
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
	// Local, else the driver's (DCB netlink) when valid, else the
	// defaults, and the Willing state Willing, sending
	// every TxInterval. Force starts it beside another LLDP agent;
	// NoControl serves no control socket (the demo).
	Agent       bool
	LocalParams *dcb.Params
	Local       string
	Willing     bool
	// WillingSet: the operator gave Willing (--willing), which then
	// beats the driver's Willing bit when the agent starts from the
	// driver's parameters.
	WillingSet bool
	TxInterval time.Duration
	Force      bool
	NoControl  bool
	// View serves, on each kernel interface captured at the start, a view
	// socket (control.ListenView) through which dcbtop show and dcbtop
	// check read what this run heard at once: an exporter's, a screen's.
	// An interface another dcbtop already serves is left to it.
	View bool
	// State keeps what an operator sets on an agent per port for the
	// next agent there (capture/statedir); nil keeps nothing (the demo,
	// which leaves no file behind).
	State *statedir.Dir
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
	// ConfigFS is where the screen's host QoS fixes write rdma_cm's
	// configfs instead of under SysfsRoot (a simulated NIC's); nil: there.
	ConfigFS rdma.WriteFS
	// Dialers, when set, dial the host's netlink readers (DCB netlink
	// for the local parameters and the counters, ethtool netlink, RDMA
	// netlink) instead of the kernel: tests give clients on an nltest
	// fake kernel, which -w records as it would the kernel's replies.
	Dialers counters.Dialers
	// Record names a pcapng file that gets every LLDPDU seen (-w).
	Record string
	// Metrics is where the Prometheus endpoint listens and how (--metrics,
	// --web.listen-address, --web.systemd-socket, --web.config.file);
	// its ErrorLog is set here (Warn, when there is no screen).
	Metrics metricserver.Listen
	// Screen: snapshots are published to Feed for a screen.
	Screen bool
	// Frames, when set, gets the record of each LLDPDU of the run
	// (engine/frames: its time, sender, bytes and what changed against
	// that sender's previous one) on the engine goroutine as the frame
	// enters the engine (dcbtop -r FILE --frames); an error it returns
	// stops the run. The screen's runs keep the records too (Runtime.Frames).
	Frames func(frames.Record) error
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
		if cfg.Local != "" {
			if _, err := paramfile.Load(cfg.Local); err != nil {
				return rt, err
			}
		}
		if others := host.Transmitting(hostAgents()); len(others) > 0 && !cfg.Force {
			return rt, fmt.Errorf("%s: another LLDP agent runs in this network namespace: %s; stop it, or use --force", links[0].Name, strings.Join(others, ", "))
		}
	}
	rt.closers = append(rt.closers, func() error {
		for _, li := range rt.ifaces {
			li.seat.Close()
		}
		dropAll(rt.ifaces)
		if rt.liveRun != nil {
			dropAll(rt.added) // interfaces that appeared (the loop has returned)
			rt.letGo.Wait()
			rt.writes.Wait()
		}
		return nil
	})
	for _, l := range links {
		conn, err := cfg.open(l.Name)
		if err != nil {
			return rt, fmt.Errorf("%s: %w", l.Name, err)
		}
		rt.ifaces = append(rt.ifaces, newIface(l, conn, cfg.open))
	}
	var rec *tape.Recorder
	if cfg.Record != "" {
		if rec, err = tape.NewRecorder(cfg.Record, cfg.Out); err != nil {
			return rt, err
		}
		rt.closers = append(rt.closers, rec.Close)
	}
	r, err := newLiveRun(&cfg, rec)
	if err != nil {
		return rt, err
	}
	rt.liveRun = r
	r.dynamic = dynamic
	if cfg.Metrics.Enabled() || cfg.Screen {
		r.pub.Feed = feed.New()
	}
	if cfg.Metrics.Enabled() {
		l := cfg.Metrics
		if !cfg.Screen {
			l.ErrorLog = cfg.Warn
		}
		stop, err := r.serveMetrics(l)
		if err != nil {
			return rt, err
		}
		rt.closers = append(rt.closers, func() error { stop(); return nil })
	}
	now := r.now()
	for _, li := range rt.ifaces {
		r.byName[li.Name()] = li
		r.applyLink(engine.LinkChanged{Interface: li.Name(), At: now, Ifindex: li.link.Index, MAC: li.link.MAC, Up: li.link.Up, MTU: li.link.MTU})
	}
	for _, l := range over {
		// The engine counts them: the too-many-interfaces diagnostic.
		r.applyLink(engine.LinkChanged{Interface: l.Name, At: now, Ifindex: l.Index, MAC: l.MAC, Up: l.Up, MTU: l.MTU})
	}
	r.publishNames(rt.ifaces)
	// The driver's DCB state first: an agent starts from it (PlanAgent),
	// so that starting one changes nothing the NIC has in force.
	stopDCB := r.startDCB()
	rt.closers = append(rt.closers, func() error { stopDCB(); return nil })
	if cfg.Agent {
		// The same start as the screen's a key: local parameters, a
		// control socket (its requests wait in r.control until the loop
		// runs), the first LLDPDU.
		for _, li := range rt.ifaces {
			if _, err := r.startAgent(li.Name(), now); err != nil {
				return rt, fmt.Errorf("%s: %w", li.Name(), err)
			}
		}
	}
	if cfg.View && cfg.Links == nil && !cfg.NoControl && !cfg.Agent {
		// (An agent's interfaces answer on their control sockets.)
		for _, li := range rt.ifaces {
			srv, err := control.ListenView(control.RunDir(), li.Name(), r.control)
			if err != nil {
				// Another dcbtop answers for it (ErrViewTaken), or the
				// run directory is not this user's: dcbtop show then
				// asks the kernel, as without this run. Nothing to say
				// to an operator who asked for something else.
				continue
			}
			srv.Start()
			rt.closers = append(rt.closers, func() error { srv.Close(); return nil })
		}
	}
	if !cfg.Agent {
		stopOthers := r.startOtherAgents()
		rt.closers = append(rt.closers, func() error { stopOthers(); return nil })
	}
	stopCounters := r.startCounters()
	rt.closers = append(rt.closers, func() error { stopCounters(); return nil })
	if r.pub.Feed != nil {
		r.pub.Dirty = true
		r.flush() // a screen has a snapshot from the start
	}
	return rt, nil
}

// serveMetrics starts the Prometheus endpoint of --metrics as l says
// (capture/metricserver.Start): the engine's metrics
// (engine/metrics) from the latest snapshot published to the feed, the
// indications counted as the loop carries them out, and how the counter
// sources fared (counterStatus). It returns a stop function.
func (r *liveRun) serveMetrics(l metricserver.Listen) (stop func(), err error) {
	col := metrics.New(func() engine.Snapshot {
		s, _ := r.pub.Feed.Snapshot()
		return s
	}, metrics.WithBuildInfo(r.cfg.Version, r.cfg.Revision), metrics.WithCounterSources(r.counterStatus))
	srv, err := metricserver.Start(l, col)
	if err != nil {
		return nil, err
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
	r.tapes = poll.NewTapePlayer()
	src.SetHost(r.tapes.Play) // a dcbtop recording's host inputs, through the same readers
	rt.liveRun = r
	macs, _ := capture.HostMACs() // none known: no evidence from them
	if r.replayEnds, err = src.LocalEnds(engine.EndsEvidence{LocalMAC: cfg.LocalMAC, HostMACs: macs}); err != nil {
		return err
	}
	for _, e := range r.replayEnds {
		r.apply(e)
	}
	if cfg.Screen {
		// The screen's replay is a player: it stays after the end for a
		// seek back, which starts the engine afresh first.
		src.SetPlayer(r.resetReplay)
		r.pub.Feed = feed.New()
		r.pub.Dirty = true
		r.flush()
	}
	return nil
}

// resetReplay starts the engine afresh for a seek of the replay's
// player, on the engine goroutine: the host layer reset, the link ends
// applied again. It gives up once ctx is done (the replay gave the seek
// up: the run is stopping).
func (r *liveRun) resetReplay(ctx context.Context) {
	r.tapes.Reset() // on the replay's goroutine, which plays the host inputs
	_ = r.doCtx(ctx, func() {
		r.h.Reset()
		if r.frames != nil {
			r.frames.reset()
		}
		for _, e := range r.replayEnds {
			r.apply(e)
		}
		r.pub.Dirty = true
	})
}

// Backend returns the screen's backend for the run (capture/operator);
// exports go to dir. A replay's backend writes nothing but exports.
func (rt *Runtime) Backend(dir string) *operator.Backend {
	if rt.replay != nil {
		return operator.NewBackend(dir, rt.pub.Feed.Snapshot, nil)
	}
	return operator.NewBackend(dir, rt.pub.Feed.Snapshot, rt.liveRun)
}

// ReplayProgress returns a replay's progress (zero for a live run).
func (rt *Runtime) ReplayProgress() replay.Progress { return rt.replay.Progress() }

// Player returns the replay's player (nil for a live run): the screen's
// controls (ui.Player).
func (rt *Runtime) Player() *replay.Player { return rt.replay.Player() }

// Frames returns the run's frame log, every LLDPDU within its bounded
// ring (the screen's frames view), nil unless the Config asked for a
// screen or Frames.
func (rt *Runtime) Frames() *FrameLog { return rt.frames }

// Feed returns the feed snapshots are published to (nil unless the
// Config asked for a screen or metrics).
func (rt *Runtime) Feed() *feed.Feed { return rt.pub.Feed }

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
func newLiveRun(cfg *Config, rec *tape.Recorder) (*liveRun, error) {
	ac := host.AgentConfig{TxInterval: cfg.TxInterval, Willing: cfg.Willing, WillingSet: cfg.WillingSet, Force: cfg.Force,
		SystemDesc: "dcbtop " + cfg.Version + " host DCBX agent"}
	ac.SystemName, _ = os.Hostname()
	switch {
	case cfg.LocalParams != nil:
		ac.Local, ac.LocalFrom = cfg.LocalParams.Clone(), "the demo host's"
	case cfg.Local != "" && cfg.Replay == "":
		p, err := paramfile.Load(cfg.Local)
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
	var log *FrameLog
	if cfg.Screen || cfg.Frames != nil {
		log = newFrameLog()
	}
	return &liveRun{cfg: cfg, h: h, kw: newWriter(cfg), out: eventPrinter(cfg, eventHost), rec: rec, frames: log,
		events: make(chan engine.Event, 1024), taped: make(chan poll.Taped, 64), byName: map[string]*liveIface{}, linkEvents: make(chan capture.LinkEvent, 64),
		control: make(chan control.Call), calls: make(chan loopCall), stopped: make(chan struct{}), clk: cfg.Clock,
		pub: feed.Publisher{Every: cfg.Clock.Real(feed.FreshEvery)}}, nil
}

// eventPrinter is the printer of --events (NDJSON, or plain lines with
// --text) naming host in each line; nil without --events.
func eventPrinter(cfg *Config, host string) *output.Printer {
	if !cfg.Events {
		return nil
	}
	f := output.JSON
	if cfg.TextEvents {
		f = output.Text
	}
	return output.New(cfg.Out, f, output.WithHost(host))
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
// host end of the demo's in-memory link (capture.Conn).
type Conn = capture.Conn

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
	// capErr is each interface's last CaptureStatus.Err (apply).
	capErr map[string]string
	// kept1 is what the last Keep effect did (keep), for the control
	// socket's answer to the write that caused it (engine goroutine).
	kept1 keptResult
	// links is every link's last state (the link watcher's), for the
	// VLAN interfaces on the captured ones (vlans.go).
	links capture.LinkTable
	// agentScan lists the host's LLDP agents (observeHostAgents).
	agentScan *capture.AgentScan
	// metrics counts indications for --metrics (nil without it).
	metrics *metrics.Collector
	// counterSources samples this host's counters (startCounters; nil
	// before, or with Config.Sampler), for the metrics' goroutines.
	counterSources atomic.Pointer[counters.Sampler]
	cfg            *Config
	h              *host.Host
	out            *output.Printer // --events; nil: none
	rec            *tape.Recorder  // -w; nil: none
	events         chan engine.Event
	// taped carries the readers' rounds with their inputs, under -w.
	taped chan poll.Taped
	// tapes plays a replayed recording's host inputs back.
	tapes  *poll.TapePlayer
	byName map[string]*liveIface
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
	// letGoNames are the names no longer captured (renamed, or let go):
	// an event their stopped capture sent on its way out is dropped
	// rather than bring the name back.
	letGoNames map[string]bool
	// letGo closes the sockets of interfaces let go; Close waits for it.
	letGo sync.WaitGroup
	// writes are the kernel writes under way (runEffects); Close waits
	// for them. kw is the run's kernel writer (newWriter); answer, the
	// channel of the operator's write whose effects are being carried
	// out (takeAnswer).
	writes sync.WaitGroup
	kw     *kernel.Writer
	answer chan<- written
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
	// frames is the run's every LLDPDU within a bounded ring, for the
	// screen and Config.Frames (nil without either).
	frames *FrameLog

	// The screen and the metrics (pub.Feed nil without them): the loop
	// publishes a snapshot after each event that changed the engine, after
	// a frame that only refreshed a peer's TTL at most every feed.FreshEvery,
	// and, while something ages, a second after the last (armAging).
	pub        feed.Publisher
	agingAt    time.Time // when the next snapshot due to time alone is (zero: none)
	agingFired bool      // the snapshot now due is the aging one

	// wake is the run's one timer: armed by arm for the earliest of the
	// host's next deadline (a TTL, a hold-down, an agent's next LLDPDU),
	// the next aging snapshot and a throttled refresh.
	wake  *time.Timer
	wakeC <-chan time.Time // wake's channel while armed, else nil
}
