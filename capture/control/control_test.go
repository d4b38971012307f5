// SPDX-License-Identifier: Apache-2.0

package control

import (
	"bytes"
	"encoding/json"
	"net"
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
