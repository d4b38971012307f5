// SPDX-License-Identifier: Apache-2.0

//go:build unix

package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/control"
	"github.com/dcbtop/dcbtop/capture/operator"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// A testAgent is a liveRun with one agent interface, h0 (no socket: its
// frames are built but not sent), served by a control socket, with a
// goroutine standing in for liveRun.loop: the engine is only touched
// there.
type testAgent struct {
	t    *testing.T
	r    *liveRun
	li   *liveIface
	out  *bytes.Buffer // the NDJSON indications
	srv  *control.Server
	path string
	do   chan func()
}

var testMAC = lldp.MAC{2, 0, 0, 0, 0, 1}

func startTestAgent(t *testing.T, dir string, local *dcb.Params, willing bool, timeout ...time.Duration) *testAgent {
	t.Helper()
	out := &bytes.Buffer{}
	h := host.New(host.Config{Agent: host.AgentConfig{SystemName: "test", TxInterval: time.Second, Willing: willing, Local: local, LocalFrom: "the test's"}})
	r := &liveRun{cfg: &Config{Events: true, Agent: true, Out: out}, h: h, out: output.New(out, output.JSON),
		events: make(chan engine.Event, 16), byName: map[string]*liveIface{}, control: make(chan control.Call), calls: make(chan loopCall), clk: capture.Clock{}}
	li := newIface(capture.Link{Name: "h0"}, nil, nil)
	r.byName["h0"] = li
	now := time.Now().UTC()
	r.apply(engine.LinkChanged{Interface: "h0", At: now, Ifindex: 2, MAC: testMAC, Up: true})
	plan, ok, err := h.PlanAgent("h0", nil)
	if err != nil || !ok {
		t.Fatalf("PlanAgent: %v, %v", ok, err)
	}
	_, res, err := h.StartAgent(plan, now)
	if err != nil {
		t.Fatal(err)
	}
	r.carryOut(res, false)
	srv, err := control.Listen(dir, "h0", r.control)
	if err != nil {
		t.Fatal(err)
	}
	if len(timeout) > 0 {
		srv.SetTimeout(timeout[0])
	}
	ta := &testAgent{t: t, r: r, li: li, out: out, srv: srv, path: srv.Addr(), do: make(chan func())}
	stop := make(chan struct{})
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for {
			select {
			case c := <-r.control:
				c.Reply <- r.handleControl(c)
			case f := <-ta.do:
				f()
			case c := <-r.calls: // r.do: the backend's host refresh
				c.fn()
				close(c.done)
			case <-stop:
				return
			}
		}
	}()
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		close(stop)
		<-loopDone
	})
	return ta
}

// onLoop runs f on the loop goroutine.
func (ta *testAgent) onLoop(f func()) {
	done := make(chan struct{})
	ta.do <- func() { f(); close(done) }
	<-done
}

// indications returns the NDJSON lines written so far, decoded, and
// forgets them.
func (ta *testAgent) indications() []engine.Indication {
	var ins []engine.Indication
	ta.onLoop(func() {
		dec := json.NewDecoder(ta.out)
		for {
			var in engine.Indication
			if err := dec.Decode(&in); err != nil {
				break
			}
			ins = append(ins, in)
		}
		ta.out.Reset()
	})
	return ins
}

func (ta *testAgent) call(req string) control.Response {
	ta.t.Helper()
	resp, err := control.DoRaw(ta.path, []byte(req), 5*time.Second)
	if err != nil {
		ta.t.Fatalf("%s: %v", req, err)
	}
	return resp
}

func (ta *testAgent) frame() []byte {
	var f []byte
	ta.onLoop(func() { f = append(f, ta.r.h.AgentFrame("h0")...) })
	return f
}

// framePFC decodes the PFC TLV of the agent's current frame.
func framePFC(t *testing.T, f []byte) *lldp.PFC {
	t.Helper()
	du, err := lldp.Parse(f[14:])
	if err != nil {
		t.Fatal(err)
	}
	return du.PFC()
}

