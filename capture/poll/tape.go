// SPDX-License-Identifier: Apache-2.0

package poll

// What a recording (capture/tape) holds of the host's inputs, played
// back through the readers the live run ran, and the records the run
// writes of them.

import (
	"encoding/json/v2"
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

// A TapePlayer plays a recording's host packets back (replay.HostFunc):
// each round's inputs loaded in a tape.Deck, then the same reader the
// live run ran (the counters Sampler, kernel.Local) run again on them at
// the round's time, and the engine's event it makes handed on; the host's
// observations and link changes become their events.
type TapePlayer struct {
	rd      tape.Reader
	deck    *tape.Deck
	sampler *counters.Sampler // from the open round
	dcb     *dcbnl.Client     // on the deck, made at the first DCB round
}

// NewTapePlayer returns a TapePlayer at a recording's start.
func NewTapePlayer() *TapePlayer { return &TapePlayer{deck: tape.NewDeck()} }

// Reset forgets a round under way (a seek plays the file again).
func (p *TapePlayer) Reset() { p.rd.Reset() }

// Play is the replay.HostFunc.
func (p *TapePlayer) Play(hp pcap.HostPacket, end bool) ([]engine.Event, error) {
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
func (p *TapePlayer) single(at time.Time, rec tape.Record) ([]engine.Event, error) {
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

// ObservedRecord is the record of a host observation.
func ObservedRecord(ev engine.HostObserved) tape.Observed {
	o := tape.Observed{NetAdmin: ev.NetAdmin, Agents: make([]tape.Agent, len(ev.Agents))}
	for i, a := range ev.Agents {
		o.Agents[i] = tape.Agent{Name: a.Name, PID: a.PID, Transmits: a.Transmits}
	}
	return o
}

// LinkRecord is the record of a link change.
func LinkRecord(ev engine.LinkChanged) tape.Link {
	return tape.Link{Name: ev.Interface, Index: ev.Ifindex, MAC: [6]byte(ev.MAC), Up: ev.Up, Removed: ev.Removed, Was: ev.Was, MTU: ev.MTU, VLANs: ev.VLANs}
}

// LearntRecord is the record of lc, what the run learnt of another
// agent's local parameters: its parameters as the control socket carries
// them (encoding/json), which TapePlayer decodes the same way.
func LearntRecord(lc engine.LocalChanged) (tape.Local, error) {
	rec := tape.Local{Ifname: lc.Interface, Source: string(lc.Source), Willing: lc.Willing, Withdrawn: lc.Withdrawn}
	if lc.Params != nil {
		b, err := json.Marshal(lc.Params)
		if err != nil {
			return rec, fmt.Errorf("the local parameters of %s: %w", lc.Interface, err)
		}
		rec.Params = b
	}
	return rec, nil
}
