package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// A liveIface is one captured interface: its current socket (replaced
// when the interface goes away and comes back), and the agent speaking on
// it, if any.
type liveIface struct {
	name   string
	link   capture.Link
	kick   chan struct{} // a link event: retry opening now
	open   func(name string) (liveConn, error)
	mu     sync.Mutex
	conn   liveConn
	prev   capture.LiveStats // accumulated from closed sockets
	sent   uint64
	errMsg string // the capture's error, "" while capturing
	txErr  string // the agent's last transmit error, "" after a success
	advErr string // why the agent cannot advertise the current state, "" when it can
	agent  *agent.Agent
	acfg   agent.Config // the agent's configuration (its MAC follows the link's)
	wasUp  bool         // the link's state at the last link event
	// The agent's local state (owned by the engine goroutine): what the
	// control socket reads and changes, and the state before the last
	// change, for undo.
	local   *engine.Params
	willing bool
	undo    *control.LocalState
	// ctl is the agent's control socket (nil without an agent), owned by
	// the engine goroutine.
	ctl *control.Server
}

func (li *liveIface) current() liveConn {
	li.mu.Lock()
	defer li.mu.Unlock()
	return li.conn
}

func (li *liveIface) set(l liveConn) {
	li.mu.Lock()
	defer li.mu.Unlock()
	li.conn = l
}

// drop closes the current socket, keeping its counters.
func (li *liveIface) drop() {
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

func (li *liveIface) setErr(msg string) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	changed := li.errMsg != msg
	li.errMsg = msg
	return changed
}

// setTxErr records the outcome of a transmission: its error, or "" after
// a success (so a transient failure, such as the link being down, does not
// stay reported once frames go out again).
func (li *liveIface) setTxErr(msg string) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	changed := li.txErr != msg
	li.txErr = msg
	return changed
}

// pickInterfaces returns the interfaces to capture on: those named with
// -i (each must exist), or every up, non-loopback Ethernet interface.
func pickInterfaces(names []string) ([]capture.Link, error) {
	all, err := capture.Interfaces()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if len(all) == 0 {
			return nil, errors.New("no up Ethernet interface to capture on; name one with -i")
		}
		return all, nil
	}
	var out []capture.Link
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		l, err := capture.LinkByName(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// otherAgents lists LLDP agents (lldpad, lldpd) running in this network
// namespace, as "name (pid N)".
func otherAgents() []string {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return nil
	}
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(d + "/comm")
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if name != "lldpad" && name != "lldpd" {
			continue
		}
		if ns, err := os.Readlink(d + "/ns/net"); err != nil || ns != self {
			continue
		}
		out = append(out, fmt.Sprintf("%s (pid %s)", name, filepath.Base(d)))
	}
	return out
}

