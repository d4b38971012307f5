// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A seen is one remote indication at the host, with the diagnostic codes
// the host showed right after it (when it was the last indication of its
// event).
type seen struct {
	in    engine.Indication
	diags []string
}

func (s seen) String() string {
	return fmt.Sprintf("%s %s [%s] %s", s.in.Time.Format("15:04:05.000"), s.in.Reason, s.in.Flags, s.in.Peer)
}

// host is the test's host: a dcbtop engine on the host end of an
// in-memory link, given the scenario's local parameters, and optionally
// transmitting as dcbtop's agent does (capture/session live.go).
type host struct {
	eng    *engine.Engine
	ag     *agent.Agent // nil: the host only listens
	remote []seen
	all    []engine.Indication
	nic    []nicSecond // play with nic
}

func newHost(t *testing.T, sc *Scenario, now time.Time, transmit bool) *host {
	h := &host{eng: engine.New(engine.Config{})}
	h.apply(engine.LinkChanged{Interface: MemIfname, At: now, MAC: sc.Host.MAC, Up: true})
	h.apply(engine.LocalChanged{Interface: MemIfname, At: now, Source: "agent", Willing: sc.Host.Willing, Params: sc.Host.Params})
	if transmit {
		ag, err := agent.New(agent.Config{Ifname: MemIfname, MAC: sc.Host.MAC, SystemName: "host", TxInterval: 30 * time.Second},
			agent.Advert{Willing: sc.Host.Willing, Local: sc.Host.Params}, now)
		if err != nil {
			t.Fatal(err)
		}
		h.ag = ag
	}
	return h
}

func (h *host) apply(ev engine.Event) {
	before := h.eng.NeighborCount(MemIfname)
	ins := h.eng.Apply(ev)
	h.all = append(h.all, ins...)
	var remote []engine.Indication
	for _, in := range ins {
		if in.Status == engine.StatusRemote {
			remote = append(remote, in)
		}
	}
	for i, in := range remote {
		s := seen{in: in}
		if i == len(remote)-1 {
			s.diags = h.diagCodes()
		}
		h.remote = append(h.remote, s)
	}
	if h.ag == nil {
		return
	}
	if fr, ok := ev.(engine.FrameReceived); ok && h.eng.NeighborCount(MemIfname) > before {
		h.ag.PeerAppeared(fr.At)
	}
	for _, in := range ins {
		if in.Status != engine.StatusRemote {
			if s, ok := h.eng.Interface(MemIfname); ok && s.Willing != nil {
				_ = h.ag.Set(agent.Advert{Willing: *s.Willing, Local: s.Local, Operational: s.Operational}, in.Time)
			}
		}
	}
}

func (h *host) diagCodes() []string {
	s, _ := h.eng.Interface(MemIfname)
	var codes []string
	for _, d := range s.Diagnostics {
		codes = append(codes, string(d.Code))
	}
	return codes
}

// playScenario plays sc against a host inside a synctest bubble until Run
// returns (loop false) or for d (loop true), and returns the host.
func playScenario(t *testing.T, sc *Scenario, loop bool, d time.Duration, transmit bool, opts ...Option) *host {
	return play(t, sc, loop, d, transmit, false, opts...)
}

// A nicSecond is one second of the simulated NIC in a played scenario:
// its counters' moves and the host's diagnostic codes after the sample.
type nicSecond struct {
	at    time.Duration // the second's end, from the start
	d     nicDelta
	tos   uint8
	diags []string
}

