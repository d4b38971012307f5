// SPDX-License-Identifier: Apache-2.0

package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/google/go-cmp/cmp"
)

// What apply sends is what the server reads back.
func TestRequestEncoding(t *testing.T) {
	no := false
	p := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{}}
	b, err := encodeRequest(Request{Op: "apply", Params: p, Willing: &no})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readRequest(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Request{Op: "apply", Params: p, Willing: &no}, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got.Params.App == nil {
		t.Error("an empty APP list (clear the table) became absent")
	}
}

// A request over the limit: the client says so without sending it, and a
// client that sends it anyway (raw, 17 MB) gets the server's limit error,
// not a broken pipe.
func TestOversizeRequest(t *testing.T) {
	dir := t.TempDir()
	calls := make(chan Call)
	s, err := Listen(dir, "eth0", calls)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Close()
	big := append(append([]byte(`{"op":"apply","params":{"app":[`), bytes.Repeat([]byte(`{"selector":"udp-port","protocol":4791,"priority":3},`), 17<<20/52)...), []byte(`]}}`+"\n")...)
	if _, err := DoRaw(s.Addr(), big, 5*time.Second); err == nil || !strings.Contains(err.Error(), "exceeds the control socket's limit of 64 KiB") {
		t.Errorf("DoRaw of %d bytes: %v, want the limit named", len(big), err)
	}
	// Past the client's check: the server answers with its limit.
	c, err := net.Dial("unix", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	go func() { _, _ = c.Write(big) }()
	var resp Response
	if err := json.NewDecoder(c).Decode(&resp); err != nil || resp.OK || !strings.Contains(resp.Error, "request larger than 64 KiB") {
		t.Errorf("server answer %+v, %v; want the limit error", resp, err)
	}
}

// A request nested past jsondoc.MaxDepth is refused as its bytes
// arrive, with the place and the limit, before any per-level work: such
// a request once took the agent from 16 MB to 180 MB.
func TestDeepRequest(t *testing.T) {
	deep := `{"op":"apply","params":{"ets":` + strings.Repeat("[", 60000) + "\n"
	_, err := readRequest(strings.NewReader(deep))
	if err == nil || !strings.Contains(err.Error(), "line 1, column 37: nested deeper than 8 levels") {
		t.Fatalf("readRequest of a deep request: %v", err)
	}
	// At the limit the request is read; its parameters are merely wrong.
	ok := `{"op":"apply","params":{"ets":{"prio_tc":[[[[[1]]]]]}}}`
	if _, err := readRequest(strings.NewReader(ok)); err == nil || strings.Contains(err.Error(), "nested") {
		t.Fatalf("readRequest of an 8-deep request: %v", err)
	}
}

// A call the engine had not claimed when its connection's deadline passed
// is abandoned: the engine, getting to it later (a process stopped past
// the deadline), may not carry it out, and the client is told it was not
// applied. One the engine claimed in time is answered.
func TestCallAbandoned(t *testing.T) {
	calls := make(chan Call, 1) // delivered at once: the engine has it but does not run
	srv, err := Listen(t.TempDir(), "h0", calls)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTimeout(100 * time.Millisecond)
	srv.Start()
	defer srv.Close()
	yes := true
	resp, err := Do(srv.Addr(), Request{Op: "apply", Willing: &yes}, time.Second)
	if err != nil || resp.OK || !strings.Contains(resp.Error, "not applied") {
		t.Errorf("an apply the engine never got to: %+v, %v; want not applied", resp, err)
	}
	if c := <-calls; c.Claim() {
		t.Error("the engine claimed a call its connection had given up")
	}
	// In time: claimed and answered.
	go func() {
		c := <-calls
		if !c.Claim() {
			t.Error("a call in time could not be claimed")
		}
		c.Reply <- Response{OK: true}
	}()
	if resp, err := Do(srv.Addr(), Request{Op: "get"}, time.Second); err != nil || !resp.OK {
		t.Errorf("a call in time: %+v, %v", resp, err)
	}
	// Past its deadline (the process was stopped): never claimed.
	late := Call{Deadline: time.Now().Add(-time.Millisecond), state: new(atomic.Int32)}
	if late.Claim() {
		t.Error("a call past its deadline was claimed")
	}
}

// testServer listens in a temporary directory; the test plays the
// engine on calls.
func testServer(t *testing.T) (*Server, chan Call) {
	t.Helper()
	calls := make(chan Call, 1)
	srv, err := Listen(t.TempDir(), "h0", calls)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, calls
}

// A request's deadline is the client's, on CLOCK_MONOTONIC: one that has
// passed when the agent reads it, or that lies further ahead than any
// client of this host's clock would set, is refused unread by the engine.
func TestRequestDeadline(t *testing.T) {
	srv, calls := testServer(t)
	now, ok := monotonic()
	if !ok {
		t.Skip("no CLOCK_MONOTONIC")
	}
	for _, tc := range []struct {
		deadline int64
		want     string
	}{
		{now - int64(time.Second), "not applied: the request's deadline passed 1s before the agent read it"},
		{now + int64(2*time.Minute), "not applied: deadline_ns is 2m0s ahead, more than 1m0s"},
	} {
		req := fmt.Sprintf(`{"op":"apply","willing":false,"deadline_ns":%d}`, tc.deadline)
		resp, err := DoRaw(srv.Addr(), []byte(req), 5*time.Second)
		if err != nil || resp.OK || !strings.HasPrefix(resp.Error, tc.want[:40]) || !strings.Contains(resp.Error, strings.Fields(tc.want)[len(strings.Fields(tc.want))-1]) {
			t.Errorf("%s: %+v, %v; want %q", req, resp, err, tc.want)
		}
	}
	select {
	case c := <-calls:
		t.Errorf("the engine got %+v", c.Req)
	default:
	}
}

// The agent's first line to a request with a deadline says it is taken;
// the answer follows. Do reads both.
func TestTakenThenAnswer(t *testing.T) {
	srv, calls := testServer(t)
	go func() {
		c := <-calls
		if !c.Claim() {
			t.Error("a call in time could not be claimed")
			return
		}
		time.Sleep(200 * time.Millisecond) // the kernel's writes
		c.Reply <- Response{OK: true, Interface: "h0"}
	}()
	now, _ := monotonic()
	conn, err := net.Dial("unix", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, `{"op":"get","deadline_ns":%d}`+"\n", now+int64(2*time.Second))
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	var lines []string
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if want := []string{`{"taken":true}`, `{"ok":true,"interface":"h0"}`}; !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q", lines, want)
	}
	// Through Do.
	go func() {
		c := <-calls
		c.Claim()
		c.Reply <- Response{OK: true, Interface: "h0"}
	}()
	if resp, err := Do(srv.Addr(), Request{Op: "get"}, time.Second); err != nil || !resp.OK || resp.Taken {
		t.Errorf("Do: %+v, %v", resp, err)
	}
}

