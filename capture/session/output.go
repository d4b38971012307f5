package session

import (
	"io"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
)

// writeJSON writes v as indented JSON followed by a newline, with the
// characters that could act on a terminal escaped (engine.EscapeJSONText).
func writeJSON(w io.Writer, v any) error {
	b, err := engine.MarshalOutput(v, true)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// An eventWriter prints indications as NDJSON for --events, and nothing
// otherwise (--json, the screen).
type eventWriter struct {
	w    io.Writer // nil: print nothing
	on   bool
	text bool // plain lines, not NDJSON
	// host names this host in every NDJSON line ("" leaves it out: a
	// replay's events happened on the captured host, whose name the
	// capture does not carry); each line also gets its event ID.
	host string
	enc  engine.OutputEncoder
}

func newEventWriter(w io.Writer, events, text bool, host string) *eventWriter {
	return &eventWriter{w: w, on: events, text: text, host: host}
}

// write prints one line per indication, escaped as writeJSON does.
func (ew *eventWriter) write(ins []engine.Indication) error {
	if !ew.on {
		return nil
	}
	for i := range ins {
		in := &ins[i]
		if ew.text {
			if _, err := io.WriteString(ew.w, textLine(*in)); err != nil {
				return err
			}
			continue
		}
		ev := *in // the engine's slice is shared: stamp a copy
		ev.Stamp(ew.host)
		b, err := ew.enc.Indication(&ev)
		if err != nil {
			return err
		}
		if _, err := ew.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// textLine is an indication as a plain line for a dumb terminal: time,
// interface, status, reason, the NDIS flags and the peer, control
// characters of wire strings replaced.
func textLine(in engine.Indication) string {
	line := in.Time.Format("15:04:05.000") + " " + engine.Sanitize(in.Interface) + " " + in.Status.String() +
		" " + string(in.Reason) + " " + strings.Join(in.Flags.Names(), "|")
	if in.Peer != "" {
		line += " peer " + engine.Sanitize(in.Peer)
		if in.PeerName != "" {
			line += " (" + engine.Sanitize(in.PeerName) + ")"
		}
	}
	return line + "\n"
}