// play is playScenario, with the simulated NIC (WithNIC) sampled into the
// host's engine every second when nic is true (host.nic).
func play(t *testing.T, sc *Scenario, loop bool, d time.Duration, transmit, nic bool, opts ...Option) *host {
	var h *host
	synctest.Test(t, func(t *testing.T) {
		end, sw := NewMemLink(sc.Host.MAC)
		defer end.Close()
		start := time.Now()
		h = newHost(t, sc, start, transmit)
		var n *NIC
		var last engine.CountersSampled
		if nic {
			n = NewNIC(nil)
			opts = append(opts, WithNIC(n))
			last = n.Sample(MemIfname, start, time.Second)
			h.apply(last)
		}
		ticks := 0
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		if loop {
			time.AfterFunc(d, cancel)
		}
		runErr := make(chan error, 1)
		go func() { runErr <- Run(ctx, sw, sc, loop, opts...) }()
		frames := make(chan capture.Frame, 4096)
		readCtx, stopRead := context.WithCancel(context.Background())
		defer stopRead()
		go func() {
			for {
				f, err := end.ReadFrame(readCtx)
				if err != nil {
					return
				}
				frames <- f
			}
		}()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for done := false; !done; {
			select {
			case f := <-frames:
				h.apply(engine.FrameReceived{Interface: MemIfname, At: f.At, Data: f.Data})
			case now := <-tick.C:
				h.apply(engine.Tick{At: now})
				if ticks++; n != nil && ticks%4 == 0 {
					cur := n.Sample(MemIfname, now, time.Second)
					h.apply(cur)
					in, _ := h.eng.Interface(MemIfname)
					var codes []string
					for _, dg := range in.Diagnostics {
						codes = append(codes, string(dg.Code))
					}
					h.nic = append(h.nic, nicSecond{at: now.Sub(start), d: delta(last, cur), tos: cur.RoCE[0].DefaultToS.ToS, diags: codes})
					last = cur
				}
				if h.ag != nil {
					if f, ok := h.ag.Due(now); ok {
						if err := end.WriteFrame(f); err != nil {
							t.Errorf("host transmit: %v", err)
						}
					}
				}
			case err := <-runErr:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				done = true
			}
		}
		// What Run sent last is still on its way: let the reader take it.
		synctest.Wait()
		for n := len(frames); n > 0; n-- {
			f := <-frames
			h.apply(engine.FrameReceived{Interface: MemIfname, At: f.At, Data: f.Data})
		}
		h.apply(engine.Tick{At: time.Now()})
		// Times relative to the start, for the checks.
		for i := range h.remote {
			h.remote[i].in.Time = time.Unix(0, 0).UTC().Add(h.remote[i].in.Time.Sub(start))
		}
	})
	return h
}

// wantIndication is an Expect with the window it must fall in.
type wantIndication struct {
	Expect
	from, to time.Duration
	peer     string
	step     int
}

// expected flattens the scenario's expectations, shifted by offset.
func expected(t *testing.T, sc *Scenario, offset time.Duration) []wantIndication {
	var out []wantIndication
	for i, st := range sc.Steps {
		to := sc.Duration()
		if i+1 < len(sc.Steps) {
			to = sc.Steps[i+1].At
		}
		peer := ""
		if st.Switch != "" {
			cfg, ok := sc.Switch(st.Switch)
			if !ok {
				t.Fatalf("no switch %s", st.Switch)
			}
			s := &Switch{cfg: cfg}
			peer = s.MSAP()
		}
		for _, e := range st.Expect {
			out = append(out, wantIndication{Expect: e, from: offset + st.At, to: offset + to, peer: peer, step: i + 1})
		}
	}
	return out
}

