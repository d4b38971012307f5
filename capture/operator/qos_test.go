// SPDX-License-Identifier: Apache-2.0

//go:build linux

package operator

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lossless"
	"github.com/dcbtop/dcbtop/engine/qos"
)

// TestQoSFix: the screen's f on an interface whose NIC trusts PCP with a
// DSCP map and has a PFC delay of 0. The backend proposes both fixes,
// each previewed with what dcbtop check says after it; writing the trust
// fix writes the trust table through DCB netlink and keeps its undo,
// which u previews and writes back; a DCBX write after a fix takes the
// undo's place.
func TestQoSFix(t *testing.T) {
	h := host.New(host.Config{})
	now := t0()
	h.Step(engine.HostObserved{At: now, NetAdmin: true})
	h.Step(engine.LinkChanged{Interface: "eth0", At: now, Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 1}, Up: true})
	h.Step(engine.LocalChanged{Interface: "eth0", At: now, Source: engine.SourceDCBNL, Mode: "host agent, IEEE",
		Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}}}})
	d := uint16(0)
	h.Step(engine.CountersSampled{Interface: "eth0", At: now, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		QoS: &lossless.PortQoSSample{Trust: []string{"pcp"}, PFCDelay: &d, Source: "dcbnl IEEE_GET",
			Buffer: &lossless.PortBuffer{PrioBuffer: [8]uint8{0, 0, 0, 1}, SizeBytes: [8]uint32{130944, 130944}, TotalBytes: 524288}}})
	snap := h.Engine().Snapshot()
	fl := &fakeLive{h: h}
	b := NewBackend(t.TempDir(), snapOf(snap), fl)
	f := kerneltest.NewFake()
	mode := dcbnl.ModeHost | dcbnl.ModeIEEE
	f.Mode = &mode
	f.State.AppTrust = []uint8{255}
	f.State.App = []dcbnl.App{{Selector: 5, Priority: 3, Protocol: 26}}
	var reqs []kerneltest.Request
	fl.kw = kernel.NewWriter(func() (kernel.Client, func(), error) { return f.NetlinkLog(t, &reqs), func() {}, nil }, nil)

	fixes, err := b.QoSFixes("eth0")
	if err != nil {
		t.Fatal(err)
	}
	if n := countOf(fl.calls, "preview eth0"); n != 1 {
		t.Errorf("%d calls into the run to preview %d fixes, want one (one call per operator action)", n, len(fixes))
	}
	var codes []diag.Code
	for _, fp := range fixes {
		codes = append(codes, fp.Fix.Code)
	}
	if diff := cmp.Diff([]diag.Code{diag.CodePFCNoHeadroom, diag.CodeTrustMismatch}, codes); diff != "" {
		t.Fatalf("fixes (-want +got):\n%s", diff)
	}
	trust := fixes[1]
	if !strings.Contains(strings.Join(trust.Changes, "\n"), "- trust-pcp-with-dscp-map") ||
		!strings.Contains(strings.Join(trust.Changes, "\n"), "trust: WARNING → OK") {
		t.Errorf("the trust fix's preview: %q, want the diagnostic cleared and check's trust OK", trust.Changes)
	}
	text, err := b.ApplyQoS("eth0", trust.Fix.Change, false)
	if err != nil || !strings.Contains(text, "written and read back: trust") {
		t.Fatalf("ApplyQoS: %q, %v", text, err)
	}
	if diff := cmp.Diff([]uint8{5, 255}, f.State.AppTrust); diff != "" {
		t.Errorf("the driver's trust table (-want +got):\n%s", diff)
	}
	undo, ok := b.QoSUndo("eth0")
	if !ok || !cmp.Equal(undo.Fix.Change, qos.Change{Trust: []string{"pcp"}}) {
		t.Fatalf("QoSUndo: %+v, %v; want trust pcp", undo, ok)
	}
	if _, err := b.ApplyQoS("eth0", undo.Fix.Change, true); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint8{255}, f.State.AppTrust); diff != "" {
		t.Errorf("the driver's trust table after the undo (-want +got):\n%s", diff)
	}
	if _, ok := b.QoSUndo("eth0"); ok {
		t.Error("an undo left after the undo")
	}
	// A fix, then a DCBX write: u undoes the DCBX write, not the fix.
	if _, err := b.ApplyQoS("eth0", trust.Fix.Change, false); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := b.Apply("eth0", &on, nil); err != nil { // through the host, to the kernel
		t.Fatal(err)
	}
	if _, ok := b.QoSUndo("eth0"); ok {
		t.Error("the fix's undo outlived a later write")
	}
}

