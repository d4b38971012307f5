// SPDX-License-Identifier: Apache-2.0

package main

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dcbtop/dcbtop/assets"
	"github.com/dcbtop/dcbtop/capture"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/capture/pcap"
	"github.com/dcbtop/dcbtop/capture/session"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed"
)

// A checkFrame is an LLDPDU of a check fixture: from src, with tlvs,
// outgoing when this host sent it.
type checkFrame struct {
	src      lldp.MAC
	name     string
	outgoing bool
	tlvs     []lldp.TLV
}

var (
	hostMAC   = lldp.MAC{0x02, 0xdc, 0xb0, 0, 0, 0x10}
	switchMAC = lldp.MAC{0x02, 0x5e, 0, 0, 0, 1}
	switch2   = lldp.MAC{0x02, 0x5e, 0, 0, 0, 2}
	ets5050   = &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS}}
	reco5050  = &lldp.ETS{Recommendation: true, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS}}
	pfcOn3    = &lldp.PFC{Cap: 8, Enabled: 1 << 3}
	pfcNone   = &lldp.PFC{Cap: 8}
	// roceApp maps RoCE to priority 3 for the switch (UDP 4791) and for
	// an mlx5 NIC, which applies DSCP entries only (DSCP 26, the ToS 106
	// of fakeSampler's rdma_cm).
	roceApp = &lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 3, Selector: lldp.AppSelUDP, Protocol: lossless.RoCEv2Port},
		{Priority: 3, Selector: lldp.AppSelDSCP, Protocol: 26}}}
)