func checkIndications(t *testing.T, got []seen, want []wantIndication) {
	t.Helper()
	var lines []string
	for _, s := range got {
		lines = append(lines, s.String())
	}
	if len(got) != len(want) {
		t.Fatalf("host saw %d remote indications, want %d:\n%s", len(got), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		g := got[i]
		at := g.in.Time.Sub(time.Unix(0, 0))
		where := fmt.Sprintf("indication %d (step %d, %s)", i+1, w.step, g)
		if g.in.Reason != w.Reason {
			t.Errorf("%s: reason %s, want %s", where, g.in.Reason, w.Reason)
		}
		if g.in.Flags != w.Flags {
			t.Errorf("%s: flags %s, want %s", where, g.in.Flags, w.Flags)
		}
		if at < w.from || at >= w.to {
			t.Errorf("%s: at %v, want within [%v, %v)", where, at, w.from, w.to)
		}
		if w.peer != "" && g.in.Peer != w.peer {
			t.Errorf("%s: peer %q, want %q", where, g.in.Peer, w.peer)
		}
		invalidation := w.Reason == engine.ReasonTTLExpired || w.Reason == engine.ReasonShutdown || w.Reason == engine.ReasonMultiPeer
		if invalidation != (g.in.Params == nil) {
			t.Errorf("%s: params %v, want them null exactly for an invalidation", where, g.in.Params)
		}
		if w.PeerWilling != nil {
			p := g.in.Params
			if p == nil || p.PFC == nil || p.ETS == nil || p.PFC.Willing != *w.PeerWilling || p.ETS.Willing != *w.PeerWilling {
				t.Errorf("%s: peer Willing bits in %+v, want %v", where, p, *w.PeerWilling)
			}
		}
		for _, code := range w.Diagnostics {
			if !slices.Contains(g.diags, code) {
				t.Errorf("%s: diagnostics %v lack %s", where, g.diags, code)
			}
		}
	}
}

// The whole scenario, against a host that only listens, in milliseconds:
// the indications of the brief, in order, each in its step's window, with
// the documented flags and diagnostics.
func TestScenarioAgainstEngine(t *testing.T) {
	sc := mustLoad(t)
	h := playScenario(t, sc, false, 0, false)
	want := expected(t, sc, 0)
	checkIndications(t, h.remote, want)
	var reasons []string
	for _, s := range h.remote {
		reasons = append(reasons, string(s.in.Reason))
	}
	if got, want := strings.Join(reasons, " "), "first-receipt changed changed changed changed multi-peer first-receipt ttl-expired first-receipt shutdown"; got != want {
		t.Errorf("reasons %s\nwant    %s", got, want)
	}
	// Exact times with a fake clock (the notes in the scenario say them).
	wantAt := []time.Duration{5, 20, 35, 42, 47, 50, 72, 89, 100, 115}
	for i, s := range h.remote {
		if at := s.in.Time.Sub(time.Unix(0, 0)); i < len(wantAt) && at != wantAt[i]*time.Second {
			t.Errorf("indication %d (%s) at %v, want %v", i+1, s.in.Reason, at, wantAt[i]*time.Second)
		}
	}
}

// Looping: the second pass repeats the first, and every pass starts with
// no peer.
func TestScenarioLoops(t *testing.T) {
	sc := mustLoad(t)
	h := playScenario(t, sc, true, 2*sc.Duration()+3*time.Second, false)
	want := append(expected(t, sc, 0), expected(t, sc, sc.Duration())...)
	checkIndications(t, h.remote, want)
	if n := h.eng.NeighborCount(MemIfname); n != 0 {
		t.Errorf("%d neighbours left after the run, want 0 (the switches shut down)", n)
	}
}

// With a host that transmits as dcbtop's agent does, leaf-1 reacts when it
// returns willing: after its 3 s reaction delay it adopts the host's PFC
// (both willing, its MAC is lower), and the mismatch clears.
func TestScenarioHostAgent(t *testing.T) {
	sc := mustLoad(t)
	var events []Event
	h := playScenario(t, sc, false, 0, true, WithObserver(func(ev Event) { events = append(events, ev) }))
	want := expected(t, sc, 0)
	// The reaction: one more "changed" (PFC only) between leaf-1's return
	// and its shutdown.
	var back int
	for i, w := range want {
		if w.Reason == engine.ReasonFirstReceipt && w.PeerWilling != nil && *w.PeerWilling {
			back = i
		}
	}
	reaction := wantIndication{
		Expect: Expect{Reason: engine.ReasonChanged,
			Flags:       engine.FlagETSConfigured | engine.FlagPFCConfigured | engine.FlagPFCChanged | engine.FlagClassificationConfigured,
			Diagnostics: []string{string(diag.CodeBothWilling)}},
		from: want[back].from + 3*time.Second, to: want[back].from + 5*time.Second, peer: want[back].peer, step: want[back].step,
	}
	want = slices.Insert(want, back+1, reaction)
	checkIndications(t, h.remote, want) // same length, or it stops the test
	r := h.remote[back+1]
	if p := r.in.Params; p == nil || p.PFC == nil || p.PFC.Enabled != 1<<3 || !p.PFC.Willing {
		t.Errorf("leaf-1's parameters after its reaction: %+v, want PFC on priority 3 (the host's), willing", p)
	}
	if slices.Contains(r.diags, string(diag.CodePFCMismatch)) {
		t.Errorf("pfc-mismatch still shown after leaf-1 adopted the host's PFC: %v", r.diags)
	}
	// The switches' log says what they heard and what leaf-1 adopted.
	checkLog(t, events,
		"peer: leaf-1 hears mac 02:dc:b0:00:00:fe / ifname demo0: willing",
		"peer: leaf-2 hears mac 02:dc:b0:00:00:fe / ifname demo0",
		"operational: leaf-1 now runs willing",
		"PFC: remote: both willing, local MAC 02:dc:b0:00:00:01 is lower so it adopts the peer's",
	)
	steps := 0
	for _, ev := range events {
		if ev.Kind == EventStep {
			steps++
		}
	}
	if steps != len(sc.Steps) {
		t.Errorf("%d step events, want %d", steps, len(sc.Steps))
	}
}

// Run ends without error when ctx is done, after sending a shutdown LLDPDU
// for every switch that transmits; it fails when the link is closed.
func TestRunStops(t *testing.T) {
	sc, err := Parse(strings.NewReader(`{"duration_s":60,"steps":[
		{"at_s":0,"switch":"s1","action":"start","comment":"c","chassis_mac":"02:00:00:00:00:01","port":"swp1","tx_interval_s":1,"params":{"pfc":{"cap":8,"enabled":[3]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		end, sw := NewMemLink(sc.Host.MAC)
		defer end.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 9500*time.Millisecond)
		defer cancel()
		if err := Run(ctx, sw, sc, true); err != nil {
			t.Errorf("Run after ctx done = %v, want nil", err)
		}
		var last capture.Frame
		n := 0
		for {
			rctx, rcancel := context.WithTimeout(t.Context(), time.Millisecond)
			f, err := end.ReadFrame(rctx)
			rcancel()
			if err != nil {
				break
			}
			last, n = f, n+1
		}
		// 0,1,2,3 (fast), 4..9 every second, then the shutdown at 9.5 s.
		if n != 11 {
			t.Errorf("host read %d frames, want 11", n)
		}
		_, pdu, err := lldp.SplitFrame(last.Data)
		if err != nil {
			t.Fatal(err)
		}
		if du, err := lldp.Parse(pdu); err != nil || !du.Shutdown() {
			t.Errorf("last frame %x is not a shutdown LLDPDU (%v)", last.Data, err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		end, sw := NewMemLink(sc.Host.MAC)
		time.AfterFunc(5*time.Second, func() { end.Close() })
		err := Run(t.Context(), sw, sc, true)
		if !errors.Is(err, fs.ErrClosed) {
			t.Errorf("Run on a closed link = %v, want fs.ErrClosed", err)
		}
		if _, err := end.ReadFrame(t.Context()); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("ReadFrame after Close = %v, want fs.ErrClosed", err)
		}
		if err := end.WriteFrame(make([]byte, 60)); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("WriteFrame after Close = %v, want fs.ErrClosed", err)
		}
	})
	// The CLI's stop: ctx is cancelled and the host closes the link at once.
	// Whichever of the two the switch notices first, the run ended normally.
	for i := range 20 {
		synctest.Test(t, func(t *testing.T) {
			end, sw := NewMemLink(sc.Host.MAC)
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(time.Duration(i)*250*time.Millisecond, func() {
				cancel()
				end.Close()
			})
			if err := Run(ctx, sw, sc, true); err != nil {
				t.Errorf("stop at %v: Run = %v, want nil", time.Duration(i)*250*time.Millisecond, err)
			}
		})
	}
}

// The host end of the in-memory link looks like a Live on demo0.
func TestMemLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		end, sw := NewMemLink(DefaultHostMAC)
		defer end.Close()
		if l := end.Link(); l.Name != MemIfname || l.MAC != DefaultHostMAC || !l.Up || end.Name() != MemIfname {
			t.Errorf("Link = %+v", l)
		}
		frame := make([]byte, 60)
		frame[12], frame[13] = 0x88, 0xcc
		time.Sleep(time.Second)
		if err := sw.WriteFrame(frame); err != nil {
			t.Fatal(err)
		}
		f, err := end.ReadFrame(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if f.Interface != MemIfname || f.Dir != capture.DirectionIncoming || !f.At.Equal(time.Now()) || string(f.Data) != string(frame) {
			t.Errorf("frame = %+v", f)
		}
		if err := end.WriteFrame(frame); err != nil {
			t.Fatal(err)
		}
		if b, err := sw.ReadFrame(t.Context()); err != nil || string(b) != string(frame) {
			t.Errorf("switch read %x, %v", b, err)
		}
		if err := end.WriteFrame(frame[:10]); err == nil {
			t.Error("a 10-byte frame was accepted")
		}
		for range memQueue + 5 {
			_ = sw.WriteFrame(frame)
		}
		if st, err := end.Stats(); err != nil || st.Drops != 5 {
			t.Errorf("Stats = %+v, %v; want 5 drops", st, err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := sw.ReadFrame(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("ReadFrame with a done ctx = %v", err)
		}
	})
}

// jumpClock is a fake Clock whose After fires at once, moving the time
// forward by d (plus a one-time jump, to model a machine that slept).
type jumpClock struct {
	mu       sync.Mutex
	now      time.Time
	jumpAt   time.Time // when now passes it, add jump once
	jump     time.Duration
	jumped   bool
	jumpedTo time.Time
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	if !c.jumped && c.jump > 0 && c.now.After(c.jumpAt) {
		c.now, c.jumped, c.jumpedTo = c.now.Add(c.jump), true, c.now.Add(c.jump)
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// An injected clock drives Run (and the link's timestamps) without
// synctest: the whole scenario in one go, with the same indications.
func TestRunWithFakeClock(t *testing.T) {
	sc := mustLoad(t)
	t0 := time.Unix(0, 0).UTC()
	clock := &jumpClock{now: t0}
	end, sw := NewMemLink(sc.Host.MAC, WithClock(clock))
	defer end.Close()
	if err := Run(t.Context(), sw, sc, false, WithClock(clock)); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, sc, t0, false)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		f, err := end.ReadFrame(ctx)
		cancel()
		if err != nil {
			break
		}
		h.apply(engine.FrameReceived{Interface: MemIfname, At: f.At, Data: f.Data})
	}
	h.apply(engine.Tick{At: clock.Now()})
	checkIndications(t, h.remote, expected(t, sc, 0))

	// After a long sleep the loop starts over at once instead of
	// replaying every pass it missed.
	clock = &jumpClock{now: t0, jumpAt: t0.Add(sc.Duration() + 40*time.Second), jump: 20 * time.Minute}
	_, sw = NewMemLink(sc.Host.MAC, WithClock(clock))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var starts []time.Time
	observe := func(ev Event) {
		if ev.Kind == EventStep && ev.Step == &sc.Steps[0] {
			starts = append(starts, ev.At)
			if len(starts) == 3 {
				cancel()
			}
		}
	}
	if err := Run(ctx, sw, sc, true, WithClock(clock), WithObserver(observe)); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 3 || !starts[1].Equal(t0.Add(sc.Duration())) || starts[2].Before(clock.jumpedTo) {
		t.Errorf("passes started at %v; want 0, %v, then at or after the jump to %v", starts, sc.Duration(), clock.jumpedTo.Sub(t0))
	}
}

// The simulated NIC follows the scenario's steps, second by second, with
// a host running dcbtop's agent (as the demo does): RoCE flows while
// leaf-1's link is up, pauses in the bursts once congestion starts, ECN
// marks and CNPs once leaf-1 marks, drops instead of pauses while leaf-1
// has no PFC on priority 3 and while the ToS puts RoCE on priority 0; and
// the host's diagnostics say so.
func TestScenarioNIC(t *testing.T) {
	sc := mustLoad(t)
	h := play(t, sc, false, 0, true, true)
	if len(h.nic) < 115 {
		t.Fatalf("%d seconds sampled, want the whole pass", len(h.nic))
	}
	in := func(s nicSecond, from, to int) bool {
		return s.at > time.Duration(from)*time.Second && s.at <= time.Duration(to)*time.Second
	}
	has := func(s nicSecond, code diag.Code) bool { return slices.Contains(s.diags, string(code)) }
	seen := map[string]bool{}
	for _, s := range h.nic {
		burst := math.Mod(s.at.Seconds()-0.5, burstEvery) >= burstFrom
		var bytes, pauses uint64
		for p := range 8 {
			bytes += s.d.bytes[p]
			pauses += s.d.pauses[p]
		}
		where := fmt.Sprintf("second ending at %v (%+v, diagnostics %v)", s.at, s.d, s.diags)
		flowing := in(s, 5, 85) || in(s, 100, 115)
		switch {
		case flowing && bytes != 1e9:
			t.Errorf("%s: %d bytes, want 1e9", where, bytes)
		case !flowing && !in(s, 115, 116) && bytes != 0:
			t.Errorf("%s: %d bytes with no switch link up, want 0", where, bytes)
		}
		lossy := in(s, 42, 47) || in(s, 76, 82)
		switch {
		case !burst || !flowing || in(s, 0, 12):
			if pauses+s.d.oos+s.d.ecn != 0 && !in(s, 115, 116) {
				t.Errorf("%s: congestion outside a burst", where)
			}
		case lossy:
			if pauses != 0 || s.d.oos == 0 {
				t.Errorf("%s: want drops, no pauses (priority %d lossy at leaf-1)", where, priority(s.tos))
			}
			seen["drops"] = true
		case in(s, 12, 28):
			if s.d.pauses[3] != 400 || s.d.ecn != 0 {
				t.Errorf("%s: want 400 pauses on priority 3, no ECN", where)
			}
			seen["pauses"] = true
		case in(s, 28, 85) || in(s, 104, 115):
			if s.d.pauses[3] != 100 || s.d.ecn != 2000 || s.d.cnp != 500 || s.d.oos != 0 {
				t.Errorf("%s: want 100 pauses on priority 3, 2000 ECN marks, 500 CNPs, no drops", where)
			}
			seen["ecn"] = true
		}
		// The host's verdicts follow: the RoCE ToS reaches no PFC
		// priority while priority 3 or 0 is lossy, and does again after.
		if in(s, 44, 47) || in(s, 78, 81) {
			if !has(s, diag.CodeRoCEToSNotLossless) {
				t.Errorf("%s: no %s", where, diag.CodeRoCEToSNotLossless)
			}
			if burst && !has(s, diag.CodeLossyFabric) {
				t.Errorf("%s: no %s in a burst of drops", where, diag.CodeLossyFabric)
			}
		}
		if (in(s, 14, 42) || in(s, 50, 75) || in(s, 84, 85)) && has(s, diag.CodeRoCEToSNotLossless) {
			t.Errorf("%s: %s while RoCE is on a lossless priority", where, diag.CodeRoCEToSNotLossless)
		}
	}
	for _, k := range []string{"pauses", "ecn", "drops"} {
		if !seen[k] {
			t.Errorf("no burst with %s", k)
		}
	}
}
