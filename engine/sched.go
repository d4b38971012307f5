// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"
	"time"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// DefaultMaxInterfaces bounds the interfaces one engine keeps: a host has a
// handful, a switch 64 to 256 host-facing ports; past 1,024 an input (a
// crafted pcapng naming an interface per frame) is not a network, and
// each kept interface costs memory and snapshot time.
const DefaultMaxInterfaces = 1024

// maxIgnoredNames bounds the set that counts distinct ignored interfaces;
// past it the count is a lower bound ("at least").
const maxIgnoredNames = 1 << 16

// ignoredInterfaces counts what the interface bound kept out.
type ignoredInterfaces struct {
	names  map[string]struct{} // distinct names, at most maxIgnoredNames
	more   bool                // names overflowed: the count is a lower bound
	events uint64              // events (frames, samples, ...) ignored
}

// ignore records an event for an interface past the bound, and reports
// whether it is the first such event (the caller reports it once).
func (g *ignoredInterfaces) ignore(name string) (first bool) {
	first = g.names == nil
	if first {
		g.names = map[string]struct{}{}
	}
	g.events++
	if _, ok := g.names[name]; !ok {
		if len(g.names) < maxIgnoredNames {
			g.names[name] = struct{}{}
		} else {
			g.more = true
		}
	}
	return first
}

// diagnostic describes the ignored interfaces; ok is false when none were.
func (g *ignoredInterfaces) diagnostic(limit int) (diag.Diagnostic, bool) {
	if g.names == nil {
		return diag.Diagnostic{}, false
	}
	n := fmt.Sprint(len(g.names))
	if g.more {
		n = "at least " + n
	}
	return diag.Newf(diag.CodeTooManyInterfaces, diag.SeverityWarning, "capture",
		"watch fewer interfaces (-i), or split the capture by interface (editcap, tshark -Y frame.interface_id)",
		"events for more than %d interfaces: %s more interfaces ignored (%d events)", limit, n, g.events), true
}

// Diagnostics returns the host-wide diagnostics (Snapshot.Diagnostics):
// what concerns no single interface.
func (e *Engine) Diagnostics() []diag.Diagnostic {
	out := []diag.Diagnostic{}
	if d, ok := e.ignored.diagnostic(e.cfg.MaxInterfaces); ok {
		out = append(out, d)
	}
	return out
}

// The schedule is a min-heap of the ports that have a deadline (a
// neighbour's expiry, a hold-down's end), keyed by the earliest one, so
// that an event costs O(log ports) instead of a walk over every port.
// A port's entry is updated whenever an event touched it (reschedule).
// It is typed rather than container/heap's: its calls through an
// interface cost a third of an identical LLDPDU's time.
type schedule []*port

// swap exchanges entries i and j and their ports' slots.
func (s schedule) swap(i, j int) {
	s[i], s[j] = s[j], s[i]
	s[i].slot, s[j].slot = i, j
}

// up moves entry i towards the root while it is due before its parent.
func (s schedule) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !s[i].due.Before(s[parent].due) {
			return
		}
		s.swap(i, parent)
		i = parent
	}
}

// down moves entry i towards the leaves while a child is due before it.
func (s schedule) down(i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(s) && s[c].due.Before(s[least].due) {
				least = c
			}
		}
		if least == i {
			return
		}
		s.swap(i, least)
		i = least
	}
}

// reschedule puts p's next deadline in the schedule, or takes p out of
// it when it has none.
func (e *Engine) reschedule(p *port) {
	d, ok := p.nextDeadline()
	switch {
	case ok && p.slot >= 0:
		if !d.Equal(p.due) {
			p.due = d
			e.sched.down(p.slot)
			e.sched.up(p.slot)
		}
	case ok:
		p.due, p.slot = d, len(e.sched)
		e.sched = append(e.sched, p)
		e.sched.up(p.slot)
	case p.slot >= 0:
		i, last := p.slot, len(e.sched)-1
		e.sched.swap(i, last)
		e.sched[last] = nil
		e.sched = e.sched[:last]
		p.slot = -1
		if i < last {
			e.sched.down(i)
			e.sched.up(i)
		}
	}
}

// NextDeadline returns the earliest time at which the engine's state
// changes by the clock alone (a neighbour expires, a hold-down ends), and
// false when nothing is pending.
func (e *Engine) NextDeadline() (time.Time, bool) {
	if len(e.sched) == 0 {
		return time.Time{}, false
	}
	return e.sched[0].due, true
}
