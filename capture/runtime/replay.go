package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/engine"
)

// Replay feeds the capture file path through the engine, headless, at
// speed (0 as fast as possible): with events, indications are printed to
// out as they happen (NDJSON); with json the snapshot after the last
// frame. opened, when not nil, is called once the file is open. A capture
// cut short still yields what was read before the cut, then the error.
func Replay(ctx context.Context, path string, speed float64, events, json bool, out io.Writer, opened func()) error {
	src, err := capture.OpenReplay(path, capture.ReplayOptions{Speed: speed})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer src.Close()
	if opened != nil {
		opened()
	}
	eng := engine.New(engine.Config{})
	ew := newEventWriter(out, events)
	var readErr error
	for {
		f, err := src.ReadFrame(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		ins := eng.Apply(frameEvent(f.Interface, f, f.At))
		if err := ew.write(ins); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if json {
		if err := writeJSON(out, eng.Snapshot()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if readErr != nil {
		if errors.Is(readErr, context.Canceled) {
			return nil
		}
		return fmt.Errorf("%s: %w", path, readErr)
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

func newEventWriter(w io.Writer, events bool) *eventWriter {
	if !events {
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
