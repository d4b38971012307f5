package session

// The host's inputs in a recording (capture/tape): written by -w beside
// the frames, played back by a replay through the same readers.

import (
	"context"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A tapedEvent is an event of a reader's round (a counters sample, a DCB
// reading) with the raw inputs the round read, for -w: the loop writes
// the round, then applies the event, so that a replay plays them in the
// same order.
type tapedEvent struct {
	at    time.Time
	begin tape.Begin
	recs  []tape.Record
	ev    engine.Event // nil: the round made none
}

// newTap returns a Tap when the run records (-w), else nil (collects
// nothing, costs nothing).
func (r *liveRun) newTap() *tape.Tap {
	if r.rec == nil {
		return nil
	}
	return tape.NewTap()
}

// writeTape writes records read at at to the recording (-w), if any. An
// error stops the run, as a frame's does.
func (r *liveRun) writeTape(at time.Time, recs ...tape.Record) {
	if r.rec == nil || len(recs) == 0 {
		return
	}
	if err := tape.Write(r.rec, at, recs); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
	}
}

// writeRound writes a round of reads to the recording (-w), if any.
func (r *liveRun) writeRound(at time.Time, b tape.Begin, recs []tape.Record) {
	if r.rec == nil {
		return
	}
	if err := tape.WriteRound(r.rec, at, b, recs); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", r.cfg.Record, err)
	}
}

// applyLink records a link's state (-w), then applies it.
func (r *liveRun) applyLink(ev engine.LinkChanged) {
	r.writeTape(ev.At, linkRecord(ev))
	r.apply(ev)
}

// applyTaped writes a taped event's round, then applies its event (on
// the loop's goroutine).
func (r *liveRun) applyTaped(t tapedEvent) {
	r.writeRound(t.at, t.begin, t.recs)
	if t.ev != nil {
		r.apply(t.ev)
	}
}

// sendTaped hands a round and its event to the loop; false when ctx ended.
func (r *liveRun) sendTaped(ctx context.Context, t tapedEvent) bool {
	select {
	case r.taped <- t:
		return true
	case <-ctx.Done():
		return false
	}
}

// A tapePlayer plays a recording's host packets back (replay.HostFunc):
// each round's inputs loaded in a tape.Deck, then the same reader the
// live run ran (the counters Sampler, kernel.Local) run again on them at
// the round's time, and the engine's event it makes handed on; the host's
// observations and link changes become their events.
type tapePlayer struct {
	rd      tape.Reader
	deck    *tape.Deck
	sampler *counters.Sampler // from the open round
	dcb     *dcbnl.Client     // on the deck, made at the first DCB round
}

func newTapePlayer() *tapePlayer { return &tapePlayer{deck: tape.NewDeck()} }

// reset forgets a round under way (a seek plays the file again).
func (p *tapePlayer) reset() { p.rd.Reset() }

// play is the replay.HostFunc.
func (p *tapePlayer) play(hp capture.HostPacket, end bool) ([]engine.Event, error) {
	if end {
		return nil, p.rd.End()
	}
	it, ok, err := p.rd.Add(hp)
	if err != nil || !ok {
		return nil, err
	}
	if it.Round == nil {
		return p.single(it.At, it.Rec), nil
	}
	b := *it.Round
	p.deck.Load(it.Recs, b.Round == tape.RoundOpen)
	switch b.Round {
	case tape.RoundOpen:
		src := tape.Sources{}
		for _, r := range it.Recs {
			if s, ok := r.(tape.Sources); ok {
				src = s
			}
		}
		p.sampler = counters.Replayed(p.deck, src)
	case tape.RoundCounters:
		if p.sampler == nil {
			return nil, fmt.Errorf("record at %s: a counters round of %s before the recording opened its counter sources", it.At.UTC().Format(time.RFC3339Nano), b.Ifname)
		}
		return []engine.Event{p.sampler.Sample(b.Ifname, it.At, b.Interval)}, nil
	case tape.RoundDCB:
		if p.dcb == nil {
			p.dcb = dcbnl.NewClient(p.deck.Conn(tape.ProtoRoute))
		}
		if ev, ok := kernel.Local(p.dcb, b.Ifname, it.At); ok {
			return []engine.Event{ev}, nil
		}
	}
	// A round of a kind this version does not know is read past.
	return nil, nil
}

// single is the event of a record outside rounds.
func (p *tapePlayer) single(at time.Time, rec tape.Record) []engine.Event {
	switch r := rec.(type) {
	case tape.Observed:
		agents := make([]engine.HostAgent, len(r.Agents))
		for i, a := range r.Agents {
			agents[i] = engine.HostAgent{Name: a.Name, PID: a.PID, Transmits: a.Transmits}
		}
		return []engine.Event{engine.HostObserved{At: at, NetAdmin: r.NetAdmin, Agents: agents}}
	case tape.Link:
		return []engine.Event{engine.LinkChanged{Interface: r.Name, At: at.UTC(), Ifindex: r.Index, MAC: lldp.MAC(r.MAC), Up: r.Up, Removed: r.Removed, Was: r.Was, MTU: r.MTU, VLANs: r.VLANs}}
	}
	return nil
}

// observedRecord is the record of a host observation.
func observedRecord(ev engine.HostObserved) tape.Observed {
	o := tape.Observed{NetAdmin: ev.NetAdmin, Agents: make([]tape.Agent, len(ev.Agents))}
	for i, a := range ev.Agents {
		o.Agents[i] = tape.Agent{Name: a.Name, PID: a.PID, Transmits: a.Transmits}
	}
	return o
}

// linkRecord is the record of a link change.
func linkRecord(ev engine.LinkChanged) tape.Link {
	return tape.Link{Name: ev.Interface, Index: ev.Ifindex, MAC: [6]byte(ev.MAC), Up: ev.Up, Removed: ev.Removed, Was: ev.Was, MTU: ev.MTU, VLANs: ev.VLANs}
}
