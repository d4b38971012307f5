// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dcbtop/dcbtop/capture/demo"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/testbed"
)

// demoWant is the order of remote indications the demo scenario
// (assets/demo/scenario.json) produces in its first 95 s.
var demoWant = []engine.Reason{
	engine.ReasonFirstReceipt, // leaf-1 at 5 s
	engine.ReasonChanged,      // PFC 3 -> 3,4 at 20 s
	engine.ReasonChanged,      // ETS recommendation at 35 s
	engine.ReasonChanged,      // PFC 3,4 -> 4 at 42 s
	engine.ReasonChanged,      // PFC 4 -> 3,4 at 47 s
	engine.ReasonMultiPeer,    // leaf-2 at 50 s
	engine.ReasonFirstReceipt, // hold-down over at ~72 s
	engine.ReasonTTLExpired,   // leaf-1's link cut, TTL out at ~89 s
}

func decodeIndication(t *testing.T, line string) engine.Indication {
	t.Helper()
	var in engine.Indication
	if err := json.Unmarshal([]byte(line), &in); err != nil {
		t.Fatalf("not an indication: %q: %v", line, err)
	}
	return in
}

func checkPrefix(t *testing.T, what string, got []engine.Reason) {
	t.Helper()
	if len(got) < len(demoWant) {
		t.Fatalf("%s: remote indications %v, want at least %v", what, got, demoWant)
	}
	for i, r := range demoWant {
		if got[i] != r {
			t.Fatalf("%s: remote indications %v, want %v first", what, got, demoWant)
		}
	}
}

// scrape fetches /metrics from addr inside ns and parses it with the
// Prometheus text parser.
func scrape(t *testing.T, ns *testbed.NS, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	var body []byte
	var err error
	ns.Go(t, func() {
		var c net.Conn
		if c, err = net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n", addr)
		var resp *http.Response
		if resp, err = http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			return
		}
		body, err = io.ReadAll(resp.Body)
	})
	if err != nil {
		t.Fatalf("scrape %s: %v", addr, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

func gauge(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no metric family %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
				continue next
			}
		}
		if m.GetGauge() != nil {
			return m.GetGauge().GetValue()
		}
		return m.GetCounter().GetValue()
	}
	t.Fatalf("no %s%v", name, labels)
	return 0
}

// demoSpeed plays the demo scenario eight times faster in the tests:
// demoDuration of real time covers the scenario's first 96 s, past the
// ttl-expired at 89 s (demoWant).
const (
	demoSpeed    = "8"
	demoDuration = "12s"
)

