package runtime

import (
	"encoding/json"
	"io"

	"github.com/dcbtop/dcbtop/engine"
)

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
