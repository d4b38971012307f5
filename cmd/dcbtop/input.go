// SPDX-License-Identifier: Apache-2.0

package main

// Reading what the operator names (a PARAMS file, stdin, a capture file)
// without hanging: bounded in size, and interruptible while it waits for
// a FIFO's writer or a terminal's input.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/dcbtop/dcbtop/engine/dcb"
)

// MaxParamsFile bounds a PARAMS file (dcb.MaxParamsJSON).
const MaxParamsFile = dcb.MaxParamsJSON

// ExitInterrupted is the exit status when SIGINT or SIGTERM ends dcbtop
// while it waits for input, before it did anything (128 + SIGINT, as
// shells report it).
const ExitInterrupted = 130

// errInterrupted is returned when the context ends while waiting for
// input.
var errInterrupted = errors.New("interrupted")

// readBounded reads r to its end, at most limit bytes (more is an error
// naming name and the limit), and returns early with errInterrupted when
// ctx ends first. The read goes on in the background then; dcbtop exits.
func readBounded(ctx context.Context, name string, open func() (io.ReadCloser, error), limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := open()
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer r.Close()
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
		if err == nil && n > limit {
			err = dcb.ErrParamsTooLarge
		}
		done <- result{buf.Bytes(), err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			var pe *fs.PathError
			if errors.As(res.err, &pe) {
				res.err = pe.Err
			}
			return nil, fmt.Errorf("%s: %w", name, res.err)
		}
		return res.b, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w while waiting for input", name, errInterrupted)
	}
}

// isTerminal reports whether f is a character device (a terminal, for
// stdin).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&fs.ModeCharDevice != 0
}

// waitFIFO returns at once unless path is a FIFO. For a FIFO it waits,
// interruptibly, until a writer opens it (opening a FIFO for reading
// blocks until then), holding it open meanwhile: the returned release
// closes that descriptor once the caller has opened the FIFO itself.
func waitFIFO(ctx context.Context, path string) (release func(), err error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return func() {}, nil // not a FIFO; opening reports any error
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		done <- result{f, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, res.err
		}
		return func() { res.f.Close() }, nil
	case <-ctx.Done():
		// Release the blocked open with a writer that comes and goes.
		if w, err := os.OpenFile(path, os.O_WRONLY|nonblock, 0); err == nil {
			w.Close()
			if res := <-done; res.f != nil {
				res.f.Close()
			}
		}
		return nil, fmt.Errorf("%s: %w while waiting for a writer on the FIFO", path, errInterrupted)
	}
}