// What Do knows when no answer comes: not taken by the deadline, not
// applied; taken, it may be applied.
func TestNoAnswer(t *testing.T) {
	defer func(d time.Duration) { takenWait = d }(takenWait)
	takenWait = 300 * time.Millisecond
	srv, calls := testServer(t)
	// The engine never gets to it; the connection gives up at the
	// deadline and says so (the client reads that answer).
	resp, err := Do(srv.Addr(), Request{Op: "get"}, 200*time.Millisecond)
	if err != nil || resp.OK || !strings.Contains(resp.Error, "not applied") {
		t.Errorf("not taken: %+v, %v", resp, err)
	}
	<-calls
	// The engine takes it and is stopped before it answers.
	stuck := make(chan struct{})
	defer close(stuck)
	go func() {
		c := <-calls
		c.Claim()
		<-stuck
	}()
	// Which of the two ends gives up first is a race of timers (the
	// agent's answer after its grace, the client's takenWait): both say
	// the same.
	resp, err = Do(srv.Addr(), Request{Op: "get"}, 200*time.Millisecond)
	said := resp.Error
	if na, ok := errors.AsType[*NoAnswerError](err); ok && na.Taken {
		said = err.Error()
	} else if err != nil {
		said = ""
	}
	if resp.OK || !strings.Contains(said, "it may be applied") {
		t.Errorf("taken, the engine stuck: %+v, %v; want may be applied", resp, err)
	}
	// An agent stopped after it said taken: nothing more comes.
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "stopped.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintln(c, `{"taken":true}`)
		<-stuck
	}()
	_, err = Do(ln.Addr().String(), Request{Op: "get"}, 200*time.Millisecond)
	var na *NoAnswerError
	if !errors.As(err, &na) || !na.Taken || !strings.Contains(err.Error(), "it may be applied") {
		t.Errorf("taken, then silence: %v; want a NoAnswerError with Taken", err)
	}
	// A listener that never accepts (a stopped process's backlog).
	start := time.Now()
	_, err = Do(ln.Addr().String(), Request{Op: "apply", Willing: new(bool)}, 200*time.Millisecond)
	if !errors.As(err, &na) || na.Taken || na.Deadline.IsZero() || !strings.Contains(err.Error(), "not applied, and never applied later") {
		t.Errorf("stopped agent: %v; want a NoAnswerError, not taken, with its deadline", err)
	}
	if took := time.Since(start); took < 200*time.Millisecond+answerGrace || took > 2*answerGrace+200*time.Millisecond {
		t.Errorf("Do gave up after %v: want a grace of %v past the deadline", took, answerGrace)
	}
}