// TestDemoRoot runs `dcbtop demo --events` as root (in a namespace of the
// test's own), time-scaled: the simulated switch lives in a namespace the
// demo creates, dcbtop captures on the veth's host end, the scenario's
// indications come in order, /metrics answers meanwhile, and everything
// the demo created is gone afterwards.
func TestDemoRoot(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	ns := testbed.NewNS(t, "demo")
	addr := "127.0.0.1:9424"
	p := startDcbtop(t, ns, "demo", "--events", "--speed", demoSpeed, "--duration", demoDuration, "--metrics", addr)
	// After the first receipt (5 s), the metrics show a valid remote peer.
	var hostIf string
	for {
		in, _ := p.nextIndication(t, 30*time.Second)
		hostIf = in.Interface
		if in.Status == engine.StatusRemote {
			if in.Reason != engine.ReasonFirstReceipt {
				t.Fatalf("first remote indication %s, want first-receipt", in.Reason)
			}
			break
		}
	}
	if !strings.HasPrefix(hostIf, "dcbdemo") {
		t.Fatalf("indications on %q, want the demo's host end dcbdemoN", hostIf)
	}
	time.Sleep(200 * time.Millisecond) // 1.6 s of scenario time: before the next change at 20 s
	fams := scrape(t, ns, addr)
	lbl := map[string]string{"interface": hostIf}
	if v := gauge(t, fams, "dcbtop_remote_valid", lbl); v != 1 {
		t.Errorf("dcbtop_remote_valid = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_peers", lbl); v != 1 {
		t.Errorf("dcbtop_peers = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_pfc_enabled", map[string]string{"interface": hostIf, "side": "remote", "priority": "3"}); v != 1 {
		t.Errorf("remote PFC on priority 3 = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_indications_total", map[string]string{"interface": hostIf, "status": "QOS_REMOTE_PARAMETERS_CHANGE", "reason": "first-receipt"}); v != 1 {
		t.Errorf("first-receipt count = %v, want 1", v)
	}
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	got := remoteIndications(t, p.stdout())
	checkPrefix(t, "demo as root", reasons(got))
	// The indications carry scenario time: the ttl-expired comes 84 s
	// after the first receipt (89 s - 5 s), give or take the capture's
	// jitter scaled by 8.
	if d := got[len(demoWant)-1].Time.Sub(got[0].Time); d < 82*time.Second || d > 86*time.Second {
		t.Errorf("ttl-expired %v after the first receipt in scenario time, want about 84 s", d)
	}
	checkDemoGone(t, ns, hostIf)
}

// checkDemoGone fails t when the demo's host end hostIf is still in ns
// 10 s from now, or a demo left a namespace or a control socket in /run.
func checkDemoGone(t *testing.T, ns *testbed.NS, hostIf string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := ns.Run("ip", "-br", "link", "show", "dev", hostIf)
		if err != nil && strings.Contains(err.Error(), "does not exist") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("host end %s still in %s 10 s after the demo ended: %s %v", hostIf, ns.Name, out, err)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pattern := range []string{"/run/netns/dcbtop-demo-*", "/run/dcbtop/*-" + hostIf + ".sock"} {
		if left := mustGlob(t, pattern); len(left) > 0 {
			t.Errorf("demo left %v", left)
		}
	}
}

// remoteIndications reads NDJSON indications and returns the remote ones.
func remoteIndications(t *testing.T, out string) []engine.Indication {
	t.Helper()
	var got []engine.Indication
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		if in := decodeIndication(t, line); in.Status == engine.StatusRemote {
			got = append(got, in)
		}
	}
	return got
}

func reasons(ins []engine.Indication) []engine.Reason {
	var rs []engine.Reason
	for _, in := range ins {
		rs = append(rs, in.Reason)
	}
	return rs
}

// TestDemoKilled runs two demos at once in one namespace: both reach a
// first receipt on host ends of their own; one is killed with SIGKILL and
// leaves nothing behind, while the other plays on and ends normally.
func TestDemoKilled(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	ns := testbed.NewNS(t, "dkill")
	firstReceipt := func(p *proc) string {
		t.Helper()
		for {
			in, _ := p.nextIndication(t, 30*time.Second)
			if in.Status == engine.StatusRemote {
				if in.Reason != engine.ReasonFirstReceipt || !strings.HasPrefix(in.Interface, "dcbdemo") {
					t.Fatalf("%s: first remote indication %s on %s, want first-receipt on dcbdemoN", p.name, in.Reason, in.Interface)
				}
				return in.Interface
			}
		}
	}
	a := startDcbtop(t, ns, "demo", "--events", "--speed", demoSpeed)
	b := startDcbtop(t, ns, "demo", "--events", "--speed", demoSpeed, "--duration", "4s")
	ifA, ifB := firstReceipt(a), firstReceipt(b)
	if ifA == ifB {
		t.Fatalf("both demos on %s", ifA)
	}
	a.signal(syscall.SIGKILL)
	a.wait(10 * time.Second)
	checkDemoGone(t, ns, ifA)
	if code := b.wait(time.Minute); code != 0 {
		t.Fatalf("the other demo: exit %d: %s", code, b.stderrText())
	}
	// b went on: its PFC change (20 s, 2.5 s at x8) came after a's death.
	if got := reasons(remoteIndications(t, b.stdout())); len(got) < 2 || got[1] != engine.ReasonChanged {
		t.Errorf("the other demo's remote indications %v, want first-receipt then changed", got)
	}
	checkDemoGone(t, ns, ifB)
}

// TestDemoUnprivileged runs the same demo as nobody: it falls back to the
// in-memory link, says so, and still plays the scenario.
func TestDemoUnprivileged(t *testing.T) {
	testbed.RequirePriv(t) // to switch to nobody
	t.Parallel()
	bin := copyWorldReadable(t, dcbtopBin)
	p := startProc(t, "dcbtop demo as nobody", []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"demo", "--events", "--speed", demoSpeed, "--duration", demoDuration})
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	if !strings.Contains(p.stderrText(), "in-memory link") {
		t.Errorf("no notice of the in-memory fallback on stderr: %q", p.stderrText())
	}
	checkPrefix(t, "demo as nobody", reasons(remoteIndications(t, p.stdout())))
}

// TestDemoNotATerminal runs the demo as nobody with stdout a pipe and no
// output flag: NDJSON events, and each notice once on stderr.
func TestDemoNotATerminal(t *testing.T) {
	testbed.RequirePriv(t) // to switch to nobody
	t.Parallel()
	bin := copyWorldReadable(t, dcbtopBin)
	code, out, errOut := runOut(t, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "demo", "--duration", "2s")
	want := "dcbtop: demo: not root: running the simulated switch over an in-memory link\n" + notTTYNotice
	if code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 0, %q", code, errOut, want)
	}
	if !strings.Contains(out, `"reason":"local-change"`) {
		t.Errorf("stdout is not the demo's events:\n%s", out)
	}
}

