package runtime

import (
	"encoding/json"
	"io"

	"github.com/dcbtop/dcbtop/engine"
)

// writeJSON writes v as indented JSON followed by a newline, with the
// characters that could act on a terminal escaped (engine.EscapeJSONText).
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(engine.EscapeJSONText(b), '\n'))
	return err
}

// An eventWriter prints indications as NDJSON for --events, and nothing
// otherwise (--json, the screen).
type eventWriter struct {
	w  io.Writer // nil: print nothing
	on bool
}

func newEventWriter(w io.Writer, events bool) *eventWriter {
	return &eventWriter{w: w, on: events}
}

// write prints one line per indication, escaped as writeJSON does.
func (ew *eventWriter) write(ins []engine.Indication) error {
	if !ew.on {
		return nil
	}
	for _, in := range ins {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		if _, err := ew.w.Write(append(engine.EscapeJSONText(b), '\n')); err != nil {
			return err
		}
	}
	return nil
}
