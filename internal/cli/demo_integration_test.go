package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"dcbtop/engine"
	"dcbtop/internal/testbed"
)

// demoWant is the order of remote indications the demo scenario
// (assets/demo/scenario.json) produces in its first 95 s.
var demoWant = []engine.Reason{
	engine.ReasonFirstReceipt, // leaf-1 at 5 s
	engine.ReasonChanged,      // PFC 3 -> 3,4 at 20 s
	engine.ReasonChanged,      // ETS recommendation at 35 s
	engine.ReasonMultiPeer,    // leaf-2 at 50 s
	engine.ReasonFirstReceipt, // hold-down over at ~72 s
	engine.ReasonTTLExpired,   // leaf-1's link cut, TTL out at ~89 s
}

// remoteReasons reads NDJSON indications and returns the reasons of the
// remote ones, in order.
func remoteReasons(t *testing.T, out string) []engine.Reason {
	t.Helper()
	var got []engine.Reason
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		in := decodeIndication(t, line)
		if in.Status == engine.StatusRemote {
			got = append(got, in.Reason)
		}
	}
	return got
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

// TestDemoRoot runs `dcbtop demo --events` as root (in a namespace of the
// test's own): the simulated switch lives in a namespace the demo creates,
// dcbtop captures on the veth's host end, the scenario's indications come
// in order, /metrics answers meanwhile, and everything the demo created is
// gone afterwards.
func TestDemoRoot(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	ns := testbed.NewNS(t, "demo")
	addr := "127.0.0.1:9424"
	p := startDcbtop(t, ns, "demo", "--events", "--duration", "95s", "--metrics", addr)
	// After the first receipt (5 s), the metrics show a valid remote peer.
	for {
		in, _ := p.nextIndication(t, 30*time.Second)
		if in.Status == engine.StatusRemote {
			if in.Reason != engine.ReasonFirstReceipt {
				t.Fatalf("first remote indication %s, want first-receipt", in.Reason)
			}
			break
		}
	}
	time.Sleep(time.Second)
	fams := scrape(t, ns, addr)
	lbl := map[string]string{"interface": "dcbtop-demo0"}
	if v := gauge(t, fams, "dcbtop_remote_valid", lbl); v != 1 {
		t.Errorf("dcbtop_remote_valid = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_peers", lbl); v != 1 {
		t.Errorf("dcbtop_peers = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_pfc_enabled", map[string]string{"interface": "dcbtop-demo0", "side": "remote", "priority": "3"}); v != 1 {
		t.Errorf("remote PFC on priority 3 = %v, want 1", v)
	}
	if v := gauge(t, fams, "dcbtop_indications_total", map[string]string{"interface": "dcbtop-demo0", "status": "QOS_REMOTE_PARAMETERS_CHANGE", "reason": "first-receipt"}); v != 1 {
		t.Errorf("first-receipt count = %v, want 1", v)
	}
	if code := p.wait(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	checkPrefix(t, "demo as root", remoteReasons(t, p.stdout()))
	// Nothing left: the demo's namespace and the host end.
	if left, _ := filepath.Glob("/run/netns/dcbtop-demo-*"); len(left) > 0 {
		for _, l := range left {
			if _, err := os.Stat("/proc/" + strings.TrimPrefix(filepath.Base(l), "dcbtop-demo-")); err != nil {
				t.Errorf("demo namespace %s left behind", l)
			}
		}
	}
	if out, _ := ns.Run("ip", "-br", "link"); strings.Contains(out, "dcbtop-demo0") {
		t.Errorf("host end left behind:\n%s", out)
	}
}

// TestDemoUnprivileged runs the same demo as nobody: it falls back to the
// in-memory link, says so, and still plays the scenario.
func TestDemoUnprivileged(t *testing.T) {
	testbed.RequirePriv(t) // to switch to nobody
	t.Parallel()
	bin := copyWorldReadable(t, dcbtopBin)
	p := startProc(t, "dcbtop demo as nobody", []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"demo", "--events", "--duration", "95s"})
	if code := p.wait(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderrText())
	}
	if !strings.Contains(p.stderrText(), "in-memory link") {
		t.Errorf("no notice of the in-memory fallback on stderr: %q", p.stderrText())
	}
	checkPrefix(t, "demo as nobody", remoteReasons(t, p.stdout()))
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
func copyWorldReadable(t *testing.T, bin string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dcbtop-demo-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dcbtop")
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestDemoScreen runs the demo's screen (what `make demo` runs) in a
// 100x30 tmux pane: the tables appear within 5 s, the first receipt follows,
// q exits 0, and the demo's namespace and veth are gone.
func TestDemoScreen(t *testing.T) {
	testbed.RequirePriv(t)
	t.Parallel()
	ns := testbed.NewNS(t, "dscr")
	p := startTmux(t, 100, 30, nil, ipPath(t), "netns", "exec", ns.Name, tuiBinary(t), "demo")
	p.waitText(5*time.Second, "ETS", "PFC", "TC")
	p.waitText(15*time.Second, "first-receipt")
	p.quit()
	if out, _ := ns.Run("ip", "-br", "link"); strings.Contains(out, "dcbtop-demo0") {
		t.Errorf("host end left behind:\n%s", out)
	}
	for _, l := range mustGlob(t, "/run/netns/dcbtop-demo-*") {
		if _, err := os.Stat("/proc/" + strings.TrimPrefix(filepath.Base(l), "dcbtop-demo-")); err != nil {
			t.Errorf("demo namespace %s left behind", l)
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
