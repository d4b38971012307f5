// SPDX-License-Identifier: Apache-2.0

package control

// The wire protocol: one JSON request line, JSON response lines.

import (
	"bufio"
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/jsondoc"
)

// A Request is a decoded request.
type Request struct {
	Op      string
	Params  *dcb.Params // apply: the features to change; nil: none
	Willing *bool       // apply: the new Willing state; nil: unchanged
	// DeadlineNS is the request's deadline on CLOCK_MONOTONIC, in
	// nanoseconds; 0: none (the agent's own applies). Do sets it.
	DeadlineNS int64
}

// requestJSON is a request on the wire.
type requestJSON struct {
	Op         string         `json:"op"`
	Params     jsontext.Value `json:"params,omitzero"`
	Willing    *bool          `json:"willing,omitempty"`
	DeadlineNS int64          `json:"deadline_ns,omitzero"`
}

// A LocalState is an agent's local parameters and Willing state: on the
// wire {"willing":..,"local":PARAMS}.
type LocalState = engine.LocalState

// A Response is a response on the wire. An error response has only
// ok (false) and error.
type Response struct {
	OK          bool        `json:"ok"`
	Error       string      `json:"error,omitempty"`
	Interface   string      `json:"interface,omitempty"`
	PID         int         `json:"pid,omitzero"`
	Previous    *LocalState `json:"previous,omitempty"`
	Willing     *bool       `json:"willing,omitempty"`
	Local       *dcb.Params `json:"local,omitempty"`
	Operational *dcb.Params `json:"operational,omitempty"`
	// Changed lists what an apply or undo changed: "ets", "ets_reco",
	// "pfc", "app", "willing" (empty when nothing did).
	Changed []string `json:"changed,omitempty"`
	// Taken is the agent's first line to a request with a deadline: it
	// has taken the request and carries it out now (no other field).
	Taken bool `json:"taken,omitzero"`
	// Snapshot answers "show": the interface as the running dcbtop sees
	// it now (peers, local, remote, operational, diagnostics, checks), a
	// snapshot's interface object as dcbtop --json writes it
	// (engine.MarshalOutput); At is when it was taken.
	Snapshot jsontext.Value `json:"snapshot,omitempty"`
	At       time.Time      `json:"at,omitzero"`
	// Kept is where an apply or undo that changed something was kept for
	// the next agent on the port (capture/statedir), read back; KeptError
	// why it was not (the write is in force all the same). Both empty
	// when the agent keeps nothing (the demo) or nothing changed.
	Kept      string `json:"kept,omitempty"`
	KeptError string `json:"kept_error,omitempty"`
}

func Errorf(format string, args ...any) Response {
	return Response{Error: fmt.Sprintf(format, args...)}
}

// encodeRequest renders a request for the wire.
func encodeRequest(req Request) ([]byte, error) {
	j := requestJSON{Op: req.Op, Willing: req.Willing, DeadlineNS: req.DeadlineNS}
	if req.Params != nil {
		b, err := json.Marshal(req.Params)
		if err != nil {
			return nil, err
		}
		j.Params = b
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeRequest decodes the request raw, naming each problem at its
// place as PARAMS' errors do: "bad request: line 1, column 13: unknown
// field "force" (want op, params or willing)".
func decodeRequest(raw []byte) (requestJSON, error) {
	var j requestJSON
	d, root := jsondoc.Read(raw)
	if root != nil && d.WantObject(root, "", "a request object") {
		for _, m := range root.Members {
			switch v := m.Value; m.Key {
			case "op":
				d.Leaf(v, "op", "a string", &j.Op)
			case "willing":
				d.Leaf(v, "willing", "true, false or null", &j.Willing)
			case "params":
				j.Params = raw[v.Off:v.End]
			case "deadline_ns":
				d.Leaf(v, "deadline_ns", "nanoseconds of CLOCK_MONOTONIC", &j.DeadlineNS)
			default:
				d.Unknown(m, "", "op, params, willing or deadline_ns")
			}
		}
	} else if root != nil && root.Null() {
		d.Errorf(root.Off, "", "want a request object, got null")
	}
	return j, d.Err("bad request")
}

// readRequest reads and decodes one request of at most
// MaxRequest bytes. Its errors are one line, for the response.
func readRequest(r io.Reader) (Request, error) {
	lr := &io.LimitedReader{R: r, N: MaxRequest + 1}
	// The depth is checked as the bytes arrive, before any work per
	// level (jsondoc.MaxDepth).
	raw, err := jsondoc.ReadValue(lr)
	if err != nil {
		if lr.N <= 0 {
			return Request{}, fmt.Errorf("request larger than %d KiB", MaxRequest>>10)
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return Request{}, fmt.Errorf("no complete request in time: %w", err)
		}
		if errors.Is(err, io.EOF) {
			return Request{}, errors.New("bad request: empty")
		}
		return Request{}, fmt.Errorf("bad request: %s", OneLine(err.Error()))
	}
	j, err := decodeRequest(raw)
	if err != nil {
		return Request{}, errors.New(OneLine(err.Error()))
	}
	req := Request{Op: j.Op, Willing: j.Willing, DeadlineNS: j.DeadlineNS}
	if len(j.Params) > 0 && !bytes.Equal(bytes.TrimSpace(j.Params), []byte("null")) {
		p, err := dcb.ParseParams(bytes.NewReader(j.Params))
		if err != nil {
			return Request{}, fmt.Errorf("params: %s", OneLine(err.Error()))
		}
		req.Params = p
	}
	switch req.Op {
	case "get", "undo", "show":
		if req.Params != nil || req.Willing != nil {
			return Request{}, fmt.Errorf("%s takes no params or willing", req.Op)
		}
	case "apply":
		if req.Params == nil && req.Willing == nil {
			return Request{}, errors.New("apply: nothing to apply (give params, willing or both)")
		}
	case "":
		return Request{}, errors.New(`bad request: no "op" (want get, show, apply or undo)`)
	default:
		return Request{}, fmt.Errorf("unknown op %q (want get, show, apply or undo)", OneLine(req.Op))
	}
	return req, nil
}

// oneLine keeps an error message on one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(engine.Sanitize(s)), " ")
}

// A lineReader reads the answer's lines, keeping a line cut by a
// timeout for the next read.
type lineReader struct {
	r       *bufio.Reader
	pending []byte
}

// read reads one line of the answer into resp.
func (lr *lineReader) read(resp *Response) error {
	line, err := lr.r.ReadBytes('\n')
	lr.pending = append(lr.pending, line...)
	if err != nil && (len(lr.pending) == 0 || !errors.Is(err, io.EOF)) {
		return err
	}
	line, lr.pending = lr.pending, nil
	*resp = Response{}
	if err := json.Unmarshal(line, resp); err != nil {
		return fmt.Errorf("bad answer: %w", err)
	}
	return nil
}
