// SPDX-License-Identifier: Apache-2.0

package capturetest_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/capturetest"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestSource(t *testing.T) {
	in := []capture.Frame{
		{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: []byte{1, 2, 3}},
		{Interface: "eth1", At: t0.Add(time.Second), Dir: capture.DirectionOutgoing, Data: []byte{4, 5}},
	}
	want := []capture.Frame{
		{Interface: "eth0", At: t0, Dir: capture.DirectionIncoming, Data: []byte{1, 2, 3}},
		{Interface: "eth1", At: t0.Add(time.Second), Dir: capture.DirectionOutgoing, Data: []byte{4, 5}},
	}
	s := capturetest.New(in...)
	in[0].Data[0] = 99 // the Source keeps its own copy

	ctx := context.Background()
	var got []capture.Frame
	for {
		f, err := s.ReadFrame(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("ReadFrame: %v", err)
		}
		f.Data[len(f.Data)-1] = 0 // and hands out copies
		got = append(got, f)
	}
	want[0].Data[2], want[1].Data[1] = 0, 0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	if _, err := s.ReadFrame(ctx); err != io.EOF {
		t.Errorf("ReadFrame after the end = %v, want io.EOF", err)
	}

	if s.Closed() {
		t.Error("Closed before Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !s.Closed() {
		t.Error("not Closed after Close")
	}
	if _, err := s.ReadFrame(ctx); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadFrame after Close = %v, want fs.ErrClosed", err)
	}
}

func TestSourceDoneContext(t *testing.T) {
	s := capturetest.New(capture.Frame{At: t0})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.ReadFrame(ctx); err != context.Canceled {
		t.Errorf("ReadFrame(cancelled) = %v, want context.Canceled", err)
	}
	if f, err := s.ReadFrame(context.Background()); err != nil || !f.At.Equal(t0) {
		t.Errorf("ReadFrame = %v, %v; want the frame, not consumed by the cancelled call", f, err)
	}
}

// TestSourceConcurrentClose reads and closes from two goroutines; run it with
// -race.
func TestSourceConcurrentClose(t *testing.T) {
	s := capturetest.New(make([]capture.Frame, 100)...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := s.ReadFrame(context.Background()); err != nil {
				return
			}
		}
	}()
	s.Close()
	<-done
	if !s.Closed() {
		t.Error("not Closed after Close")
	}
}