// checkCapture writes frames, one a second, to a pcapng file on eth0 and
// returns its path.
func checkCapture(t *testing.T, frames ...checkFrame) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "check.pcapng")
	w, err := pcap.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for i, f := range frames {
		if err := w.WriteFrame(f.capture(t, at.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// host is this host's own LLDPDU (an LLDP agent here: the observed local
// parameters), willing, RoCE-ready.
func host() checkFrame {
	ets := *ets5050
	ets.Willing = true
	pfc := *pfcOn3
	pfc.Willing = true
	return checkFrame{src: hostMAC, name: "host", outgoing: true, tlvs: []lldp.TLV{&ets, &pfc, roceApp}}
}

// checkJSON runs dcbtop check --json with args and decodes its report,
// after validating it against the schema.
func checkJSON(t *testing.T, args ...string) (int, check.Report) {
	t.Helper()
	return checkJSONIn(t, Env{}, args...)
}

// checkJSONIn is checkJSON with env's test seams (its outputs are the
// test's).
func checkJSONIn(t *testing.T, env Env, args ...string) (int, check.Report) {
	t.Helper()
	var o, e bytes.Buffer
	env.Stdout, env.Stderr = &o, &e
	code := Run(context.Background(), append([]string{"check", "--json"}, args...), env)
	out, errOut := o.String(), e.String()
	if err := assets.ValidateCheck([]byte(out)); err != nil {
		t.Fatalf("report does not match check.schema.json: %v\n%s\nstderr: %s", err, out, errOut)
	}
	var r check.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Exit != code {
		t.Errorf("exit %d, report says %d", code, r.Exit)
	}
	return code, r
}

// TestCheckReplay judges captures of the situations a fleet meets; a
// replay carries no counters, so a healthy capture is UNKNOWN at best
// (exit 3), never OK.
func TestCheckReplay(t *testing.T) {
	healthyPeer := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcOn3, roceApp}}
	tests := []struct {
		name     string
		frames   []checkFrame
		args     []string
		exit     int
		verdicts map[verdict.Name]verdict.Verdict // a subset
	}{
		{
			name:   "healthy RoCE, counters unknown",
			frames: []checkFrame{host(), healthyPeer},
			exit:   3,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckPeer: verdict.OK, verdict.CheckRoCEPFC: verdict.OK,
				verdict.CheckPFCAgreement: verdict.OK, verdict.CheckPauses: verdict.Unknown},
		},
		{
			name:     "the switch has PFC off on the RoCE priority",
			frames:   []checkFrame{host(), {src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcNone, roceApp}}},
			exit:     2,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckRoCEPFC: verdict.Critical},
		},
		{
			name: "multi-peer",
			frames: []checkFrame{host(), healthyPeer,
				{src: switch2, name: "leaf2", tlvs: []lldp.TLV{ets5050, pfcOn3, roceApp}}},
			exit:     2,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckPeer: verdict.Critical},
		},
		{
			name:     "policy mismatch",
			frames:   []checkFrame{host(), healthyPeer},
			args:     []string{"--expect", "POLICY"},
			exit:     2,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckPolicy: verdict.Critical},
		},
		{
			name: "warnings only: a strict class can starve RoCE",
			frames: []checkFrame{host(), {src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{
				&lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 0, 0, 2}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict}},
				reco5050, pfcOn3, roceApp}}},
			exit:     1,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckRoCEETS: verdict.Warning, verdict.CheckPauses: verdict.Unknown},
		},
		{
			name:     "an interface the capture does not have",
			frames:   []checkFrame{host(), healthyPeer},
			args:     []string{"-i", "eth9"},
			exit:     2,
			verdicts: map[verdict.Name]verdict.Verdict{verdict.CheckPeer: verdict.Critical},
		},
	}
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"pfc":{"enabled":[3,4]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"-r", checkCapture(t, tt.frames...)}
			for _, a := range tt.args {
				if a == "POLICY" {
					a = policy
				}
				args = append(args, a)
			}
			code, r := checkJSON(t, args...)
			if code != tt.exit {
				t.Errorf("exit %d, want %d", code, tt.exit)
			}
			if r.Source != "replay" || r.File == nil || len(r.Interfaces) != 1 {
				t.Fatalf("report %+v", r)
			}
			got := map[verdict.Name]verdict.Verdict{}
			for _, x := range r.Interfaces[0].Results {
				if _, ok := tt.verdicts[x.Check]; ok {
					got[x.Check] = x.Verdict
				}
			}
			if diff := cmp.Diff(tt.verdicts, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckJUnit parses the JUnit report with encoding/xml: a suite per
// interface, a case per check, CRITICAL a failure, UNKNOWN skipped, and
// the counts add up.
func TestCheckJUnit(t *testing.T) {
	path := checkCapture(t, host(), checkFrame{src: switchMAC, name: "leaf<1>&\x1b[31m", tlvs: []lldp.TLV{ets5050, pfcNone, roceApp}})
	code, out, _ := runCLI(t, "check", "--junit", "-r", path)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if strings.Contains(out, "\x1b") {
		t.Error("an escape sequence reached the XML")
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type    string `xml:"type,attr"`
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "eth0" {
		t.Fatalf("suites %+v", doc.Suites)
	}
	cases := map[string]string{}
	failures, skipped := 0, 0
	for _, c := range doc.Suites[0].Cases {
		switch {
		case c.Failure != nil:
			cases[c.Name] = c.Failure.Type
			failures++
			if c.Failure.Message == "" || !strings.Contains(c.Failure.Text, "fix: ") {
				t.Errorf("failure %s without message or fix: %+v", c.Name, c.Failure)
			}
		case c.Skipped != nil:
			cases[c.Name] = "skipped"
			skipped++
		default:
			cases[c.Name] = "pass"
		}
	}
	if len(cases) != 13 || doc.Tests != 13 || doc.Failures != failures || doc.Skipped != skipped {
		t.Errorf("tests %d failures %d skipped %d; counted %d cases, %d failures, %d skipped", doc.Tests, doc.Failures, doc.Skipped, len(cases), failures, skipped)
	}
	for name, want := range map[string]string{"dcbx-peer": "pass", "roce-pfc": "CRITICAL", "pauses": "skipped"} {
		if cases[name] != want {
			t.Errorf("case %s: %s, want %s", name, cases[name], want)
		}
	}
}

// TestCheckText: the people's report names each check, shows evidence
// and fixes of what is not OK, has no colour off a terminal, and strips
// control characters from the wire.
func TestCheckText(t *testing.T) {
	path := checkCapture(t, host(), checkFrame{src: switchMAC, name: "evil\x1b]0;owned\x07", tlvs: []lldp.TLV{ets5050, pfcNone, roceApp}})
	code, out, _ := runCLI(t, "check", "-r", path)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"dcbtop check: CRITICAL", "eth0  CRITICAL", "CRITICAL roce-pfc", "PFC is off on RoCE priority 3 at the peer, and so in force here too (this host, willing, took the peer's PFC)",
		"→ enable PFC on priority 3 on the switch port: this host, willing, takes it", "UNKNOWN  pauses"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters in the report:\n%q", out)
	}
}

// TestCheckUsageErrors: bad usage is UNKNOWN (3), with one line on stderr.
func TestCheckUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"pfc":{"enabled":[9]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--junit"}, "dcbtop check: UNKNOWN: --json and --junit exclude each other (dcbtop check --help)\n"},
		{[]string{"--wait", "0s"}, "dcbtop check: UNKNOWN: --wait must be positive (dcbtop check --help)\n"},
		{[]string{"extra"}, "dcbtop check: UNKNOWN: unexpected argument \"extra\" (dcbtop check --help)\n"},
		{[]string{"--expect", bad}, "dcbtop check: UNKNOWN: --expect " + bad + ": policy: line 1, column 20: pfc.enabled[0]: priority 9 is not 0-7 (dcbtop check --help)\n"},
		{[]string{"-r", filepath.Join(t.TempDir(), "missing.pcap")}, ""},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, append([]string{"check"}, tt.args...)...)
		if code != 3 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 3 and nothing", tt.args, code, out)
		}
		if tt.want != "" && errOut != tt.want {
			t.Errorf("%v: stderr %q, want %q", tt.args, errOut, tt.want)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "dcbtop check: UNKNOWN: ") {
			t.Errorf("%v: stderr %q is not one line", tt.args, errOut)
		}
	}
	code, out, _ := runCLI(t, "check", "--help")
	if code != 0 || !strings.Contains(out, "Exit status (Nagios)") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// memConn is a capture socket that delivers frames from a channel.
