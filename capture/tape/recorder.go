// SPDX-License-Identifier: Apache-2.0

package tape

import (
	"fmt"
	"io"
	"time"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/pcap"
)

// A Recorder is a run's recording (-w): a pcapng file that gets every
// LLDPDU seen and, beside them, the host's inputs (docs/recording.md).
// Each error names the file. Every method of a nil Recorder (a run that
// does not record) does nothing and returns nil, so that a caller need not
// ask.
type Recorder struct {
	w    *pcap.Writer
	name string
}

// NewRecorder creates the recording name: "-" is standard output, written to
// stdout (as tcpdump -w -).
func NewRecorder(name string, stdout io.Writer) (*Recorder, error) {
	var (
		w   *pcap.Writer
		err error
	)
	if name == "-" {
		if w, err = pcap.NewWriter(stdout); err != nil {
			return nil, fmt.Errorf("-w -: %w", err)
		}
	} else if w, err = pcap.Create(name); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Recorder{w: w, name: name}, nil
}

// NewTap returns a Tap when r records, else nil (it collects nothing and
// costs nothing).
func (r *Recorder) NewTap() *Tap {
	if r == nil {
		return nil
	}
	return NewTap()
}

// Frame records an LLDPDU.
func (r *Recorder) Frame(f capture.Frame) error {
	if r == nil {
		return nil
	}
	return r.wrap(r.w.WriteFrame(f))
}

// Records records recs, read at at (Write).
func (r *Recorder) Records(at time.Time, recs ...Record) error {
	if r == nil || len(recs) == 0 {
		return nil
	}
	return r.wrap(Write(r.w, at, recs))
}

// Round records a round of reads (WriteRound).
func (r *Recorder) Round(at time.Time, b Begin, recs []Record) error {
	if r == nil {
		return nil
	}
	return r.wrap(WriteRound(r.w, at, b, recs))
}

// Close flushes and closes the recording.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	return r.wrap(r.w.Close())
}

// wrap names the recording in err.
func (r *Recorder) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return nil
}
