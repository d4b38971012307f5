// SPDX-License-Identifier: Apache-2.0

// Package output prints what a run reports on its standard output: the
// indications as they come (--events), one NDJSON line each (the snapshot
// contract's indication, stamped with this host and an event ID) or, for
// a dumb terminal, a plain line; and a final JSON document (--json's
// snapshot, dcbtop check --json's report). Every character a terminal
// would act on or hide is escaped (engine.EscapeJSONText; plain lines
// through engine.Sanitize), so printing what came from the wire cannot
// act on the terminal.
package output

import (
	"io"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
)

// WriteJSON writes v as indented JSON followed by a newline, with the
// characters that could act on a terminal escaped (engine.MarshalOutput).
func WriteJSON(w io.Writer, v any) error {
	b, err := engine.MarshalOutput(v, true)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// An Events prints indications as NDJSON for --events, and nothing
// otherwise (--json, the screen).
type Events struct {
	w    io.Writer // nil: print nothing
	on   bool
	text bool // plain lines, not NDJSON
	// host names this host in every NDJSON line ("" leaves it out: a
	// replay's events happened on the captured host, whose name the
	// capture does not carry); each line also gets its event ID.
	host string
	enc  engine.OutputEncoder
}

// NewEvents returns the printer of --events to w: nothing unless on;
// plain lines with text; host names this host in every NDJSON line (""
// leaves it out: a replay's events happened on the captured host).
func NewEvents(w io.Writer, on, text bool, host string) *Events {
	return &Events{w: w, on: on, text: text, host: host}
}

// Write prints one line per indication, escaped as WriteJSON does.
func (e *Events) Write(ins []engine.Indication) error {
	if !e.on {
		return nil
	}
	for i := range ins {
		in := &ins[i]
		if e.text {
			if _, err := io.WriteString(e.w, textLine(*in)); err != nil {
				return err
			}
			continue
		}
		ev := *in // the engine's slice is shared: stamp a copy
		ev.Stamp(e.host)
		b, err := e.enc.Indication(&ev)
		if err != nil {
			return err
		}
		if _, err := e.w.Write(b); err != nil {
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
