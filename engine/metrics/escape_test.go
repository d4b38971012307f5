// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dcbtop/dcbtop/engine"
)

func TestLabelValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"eth0", "eth0"},
		{"enp65s0f0np0", "enp65s0f0np0"},
		{"mlx5_0", "mlx5_0"},
		{`back\slash "quoted"`, `back\slash "quoted"`}, // the exposition escapes these itself
		{"héllo wörld ☃", "héllo wörld ☃"},
		{"", ""},
		{"eth\x1b[31m0", `eth\x1b[31m0`},
		{"a\tb\nc\rd\x00e\x7f", `a\x09b\x0ac\x0dd\x00e\x7f`},
		{"csi\u009b2J osc\u009d0;x\a", `csi\u009b2J osc\u009d0;x\x07`},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`},
		{"\u2066iso\u2069 \u200e\u200f\u061c", `\u2066iso\u2069 \u200e\u200f\u061c`},
		{"zero\u200bwidth\u200d\u2060\ufeff soft\u00adhyphen", `zero\u200bwidth\u200d\u2060\ufeff soft\u00adhyphen`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad\xff\xc3(", `bad\xff\xc3(`},
	} {
		if got := labelValue(c.in); got != c.want {
			t.Errorf("labelValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLabelValueNoAlloc: a normal name costs a scan, no copy.
func TestLabelValueNoAlloc(t *testing.T) {
	labels := []string{"enp65s0f0np0", "mlx5_0", "1", "in"}
	if n := testing.AllocsPerRun(100, func() { labelValues(labels) }); n != 0 {
		t.Errorf("labelValues of normal names: %v allocations, want 0", n)
	}
	in := []string{"eth\x1b", "x"}
	out := labelValues(in)
	if in[0] != "eth\x1b" || out[0] != `eth\x1b` || out[1] != "x" {
		t.Errorf("labelValues changed its argument or missed a value: in %q, out %q", in, out)
	}
}

// hostileNames is a snapshot whose interface name, RDMA device name and
// peer strings carry terminal escapes (ESC and C1 CSI sequences, an OSC
// ended by BEL), a bidirectional override, a zero-width space and line
// feeds, as a hostile sysfs, netlink or LLDP peer could.
func hostileNames() (engine.Snapshot, string, string) {
	iface := "eth\x1b[31m0\u202e\n\u009b2J"
	dev := "mlx5\x1b]0;owned\a\u200b_0"
	name, desc := "leaf\n\x1b[5m", "\u202eevil\x1b[2J"
	peer := engine.Peer{ChassisID: "\x1b[2J\x1b[H", PortID: "swp\u202e1\n", SystemName: &name,
		SystemDescription: &desc, PortDescription: &desc, TTL: 120, ExpiresInMs: 90000}
	msap := peer.MSAP()
	one := uint64(7)
	return engine.Snapshot{Interfaces: []engine.Interface{{
		Name: iface, OperState: "up", LocalSource: engine.SourceNone,
		RemoteValid: true, RemotePeer: &msap, Peers: []engine.Peer{peer},
		Counters: &lossless.Counters{RDMA: []lossless.RDMAPortCounters{{Device: dev, Port: 1,
			NDK: lossless.NDKValues{Connect: &one, RDMAInOctets: &one}, Congestion: lossless.CongestionValues{CNPSent: &one}}}},
	}}}, iface, dev
}

// checkShown fails unless the exposition body is UTF-8 and has no
// character engine.NeedsEscape reports (a control byte, DEL, a C1 control,
// a bidirectional or zero-width character) but the line feeds that end
// its lines.
func checkShown(t *testing.T, body string) {
	t.Helper()
	if !utf8.ValidString(body) {
		t.Error("the exposition is not UTF-8")
	}
	if !strings.HasSuffix(body, "\n") {
		t.Error("the exposition does not end with a line feed")
	}
	bad := 0
	for n, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if i := strings.IndexFunc(line, engine.NeedsEscape); i >= 0 {
			if bad++; bad <= 3 {
				r, _ := utf8.DecodeRuneInString(line[i:])
				t.Errorf("line %d has %U: %q", n+1, r, line)
			}
		}
	}
	if bad > 3 {
		t.Errorf("and %d more lines", bad-3)
	}
}

// TestLabelEscaping scrapes a snapshot full of hostile names through
// Handler: the exposition has no control byte but the line feeds that end
// its lines, no DEL, no C1 control, bidirectional or zero-width character,
// and the names are there, readable, with those characters written as
// escapes.
func TestLabelEscaping(t *testing.T) {
	snap, iface, _ := hostileNames()
	c := New(func() engine.Snapshot { return snap })
	c.Observe([]engine.Indication{{Interface: iface, Status: engine.StatusRemote, Reason: engine.ReasonChanged}})
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	srv := serve(t, reg)
	scrape(t, srv)
	body, _ := scrape(t, srv) // the second one reports the first one's errors
	checkShown(t, body)
	for _, want := range []string{
		// The exposition writes the escapes' backslash as \\.
		`dcbtop_peers{interface="eth\\x1b[31m0\\u202e\\x0a\\u009b2J"} 1`,
		`dcbtop_remote_peer_ttl_remaining_seconds{interface="eth\\x1b[31m0\\u202e\\x0a\\u009b2J"} 90`,
		`dcbtop_rdma_connections_established_total{device="mlx5\\x1b]0;owned\\x07\\u200b_0",direction="out",interface="eth\\x1b[31m0\\u202e\\x0a\\u009b2J",port="1"} 7`,
		`dcbtop_rdma_cnp_sent_total{device="mlx5\\x1b]0;owned\\x07\\u200b_0",interface="eth\\x1b[31m0\\u202e\\x0a\\u009b2J",port="1"} 7`,
		`dcbtop_indications_total{interface="eth\\x1b[31m0\\u202e\\x0a\\u009b2J",reason="changed",status="QOS_REMOTE_PARAMETERS_CHANGE"} 1`,
		`promhttp_metric_handler_errors_total{cause="gathering"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the exposition lacks %s", want)
		}
	}
}

// TestLabelCollision: a name spelled with the text "\x1b" and one with an
// ESC in its place give the same label values; the second interface's
// duplicate samples fail alone (counted in
// promhttp_metric_handler_errors_total), the rest of the scrape is served.
func TestLabelCollision(t *testing.T) {
	body := scrapeNamed(t, "eth0", `esc\x1b`, "esc\x1b")
	for _, want := range []string{
		`dcbtop_remote_valid{interface="eth0"} 0`,
		`dcbtop_remote_valid{interface="esc\\x1b"} 0`,
	} {
		if n := strings.Count(body, want+"\n"); n != 1 {
			t.Errorf("%s %d times, want once", want, n)
		}
	}
	checkShown(t, body)
	if strings.Contains(body, `promhttp_metric_handler_errors_total{cause="gathering"} 0`) {
		t.Error("the duplicate samples are not counted in promhttp_metric_handler_errors_total")
	}
}

// TestSendInvalidMetric: a sample that cannot be built (here, a wrong
// number of label values) becomes an invalid metric, which fails that
// sample only, instead of a panic.
func TestSendInvalidMetric(t *testing.T) {
	d := prometheus.NewDesc("dcbtop_test", "A test.", []string{"interface"}, nil)
	ch := make(chan prometheus.Metric, 1)
	send(ch, d, prometheus.GaugeValue, 1, "eth0", "extra")
	var m dto.Metric
	if err := (<-ch).Write(&m); err == nil {
		t.Errorf("a sample with two values for one label was built: %v", &m)
	}
}