type memConn struct {
	frames chan capture.Frame
	done   chan struct{}
}

func (c *memConn) ReadFrame(ctx context.Context) (capture.Frame, error) {
	select {
	case f := <-c.frames:
		return f, nil
	case <-c.done:
		return capture.Frame{}, net.ErrClosed
	case <-ctx.Done():
		return capture.Frame{}, ctx.Err()
	}
}
func (c *memConn) WriteFrame([]byte) error           { return errors.New("read-only") }
func (c *memConn) Stats() (capture.LiveStats, error) { return capture.LiveStats{}, nil }
func (c *memConn) Close() error                      { close(c.done); return nil }
func (fakeSampler) Sample(ifname string, at time.Time, every time.Duration) engine.CountersSampled {
	port := lossless.RDMAPortSample{Device: "mlx5_0", Port: 1}
	port.NDK[lossless.NDKRDMAInOctets] = lossless.Reading{Value: 4000, Source: "port_rcv_data"}
	port.Congestion[lossless.CNPSent] = lossless.Reading{Value: 0, Source: "np_cnp_sent"}
	pfc := &lossless.PFCSample{Source: lossless.PFCSourceEthtool}
	for p := range pfc.Priorities {
		pfc.Priorities[p].RxPause = lossless.Reading{Value: 0, Source: "rx_prio_pause"}
		pfc.Priorities[p].TxPause = lossless.Reading{Value: 0, Source: "tx_prio_pause"}
	}
	gid, idx, off := "::ffff:192.168.10.11", 3, false
	roce := lossless.RoCEPortSample{Device: "mlx5_0", Port: 1, LinkLayer: &[]string{"Ethernet"}[0], RoutableV2: &idx, Problems: []string{},
		GIDs:       []lossless.RoCEGID{{Index: 3, GID: &gid, Netdev: &ifname}},
		DefaultToS: &lossless.RoCEToS{ToS: 106, DSCP: 26, ECN: 2, Source: "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"}}
	delay := uint16(7)
	qos := &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &delay, Source: "dcbnl IEEE_GET",
		Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}}}
	return engine.CountersSampled{Interface: ifname, At: at, Interval: every, RDMA: []lossless.RDMAPortSample{port}, PFC: pfc,
		RoCE: []lossless.RoCEPortSample{roce}, LinkPause: &lossless.LinkPauseSample{RX: &off, TX: &off, Source: "ethtool netlink PAUSE_GET"},
		QoS: qos, ECN: &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}}
}