// copyWorldReadable copies the binary where an unprivileged user can run it.
// cp writes the copy, not this process: a child this process forks for
// another parallel test while the copy is open for writing would hold that
// descriptor until it execs, and running the copy then fails with "Text
// file busy" (ETXTBSY).
func copyWorldReadable(t *testing.T, bin string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dcbtop-demo-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	dst := filepath.Join(dir, "dcbtop")
	if out, err := exec.Command("cp", bin, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v: %s", bin, err, out)
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTUIDemoWalk walks `dcbtop demo` on its screen (tmux, 160x80, the
// lossless view open, --speed 4: one pass in 30 s) from the first step
// to the last: for each step of assets/demo/scenario.json, the narration
// line shows that step's caption while the screen shows what the step is
// about, DCBX and RoCE alike; then the scenario starts over.
func TestTUIDemoWalk(t *testing.T) {
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "tmux")
	t.Parallel()
	sc, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	ns := testbed.NewNS(t, "walk")
	p := startTmux(t, 160, 80, nil, ipPath(t), "netns", "exec", ns.Name, dcbtopBin, "demo", "--speed", "4")
	p.WaitText(15*time.Second, "step 1/")
	p.Keys("l")
	re := regexp.MustCompile
	has := func(s string) func(string) bool { return func(x string) bool { return strings.Contains(x, s) } }
	hasNot := func(s string) func(string) bool { return func(x string) bool { return !strings.Contains(x, s) } }
	match := func(r string) func(string) bool { return re(r).MatchString }
	noMatch := func(r string) func(string) bool { x := re(r); return func(s string) bool { return !x.MatchString(s) } }
	const (
		peerLine = "\npeer leaf-1 "
		// Priority 3's bytes row: rx and tx B/s, then the sparkline (the
		// pause row below it has four numbers).
		traffic   = `(?m)^   3 [●·]\s+(1000\.0M|1\.0G)\s*(1000\.0M|1\.0G)\s+[▁▂▃▄▅▆▇█]`
		noTraffic = `(?m)^   3 [●·]\s+0\s+0\s+[▁▂▃▄▅▆▇█]`
	)
	// What the screen shows for each step, in the scenario's order.
	facts := []struct {
		what  string
		holds []func(string) bool
	}{
		{"no peer, no traffic", []func(string) bool{hasNot(peerLine), match(noTraffic)}},
		{"leaf-1 is the peer, RoCE flows", []func(string) bool{has(peerLine), match(traffic)}},
		{"pauses received on priority 3", []func(string) bool{match(`(?m)^   3 ●\s+[1-9][0-9.]*k?\s`)}},
		{"remote PFC on 3 and 4", []func(string) bool{has("4     ·     ●≠     ●")}},
		{"ECN marks", []func(string) bool{match(`np_ecn_marked_roce_packets\s+[1-9]`)}},
		{"TC4 recommended, 20%", []func(string) bool{has("ets  20 ····4···")}},
		{"the ToS reaches no PFC priority", []func(string) bool{has("tos      ✗ 106"), has("pfc      ✗ local on, peer off")}},
		{"the ToS reaches PFC again", []func(string) bool{has("tos      ✓ 106")}},
		{"multi-peer", []func(string) bool{has("MULTI-PEER"), has("[multi-peer]")}},
		{"leaf-2 stale", []func(string) bool{has("[peer-stale]")}},
		{"leaf-2 gone, hold-down on", []func(string) bool{noMatch(`!! leaf-2\s+ieee`), has("hold-down")}},
		{"leaf-1 alone again", []func(string) bool{has(peerLine), hasNot("MULTI-PEER")}},
		{"ToS 0: RoCE on a lossy priority", []func(string) bool{has("default ToS 0 (DSCP 0"), has("tos      ✗ 0")}},
		{"ToS 106 again", []func(string) bool{has("default ToS 106"), has("tos      ✓ 106")}},
		{"no traffic with the link cut", []func(string) bool{match(noTraffic)}},
		{"leaf-1 expired", []func(string) bool{hasNot(peerLine)}},
		{"leaf-1 back, both willing", []func(string) bool{has(peerLine), has("Willing on    on")}},
		{"leaf-1 shut down", []func(string) bool{hasNot(peerLine)}},
	}
	if len(facts) != len(sc.Steps) {
		t.Fatalf("%d steps described here, the scenario has %d", len(facts), len(sc.Steps))
	}
	n := len(sc.Steps)
	for i, st := range sc.Steps {
		f := facts[i]
		caption := []rune(st.Caption)
		narration := fmt.Sprintf("\nstep %d/%d · %s", i+1, n, string(caption[:min(len(caption), 30)]))
		p.WaitScreen(fmt.Sprintf("step %d at %v (%s): narration %q and %s", i+1, st.At, st.Caption, narration, f.what), 12*time.Second,
			func(s string) bool {
				if !strings.Contains(s, narration) {
					return false
				}
				for _, h := range f.holds {
					if !h(s) {
						return false
					}
				}
				return true
			})
	}
	// The scenario starts over: step 1 again, in its second pass.
	p.WaitText(15*time.Second, fmt.Sprintf("\nstep 1/%d · ", n))
	p.Quit()
}
