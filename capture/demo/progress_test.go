// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Progress follows two passes of the scenario played by Run with a fake
// clock: the step, the time of the next one, the pass and the restart.
func TestProgress(t *testing.T) {
	sc := mustLoad(t)
	t0 := time.Unix(0, 0).UTC()
	p := NewProgress(sc)
	if p.Current() != nil || !p.NextAt().IsZero() || p.Pass != 0 {
		t.Fatalf("before the first step: %+v, next %v", p, p.NextAt())
	}
	type seen struct {
		Step, Pass int
		Caption    string
		Next       time.Duration
		Restarts   int
	}
	var got []seen
	clock := &jumpClock{now: t0}
	_, sw := NewMemLink(sc.Host.MAC, WithClock(clock))
	done := 0
	observe := func(ev Event) {
		// Run may play one more step before it sees the cancel (a
		// fake clock's timer and ctx.Done ready at once).
		if done > 0 || !p.Observe(ev) {
			return
		}
		got = append(got, seen{p.Step, p.Pass, p.Current().Caption, p.NextAt().Sub(t0), len(p.Restarts)})
		if p.Pass == 2 && p.Step == 1 {
			done++
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stop := func(ev Event) {
		observe(ev)
		if done > 0 {
			cancel()
		}
	}
	if err := Run(ctx, sw, sc, true, WithClock(clock), WithObserver(stop)); err != nil {
		t.Fatal(err)
	}
	var want []seen
	for pass := 1; pass <= 2; pass++ {
		base := time.Duration(pass-1) * sc.Duration()
		for i, st := range sc.Steps {
			if pass == 2 && i > 1 {
				break
			}
			next := base + sc.Duration()
			if i+1 < len(sc.Steps) {
				next = base + sc.Steps[i+1].At
			}
			want = append(want, seen{i, pass, st.Caption, next, pass - 1})
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if len(p.Restarts) != 1 || !p.Restarts[0].Equal(t0.Add(sc.Duration())) {
		t.Errorf("Restarts = %v, want [%v]", p.Restarts, t0.Add(sc.Duration()))
	}
	if p.Steps() != len(sc.Steps) {
		t.Errorf("Steps = %d", p.Steps())
	}
	// Events of other kinds, or of another scenario's steps, change nothing.
	other := mustLoad(t)
	if p.Observe(Event{Kind: EventPeer}) || p.Observe(Event{Kind: EventStep, Step: &other.Steps[0]}) {
		t.Errorf("Observe took an event that is not a step of its scenario")
	}
}

// Every step of the embedded scenario has a caption of its own that fits
// the screen's header line.
func TestCaptions(t *testing.T) {
	sc := mustLoad(t)
	seen := map[string]bool{}
	for _, st := range sc.Steps {
		if st.Caption == "" || len([]rune(st.Caption)) > 80 || seen[st.Caption] {
			t.Errorf("step at %v: caption %q (want one of its own, at most 80 characters)", st.At, st.Caption)
		}
		seen[st.Caption] = true
	}
	// Without a caption, the comment's first sentence stands in.
	s, err := Parse(strings.NewReader(`{"duration_s":2,"steps":[{"at_s":0,"action":"note","comment":"First sentence. Second one."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Steps[0].Caption; c != "First sentence" {
		t.Errorf("derived caption %q", c)
	}
	if _, err := Parse(strings.NewReader(`{"duration_s":2,"steps":[{"at_s":0,"action":"note","comment":"c","caption":"two\nlines"}]}`)); err == nil {
		t.Errorf("a caption with a newline was accepted")
	}
}