func TestControlRoundTrip(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	initial := agent.DefaultLocal()
	ta := startTestAgent(t, dir, initial, true)
	ta.indications() // the start-up ones

	// get
	resp := ta.call(`{"op":"get"}`)
	wantInitial := initial.WithWilling(true)
	if !resp.OK || resp.Interface != "h0" || resp.PID != os.Getpid() || resp.Willing == nil || !*resp.Willing {
		t.Fatalf("get: %+v", resp)
	}
	if diff := cmp.Diff(wantInitial, resp.Local); diff != "" {
		t.Errorf("get: local (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantInitial, resp.Operational); diff != "" {
		t.Errorf("get: operational (-want +got):\n%s", diff)
	}

	// apply: new PFC and APP, willing off, in one request.
	resp = ta.call(`{"op":"apply","params":{"pfc":{"cap":8,"enabled":[3,4]},"app":[{"selector":"udp-port","protocol":4791,"priority":3}]},"willing":false}`)
	if !resp.OK {
		t.Fatalf("apply: %+v", resp)
	}
	want := initial.Clone()
	want.PFC = &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1<<4}
	want.App = []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}
	if diff := cmp.Diff([]string{"pfc", "app", "willing"}, resp.Changed); diff != "" {
		t.Errorf("apply: changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&control.LocalState{Willing: true, Params: wantInitial}, resp.Previous); diff != "" {
		t.Errorf("apply: previous (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, resp.Local); diff != "" {
		t.Errorf("apply: local (-want +got):\n%s", diff)
	}
	if resp.Willing == nil || *resp.Willing {
		t.Errorf("apply: willing %v, want false", resp.Willing)
	}
	ins := ta.indications()
	if len(ins) != 2 || ins[0].Status != engine.StatusLocal || ins[1].Status != engine.StatusOperational {
		t.Fatalf("apply: indications %+v, want local then operational", ins)
	}
	wantFlags := engine.FlagETSConfigured | engine.FlagETSChanged | engine.FlagPFCConfigured | engine.FlagPFCChanged |
		engine.FlagClassificationConfigured | engine.FlagClassificationChanged
	if ins[0].Flags != wantFlags || ins[0].Reason != engine.ReasonLocalChange {
		t.Errorf("local indication: %s %v, want local-change %v", ins[0].Reason, ins[0].Flags, wantFlags)
	}
	if diff := cmp.Diff(want, ins[0].Params); diff != "" {
		t.Errorf("local indication params (-want +got):\n%s", diff)
	}
	if pfc := framePFC(t, ta.frame()); pfc == nil || pfc.Willing || pfc.Enabled != 1<<3|1<<4 {
		t.Errorf("agent's PFC TLV %+v, want priorities 3,4, not willing", pfc)
	}

	// The same again changes nothing.
	resp = ta.call(`{"op":"apply","params":{"pfc":{"cap":8,"enabled":[3,4]}}}`)
	if !resp.OK || len(resp.Changed) != 0 {
		t.Errorf("apply again: %+v, want ok and nothing changed", resp)
	}
	if ins := ta.indications(); len(ins) != 0 {
		t.Errorf("apply again: indications %+v, want none", ins)
	}

	// Willing alone.
	resp = ta.call(`{"op":"apply","willing":true}`)
	if !resp.OK || !cmp.Equal(resp.Changed, []string{"willing"}) {
		t.Errorf("willing on: %+v", resp)
	}
	if ins := ta.indications(); len(ins) == 0 || ins[0].Flags&engine.FlagWilling == 0 {
		t.Errorf("willing on: indications %+v, want a local one with WILLING", ins)
	}

	// undo restores the state before the last apply (willing off), once.
	resp = ta.call(`{"op":"undo"}`)
	if !resp.OK || !cmp.Equal(resp.Changed, []string{"willing"}) || resp.Willing == nil || *resp.Willing {
		t.Fatalf("undo: %+v", resp)
	}
	if diff := cmp.Diff(want, resp.Local); diff != "" {
		t.Errorf("undo: local (-want +got):\n%s", diff)
	}
	if pfc := framePFC(t, ta.frame()); pfc == nil || pfc.Willing {
		t.Errorf("after undo: PFC TLV %+v, want not willing", pfc)
	}
	resp = ta.call(`{"op":"undo"}`)
	if resp.OK || resp.Error != "nothing left to undo on h0 (one level: the last apply is already undone)" {
		t.Errorf("second undo: %+v", resp)
	}
}

func TestControlErrors(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	ta := startTestAgent(t, dir, agent.DefaultLocal(), true)
	before := ta.call(`{"op":"get"}`)
	tests := []struct {
		name, req, want string
	}{
		{"garbage", "hello", "bad request: line 1, column 1: invalid character 'h' at start of value"},
		{"empty", "", "bad request: empty"},
		{"not an object", `[1,2]`, "bad request: line 1, column 1: want a request object, got an array"},
		{"no op", `{}`, `bad request: no "op" (want get, show, apply or undo)`},
		{"unknown op", `{"op":"reboot"}`, `unknown op "reboot" (want get, show, apply or undo)`},
		{"unknown field", `{"op":"get","force":true}`, `bad request: line 1, column 13: unknown field "force" (want op, params, willing or deadline_ns)`},
		{"get with params", `{"op":"get","willing":true}`, "get takes no params or willing"},
		{"apply nothing", `{"op":"apply","params":null,"willing":null}`, "apply: nothing to apply (give params, willing or both)"},
		{"willing as a string", `{"op":"apply","willing":"on"}`, `bad request: line 1, column 25: willing: want true, false or null, got "on"`},
		{"short array", `{"op":"apply","params":{"ets":{"prio_tc":[0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}}`,
			"params: parameters JSON: line 1, column 19: ets.prio_tc: want 8 values, got 1"},
		{"params unknown field", `{"op":"apply","params":{"pfc":{"cap":8,"enabled":[3],"delay":4}}}`, `params: parameters JSON: line 1, column 31: pfc: unknown field "delay" (want willing, mbc, cap or enabled)`},
		{"invalid ets", `{"op":"apply","params":{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[50,40,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}}`,
			"invalid parameters: ets: "},
		{"invalid app", `{"op":"apply","params":{"app":[{"selector":"dscp","protocol":64,"priority":3}]}}`, "invalid parameters: app: "},
		{"more APP entries than one TLV carries", `{"op":"apply","params":{"app":[` + appEntries(169) + `]}}`,
			"invalid parameters: app: 169 APP entries do not fit in one APP TLV (at most 168: its value is limited to 511 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ta.call(tt.req)
			if resp.OK || !strings.HasPrefix(resp.Error, tt.want) || strings.Contains(resp.Error, "\n") {
				t.Errorf("response %+v, want an error starting %q", resp, tt.want)
			}
			// An error response has nothing but ok and error.
			b, _ := json.Marshal(resp)
			if want, _ := json.Marshal(control.Response{Error: resp.Error}); !bytes.Equal(b, want) {
				t.Errorf("error response %s has more than ok and error", b)
			}
		})
	}
	after := ta.call(`{"op":"get"}`)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("state changed by failed requests (-before +after):\n%s", diff)
	}
	if ins := ta.indications(); len(ins) != 2 { // the start-up ones only
		t.Errorf("indications %+v, want the 2 of the start", ins)
	}
}

