package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"dcbtop/capture"
	"dcbtop/engine"
)

// runReplay feeds a capture file through the engine. Indications are
// written as they happen (NDJSON with --events, text lines otherwise); with
// --json the snapshot after the last frame is written. A capture cut short
// still yields what was read before the cut, then the error.
func runReplay(ctx context.Context, o *options, env Env) error {
	src, err := capture.OpenReplay(o.read, capture.ReplayOptions{Speed: o.speed})
	if err != nil {
		return fmt.Errorf("%s: %w", o.read, err)
	}
	defer src.Close()
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

// An eventWriter prints indications: NDJSON for --events, a text log line
// each when no headless output was asked for, nothing for --json.
type eventWriter struct {
	w    io.Writer
	mode int
	enc  *json.Encoder
}

const (
	eventsNone = iota
	eventsJSON
	eventsText
)

func newEventWriter(w io.Writer, o *options) *eventWriter {
	ew := &eventWriter{w: w, enc: json.NewEncoder(w)}
	switch {
	case o.events:
		ew.mode = eventsJSON
	case !o.json:
		ew.mode = eventsText
	}
	return ew
}

func (ew *eventWriter) write(ins []engine.Indication) error {
	for _, in := range ins {
		var err error
		switch ew.mode {
		case eventsJSON:
			err = ew.enc.Encode(in)
		case eventsText:
			_, err = fmt.Fprintln(ew.w, FormatIndication(in))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