// A call whose client cannot be told it is taken (it closed the
// connection) is not the engine's; nor is one past its deadline, even
// once its client was told (the refusal follows).
func TestClaimOrder(t *testing.T) {
	gone := Call{Deadline: time.Now().Add(time.Minute), state: new(atomic.Int32), take: func() bool { return false }}
	if gone.Claim() {
		t.Error("claimed a call whose client is gone")
	}
	told := false
	late := Call{Deadline: time.Now().Add(-time.Millisecond), state: new(atomic.Int32), take: func() bool { told = true; return true }}
	if late.Claim() || !told {
		t.Errorf("a call past its deadline: claimed %v, told %v; want refused after the client was told", !late.Claim(), told)
	}
}

// A view socket (a dcbtop without an agent there) hands "show" and "get"
// to the engine, marked View, and refuses anything else itself; a second
// dcbtop finds it taken; its path is apart from the control socket's.
func TestViewSocket(t *testing.T) {
	dir := t.TempDir()
	calls := make(chan Call, 1)
	s, err := ListenView(dir, "eth0", calls)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Close()
	if s.Addr() != ViewPath(dir, "eth0") || s.Addr() == Path(dir, "eth0") {
		t.Errorf("view socket at %s (control socket %s)", s.Addr(), Path(dir, "eth0"))
	}
	go func() {
		c := <-calls
		c.Reply <- Response{OK: c.View && c.Req.Op == "show", Interface: c.Iface}
	}()
	if resp, err := Do(s.Addr(), Request{Op: "show"}, 5*time.Second); err != nil || !resp.OK {
		t.Errorf("show on the view socket: %+v, %v; want a View call answered", resp, err)
	}
	resp, err := Do(s.Addr(), Request{Op: "undo"}, 5*time.Second)
	if err != nil || resp.OK || !strings.Contains(resp.Error, "runs no agent here") {
		t.Errorf("undo on the view socket: %+v, %v; want a refusal", resp, err)
	}
	if _, err := ListenView(dir, "eth0", calls); !errors.Is(err, ErrViewTaken) {
		t.Errorf("a second view socket: %v, want ErrViewTaken", err)
	}
	s.Close()
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("the run directory holds %v after the last view socket closed", names)
	}
}