// fakeSampler has the counters of a quiet mlx5 RoCE port.
type fakeSampler struct{}

// liveCheck runs `dcbtop check --json -i eth0 args...` in process, live
// on an in-memory eth0 that delivers frames (each LLDPDU again every
// 200 ms) and whose counters are fakeSampler's.
func liveCheck(t *testing.T, frames []checkFrame, args ...string) (int, check.Report) {
	t.Helper()
	conn := &memConn{frames: make(chan capture.Frame, 64), done: make(chan struct{})}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			for _, f := range frames {
				select {
				case conn.frames <- f.capture(t, time.Now()):
				case <-stop:
					return
				}
			}
			select {
			case <-time.After(200 * time.Millisecond):
			case <-stop:
				return
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	return checkJSONIn(t, Env{checkRuntime: memLink(conn)}, append([]string{"-i", "eth0"}, args...)...)
}

// memLink makes a live check run on conn as eth0, with fakeSampler's
// counters.
func memLink(conn *memConn) func(*session.Config) {
	return func(cfg *session.Config) {
		cfg.Interfaces = nil
		cfg.Links = []capture.Link{{Name: "eth0", Index: 7, MAC: hostMAC, Up: true}}
		cfg.Open = func(string) (session.Conn, error) { return conn, nil }
		cfg.Sampler = fakeSampler{}
	}
}

// capture is f as captured on eth0 at at.
func (f checkFrame) capture(t *testing.T, at time.Time) capture.Frame {
	dir := capture.DirectionIncoming
	if f.outgoing {
		dir = capture.DirectionOutgoing
	}
	return capture.Frame{Interface: "eth0", At: at, Dir: dir, Data: lldpFrame(t, f)}
}

// lldpFrame encodes a fixture frame.
func lldpFrame(t *testing.T, f checkFrame) []byte {
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: f.src[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("p1")},
		TTL:       120,
		TLVs:      append([]lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: f.name}}, f.tlvs...),
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, f.src, du)
	if err != nil {
		t.Error(err)
	}
	return b
}

