// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/dcbtop/dcbtop/capture/output"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/lossless/losslesstest"
	"github.com/dcbtop/dcbtop/engine/metrics"
	"github.com/dcbtop/dcbtop/engine/verdict"
	"github.com/dcbtop/dcbtop/ui"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// A surfaceSetup is one interface of a host, as events to a real engine.
type surfaceSetup struct {
	name string
	// local is this host's parameters (dcbtop's agent), nil for unknown.
	local *dcb.Params
	// peer are the frames of the link's LLDP speakers: nil for no peer.
	peer [][]lldp.TLV
	// counters adds two samples of a RoCE-ready NIC.
	counters bool
	edit     func(s *engine.CountersSampled)
}

// surfaceSetups are issue 43's setups, each an interface, beside a
// healthy one: the screen and dcbtop check disagreed on each at 7737732.
func surfaceSetups() []surfaceSetup {
	roce := func(willing bool, pfc dcb.PrioSet) *dcb.Params {
		return &dcb.Params{
			ETS: &dcb.ETS{Willing: willing, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
			PFC: &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc},
			App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: lossless.RoCEv2Port, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}},
		}
	}
	switchPFC4 := &lldp.PFC{Cap: 8, Enabled: 1 << 4}
	cee := &lldp.CEE{Control: &lldp.CEEControl{SeqNo: 1}, PFC: &lldp.CEEPFC{CEEFeature: lldp.CEEFeature{Enable: true}, Enabled: 1 << 3, NumTCs: 8}}
	cin := &lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x1b, 0x21, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00}}
	healthy := []lldp.TLV{lldptest.ETSA, lldptest.RecoA, lldptest.PFC3, lldptest.App2}
	return []surfaceSetup{
		{name: "healthy", local: roce(true, 1<<3), peer: [][]lldp.TLV{healthy}, counters: true},
		{name: "nodcbx", local: roce(false, 1<<3), peer: [][]lldp.TLV{{}}, counters: true},
		{name: "nopeer", local: roce(false, 1<<3), counters: true},
		// APP 4791 -> 3, but PFC on 4 only, at the peer.
		{name: "pfc4", local: roce(false, 1<<3), peer: [][]lldp.TLV{{lldptest.ETSA, switchPFC4, lldptest.App1}}, counters: true},
		// neither-willing-mismatch's advice followed: Willing on, the
		// host took the peer's PFC 4, the RoCE priority stays 3.
		{name: "willing4", local: roce(true, 1<<3), peer: [][]lldp.TLV{{lldptest.ETSA, switchPFC4, lldptest.App1}}, counters: true},
		{name: "ceeonly", local: roce(true, 0), peer: [][]lldp.TLV{{cee}}, counters: true},
		{name: "cin", local: roce(true, 1<<3), peer: [][]lldp.TLV{{cin}}, counters: true},
		{name: "crowd", local: roce(true, 1<<3), peer: [][]lldp.TLV{healthy, {}}, counters: true},
		{name: "pausestats", local: roce(true, 1<<3), peer: [][]lldp.TLV{healthy}, counters: true, edit: func(s *engine.CountersSampled) {
			s.LinkPause = &lossless.LinkPauseSample{RxFrames: new(uint64), TxFrames: new(uint64), FramesSource: "ethtool -S rx_pause_ctrl_phy, tx_pause_ctrl_phy"}
		}},
		{name: "replayish", peer: [][]lldp.TLV{healthy}},
	}
}