// TestControlTimeout: a client that connects and sends nothing (or half a
// request) gets an error once the read deadline passes.
func TestControlTimeout(t *testing.T) {
	ta := startTestAgent(t, testbed.ShortTempDir(t), agent.DefaultLocal(), true, 200*time.Millisecond)
	for _, partial := range []string{"", `{"op":`} {
		c, err := net.Dial("unix", ta.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(partial)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		var resp control.Response
		if err := json.NewDecoder(c).Decode(&resp); err != nil {
			t.Fatalf("%q: %v", partial, err)
		}
		c.Close()
		// The answer names the server's 200 ms: it came from the server's
		// deadline, not from this client's 5 s one.
		if resp.OK || resp.Error != "no complete request within 200ms" {
			t.Errorf("%q: %+v", partial, resp)
		}
	}
}

func TestControlSocketFiles(t *testing.T) {
	dir := filepath.Join(testbed.ShortTempDir(t), "run")
	calls := make(chan control.Call)
	srv, err := control.Listen(dir, "h0", calls)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 || !st.IsDir() {
		t.Errorf("run dir: %v %v, want a directory with mode 0700", st.Mode(), err)
	}
	// The netns inode: the same number os.Stat gives for the namespace.
	ns, err := os.Stat("/proc/self/ns/net")
	if err != nil {
		t.Skipf("no /proc/self/ns/net: %v", err)
	}
	wantPath := filepath.Join(dir, strings.TrimSpace(inodeOf(t, ns))+"-h0.sock")
	if srv.Addr() != wantPath || control.Path(dir, "h0") != wantPath {
		t.Errorf("socket %s, want %s", srv.Addr(), wantPath)
	}
	st, err = os.Lstat(srv.Addr())
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v %v, want a socket with mode 0600", st.Mode(), err)
	}

	// A second one on the same interface is refused and names the pid.
	go func() {
		for c := range calls {
			c.Reply <- control.Response{OK: true, Interface: c.Iface, PID: 4242}
		}
	}()
	_, err = control.Listen(dir, "h0", calls)
	if !errors.Is(err, control.ErrAgentRunning) || !strings.Contains(err.Error(), "another dcbtop agent runs here (pid 4242, control socket ") || !strings.Contains(err.Error(), srv.Addr()) {
		t.Errorf("second listen: %v, want control.ErrAgentRunning naming pid 4242 and the socket", err)
	}
	// Another interface is fine.
	srv2, err := control.Listen(dir, "h1", calls)
	if err != nil {
		t.Fatal(err)
	}
	srv2.Close()

	srv.Close()
	close(calls)
	if _, err := os.Lstat(srv.Addr()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after Close: %v, want it removed", err)
	}

	// A stale socket (no listener) is replaced.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: srv.Addr(), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(srv.Addr()); err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	srv3, err := control.Listen(dir, "h0", make(chan control.Call))
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	srv3.Close()

	// A run directory others may write to is refused, and left alone.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := control.Listen(dir, "h0", make(chan control.Call)); err == nil || !strings.Contains(err.Error(), "is writable by others (mode 0777)") {
		t.Errorf("world-writable run dir: %v", err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o777 {
		t.Errorf("run dir after the refusal: %v %v, want it untouched", st.Mode(), err)
	}

	// A file in the way of the directory.
	file := filepath.Join(testbed.ShortTempDir(t), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := control.Listen(file, "h0", nil); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("run dir is a file: %v", err)
	}
}

// TestControlStopping: a request in flight when the server closes gets
// "dcbtop is stopping", not a hang.
func TestControlStopping(t *testing.T) {
	calls := make(chan control.Call) // nobody reads it: the engine is busy
	srv, err := control.Listen(testbed.ShortTempDir(t), "h0", calls)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	type result struct {
		resp control.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := control.Do(srv.Addr(), control.Request{Op: "get"}, 5*time.Second)
		done <- result{resp, err}
	}()
	time.Sleep(100 * time.Millisecond)
	srv.Close()
	select {
	case r := <-done:
		if r.err != nil || r.resp.OK || r.resp.Error != "dcbtop is stopping" {
			t.Errorf("in flight at Close: %+v, %v", r.resp, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("request in flight at Close not answered")
	}
	// Nothing listens any more: a dial error, which apply takes as "no
	// agent".
	_, err = control.Do(srv.Addr(), control.Request{Op: "get"}, time.Second)
	var de *control.DialError
	if !errors.As(err, &de) {
		t.Errorf("after Close: %v, want a dial error", err)
	}
}

func inodeOf(t *testing.T, st os.FileInfo) string {
	t.Helper()
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers here")
	}
	return strconv.FormatUint(s.Ino, 10)
}

// appEntries returns n distinct APP entries as JSON array elements.
func appEntries(n int) string {
	var e []string
	for i := range n {
		e = append(e, fmt.Sprintf(`{"selector":"udp-port","protocol":%d,"priority":3}`, 1000+i))
	}
	return strings.Join(e, ",")
}

// An agent that cannot advertise what it is given says so: through the
// control socket and the screen's backend, the apply is refused and
// nothing changes; a later advertisement that fails (the remote side
// changed what is in force) shows as the interface's capture-error.
func TestAgentCannotAdvertise(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	ta := startTestAgent(t, dir, agent.DefaultLocal(), true)
	before := ta.call(`{"op":"get"}`)
	frame := ta.frame()
	refuse := errors.New("h0: not applied: dcbtop's agent cannot advertise these parameters: agent: TLV too long (injected)")
	hostWrite = func(*host.Host, string, *dcb.Params, *bool, time.Time) (host.Applied, host.Result, error) {
		return host.Applied{}, host.Result{}, refuse
	}
	t.Cleanup(func() { hostWrite = (*host.Host).Write })

	resp := ta.call(`{"op":"apply","params":{"pfc":{"cap":8,"enabled":[3]}}}`)
	want := "h0: not applied: dcbtop's agent cannot advertise these parameters: agent: TLV too long (injected)"
	if resp.OK || resp.Error != want {
		t.Errorf("control reply %+v, want the error %q", resp, want)
	}
	snap := func() engine.Snapshot {
		var s engine.Snapshot
		ta.onLoop(func() { s = ta.r.h.Engine().Snapshot() })
		return s
	}
	b := operator.NewBackend(dir, func() (engine.Snapshot, bool) { return snap(), true }, ta.r)
	if _, err := b.Apply("h0", nil, &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}); err == nil || err.Error() != want {
		t.Errorf("screen apply: %v, want %q", err, want)
	}
	if after := ta.call(`{"op":"get"}`); !cmp.Equal(before, after) || !bytes.Equal(ta.frame(), frame) {
		t.Errorf("a refused apply changed the agent's state or frame")
	}
	hostWrite = (*host.Host).Write

	// The check passes but the agent refuses the advertisement itself
	// (engine/host's TestAdvertiseRefused): the host reports the
	// interface's status changed, and the run shows its AdvertiseErr as a
	// capture-error until it is "" again.
	advertiseErr = func(*host.Host, string) string {
		return "advertise: agent: TLV too long (injected) (still sending the previous LLDPDU)"
	}
	t.Cleanup(func() { advertiseErr = (*host.Host).AdvertiseErr })
	ta.onLoop(func() { ta.r.carryOut(host.Result{Status: []string{"h0"}}, false) })
	in := snaptest.Iface(t, snap(), "h0")
	found := false
	for _, d := range in.Diagnostics {
		found = found || (d.Code == diag.CodeCaptureError && strings.Contains(d.Message, "advertise: agent: TLV too long (injected) (still sending the previous LLDPDU)"))
	}
	if !found {
		t.Errorf("no capture-error naming the failed advertisement in %+v", in.Diagnostics)
	}
	if !bytes.Equal(ta.frame(), frame) {
		t.Errorf("the agent's frame changed although Set failed")
	}
	// Once an advertisement succeeds, the error goes.
	advertiseErr = (*host.Host).AdvertiseErr
	ta.onLoop(func() { ta.r.carryOut(host.Result{Status: []string{"h0"}}, false) })
	if resp := ta.call(`{"op":"apply","params":{"pfc":{"cap":8,"enabled":[4]}}}`); !resp.OK {
		t.Fatalf("apply: %+v", resp)
	}
	for _, d := range snaptest.Iface(t, snap(), "h0").Diagnostics {
		if d.Code == diag.CodeCaptureError {
			t.Errorf("capture-error stays after a successful advertisement: %+v", d)
		}
	}
}

// One undo for the run: an apply from the screen through dcbtop's agent is
// recorded where the control socket's undo (and the kernel path's) looks,
// and an undo from either side restores it once.
func TestOneUndo(t *testing.T) {
	dir := testbed.ShortTempDir(t)
	ta := startTestAgent(t, dir, agent.DefaultLocal(), true)
	snap := func() (engine.Snapshot, bool) {
		var s engine.Snapshot
		ta.onLoop(func() { s = ta.r.h.Engine().Snapshot() })
		return s, true
	}
	b := operator.NewBackend(dir, snap, ta.r)
	before := ta.call(`{"op":"get"}`)
	if _, err := b.Apply("h0", nil, &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 4}}); err != nil {
		t.Fatal(err)
	}
	if prev, ok := ta.r.UndoState("h0"); !ok || prev.Params.PFC.Enabled != before.Local.PFC.Enabled {
		t.Fatalf("the run's undo store holds %+v after the screen's apply", prev)
	}
	// The control socket undoes what the screen applied.
	if resp := ta.call(`{"op":"undo"}`); !resp.OK || resp.Local.PFC.Enabled != before.Local.PFC.Enabled {
		t.Fatalf("undo through the socket: %+v", resp)
	}
	if _, err := b.Undo("h0"); err == nil || !strings.Contains(err.Error(), "nothing left to undo") {
		t.Errorf("a second undo from the screen: %v, want nothing left to undo", err)
	}
}