// TestCheckLive runs the live path (wait for the peer, sample the
// counters twice) on an in-memory link: a healthy RoCE host is OK (exit
// 0) as soon as it is known; the switch without PFC on the RoCE priority
// is CRITICAL; a strict class that can starve RoCE is a WARNING (exit 1);
// no peer within --wait is CRITICAL once --wait passed.
func TestCheckLive(t *testing.T) {
	t.Parallel()
	healthyPeer := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcOn3, roceApp}}
	// Every check OK but single-agent: an in-memory link has no DCB
	// netlink, so whether the NIC's firmware runs DCBX is not known, and
	// what is not known is UNKNOWN (exit 3), never OK.
	code, r := liveCheck(t, []checkFrame{host(), healthyPeer}, "--wait", "20s")
	if code != 3 || r.Verdict != verdict.Unknown || r.Source != "live" || r.File != nil {
		t.Errorf("healthy: exit %d, report %+v", code, r)
	}
	if r.Ended != check.EndReady {
		t.Errorf("healthy: ended %q, want %q: the check should end once the peer and two samples are in", r.Ended, check.EndReady)
	}
	for _, x := range r.Interfaces[0].Results {
		want := verdict.OK
		if x.Check == verdict.CheckAgents {
			want = verdict.Unknown
			if u := x.Unread(); len(u) != 1 || !strings.HasPrefix(u[0], "the NIC's DCBX mode") {
				t.Errorf("healthy: single-agent did not read %q, want the NIC's DCBX mode only", u)
			}
		}
		if x.Verdict != want {
			t.Errorf("healthy: %s %v, want %v: %s %v", x.Check, x.Verdict, want, x.Summary, x.Evidence)
		}
	}

	code, r = liveCheck(t, []checkFrame{host(), {src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, pfcNone, roceApp}}}, "--wait", "20s")
	if code != 2 {
		t.Errorf("PFC off at the switch: exit %d, report %+v", code, r)
	}

	strictPeer := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{
		&lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 0, 0, 2}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAETS, lldp.TSAStrict}},
		reco5050, pfcOn3, roceApp}}
	code, r = liveCheck(t, []checkFrame{host(), strictPeer}, "--wait", "20s")
	if code != 1 || r.Verdict != verdict.Warning {
		t.Errorf("warnings only: exit %d, report %+v", code, r)
	}

	code, r = liveCheck(t, nil, "--wait", "1500ms")
	if code != 2 || r.Interfaces[0].Results[0].Check != verdict.CheckPeer || r.Interfaces[0].Results[0].Verdict != verdict.Critical {
		t.Errorf("no peer: exit %d, report %+v", code, r)
	}
	if x := r.Interfaces[0].Results[0]; r.Ended != check.EndWait || x.Summary != "no LLDP peer on the link within --wait" {
		t.Errorf("no peer: ended %q, %q; want the verdict at --wait", r.Ended, x.Summary)
	}
}

// TestCheckTextColor: on a terminal the verdicts are coloured, and only
// the verdicts.
func TestCheckTextColor(t *testing.T) {
	r := check.Report{Verdict: verdict.Critical, Exit: 2, Interfaces: []check.InterfaceReport{{
		Name: "eth0", Verdict: verdict.Critical, Results: []verdict.Result{
			{Interface: "eth0", Check: verdict.CheckPeer, Verdict: verdict.OK, Summary: "a valid DCBX peer (ieee)", Evidence: []string{}},
			{Interface: "eth0", Check: verdict.CheckRoCEPFC, Verdict: verdict.Critical, Summary: "off", Evidence: []string{"peer PFC enabled {}"}, Fix: "enable it"},
		}}}}
	var plain, color strings.Builder
	if err := output.New(&plain, output.Text).Check(r); err != nil {
		t.Fatal(err)
	}
	if err := output.New(&color, output.Text, output.WithColor(true)).Check(r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain text has escapes:\n%q", plain.String())
	}
	for _, want := range []string{"\x1b[1;31mCRITICAL\x1b[m (1 ok", "\x1b[32mOK      \x1b[m dcbx-peer", "\x1b[1;31mCRITICAL\x1b[m roce-pfc"} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("coloured text lacks %q:\n%q", want, color.String())
		}
	}
	if got := ansi.Strip(color.String()); got != plain.String() {
		t.Errorf("colour changed the text:\n%s\nvs\n%s", got, plain.String())
	}
}

