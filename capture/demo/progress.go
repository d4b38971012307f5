// SPDX-License-Identifier: Apache-2.0

package demo

import "time"

// maxRestarts bounds the restart times a Progress keeps.
const maxRestarts = 16

// Progress follows a Run through its scenario from the EventStep events
// it reports: the step last played, when the next one plays, which pass
// of the looping scenario this is and when it restarted. The screen's
// demo caption is drawn from it. Feed it every Event (Observe); it is not
// safe for concurrent use.
type Progress struct {
	sc *Scenario
	// Step is the index of the step last played in sc.Steps, -1 before
	// the first.
	Step int
	// Pass counts the passes of the scenario: 1 during the first, 2 after
	// it restarted once, ...; 0 before the first step.
	Pass int
	// LoopStart is when the current pass started, in Run's clock.
	LoopStart time.Time
	// Restarts are the times the scenario started over, oldest first (at
	// most 16, the latest).
	Restarts []time.Time
}

// NewProgress returns the progress of a Run of sc that has not started.
func NewProgress(sc *Scenario) *Progress { return &Progress{sc: sc, Step: -1} }

// Observe takes an Event from Run and reports whether the progress
// changed (a step was played).
func (p *Progress) Observe(ev Event) bool {
	if ev.Kind != EventStep || ev.Step == nil {
		return false
	}
	i := p.index(ev.Step)
	if i < 0 {
		return false
	}
	start := ev.At.Add(-p.sc.Steps[i].At)
	switch {
	case p.Pass == 0:
		p.Pass = 1
	case i <= p.Step || !start.Equal(p.LoopStart):
		p.Pass++
		p.Restarts = append(p.Restarts, start)
		if n := len(p.Restarts); n > maxRestarts {
			p.Restarts = append(p.Restarts[:0:0], p.Restarts[n-maxRestarts:]...)
		}
	}
	p.Step, p.LoopStart = i, start
	return true
}

func (p *Progress) index(st *Step) int {
	for i := range p.sc.Steps {
		if &p.sc.Steps[i] == st {
			return i
		}
	}
	return -1
}

// Current returns the step last played, nil before the first.
func (p *Progress) Current() *Step {
	if p.Step < 0 {
		return nil
	}
	return &p.sc.Steps[p.Step]
}

// Steps returns the number of steps of a pass.
func (p *Progress) Steps() int { return len(p.sc.Steps) }

// NextAt returns when the next step plays (the end of the pass, where the
// scenario starts over, after the last), in Run's clock; zero before the
// first step.
func (p *Progress) NextAt() time.Time {
	switch {
	case p.Step < 0:
		return time.Time{}
	case p.Step+1 < len(p.sc.Steps):
		return p.LoopStart.Add(p.sc.Steps[p.Step+1].At)
	}
	return p.LoopStart.Add(p.sc.duration)
}