// surfaceSnapshot runs every setup on its own interface of one engine
// that judges as engine/host's does (check.Judge), on a host seen as a
// live run sees it.
func surfaceSnapshot(t *testing.T) engine.Snapshot {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	e := engine.New(engine.Config{Judge: check.Judge})
	e.Apply(engine.HostObserved{At: t0, NetAdmin: true})
	for i, s := range surfaceSetups() {
		mac := lldp.MAC{0x02, 0xdc, 0xb0, 0, 0x10, byte(i)}
		e.Apply(engine.LinkChanged{Interface: s.name, At: t0, Ifindex: 10 + i, MAC: mac, Up: true, MTU: 9000})
		e.Apply(engine.LocalChanged{Interface: s.name, At: t0, Source: engine.SourceDCBNL, Mode: "host, IEEE", Withdrawn: true})
		if s.local != nil {
			e.Apply(engine.LocalChanged{Interface: s.name, At: t0, Source: engine.SourceAgent, Willing: s.local.ETS.Willing, Params: s.local})
		}
		for j, tlvs := range s.peer {
			src := lldp.MAC{0x02, 0x5e, 0, byte(i), 0, byte(j + 1)}
			e.Apply(engine.FrameReceived{Interface: s.name, At: at(1 + float64(j)/10), Data: lldptest.Frame(t, src, 120, tlvs...)})
		}
		if !s.counters {
			continue
		}
		for n := range uint64(2) {
			c := engine.CountersSampled(losslesstest.MLX(at(2+float64(n)), n))
			c.Interface = s.name
			d := uint16(7)
			c.QoS = &lossless.PortQoSSample{Trust: []string{"dscp", "pcp"}, PFCDelay: &d, Source: "dcbnl IEEE_GET",
				Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 2 * 130944}}
			c.ECN = &lossless.ECNSample{Source: "class/net/eth0/ecn", NotificationPoint: 1 << 3, ReactionPoint: 1 << 3}
			if s.edit != nil {
				s.edit(&c)
			}
			e.Apply(c)
		}
	}
	return e.Snapshot()
}