// dcbtop check --json escapes what could act on a terminal as every JSON
// output does (engine.MarshalOutput): a peer's system name with a bidi
// override and a C1 CSI reaches the evidence as \u escapes.
func TestCheckJSONEscapes(t *testing.T) {
	file := "x\u202ey\u009b2J.pcap"
	var b strings.Builder
	if err := output.New(&b, output.JSON).Check(check.Report{Schema: "dcbtop.check/v1", File: &file, Interfaces: []check.InterfaceReport{}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\u202e\u009b") || !strings.Contains(out, `x\u202ey\u009b2J.pcap`) {
		t.Errorf("check --json: %q", out)
	}
}

// --expect takes a preset's name, unless a file of that name exists.
func TestCheckExpectPreset(t *testing.T) {
	o, err := parseCheck([]string{"--expect", "azure-local"})
	if err != nil || o.policy == nil || o.policy.Willing == nil || *o.policy.Willing || o.policy.PFC.Enabled[0] != 3 {
		t.Fatalf("--expect azure-local: %+v, %v", o, err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "roce-k8s"), []byte(`{"pfc":{"enabled":[4]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err = parseCheck([]string{"--expect", "roce-k8s"})
	if err != nil || o.policy == nil || o.policy.Trust != nil || o.policy.PFC.Enabled[0] != 4 {
		t.Errorf("--expect roce-k8s with a file of that name: %+v, %v; want the file's policy", o.policy, err)
	}
}

// A policy with several mistakes gets every one, each on its own line at
// its value, the help pointer after the last (issue 25, item 18).
func TestCheckExpectEveryError(t *testing.T) {
	path := writeTemp(t, "{\"pfc\": {\"enabled\": [3, 8]},\n \"ets\": {\"min_bandwidth\": {\"3\": 120}}}")
	code, _, errOut := runCLI(t, "check", "--expect", path, "-r", "../../engine/lldp/testdata/lldpd-ieee-full.pcap")
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != 3 || len(lines) != 2 {
		t.Fatalf("exit %d, stderr %q; want 2 lines", code, errOut)
	}
	for i, want := range []string{"line 1, column 25: pfc.enabled[1]: priority 8 is not 0-7", `line 2, column 33: ets.min_bandwidth["3"]: 120% is over 100`} {
		if !strings.HasPrefix(lines[i], "dcbtop check: UNKNOWN: --expect "+path+": policy: ") || !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q, want it at %q", i+1, lines[i], want)
		}
	}
	if !strings.HasSuffix(lines[1], "(dcbtop check --help)") || strings.Contains(lines[0], "--help") {
		t.Errorf("the help pointer belongs after the last line: %q", lines)
	}
}

// On a terminal, dcbtop check says on stderr what it waits for and for how
// long (issue 25, item 13), and clears the line before its report; not on
// a pipe.
func TestCheckProgress(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		conn := &memConn{frames: make(chan capture.Frame, 1), done: make(chan struct{})}
		var o, e bytes.Buffer
		Run(context.Background(), []string{"check", "-i", "eth0", "--wait", "1500ms"}, Env{Stdout: &o, Stderr: &e, StderrTTY: tty, checkRuntime: memLink(conn)})
		got := e.String()
		said := strings.Contains(got, "dcbtop check: waiting for a DCBX peer on eth0 (0s/2s)") && strings.HasSuffix(got, "\r\x1b[K")
		if tty != said {
			t.Errorf("stderr a terminal %v: stderr %q", tty, got)
		}
		if !strings.Contains(o.String(), "dcbx-peer") {
			t.Errorf("no report on stdout: %q", o.String())
		}
	}
}

// TestCheckTextfile writes the verdicts for node_exporter's textfile
// collector: the file holds the same verdicts as the JSON report, no
// temporary file is left beside it, and promtool accepts it.
func TestCheckTextfile(t *testing.T) {
	healthyPeer := checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcNone, roceApp}}
	pcap := checkCapture(t, host(), healthyPeer)
	dir := t.TempDir()
	before := time.Now()
	code, rep := checkJSON(t, "-r", pcap, "--textfile", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (PFC off at the switch)", code)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "dcbtop_check.prom" {
		t.Fatalf("the directory holds %v, want dcbtop_check.prom alone", entries)
	}
	path := filepath.Join(dir, "dcbtop_check.prom")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (node_exporter runs as another user)", fi.Mode().Perm())
	}
	fams := parseTextfile(t, path)
	want := map[string]float64{`dcbtop_check_exit_code{}`: 2}
	for _, in := range rep.Interfaces {
		want[`dcbtop_check_interface_verdict{interface="`+in.Name+`"}`] = float64(in.Verdict)
		for _, x := range in.Results {
			want[`dcbtop_check_verdict{check="`+string(x.Check)+`",interface="`+in.Name+`"}`] = float64(x.Verdict)
		}
	}
	got := map[string]float64{}
	for name, f := range fams {
		if name == "dcbtop_check_last_run_timestamp_seconds" || name == "dcbtop_check_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			got[name+"{"+strings.Join(ls, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("textfile metrics (-JSON report +file):\n%s", diff)
	}
	if got := fams["dcbtop_check_verdict"]; len(got.GetMetric()) < 10 {
		t.Errorf("%d verdicts, want every check", len(got.GetMetric()))
	}
	ts := fams["dcbtop_check_last_run_timestamp_seconds"].GetMetric()[0].GetGauge().GetValue()
	if lo, hi := float64(before.UnixNano())/1e9, float64(time.Now().UnixNano())/1e9; ts < lo || ts > hi {
		t.Errorf("last run %v, want the run's end, within %v..%v (not the capture's time, %v)", ts, lo, hi, rep.TakenAt)
	}
	if d := fams["dcbtop_check_duration_seconds"].GetMetric()[0].GetGauge().GetValue(); d <= 0 || d > time.Since(before).Seconds() {
		t.Errorf("duration %v s", d)
	}
	if _, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command("promtool", "check", "metrics")
		f, ferr := os.Open(path)
		if ferr != nil {
			t.Fatal(ferr)
		}
		defer f.Close()
		cmd.Stdin = f
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	} else {
		testbed.RequireCommands(t, "promtool")
	}

	// A second run replaces the file whole.
	if code, _ := checkJSON(t, "-r", checkCapture(t, host(), checkFrame{src: switchMAC, name: "leaf1", tlvs: []lldp.TLV{ets5050, reco5050, pfcOn3, roceApp}}), "--textfile", dir); code != 3 {
		t.Fatalf("second run: exit %d, want 3", code)
	}
	if v := parseTextfile(t, path)["dcbtop_check_exit_code"].GetMetric()[0].GetGauge().GetValue(); v != 3 {
		t.Errorf("after the second run the file says exit %v, want 3", v)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files after two runs", len(entries))
	}
}

// parseTextfile parses a Prometheus text exposition file.
func parseTextfile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fams
}

// TestCheckTextfileErrors: a directory that cannot take the file is
// UNKNOWN (exit 3) at once, with one line naming it, and nothing on
// stdout.
func TestCheckTextfileErrors(t *testing.T) {
	pcap := checkCapture(t, host())
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tt := range []struct{ dir, want string }{
		{missing, "dcbtop check: UNKNOWN: --textfile " + missing + ": no such directory\n"},
		{notDir, "dcbtop check: UNKNOWN: --textfile " + notDir + ": not a directory\n"},
	} {
		code, out, errOut := runCLI(t, "check", "-r", pcap, "--textfile", tt.dir)
		if code != 3 || out != "" || errOut != tt.want {
			t.Errorf("--textfile %s: exit %d, stdout %q, stderr %q; want 3, nothing, %q", tt.dir, code, out, errOut, tt.want)
		}
	}
	// Read-only: as another user (root writes anywhere), the binary.
	testbed.RequirePriv(t)
	testbed.RequireCommands(t, "setpriv")
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's directories are 0700: open the way to both for nobody.
	for _, d := range []string{filepath.Dir(ro), filepath.Dir(filepath.Dir(pcap)), filepath.Dir(pcap)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", dcbtopBin, "check", "-r", pcap, "--textfile", ro)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := -1
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if want := "dcbtop check: UNKNOWN: --textfile " + ro + ": not writable: permission denied\n"; code != 3 || stdout.Len() != 0 || stderr.String() != want {
		t.Errorf("read-only directory: exit %d (%v), stdout %q, stderr %q; want 3, nothing, %q", code, err, stdout.String(), stderr.String(), want)
	}
}