// An oversize request sent raw (past DoRaw's own check) gets the
// server's limit error in the answer, not a broken pipe.
func TestControlOversizeRaw(t *testing.T) {
	ta := startTestAgent(t, testbed.ShortTempDir(t), agent.DefaultLocal(), true)
	req := `{"op":"apply","params":{"app":[` + strings.Repeat(`{"selector":"dscp","protocol":1,"priority":3},`, 2000) + `]}}`
	if _, err := control.DoRaw(ta.path, []byte(req), 5*time.Second); err == nil || !strings.Contains(err.Error(), "limit of 64 KiB") {
		t.Errorf("DoRaw of %d bytes: %v, want the limit", len(req), err)
	}
	c, err := net.Dial("unix", ta.path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	go func() { _, _ = c.Write([]byte(req)) }()
	var resp control.Response
	if err := json.NewDecoder(c).Decode(&resp); err != nil || resp.OK || !strings.HasPrefix(resp.Error, "request larger than 64 KiB") {
		t.Errorf("answer %+v, %v; want the limit error", resp, err)
	}
}

// TestControlLateApply: an apply whose answer the connection gave up
// (the loop busy, or the process stopped, past the deadline) is never
// carried out when the loop gets to it (issue 35: after SIGCONT the
// agent applied a request its client had reported as failed).
func TestControlLateApply(t *testing.T) {
	ta := startTestAgent(t, testbed.ShortTempDir(t), agent.DefaultLocal(), true, 150*time.Millisecond)
	before := framePFC(t, ta.frame())
	release := make(chan struct{})
	busy := make(chan struct{})
	go ta.onLoop(func() { close(busy); <-release }) // the loop stands still, as a stopped process
	<-busy
	resp := ta.call(`{"op":"apply","params":{"pfc":{"cap":8,"enabled":[3]}}}`)
	// The budget said is what was left of the 150 ms when the call
	// reached the loop (less on a loaded machine).
	if resp.OK || !regexp.MustCompile(`no answer from the engine within 1[0-5][0-9]ms`).MatchString(resp.Error) || !strings.Contains(resp.Error, "not applied") {
		t.Errorf("late apply answered %+v, want no answer and not applied", resp)
	}
	close(release)
	if after := framePFC(t, ta.frame()); after.Enabled != before.Enabled {
		t.Errorf("the agent applied the abandoned request once the loop ran: PFC %08b, was %08b", after.Enabled, before.Enabled)
	}
	// The loop did take the call, and refused it.
	if resp := ta.call(`{"op":"get"}`); !resp.OK || resp.Local.PFC == nil || resp.Local.PFC.Enabled != 0 {
		t.Errorf("local parameters after the abandoned apply: %+v", resp)
	}
}