// TestSurfacesAgree: the screen (the overview's Diag column, the port
// view's Diag tab), --json, /metrics and dcbtop check take their
// verdicts from one evaluation, so no surface says ✓ where another says
// ✗: each setup's worst verdict is the same on all of them. At 7737732
// an LLDP peer without DCBX, a peer with APP 4791→3 but PFC on 4, PFC 3
// here and 4 at the peer after following neither-willing-mismatch's
// advice, and a CEE-only switch beside dcbtop's IEEE agent were ✓ on the
// screen and CRITICAL in dcbtop check.
func TestSurfacesAgree(t *testing.T) {
	snap := surfaceSnapshot(t)
	// dcbtop check.
	fromCheck := map[string]verdict.Verdict{}
	for _, in := range check.NewReport(snap, nil, check.Options{Ended: check.EndReady}).Interfaces {
		fromCheck[in.Name] = in.Verdict
	}
	// --json.
	var buf bytes.Buffer
	if err := output.New(&buf, output.JSON).Snapshot(snap); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Interfaces []struct {
			Name   string           `json:"name"`
			Checks []verdict.Result `json:"checks"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	fromJSON := map[string]verdict.Verdict{}
	for _, in := range doc.Interfaces {
		if in.Checks == nil {
			t.Errorf("--json: %s has no checks", in.Name)
		}
		var w verdict.Verdict
		for _, r := range in.Checks {
			w = w.Worst(r.Verdict)
		}
		fromJSON[in.Name] = w
	}
	// /metrics.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.New(func() engine.Snapshot { return snap }))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	fromMetrics := map[string]verdict.Verdict{}
	for _, mf := range mfs {
		if mf.GetName() != "dcbtop_readiness_interface_verdict" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "interface" {
					fromMetrics[l.GetValue()] = verdict.Verdict(m.GetGauge().GetValue())
				}
			}
		}
	}
	// The screen: the overview's Diag column, and each port's Diag tab.
	fromOverview := map[string]verdict.Verdict{}
	over := screenOf(t, snap, "", 160, 40, true)
	head := lineWith(over, "Interface ")
	from, to := strings.Index(head, " Diag "), strings.Index(head, " Pauses/s")
	if from < 0 || to < from {
		t.Fatalf("the overview has no Diag column:\n%s", over)
	}
	for _, s := range surfaceSetups() {
		line := []rune(lineWith(over, " "+s.name+" ")) // one cell a rune
		if len(line) < to {
			t.Fatalf("the overview has no row for %s:\n%s", s.name, over)
		}
		fromOverview[s.name] = marksVerdict(t, string(line[from:to]))
	}
	fromTab := map[string]verdict.Verdict{}
	for _, s := range surfaceSetups() {
		scr := screenOf(t, snap, s.name, 120, 30, false)
		line := lineWith(scr, "Diag ")
		i := strings.Index(line, "Diag ")
		if i < 0 {
			t.Fatalf("%s: no Diag tab:\n%s", s.name, scr)
		}
		tab := strings.SplitN(line[i+len("Diag "):], "  ", 2)[0]
		fromTab[s.name] = marksVerdict(t, tab)
	}
	for _, s := range surfaceSetups() {
		got := map[string]verdict.Verdict{"json": fromJSON[s.name], "metrics": fromMetrics[s.name], "overview": fromOverview[s.name], "tab": fromTab[s.name]}
		want := map[string]verdict.Verdict{"json": fromCheck[s.name], "metrics": fromCheck[s.name], "overview": fromCheck[s.name], "tab": fromCheck[s.name]}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: dcbtop check says %s; the surfaces (-check +surface):\n%s", s.name, fromCheck[s.name], diff)
		}
	}
	// The setups' verdicts themselves: what each must be.
	wantWorst := map[string]verdict.Verdict{
		"healthy": verdict.OK, "nodcbx": verdict.Critical, "nopeer": verdict.Critical, "pfc4": verdict.Critical,
		"willing4": verdict.Critical, "ceeonly": verdict.Critical, "cin": verdict.Warning, "crowd": verdict.Warning,
		"pausestats": verdict.Unknown, "replayish": verdict.Unknown,
	}
	if diff := cmp.Diff(wantWorst, fromCheck); diff != "" {
		t.Errorf("dcbtop check's verdicts (-want +got):\n%s", diff)
	}
}

// marksVerdict reads a Diag cell or tab ("✓", "⚠1 ?3", "✗2 ⚠1") as the
// verdict it stands for: ✗ CRITICAL, ⚠ WARNING, ? UNKNOWN, ✓ OK.
func marksVerdict(t *testing.T, cell string) verdict.Verdict {
	t.Helper()
	switch {
	case strings.Contains(cell, "✗"):
		return verdict.Critical
	case strings.Contains(cell, "⚠"):
		return verdict.Warning
	case strings.Contains(cell, "?"):
		return verdict.Unknown
	case strings.Contains(cell, "✓"), strings.Contains(cell, "ℹ"):
		return verdict.OK
	}
	t.Fatalf("no verdict in %q", cell)
	return verdict.Unknown
}

// lineWith returns the first line of s that contains sub, "" when none.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// screenOf draws snap as the screen does at w×h: the overview, or the
// port view of iface.
func screenOf(t *testing.T, snap engine.Snapshot, iface string, w, h int, overview bool) string {
	var out string
	synctest.Test(t, func(t *testing.T) {
		snaps := make(chan engine.Snapshot, 1)
		snaps <- snap
		opts := []ui.Option{ui.WithColor(ui.ColorNever), ui.WithClock(func() time.Time { return snap.TakenAt }), ui.WithLocation(time.UTC), ui.WithOverview(overview)}
		if iface != "" {
			opts = append(opts, ui.WithInterface(iface))
		}
		d := &teaDriver{msgs: make(chan tea.Msg, 64)}
		d.m = ui.NewModel(snaps, opts...)
		d.run(d.m.Init())
		d.send(tea.WindowSizeMsg{Width: w, Height: h})
		d.settle()
		out = plainScreen(d.m.View().Content)
		close(snaps)
		time.Sleep(2 * time.Second)
	})
	return out
}
