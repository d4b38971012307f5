// SPDX-License-Identifier: Apache-2.0

package main

// The poster forwards what the engine's goroutine reports beside its
// snapshots (capture status, errors, the request to quit) to the
// tea.Program, from a goroutine of its own, so that the engine never
// blocks on the screen.

import (
	"context"
	"reflect"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/ui"
)

// A poster forwards messages from the engine's goroutine to the program
// without blocking it: the newest capture status replaces an older one not
// yet delivered, errors queue (a few), and quit asks the program to end.
// run delivers them, in that order, until its context is done.
type poster struct {
	mu     sync.Mutex
	status *ui.CaptureStatus
	last   *ui.CaptureStatus // the last status delivered
	errs   []error
	quit   bool
	wake   chan struct{}
}

func newPoster() *poster { return &poster{wake: make(chan struct{}, 1)} }

// maxPendingErrors bounds the errors waiting for delivery.
const maxPendingErrors = 8

func (p *poster) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// setStatus posts the capture status.
func (p *poster) setStatus(s ui.CaptureStatus) {
	p.mu.Lock()
	if p.status == nil && p.last != nil && reflect.DeepEqual(*p.last, s) {
		// The same as on screen (a replay at its end reports each
		// second): nothing to redraw.
		p.mu.Unlock()
		return
	}
	p.status = &s
	p.mu.Unlock()
	p.kick()
}

// error posts an error for the status line.
func (p *poster) error(err error) {
	p.mu.Lock()
	if len(p.errs) < maxPendingErrors {
		p.errs = append(p.errs, err)
	}
	p.mu.Unlock()
	p.kick()
}

// requestQuit asks the program to end.
func (p *poster) requestQuit() {
	p.mu.Lock()
	p.quit = true
	p.mu.Unlock()
	p.kick()
}

// take returns what is pending and clears it.
func (p *poster) take() (msgs []tea.Msg) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		msgs = append(msgs, ui.ErrorMsg{Err: e})
	}
	if p.status != nil {
		msgs = append(msgs, *p.status)
		p.last = p.status
	}
	if p.quit {
		msgs = append(msgs, tea.Quit())
	}
	p.errs, p.status, p.quit = nil, nil, false
	return msgs
}

// run delivers posted messages with send (tea.Program.Send, which waits
// for the program to start and does nothing once it has ended) until ctx
// is done.
func (p *poster) run(ctx context.Context, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		for _, m := range p.take() {
			send(m)
		}
	}
}