// loadLocal returns the agent's local parameters: --local FILE or the
// documented defaults, validated like received TLVs.
func loadLocal(path string) (*engine.Params, error) {
	if path == "" {
		return agent.DefaultLocal(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	p, err := engine.ParseParams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("%s: invalid parameters: %w", path, err)
	}
	return p, nil
}

// runLive captures on live interfaces until ctx is done or --duration
// passes, feeding the engine from one goroutine (this one).
func runLive(ctx context.Context, o *options, env Env) (err error) {
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	links := o.links
	if links == nil {
		links, err = pickInterfaces(o.ifaces)
	}
	if err != nil {
		return err
	}
	var local *engine.Params
	if o.agent {
		if o.localParams != nil {
			local = o.localParams
		} else if local, err = loadLocal(o.local); err != nil {
			return err
		}
		local = local.WithWilling(o.willing)
		if others := otherAgents(); len(others) > 0 && !o.force {
			return fmt.Errorf("%s: another LLDP agent runs in this network namespace: %s; stop it, or use --force", links[0].Name, strings.Join(others, ", "))
		}
	}
	ifaces := make([]*liveIface, 0, len(links))
	defer func() {
		for _, li := range ifaces {
			if li.ctl != nil {
				li.ctl.Close()
				li.ctl = nil
			}
			li.drop()
		}
	}()
	for _, l := range links {
		conn, err := o.open(l.Name)
		if err != nil {
			return fmt.Errorf("%s: %w", l.Name, err)
		}
		ifaces = append(ifaces, &liveIface{name: l.Name, link: l, conn: conn, kick: make(chan struct{}, 1), open: o.open})
	}
	var rec *capture.Writer
	if o.write != "" {
		if rec, err = capture.CreateWriter(o.write); err != nil {
			return fmt.Errorf("%s: %w", o.write, err)
		}
		defer func() {
			if cerr := rec.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("%s: %w", o.write, cerr)
			}
		}()
	}
	r := newLiveRun(o, env, rec)
	if o.metrics != "" {
		r.feed = newSnapFeed()
		col, stop, err := serveMetrics(o.metrics, r.feed)
		if err != nil {
			return err
		}
		defer stop()
		r.metrics = col
	}
	if o.agent && !o.noControl {
		// One control socket per agent interface, for dcbtop apply (not
		// for the demo, which must leave no file behind when killed).
		// Its requests wait in r.control until the loop runs.
		for _, li := range ifaces {
			srv, err := control.Listen(control.RunDir(), li.name, r.control)
			if err != nil {
				return fmt.Errorf("%s: %w", li.name, err)
			}
			li.ctl = srv
			srv.Start()
		}
	}
	now := r.now()
	for _, li := range ifaces {
		r.byName[li.name] = li
		r.apply(engine.LinkChanged{Interface: li.name, At: now, Ifindex: li.link.Index, MAC: li.link.MAC, Up: li.link.Up})
	}
	if o.agent {
		host, _ := os.Hostname()
		for _, li := range ifaces {
			cfg := agent.Config{Ifname: li.name, MAC: li.link.MAC, SystemName: host,
				SystemDesc: "dcbtop " + version + " host DCBX agent", TxInterval: o.txInterval}
			a, err := agent.New(cfg, agent.Advert{Willing: o.willing, Local: local}, now)
			if err != nil {
				return fmt.Errorf("%s: %w", li.name, err)
			}
			li.agent, li.acfg = a, cfg
			li.local, li.willing = local.Clone(), o.willing
			r.apply(engine.LocalChanged{Interface: li.name, At: now, Source: engine.SourceAgent, Willing: o.willing, Params: local})
		}
	}
	defer r.startDCB(ifaces)()
	if o.tui {
		return r.runTUI(ctx, ifaces)
	}
	o.announce(env)
	return r.loop(ctx, ifaces)
}

// newLiveRun returns the state of the engine goroutine of a live run.
func newLiveRun(o *options, env Env, rec *capture.Writer) *liveRun {
	return &liveRun{o: o, env: env, eng: engine.New(engine.Config{}), out: newEventWriter(env.Stdout, o), rec: rec,
		events: make(chan engine.Event, 1024), byName: map[string]*liveIface{},
		control: make(chan control.Call), calls: make(chan loopCall), stopped: make(chan struct{})}
}

// now returns the run's clock reading (the demo's may run faster than
// real time), in UTC as the engine's events carry it.
func (r *liveRun) now() time.Time { return r.o.clock.Now().UTC() }

// agentTick is how often the loop checks the agents' transmit schedule.
const agentTick = 250 * time.Millisecond

// A liveConn is an interface's capture socket: a *capture.Live, or the
// host end of the demo's in-memory link.
type liveConn interface {
	ReadFrame(ctx context.Context) (capture.Frame, error)
	WriteFrame(b []byte) error
	Stats() (capture.LiveStats, error)
	Close() error
}

var _ liveConn = (*capture.Live)(nil)

// open opens the capture socket of an interface: capture.OpenLive unless a
// demo link stands in for it.
func (o *options) open(name string) (liveConn, error) {
	if o.openLive != nil {
		return o.openLive(name)
	}
	return capture.OpenLive(name)
}

// A liveRun is the state of the single goroutine that owns the engine.
type liveRun struct {
	// metrics counts indications for --metrics (nil without it).
	metrics *metrics.Collector
	o       *options
	env     Env
	eng     *engine.Engine
	out     *eventWriter
	rec     *capture.Writer
	events  chan engine.Event
	byName  map[string]*liveIface
	// control carries the control sockets' (and the screen's) requests to
	// the agents; calls the screen's other requests (see do).
	control chan control.Call
	calls   chan loopCall
	// stopped is closed when the loop has returned: requests no longer
	// wait for it.
	stopped chan struct{}
	tick    *time.Ticker
	err     error // first output error

	// The screen (nil without it): the loop publishes a snapshot to feed
	// after each event that changed the engine (dirty), after a frame that
	// only refreshed a peer's TTL (fresh) at most every freshEvery, and
	// once a second.
	feed    *snapFeed
	dirty   bool
	fresh   bool
	lastPub time.Time
}

