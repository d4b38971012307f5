// SPDX-License-Identifier: Apache-2.0

// Package output prints what a run reports: one Printer, one method per
// record kind, a switch on its Format (hubble's printer is the model).
// The indications as they come (--events: one NDJSON line each, the
// snapshot contract's indication stamped with this host and an event ID,
// or a plain line for a dumb terminal), a final snapshot (--json), a
// replay's LLDPDUs (--frames: a line or an NDJSON document each), and
// dcbtop check's report (text, JSON, JUnit XML, or the Prometheus text
// of --textfile). Every character a terminal would act on or hide is
// escaped (engine.EscapeJSONText; plain lines through engine.Sanitize),
// so printing what came from the wire cannot act on the terminal.
package output

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/frames"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// A Format is how a Printer writes its records.
type Format uint8

// Formats.
const (
	// JSON: a document per record (indented), an NDJSON line per
	// indication.
	JSON Format = iota
	// Text: for people: a plain line per indication, the check report's
	// text.
	Text
	// JUnit: the check report as JUnit XML.
	JUnit
	// Textfile: the check report as Prometheus metrics in the text
	// exposition format, for node_exporter's textfile collector
	// (engine/metrics.NewCheckRegistry).
	Textfile
)

// A Printer writes records to its writer in its format. It is not safe
// for concurrent use.
type Printer struct {
	w      io.Writer
	format Format
	color  bool
	// host names this host in every NDJSON indication ("" leaves it out:
	// a replay's events happened on the captured host, whose name the
	// capture does not carry); each line also gets its event ID.
	host       string
	start, end time.Time // the check run's (Textfile)
	enc        engine.OutputEncoder
}

// An Option sets a Printer up.
type Option func(*Printer)

// WithColor colours the check report's verdicts (Text, on a terminal).
func WithColor(on bool) Option { return func(p *Printer) { p.color = on } }

// WithHost names this host in every NDJSON indication.
func WithHost(host string) Option { return func(p *Printer) { p.host = host } }

// WithRun says when the check run started and ended, on the wall clock
// (Textfile: its duration and last-run metrics).
func WithRun(start, end time.Time) Option {
	return func(p *Printer) { p.start, p.end = start, end }
}

// New returns a Printer of format f to w.
func New(w io.Writer, f Format, opts ...Option) *Printer {
	p := &Printer{w: w, format: f}
	for _, o := range opts {
		o(p)
	}
	return p
}

// errFormat is the answer to a record a format has no form for.
func (p *Printer) errFormat(what string) error {
	return fmt.Errorf("output: %s has no %s form", what, [...]string{"JSON", "text", "JUnit", "textfile"}[p.format])
}

// Indications prints one line per indication: NDJSON (JSON), escaped as
// every JSON output is, or a plain line (Text).
func (p *Printer) Indications(ins []engine.Indication) error {
	for i := range ins {
		in := &ins[i]
		switch p.format {
		case Text:
			if _, err := io.WriteString(p.w, textLine(*in)); err != nil {
				return err
			}
		case JSON:
			ev := *in // the engine's slice is shared: stamp a copy
			ev.Stamp(p.host)
			b, err := p.enc.Indication(&ev)
			if err != nil {
				return err
			}
			if _, err := p.w.Write(b); err != nil {
				return err
			}
		default:
			return p.errFormat("an indication")
		}
	}
	return nil
}

// Snapshot prints s as the snapshot contract's JSON document.
func (p *Printer) Snapshot(s engine.Snapshot) error {
	if p.format != JSON {
		return p.errFormat("a snapshot")
	}
	return p.json(s)
}

// Frame prints one LLDPDU of a run (dcbtop -r FILE --frames): a line of
// text (frames.Record.Line: its number, time, interface, direction,
// sender, length and what changed), or its JSON document as one NDJSON
// line (frames.Record.Doc: the same, with the LLDPDU's hex and decode),
// escaped as every JSON output is.
func (p *Printer) Frame(r frames.Record) error {
	switch p.format {
	case Text:
		_, err := io.WriteString(p.w, r.Line()+"\n")
		return err
	case JSON:
		b, err := p.enc.Line(r.Doc())
		if err != nil {
			return err
		}
		_, err = p.w.Write(b)
		return err
	}
	return p.errFormat("a frame")
}

// FrameDetail prints one LLDPDU in full (dcbtop -r FILE --frame N): in
// text its heading, what changed, its hex dump and its decode
// (frames.DetailLines, 16 bytes a line); in JSON as Frame does.
func (p *Printer) FrameDetail(r frames.Record) error {
	if p.format != Text {
		return p.Frame(r)
	}
	_, err := io.WriteString(p.w, strings.Join(frames.DetailLines(r, 16), "\n")+"\n")
	return err
}

// Check prints dcbtop check's report: JSON (assets/check.schema.json),
// text, JUnit XML or the textfile's metrics.
func (p *Printer) Check(r check.Report) error {
	switch p.format {
	case JSON:
		return p.json(r)
	case Text:
		return checkText(p.w, r, p.color)
	case JUnit:
		return checkJUnit(p.w, r)
	case Textfile:
		mfs, err := metrics.NewCheckRegistry(r, p.start, p.end).Gather()
		if err != nil {
			return err
		}
		for _, mf := range mfs {
			if _, err := expfmt.MetricFamilyToText(p.w, mf); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("output: unknown format")
}

// json writes v as indented JSON followed by a newline, with the
// characters that could act on a terminal escaped (engine.MarshalOutput).
func (p *Printer) json(v any) error {
	b, err := engine.MarshalOutput(v, true)
	if err != nil {
		return err
	}
	_, err = p.w.Write(b)
	return err
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
