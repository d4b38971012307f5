// SPDX-License-Identifier: Apache-2.0

package session

// The engine goroutine: the loop that takes every event in order, hands
// it to the host layer and carries out what the host decides, and the one
// timer it arms.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/host"
)

// loop is the engine goroutine (Runtime.Loop's): it captures on ifaces
// (and the interfaces that appear, in an all-interfaces run), or plays
// the replay, and applies every event in order until ctx is done, the
// replay ends headless, or an output fails; then the agents are stopped
// and, with --json, the final snapshot printed (finish).
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
		}, func(ev engine.Event) bool {
			r.apply(ev)
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
		done := make(chan struct{})
		li.stop, li.done = stop, done
		wg.Go(func() {
			defer close(done)
			li.Capture(ctx, r.clk, r.events)
		})
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
		if r.rec != nil {
			r.settle(ifaces) // the recording holds no tick (see the wake below)
		}
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
			r.pub.Dirty = true
		case ev := <-r.events:
			if _, ok := ev.(engine.FrameReceived); ok {
				r.apply(ev)
				break
			}
			// Stamped with the clock: frames received earlier go first,
			// then ev, then what came after it, in order.
			r.settle(ifaces, ev)
		case t := <-r.taped:
			// A reader's round (-w): frames received earlier go first.
			r.settle(ifaces)
			r.applyTaped(t)
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
			if t, ok := r.h.NextWake(); ok && !t.After(now) || r.rec != nil {
				// Under -w also when nothing falls due: the recording
				// holds no tick, and a frame applied after one (the
				// engine's clock does not go back) would get the tick's
				// time for its indications live and its own in the
				// replay.
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
				r.pub.Dirty, r.agingFired = true, true
			}
		case <-replayTick:
			r.settle(ifaces)
			r.apply(engine.Tick{At: r.now()})
			r.replay.Tick()
		case <-statsEvery.C:
			if r.rec != nil {
				r.settle(ifaces) // the recording holds no status either (above)
			}
			now := r.now()
			for _, li := range ifaces {
				r.apply(li.Status(now))
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
// than feed.FreshEvery; then arms the run's timer.
func (r *liveRun) flush() {
	now := time.Now()
	if r.pub.Flush(now, r.h.Engine()) {
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
// of the throttle on a refreshed peer (feed.FreshEvery). A replay moves its
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
	if r.pub.Feed != nil && r.pub.Fresh {
		at(r.pub.LastPub.Add(r.pub.FreshAfter()))
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
		if p, ok := li.Current().(pender); ok && p.Pending() {
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
	if st, ok := ev.(engine.CaptureStatus); ok && r.letGoNames[st.Interface] {
		return
	}
	res := r.h.Step(ev)
	quiet := false
	switch ev := ev.(type) {
	case engine.CountersSampled:
		quiet = countsOnly(&res)
	case engine.CaptureStatus:
		// Counts only while the capture's error stays what it was (a
		// new error is a diagnostic, published at once).
		if r.capErr[ev.Interface] == ev.Err {
			quiet = countsOnly(&res)
		}
		if r.capErr == nil {
			r.capErr = map[string]string{}
		}
		r.capErr[ev.Interface] = ev.Err
	}
	r.carryOut(res, quiet)
}

// countsOnly reports whether res changed the engine without an
// indication, as a counters sample, a capture status or this host's own
// LLDPDU does when they only move counts, rates and ages; it then clears
// res.Changed. The run publishes such a change with the next refresh
// (fresh: at most feed.FreshEvery after the last snapshot, with the aging
// snapshot) rather than at once: the demo's simulated NIC sampled every
// second cost a redraw of its own each second, 1.4 times 54a24de's demo
// screen in make bench.
func countsOnly(res *host.Result) bool {
	if !res.Changed || len(res.Indications) > 0 {
		return false
	}
	res.Changed = false
	return true
}

// applyFrame is apply for a frame, without boxing it in an engine.Event
// (a replay's frames come here straight from the file); -w records it,
// the run's frame log keeps it (Config.Frames gets its record).
func (r *liveRun) applyFrame(fr engine.FrameReceived) {
	if len(r.letGoNames) > 0 && r.letGoNames[fr.Interface] {
		return // sent by a capture stopped under a name no longer captured
	}
	if r.rec != nil {
		dir := capture.DirectionIncoming
		if fr.Outgoing {
			dir = capture.DirectionOutgoing
		}
		r.fail(r.rec.Frame(capture.Frame{Interface: fr.Interface, At: fr.At, Dir: dir, Data: fr.Data}))
	}
	if r.frames != nil {
		if rec, ok := r.frames.add(fr); ok && r.cfg.Frames != nil {
			r.fail(r.cfg.Frames(rec))
		}
	}
	res := r.h.StepFrame(fr)
	fresh := !fr.Outgoing
	if fr.Outgoing {
		fresh = countsOnly(&res)
	}
	r.carryOut(res, fresh)
}

// carryOut does what a host result asks of the run: indications to the
// outputs, warnings said once, the capture status of the interfaces
// whose agent's state changed, then the effects in order (runEffects). fresh says the result is a peer's frame's
// (its TTL starts again) or moved counts only (countsOnly): it is
// published with the next refresh.
func (r *liveRun) carryOut(res host.Result, fresh bool) {
	if r.metrics != nil {
		r.metrics.Observe(res.Indications)
	}
	if res.Changed {
		r.pub.Dirty = true
	}
	for _, n := range res.Notices {
		fmt.Fprintf(r.cfg.Warn, "dcbtop: warning: %s: %s\n", n.Code, n.Message)
	}
	if fresh {
		r.pub.Fresh = true
	}
	if r.out != nil {
		if err := r.out.Indications(res.Indications); err != nil {
			r.fail(fmt.Errorf("write: %w", err))
		}
	}
	if len(res.Effects) == 0 && len(res.Status) == 0 {
		return
	}
	// Carrying out applies events again (a sent frame): keep the lists,
	// which the next call reuses.
	effects, status := slices.Clone(res.Effects), slices.Clone(res.Status)
	now := r.h.Engine().Now()
	for _, name := range status {
		if li := r.byName[name]; li != nil && li.SetAdvErr(advertiseErr(r.h, name)) {
			r.apply(li.Status(now))
		}
	}
	r.runEffects(effects, now)
}

// advertiseErr is the host's AdvertiseErr (a variable: tests inject the
// refusal an LLDPDU's limits would give).
var advertiseErr = (*host.Host).AdvertiseErr

// send transmits an agent's frame; once sent, the host sees it as this
// host's outgoing LLDPDU (a packet socket never sees its own frames).
func (r *liveRun) send(li *liveIface, f []byte, now time.Time) {
	conn := li.Current()
	if conn == nil {
		return // down: nothing to send on; the next due frame retries
	}
	if err := conn.WriteFrame(f); err != nil {
		if li.SetTxErr("transmit: " + err.Error()) {
			r.apply(li.Status(now))
		}
		return
	}
	li.CountSent()
	if li.SetTxErr("") {
		r.apply(li.Status(now))
	}
	r.applyFrame(engine.FrameReceived{Interface: li.Name(), At: now, Outgoing: true, Data: f})
}

// finish has the agents' shutdown LLDPDUs sent and prints the final
// snapshot for --json.
func (r *liveRun) finish(ifaces []*liveIface) error {
	now := r.now()
	r.carryOut(r.h.StopAll(now), false)
	for _, li := range ifaces {
		r.apply(li.Status(now))
	}
	if r.cfg.JSON && r.err == nil {
		if err := output.New(r.cfg.Out, output.JSON).Snapshot(r.h.Engine().Snapshot()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return r.err
}