// TestTunePreview: the screen's tune form. A rate limit typed for a NIC
// that reports its rate limits is previewed (before → after), written
// through DCB netlink, read back and undone by u; a storm timeout on a
// driver without the tunable, and a rewrite entry on a kernel without the
// rewrite table, are refused by the preview in one line, nothing written.
func TestTunePreview(t *testing.T) {
	h := host.New(host.Config{})
	now := t0()
	h.Step(engine.HostObserved{At: now, NetAdmin: true})
	h.Step(engine.LinkChanged{Interface: "eth0", At: now, Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 1}, Up: true})
	h.Step(engine.LocalChanged{Interface: "eth0", At: now, Source: engine.SourceDCBNL, Mode: "host agent, IEEE",
		Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}})
	h.Step(engine.CountersSampled{Interface: "eth0", At: now, Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		QoS: &lossless.PortQoSSample{MaxRateKbps: &[8]uint64{}, Source: "dcbnl IEEE_GET"}})
	fl := &fakeLive{h: h}
	b := NewBackend(t.TempDir(), snapOf(h.Engine().Snapshot()), fl)
	f := kerneltest.NewFake()
	mode := dcbnl.ModeHost | dcbnl.ModeIEEE
	f.Mode = &mode
	f.State.MaxRate = &[8]uint64{}
	var reqs []kerneltest.Request
	fl.kw = kernel.NewWriter(func() (kernel.Client, func(), error) { return f.NetlinkLog(t, &reqs), func() {}, nil }, nil)

	c := qos.Change{MaxRate: []qos.TCRate{{TC: 3, Kbps: 25_000_000}}}
	pv, err := b.PreviewQoS("eth0", c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"maxrate TC3 unlimited → 25 Gbit/s"}, pv.Lines); diff != "" {
		t.Errorf("preview lines (-want +got):\n%s", diff)
	}
	if pv.Fix.Code != "" || pv.Fix.Why != tunedWhy || !cmp.Equal(pv.Fix.Change, c) {
		t.Errorf("preview's fix %+v: want no diagnostic, the tune form's words and the change", pv.Fix)
	}
	if len(reqs) != 0 {
		t.Fatalf("the preview sent %d requests to the kernel", len(reqs))
	}
	text, err := b.ApplyQoS("eth0", pv.Fix.Change, false)
	if err != nil || !strings.Contains(text, "written and read back: rate limits") {
		t.Fatalf("ApplyQoS: %q, %v", text, err)
	}
	if got := *f.State.MaxRate; got != ([8]uint64{3: 25_000_000}) {
		t.Errorf("the driver holds %v kbit/s", got)
	}
	undo, ok := b.QoSUndo("eth0")
	if !ok || !cmp.Equal(undo.Fix.Change, qos.Change{MaxRate: []qos.TCRate{{TC: 3, Kbps: 0}}}) {
		t.Fatalf("QoSUndo: %+v, %v; want maxrate 3:0", undo, ok)
	}
	// The undo is previewed from what the NIC read back, before a
	// counters sample shows it (the guest's TestScreenTune pressed u at
	// once and read "unlimited → unlimited").
	if diff := cmp.Diff([]string{"maxrate TC3 25 Gbit/s → unlimited"}, undo.Lines); diff != "" {
		t.Errorf("the undo's preview (-want +got):\n%s", diff)
	}
	if _, err := b.ApplyQoS("eth0", undo.Fix.Change, true); err != nil {
		t.Fatal(err)
	}
	if got := *f.State.MaxRate; got != ([8]uint64{}) {
		t.Errorf("after the undo the driver holds %v kbit/s", got)
	}
	if pv, err := b.PreviewQoS("eth0", c); err != nil || !cmp.Equal(pv.Lines, []string{"maxrate TC3 unlimited → 25 Gbit/s"}) {
		t.Errorf("after the undo the preview says %q, %v", pv.Lines, err)
	}
	// A counters sample read after the write holds it: the previews are
	// made from the samples again.
	h.Step(engine.CountersSampled{Interface: "eth0", At: now.Add(time.Second), Interval: time.Second, RDMA: []lossless.RDMAPortSample{},
		QoS: &lossless.PortQoSSample{MaxRateKbps: &[8]uint64{3: 1_000_000}, Source: "dcbnl IEEE_GET"}})
	if over := h.QoSOver("eth0"); over != nil {
		t.Errorf("a later sample left the write to preview over: %v", over.Args())
	}
	if pv, err := b.PreviewQoS("eth0", c); err != nil || !cmp.Equal(pv.Lines, []string{"maxrate TC3 1 Gbit/s → 25 Gbit/s"}) {
		t.Errorf("after a sample the preview says %q, %v", pv.Lines, err)
	}

	ms := uint16(300)
	n := len(reqs)
	for _, tt := range []struct {
		c    qos.Change
		want string
	}{
		{qos.Change{PFCStormTimeout: &ms}, "no PFC storm prevention timeout"},
		{qos.Change{RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 26}}}, "no APP rewrite table"},
	} {
		if _, err := b.PreviewQoS("eth0", tt.c); err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("PreviewQoS(%v): %v, want one line saying %q", tt.c.Args(), err, tt.want)
		}
	}
	if len(reqs) != n {
		t.Errorf("refused previews sent %d requests to the kernel", len(reqs)-n)
	}
}
