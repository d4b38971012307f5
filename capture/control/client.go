// SPDX-License-Identifier: Apache-2.0

package control

// The client's side: dcbtop apply and the other agents' questions.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// takenWait is how long Do waits for the answer once the agent has
// taken the request (its kernel writes and read-backs); a variable for
// the tests.
var takenWait = 10 * time.Second

// A DialError is a failure to connect to a control socket (as
// opposed to a failure after connecting).
type DialError struct{ Err error }

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// A NoAnswerError is a request the agent did not answer in time. For a
// request with a deadline (Do's) it says exactly what is known: not
// Taken, the request was not applied and never will be (the agent takes
// none past Deadline, and says so before it carries one out); Taken, the
// agent took it before the deadline and then gave no answer, so it may
// be applied.
type NoAnswerError struct {
	// Deadline is the request's deadline (the wall clock's reading of
	// it); zero for a request without one.
	Deadline time.Time
	Taken    bool
	Err      error // what the wait ended on
}

func (e *NoAnswerError) Error() string {
	switch {
	case e.Taken:
		return fmt.Sprintf("the agent took the request but gave no answer (%v): it may be applied", e.Err)
	case e.Deadline.IsZero():
		return fmt.Sprintf("no answer (%v)", e.Err)
	default:
		return fmt.Sprintf("the agent did not take the request by its deadline %s (%v): not applied, and never applied later", e.Deadline.Format("15:04:05.000"), e.Err)
	}
}

func (e *NoAnswerError) Unwrap() error { return e.Err }

// Do sends one request to the control socket at path and returns the
// response. The request carries a deadline timeout ahead (DeadlineNS),
// unless it has one: Do waits answerGrace past it for the agent's first
// line, and takenWait more once the agent has taken the request. A
// failure to connect is a *DialError, no answer a *NoAnswerError.
func Do(path string, req Request, timeout time.Duration) (Response, error) {
	var deadline time.Time
	if req.DeadlineNS == 0 {
		if now, ok := monotonic(); ok {
			req.DeadlineNS, deadline = now+int64(timeout), time.Now().Add(timeout)
		}
	}
	b, err := encodeRequest(req)
	if err != nil {
		return Response{}, err
	}
	if !deadline.IsZero() {
		timeout += answerGrace
	}
	return do(path, b, timeout, deadline)
}

// DoRaw sends request bytes and decodes the response, within timeout. A
// request over MaxRequest is refused before it is sent (the server would
// answer with the limit and close, and the rest of the write would fail
// with a broken pipe); if the write fails anyway, the server's answer is
// read and returned when it gave one.
func DoRaw(path string, request []byte, timeout time.Duration) (Response, error) {
	return do(path, request, timeout, time.Time{})
}

// do sends request and reads the answer: a taken line (which extends the
// wait by takenWait), then the response.
func do(path string, request []byte, timeout time.Duration, deadline time.Time) (Response, error) {
	var resp Response
	if len(request) > MaxRequest {
		return resp, fmt.Errorf("request of %d KiB exceeds the control socket's limit of %d KiB", len(request)>>10, MaxRequest>>10)
	}
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return resp, &DialError{Err: err}
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	r := &lineReader{r: bufio.NewReaderSize(io.LimitReader(c, 4<<20), 4096)}
	if _, werr := c.Write(request); werr != nil {
		// The server may have answered (and closed) before reading it all.
		if err := r.read(&resp); err == nil && resp.Error != "" {
			return resp, nil
		}
		return Response{}, werr
	}
	if uc, ok := c.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
	taken := false
	for {
		err := r.read(&resp)
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && !taken {
			// A taken line that came as the wait ended counts: read what
			// is there once more before saying it was not taken.
			_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			err = r.read(&resp)
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				return Response{}, &NoAnswerError{Deadline: deadline, Err: errors.New("no line within " + timeout.String())}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return Response{}, &NoAnswerError{Deadline: deadline, Taken: taken, Err: errors.New("closed without an answer")}
		case err != nil:
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				return Response{}, &NoAnswerError{Deadline: deadline, Taken: taken, Err: errors.New("no answer within " + takenWait.String() + " of it")}
			}
			return Response{}, err
		case resp.Taken && !resp.OK && resp.Error == "":
			taken = true
			resp = Response{}
			_ = c.SetReadDeadline(time.Now().Add(takenWait))
			continue
		}
		if !resp.OK && resp.Error == "" {
			resp.Error = "error without a message"
		}
		return resp, nil
	}
}