func (r *liveRun) loop(ctx context.Context, ifaces []*liveIface) error {
	defer close(r.stopped)
	capCtx, stopCapture := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, li := range ifaces {
		wg.Go(func() { li.capture(capCtx, r.o.clock, r.events) })
	}
	wg.Go(func() { r.watchLinks(capCtx) })
	defer func() {
		stopCapture()
		wg.Wait()
	}()

	tickEvery := time.Second
	for _, li := range ifaces {
		if li.agent != nil {
			tickEvery = agentTick
		}
	}
	r.tick = r.o.clock.NewTicker(tickEvery)
	defer r.tick.Stop()
	statsEvery := r.o.clock.NewTicker(5 * time.Second)
	defer statsEvery.Stop()
	var publish <-chan time.Time // the 1 Hz snapshot for the screen
	if r.feed != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		publish = t.C
	}
	r.transmit(ifaces, r.now())
	r.flush()
	for r.err == nil {
		select {
		case <-ctx.Done():
			r.drain()
			err := r.finish(ifaces)
			r.flush()
			return err
		case ev := <-r.events:
			r.apply(ev)
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
		case <-r.tick.C:
			// Frames captured before the tick go first: select picks at
			// random among ready cases, and a tick applied before an older
			// frame would expire information that frame refreshes.
			r.drain()
			now := r.now()
			r.apply(engine.Tick{At: now})
			r.transmit(ifaces, now)
		case <-statsEvery.C:
			now := r.now()
			for _, li := range ifaces {
				r.apply(li.status(now))
			}
		case <-publish:
			r.dirty = true
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
// than freshEvery.
func (r *liveRun) flush() {
	if r.feed == nil {
		return
	}
	now := time.Now()
	if r.dirty || (r.fresh && now.Sub(r.lastPub) >= freshEvery) {
		r.dirty, r.fresh, r.lastPub = false, false, now
		r.feed.publish(r.eng.Snapshot())
	}
}

// drain applies the events already queued (not those that arrive
// meanwhile, so it always returns).
func (r *liveRun) drain() {
	for n := len(r.events); n > 0 && r.err == nil; n-- {
		r.apply(<-r.events)
	}
}

// apply feeds one event to the engine, writes its indications and keeps
// the agents' advertisements and the recording in step.
func (r *liveRun) apply(ev engine.Event) {
	fr, isFrame := ev.(engine.FrameReceived)
	if isFrame {
		if r.rec != nil {
			dir := capture.DirectionIncoming
			if fr.Outgoing {
				dir = capture.DirectionOutgoing
			}
			if err := r.rec.WriteFrame(capture.Frame{Interface: fr.Interface, At: fr.At, Dir: dir, Data: fr.Data}); err != nil && r.err == nil {
				r.err = fmt.Errorf("%s: %w", r.o.write, err)
			}
		}
	}
	o := r.eng.Step(ev)
	ins := o.Indications
	if r.metrics != nil {
		r.metrics.Observe(ins)
	}
	switch ev.(type) {
	case engine.LinkChanged, engine.CaptureStatus, engine.LocalChanged:
		r.dirty = true
	}
	if len(ins) > 0 { // the snapshot's Generation changed
		r.dirty = true
	}
	if isFrame && !fr.Outgoing {
		r.fresh = true // a peer's TTL starts again
	}
	if err := r.out.write(ins); err != nil && r.err == nil {
		r.err = fmt.Errorf("write: %w", err)
	}
	// What follows may apply events again (a transmit error): keep the
	// outcome's lists, which the next Step reuses.
	newPeers, advert := slices.Clone(o.NewPeers), slices.Clone(o.Advertise)
	for _, name := range newPeers {
		if a := r.byName[name]; a != nil && a.agent != nil {
			a.agent.PeerAppeared(fr.At)
		}
	}
	if lc, ok := ev.(engine.LinkChanged); ok && !lc.Removed {
		r.followMAC(lc)
		if a := r.byName[lc.Interface]; a != nil && a.agent != nil && lc.Up && !a.wasUp {
			// The link came back: announce ourselves at once, as to a
			// new neighbour.
			a.agent.PeerAppeared(lc.At)
		}
	}
	if lc, ok := ev.(engine.LinkChanged); ok {
		if a := r.byName[lc.Interface]; a != nil {
			a.wasUp = lc.Up && !lc.Removed
		}
	}
	for _, name := range advert {
		if a := r.byName[name]; a != nil && a.agent != nil {
			if s, ok := r.eng.Interface(name); ok && s.Willing != nil {
				r.advertise(a, agent.Advert{Willing: *s.Willing, Local: s.Local, Operational: s.Operational}, r.eng.Now())
			}
		}
	}
}

// advertise hands the agent what it is to advertise from now on. When it
// cannot (parameters the wire cannot carry), it keeps sending what it
// sent, and the failure shows as the interface's transmit error (the
// capture-error diagnostic on the screen and in snapshots) until a later
// advertisement succeeds.
func (r *liveRun) advertise(li *liveIface, ad agent.Advert, now time.Time) {
	msg := ""
	if err := agentSet(li.agent, ad, now); err != nil {
		msg = "advertise: " + err.Error() + " (still sending the previous LLDPDU)"
	}
	li.mu.Lock()
	changed := li.advErr != msg
	li.advErr = msg
	li.mu.Unlock()
	if changed {
		r.apply(li.status(now))
	}
}

// agentSet gives an agent a new advertisement (a variable: tests inject
// failures).
var agentSet = (*agent.Agent).Set

// followMAC keeps an agent's chassis ID and source MAC those of its
// interface when the MAC changes (ip link set address, or the interface
// re-created): the old MSAP is withdrawn with a shutdown LLDPDU and the new
// one announced with fast transmission.
func (r *liveRun) followMAC(lc engine.LinkChanged) {
	li := r.byName[lc.Interface]
	if li == nil || li.agent == nil || lc.MAC == li.acfg.MAC || lc.MAC == (lldp.MAC{}) {
		return
	}
	s, ok := r.eng.Interface(lc.Interface)
	if !ok || s.Willing == nil {
		return
	}
	cfg := li.acfg
	cfg.MAC = lc.MAC
	a, err := agent.New(cfg, agent.Advert{Willing: *s.Willing, Local: s.Local, Operational: s.Operational}, lc.At)
	if err != nil {
		return // unreachable: the configuration was accepted before
	}
	old := li.agent
	li.agent, li.acfg = a, cfg
	r.send(li, old.Shutdown(), lc.At)
}

// transmit sends every agent frame that is due, and feeds it to the
// engine as this host's outgoing LLDPDU (a packet socket never sees its
// own frames).
func (r *liveRun) transmit(ifaces []*liveIface, now time.Time) {
	for _, li := range ifaces {
		if li.agent == nil {
			continue
		}
		f, ok := li.agent.Due(now)
		if !ok {
			continue
		}
		r.send(li, f, now)
	}
}

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
	r.apply(engine.FrameReceived{Interface: li.name, At: now, Outgoing: true, Data: f})
}

// finish sends the agents' shutdown LLDPDUs and prints the final snapshot
// for --json.
func (r *liveRun) finish(ifaces []*liveIface) error {
	now := r.now()
	for _, li := range ifaces {
		if li.agent != nil {
			r.send(li, li.agent.Shutdown(), now)
		}
	}
	for _, li := range ifaces {
		r.apply(li.status(now))
	}
	if r.o.json && r.err == nil {
		if err := writeJSON(r.env.Stdout, r.eng.Snapshot()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return r.err
}

// capture reads frames from the interface until ctx is done, reopening the
// socket with backoff after errors (interface removed, down, recreated).
func (li *liveIface) capture(ctx context.Context, clock capture.Clock, events chan<- engine.Event) {
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
		case events <- engine.FrameReceived{Interface: li.name, At: clock.Stamp(f.At).UTC(), Outgoing: f.Dir == capture.DirectionOutgoing, Data: f.Data}:
		case <-ctx.Done():
			return
		}
	}
}

// watchLinks turns link changes of the captured interfaces into engine
// events and wakes their capture loops.
func (r *liveRun) watchLinks(ctx context.Context) {
	ch := make(chan capture.LinkEvent, 64)
	go func() {
		for ctx.Err() == nil {
			if err := capture.WatchLinks(ctx, ch); err != nil && ctx.Err() == nil {
				time.Sleep(time.Second) // resubscribe after an overflow
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case le := <-ch:
			li := r.byName[le.Name]
			if li == nil {
				continue
			}
			select {
			case li.kick <- struct{}{}:
			default:
			}
			ev := engine.LinkChanged{Interface: le.Name, At: r.o.clock.Stamp(le.At).UTC(), Ifindex: le.Index, MAC: lldp.MAC(le.MAC), Up: le.Up, Removed: le.Removed}
			select {
			case r.events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}
}
