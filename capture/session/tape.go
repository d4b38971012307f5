// SPDX-License-Identifier: Apache-2.0

package session

// The host's inputs in a recording (capture/tape): written by -w beside
// the frames, played back by a replay through the same readers.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/capture/counters"
	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/tape"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A tapedEvent is an event of a reader's round (a counters sample, a DCB
// reading) with the raw inputs the round read, or an event learnt from
// outside the host's inputs (learnt: another agent's local parameters),
// for -w: the loop writes the round or the event's record, then applies
// the event, so that a replay plays them in the same order.
type tapedEvent struct {
	at    time.Time
	begin tape.Begin
	recs  []tape.Record
	ev    engine.Event // nil: the round made none
	// learnt: ev is what the run learnt of a dcbtop agent of another
	// process (control.OtherAgents), recorded itself (writeLearnt),
	// without a round.
	learnt bool
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

// applyTaped writes a taped event's round or record, then applies its
// event (on the loop's goroutine).
func (r *liveRun) applyTaped(t tapedEvent) {
	if t.learnt {
		t.ev = r.learntNow(t.ev)
		r.writeLearnt(t.ev)
	} else {
		r.writeRound(t.at, t.begin, t.recs)
	}
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
func (p *tapePlayer) play(hp pcap.HostPacket, end bool) ([]engine.Event, error) {
	if end {
		return nil, p.rd.End()
	}
	it, ok, err := p.rd.Add(hp)
	if err != nil || !ok {
		return nil, err
	}
	if it.Round == nil {
		evs, err := p.single(it.At, it.Rec)
		if err != nil {
			return nil, fmt.Errorf("record %d at offset %d: %w", hp.Record, hp.Offset, err)
		}
		return evs, nil
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

// single is the event of a record outside rounds. A record of another
// agent's local parameters (tape.Local) is the LocalChanged the live run
// applied, at its time: its parameters decoded as the control socket's
// client decodes them (encoding/json), from a source this version knows
// (a later one's is read past).
func (p *tapePlayer) single(at time.Time, rec tape.Record) ([]engine.Event, error) {
	switch r := rec.(type) {
	case tape.Observed:
		agents := make([]engine.HostAgent, len(r.Agents))
		for i, a := range r.Agents {
			agents[i] = engine.HostAgent{Name: a.Name, PID: a.PID, Transmits: a.Transmits}
		}
		return []engine.Event{engine.HostObserved{At: at, NetAdmin: r.NetAdmin, Agents: agents}}, nil
	case tape.Link:
		return []engine.Event{engine.LinkChanged{Interface: r.Name, At: at.UTC(), Ifindex: r.Index, MAC: lldp.MAC(r.MAC), Up: r.Up, Removed: r.Removed, Was: r.Was, MTU: r.MTU, VLANs: r.VLANs}}, nil
	case tape.Local:
		if engine.LocalSource(r.Source) != engine.SourceAgent {
			return nil, nil
		}
		ev := engine.LocalChanged{Interface: r.Ifname, At: at.UTC(), Source: engine.SourceAgent, Willing: r.Willing, Withdrawn: r.Withdrawn}
		if r.Params != nil {
			if err := json.Unmarshal(r.Params, &ev.Params); err != nil {
				return nil, fmt.Errorf("%w: the local parameters of %s: %v", tape.ErrMalformed, r.Ifname, err)
			}
		}
		return []engine.Event{ev}, nil
	}
	return nil, nil
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
