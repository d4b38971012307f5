package capture_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
)

// pacedFile writes a pcap file with one frame captured at each of at.
func pacedFile(t *testing.T, at ...time.Time) string {
	t.Helper()
	p := pcapFile{order: binary.LittleEndian, nanos: true, linkType: ltEthernet}
	var recs []rec
	for i, a := range at {
		recs = append(recs, rec{at: a, data: lldpFrame(byte(i))})
	}
	return writeTemp(t, p.bytes(recs...))
}

func TestReplayPacing(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		speed float64
		at    []time.Duration // capture times, after t0
		pause []time.Duration // consumer's pause before each ReadFrame, if any
		want  []time.Duration // delivery times, after the first ReadFrame
	}{
		{
			name:  "as fast as possible",
			speed: 0,
			at:    []time.Duration{0, 10 * s, 70 * s},
			want:  []time.Duration{0, 0, 0},
		},
		{
			name:  "real time",
			speed: 1,
			at:    []time.Duration{0, 1500 * time.Millisecond, 31500 * time.Millisecond},
			want:  []time.Duration{0, 1500 * time.Millisecond, 31500 * time.Millisecond},
		},
		{
			name:  "twice as fast",
			speed: 2,
			at:    []time.Duration{0, 10 * s, 30 * s},
			want:  []time.Duration{0, 5 * s, 15 * s},
		},
		{
			name:  "half speed",
			speed: 0.5,
			at:    []time.Duration{0, 10 * s},
			want:  []time.Duration{0, 20 * s},
		},
		{
			name:  "equal and earlier timestamps are not waited for",
			speed: 2,
			// The frame at 4s is late: it goes at once, and the gap to
			// the frame at 16s is counted from 10s.
			at:   []time.Duration{0, 10 * s, 10 * s, 4 * s, 16 * s},
			want: []time.Duration{0, 5 * s, 5 * s, 5 * s, 8 * s},
		},
		{
			name:  "a slow consumer does not cause a burst",
			speed: 1,
			at:    []time.Duration{0, 10 * s, 20 * s, 30 * s},
			// The consumer takes 3s, then 15s to ask for the second and
			// third frames: the third is late, and the fourth still
			// comes 10s after it.
			pause: []time.Duration{0, 3 * s, 15 * s, 0},
			want:  []time.Duration{0, 10 * s, 25 * s, 35 * s},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var at []time.Time
			for _, d := range tt.at {
				at = append(at, t0.Add(d))
			}
			path := pacedFile(t, at...)
			synctest.Test(t, func(t *testing.T) {
				r, err := capture.OpenReplay(path, capture.ReplayOptions{Speed: tt.speed})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				start := time.Now()
				var got []time.Duration
				for i := range at {
					if tt.pause != nil {
						time.Sleep(tt.pause[i])
					}
					f, err := r.ReadFrame(t.Context())
					if err != nil {
						t.Fatalf("frame %d: %v", i, err)
					}
					if !f.At.Equal(at[i]) {
						t.Errorf("frame %d captured at %v, want %v", i, f.At, at[i])
					}
					got = append(got, time.Since(start))
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("delivery times (-want +got):\n%s", diff)
				}
				if _, err := r.ReadFrame(t.Context()); err != io.EOF {
					t.Errorf("after the last frame: %v, want io.EOF", err)
				}
				if d := time.Since(start); d != tt.want[len(tt.want)-1] {
					t.Errorf("io.EOF after %v, want %v: the end is not paced", d, tt.want[len(tt.want)-1])
				}
			})
		})
	}
}

// TestReplayPacingCancel cancels a ReadFrame waiting for its frame: it
// returns the context's error when the context is done, and the frame is
// still delivered on time by the next call.
func TestReplayPacingCancel(t *testing.T) {
	path := pacedFile(t, t0, t0.Add(10*time.Second), t0.Add(12*time.Second))
	synctest.Test(t, func(t *testing.T) {
		r, err := capture.OpenReplay(path, capture.ReplayOptions{Speed: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		start := time.Now()
		if _, err := r.ReadFrame(t.Context()); err != nil {
			t.Fatal(err)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
		defer cancel()
		_, err = r.ReadFrame(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 4*time.Second {
			t.Errorf("ReadFrame with a 4s timeout = %v after %v, want context.DeadlineExceeded after 4s", err, time.Since(start))
		}

		ctx, cancel = context.WithCancel(t.Context())
		go func() {
			time.Sleep(2 * time.Second)
			cancel()
		}()
		_, err = r.ReadFrame(ctx)
		if err != context.Canceled || time.Since(start) != 6*time.Second {
			t.Errorf("ReadFrame cancelled after 2s = %v after %v, want context.Canceled after 6s", err, time.Since(start))
		}

		f, err := r.ReadFrame(t.Context())
		if err != nil || !f.At.Equal(t0.Add(10*time.Second)) || time.Since(start) != 10*time.Second {
			t.Errorf("ReadFrame = frame at %v, %v after %v; want the frame at t0+10s after 10s", f.At, err, time.Since(start))
		}
		if _, err := r.ReadFrame(t.Context()); err != nil || time.Since(start) != 12*time.Second {
			t.Errorf("last ReadFrame = %v after %v, want a frame after 12s", err, time.Since(start))
		}
	})
}

// TestReplayPacingHugeGap checks that a gap of centuries at a tiny speed
// waits (saturating) instead of overflowing into a negative wait.
func TestReplayPacingHugeGap(t *testing.T) {
	path := pacedFile(t, time.Unix(0, 0), time.Unix(1<<32-1, 0))
	synctest.Test(t, func(t *testing.T) {
		r, err := capture.OpenReplay(path, capture.ReplayOptions{Speed: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.ReadFrame(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 1000*time.Hour)
		defer cancel()
		if _, err := r.ReadFrame(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ReadFrame = %v, want it still waiting after 1000 hours", err)
		}
	})
}
