package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
)

// runReplay feeds a capture file through the engine: on the screen (see
// runReplayTUI), or headless. Headless, indications are written as they
// happen (NDJSON with --events); with --json the snapshot after the last
// frame is written. A capture cut short still yields what was read before
// the cut, then the error.
func runReplay(ctx context.Context, o *options, env Env) error {
	if o.tui {
		return runReplayTUI(ctx, o, env)
	}
	src, err := capture.OpenReplay(o.read, capture.ReplayOptions{Speed: o.speed})
	if err != nil {
		return fmt.Errorf("%s: %w", o.read, err)
	}
	defer src.Close()
	o.announce(env)
	eng := engine.New(engine.Config{})
	out := newEventWriter(env.Stdout, o)
	var readErr error
	for {
		f, err := src.ReadFrame(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		ins := eng.Apply(engine.FrameReceived{Interface: f.Interface, At: f.At,
			Outgoing: f.Dir == capture.DirectionOutgoing, Data: f.Data})
		if err := out.write(ins); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if o.json {
		if err := writeJSON(env.Stdout, eng.Snapshot()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if readErr != nil {
		if errors.Is(readErr, context.Canceled) {
			return nil
		}
		return fmt.Errorf("%s: %w", o.read, readErr)
	}
	return nil
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// An eventWriter prints indications as NDJSON for --events, and nothing
// otherwise (--json, the screen).
type eventWriter struct {
	enc *json.Encoder // nil: print nothing
}

func newEventWriter(w io.Writer, o *options) *eventWriter {
	if !o.events {
		return &eventWriter{}
	}
	return &eventWriter{enc: json.NewEncoder(w)}
}

func (ew *eventWriter) write(ins []engine.Indication) error {
	if ew.enc == nil {
		return nil
	}
	for _, in := range ins {
		if err := ew.enc.Encode(in); err != nil {
			return err
		}
	}
	return nil
}
