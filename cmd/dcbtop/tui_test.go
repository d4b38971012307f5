// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/capture/feed"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/ui"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunScreen drives runScreen in-process (no terminal: Bubble Tea
// reads keys from a pipe and draws into a buffer) through the ways it
// ends: q, the engine asking to quit, an engine error shown then
// returned, a panic in the engine goroutine, and a cancelled context.
func TestRunScreen(t *testing.T) {
	tests := []struct {
		name    string
		loop    func(ctx context.Context) error
		keys    string // typed once the screen shows the engine's error or after a moment
		cancel  bool   // cancel ctx (SIGINT/SIGTERM) instead
		wantErr string
		stderr  string // substring
		screen  string // substring of what was drawn
	}{
		{name: "q", loop: func(ctx context.Context) error { <-ctx.Done(); return nil }, keys: "q"},
		{name: "engine ends", loop: func(context.Context) error { return nil }},
		{name: "engine error", loop: func(context.Context) error { return errors.New("x.pcapng: no space left on device") },
			keys: "q", wantErr: "x.pcapng: no space left on device", screen: "no space left on device"},
		{name: "panic", loop: func(context.Context) error { panic("boom") },
			wantErr: "internal error (the trace is above; please report it)", stderr: "dcbtop: panic: boom\n"},
		{name: "signal", loop: func(ctx context.Context) error { <-ctx.Done(); return nil }, cancel: true},
	}
	extraProgramOptions = []tea.ProgramOption{tea.WithWindowSize(100, 30)}
	t.Cleanup(func() { extraProgramOptions = nil })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, inw := io.Pipe()
			defer inw.Close()
			var out, errOut syncBuffer
			env := Env{Stdin: in, Stdout: &out, Stderr: &errOut}
			e := engine.New(engine.Config{})
			e.Apply(engine.LinkChanged{Interface: "h0", At: time.Now(), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 1}, Up: true})
			feed, post := feed.New(), newPoster()
			feed.Publish(e.Snapshot())
			rt, serr := session.Start(session.Config{Replay: fixtureIEEE, Screen: true})
			if serr != nil {
				t.Fatal(serr)
			}
			defer rt.Close()
			sc := screen{feed: feed, post: post, backend: rt.Backend(t.TempDir()), status: ui.CaptureStatus{Mode: ui.CaptureLive}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			loopCancelled := make(chan struct{})
			loop := func(ctx context.Context) error {
				defer func() {
					if ctx.Err() != nil {
						close(loopCancelled)
					}
				}()
				return tt.loop(ctx)
			}
			done := make(chan error, 1)
			go func() { done <- runScreen(ctx, &options{color: ui.ColorNever}, env, sc, loop) }()
			time.Sleep(300 * time.Millisecond)
			if tt.screen != "" {
				deadline := time.Now().Add(10 * time.Second)
				for !strings.Contains(out.String(), tt.screen) {
					if time.Now().After(deadline) {
						t.Fatalf("the screen never showed %q", tt.screen)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			if tt.cancel {
				cancel()
			}
			if tt.keys != "" {
				go func() { _, _ = io.WriteString(inw, tt.keys) }()
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("runScreen did not return")
			}
			if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Errorf("runScreen: %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(errOut.String(), tt.stderr) || (tt.stderr == "" && errOut.String() != "") {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.stderr)
			}
			if tt.name == "q" || tt.name == "signal" {
				select {
				case <-loopCancelled:
				default:
					t.Error("the engine goroutine was not cancelled and waited for")
				}
			}
			if !strings.Contains(out.String(), "dcbtop") {
				t.Errorf("nothing drawn:\n%q", out.String())
			}
		})
	}
}
