// SPDX-License-Identifier: Apache-2.0

//go:build linux

package operator

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/dcbnl"
	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/kernel/kerneltest"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/host"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
	"github.com/dcbtop/dcbtop/ui"
)

// snapOf returns a snapshot function over a fixed snapshot.
func snapOf(s engine.Snapshot) func() (engine.Snapshot, bool) {
	return func() (engine.Snapshot, bool) { return s, true }
}

// A fakeLive records the backend's calls into a live run. With h set, a
// real host layer decides each write and keeps the undo state, and the
// kernel's effects are carried out through kw as the run's effects do
// (capture/session's runEffects): the kernel's path; without, a write is
// the agent's and answered with applied, or refused with err.
type fakeLive struct {
	mu      sync.Mutex
	calls   []string
	writes  []fakeWrite
	applied host.Applied
	err     error
	h       *host.Host
	kw      *kernel.Writer
	results []engine.WriteResult // reported to the host
	undo    map[string]engine.LocalState
}

// A fakeWrite is a write the backend handed to the live run.
type fakeWrite struct {
	Iface   string
	Params  *dcb.Params
	Willing *bool
	Undo    bool
}

func (f *fakeLive) Write(iface string, change *dcb.Params, willing *bool, undo bool) (host.Applied, *engine.WriteResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "write "+iface)
	f.writes = append(f.writes, fakeWrite{iface, change, willing, undo})
	if f.h == nil {
		return f.applied, nil, f.err
	}
	var (
		ap  host.Applied
		res host.Result
		err error
	)
	if undo {
		ap, res, err = f.h.UndoWrite(iface, t0())
	} else {
		ap, res, err = f.h.Write(iface, change, willing, t0())
	}
	for _, e := range res.Effects {
		if k, ok := e.(host.WriteKernel); ok {
			kres, derr := f.kw.Apply(k.Interface, k.Params, k.Willing)
			if derr != nil {
				kres = kernel.Failed(k.Interface, derr)
			}
			f.results = append(f.results, kres)
			f.h.KernelWritten(k, kres, t0())
			return ap, &kres, err
		}
	}
	return ap, nil, err
}

// WriteQoS has the host decide and carries out its WriteQoS through kw.
func (f *fakeLive) WriteQoS(iface string, c qos.Change, undo bool) (qos.WriteResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res, err := f.h.WriteQoS(iface, c, undo, t0())
	if err != nil {
		return qos.WriteResult{}, err
	}
	for _, e := range res.Effects {
		if w, ok := e.(host.WriteQoS); ok {
			qres, derr := f.kw.ApplyQoS(w.Interface, w.Change)
			if derr != nil {
				qres = kernel.QoSFailed(w.Interface, derr)
			}
			f.h.QoSWritten(w, qres, t0())
			return qres, nil
		}
	}
	return qos.WriteResult{}, errors.New("no WriteQoS effect")
}

// QoSUndo is the host's.
func (f *fakeLive) QoSUndo(iface string) (qos.Change, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h == nil {
		return qos.Change{}, false
	}
	return f.h.QoSUndo(iface)
}

// PreviewQoS is the host's engine's, over its last write read back, as
// the run's (none without h).
func (f *fakeLive) PreviewQoS(iface string, cs []qos.Change) ([]qos.Preview, []error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "preview "+iface)
	pvs, errs := make([]qos.Preview, len(cs)), make([]error, len(cs))
	for i, c := range cs {
		if f.h == nil {
			errs[i] = errors.New("no engine in this test")
			continue
		}
		pvs[i], errs[i] = qos.PreviewOver(f.h.Engine(), iface, f.h.QoSOver(iface), c)
	}
	return pvs, errs
}

func (f *fakeLive) UndoState(iface string) (engine.LocalState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h != nil {
		return f.h.Undo(iface)
	}
	st, ok := f.undo[iface]
	return st, ok
}

func (f *fakeLive) SetAgent(iface string, on bool) (AgentChange, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "agent "+iface+" "+dcb.OnOff(on))
	return AgentChange{Started: on, Interval: time.Second, TTL: 5, Willing: true, From: "the defaults"}, nil
}

// kernelHost is a host layer with nl, a dcbnl interface with the
// defaults (as kerneltest's driver starts), writable by this process.
func kernelHost(t *testing.T) *host.Host {
	t.Helper()
	h := host.New(host.Config{})
	now := t0()
	h.Step(engine.HostObserved{At: now, NetAdmin: true})
	h.Step(engine.LinkChanged{Interface: "nl", At: now, Ifindex: 4, MAC: lldp.MAC{2, 0, 0, 0, 0, 0x12}, Up: true})
	h.Step(engine.LocalChanged{Interface: "nl", At: now, Source: engine.SourceDCBNL, Params: agent.DefaultLocal(), Mode: "host agent, IEEE"})
	return h
}

// liveSnapshot builds, with a real engine, a snapshot of interfaces in
// each local situation: ag (dcbtop's agent), nl (dcbnl), fw (dcbnl,
// firmware-managed), ob (another agent observed), no (no local source);
// every one hears the switch of peerFrame.
func liveSnapshot(t *testing.T) engine.Snapshot {
	t.Helper()
	return liveSnapshotHost(t, engine.HostObserved{NetAdmin: true})
}

// liveSnapshotHost is liveSnapshot on a host as h says (LLDP agents
// running, CAP_NET_ADMIN).
func liveSnapshotHost(t *testing.T, h engine.HostObserved) engine.Snapshot {
	t.Helper()
	e := engine.New(engine.Config{})
	now := t0()
	h.At = now
	e.Apply(h)
	local := agent.DefaultLocal().WithWilling(true)
	for i, name := range []string{"ag", "fw", "nl", "no", "ob"} {
		mac := lldp.MAC{2, 0, 0, 0, 0, byte(0x10 + i)}
		e.Apply(engine.LinkChanged{Interface: name, At: now, Ifindex: 2 + i, MAC: mac, Up: true})
		switch name {
		case "ag":
			e.Apply(engine.LocalChanged{Interface: name, At: now, Source: "agent", Willing: true, Params: local})
		case "nl":
			e.Apply(engine.LocalChanged{Interface: name, At: now, Source: "dcbnl", Willing: true, Params: local, Mode: "host agent, IEEE"})
		case "fw":
			e.Apply(engine.LocalChanged{Interface: name, At: now, Source: "dcbnl", Willing: false, Params: local, Mode: "firmware-managed (LLD_MANAGED), IEEE", FirmwareManaged: true})
		case "ob":
			cfg := agent.Config{Ifname: "eth9", MAC: lldp.MAC{2, 0, 0, 0, 0, 0x99}, SystemName: "lldpad"}
			du, err := agent.BuildDU(cfg, 120, agent.Advert{Willing: true, Local: local, Operational: local})
			if err != nil {
				t.Fatal(err)
			}
			f, err := lldp.AppendFrame(nil, lldp.NearestBridge, cfg.MAC, du)
			if err != nil {
				t.Fatal(err)
			}
			e.Apply(engine.FrameReceived{Interface: name, At: now, Outgoing: true, Data: f})
		}
		e.Apply(engine.FrameReceived{Interface: name, At: now.Add(time.Second), Data: peerFrame(t, 120)})
	}
	return e.Snapshot()
}

func testBackend(s engine.Snapshot, live Run) *Backend {
	b := NewBackend(os.TempDir(), snapOf(s), live)
	return b
}

// TestScreenCapabilities checks what the screen may do per local
// situation, and the reasons it may not: the capabilities the engine
// puts in each snapshot (engine.Interface.Caps), which the screen reads
// without asking the backend.
func TestScreenCapabilities(t *testing.T) {
	s := liveSnapshot(t)
	for _, in := range s.Interfaces {
		if want := map[string]engine.LocalSource{"ag": "agent", "nl": "dcbnl", "fw": "dcbnl", "ob": "observed", "no": "none"}[in.Name]; in.LocalSource != want {
			t.Fatalf("fixture: %s has local source %q, want %q", in.Name, in.LocalSource, want)
		}
	}
	fwWhy := "the NIC firmware runs DCBX (LLD_MANAGED): hand DCBX to the host first (ice: ethtool --set-priv-flags fw fw-lldp-agent off; i40e: ethtool --set-priv-flags fw disable-fw-lldp on; mlx5: dcbtop apply -i fw --dcbx-mode host)"
	otherWhy := func(who string) string {
		return who + " transmits LLDP here and owns what this host advertises: dcbtop will not run a second agent beside it (the switch would see two peers). " +
			"Change the parameters in that agent (lldptool, lldpcli), or stop it and press a to run dcbtop's agent"
	}
	const noneWhy = "no local DCB source here (no agent, no driver DCB support): press a to run dcbtop's agent, then change its parameters"
	tests := []struct {
		name   string
		iface  string
		unpriv bool
		others []int // pids of transmitting lldpds
		want   capsWords
	}{
		{name: "agent", iface: "ag", want: capsWords{CanWrite: true, CanAgent: true}},
		{name: "agent, lldpd beside", iface: "ag", others: []int{7}, want: capsWords{CanWrite: true, CanAgent: true}},
		{name: "dcbnl", iface: "nl", want: capsWords{CanWrite: true, CanAgent: true}},
		{name: "dcbnl unprivileged", iface: "nl", unpriv: true, want: capsWords{WriteWhy: "needs CAP_NET_ADMIN to write DCB netlink (run as root)", CanAgent: true}},
		{name: "dcbnl firmware", iface: "fw", want: capsWords{WriteWhy: fwWhy, AgentWhy: fwWhy}},
		{name: "none", iface: "no", want: capsWords{WriteWhy: noneWhy, CanAgent: true}},
		// One coherent answer where another agent runs: neither write nor
		// start a second agent, and how to hand over.
		{name: "none, lldpd here", iface: "no", others: []int{7},
			want: capsWords{WriteWhy: otherWhy("another LLDP agent (lldpd (pid 7))"), AgentWhy: otherWhy("another LLDP agent (lldpd (pid 7))")}},
		{name: "observed", iface: "ob", want: capsWords{WriteWhy: otherWhy("another LLDP agent of this host (mac 02:00:00:00:00:99)"),
			AgentWhy: otherWhy("another LLDP agent of this host (mac 02:00:00:00:00:99)")}},
		{name: "dcbnl, lldpd here", iface: "nl", others: []int{7},
			want: capsWords{CanWrite: true, AgentWhy: otherWhy("another LLDP agent (lldpd (pid 7))")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var agents []engine.HostAgent
			for _, pid := range tt.others {
				agents = append(agents, engine.HostAgent{Name: "lldpd", PID: pid, Transmits: true})
			}
			in := snaptest.Iface(t, liveSnapshotHost(t, engine.HostObserved{NetAdmin: !tt.unpriv, Agents: agents}), tt.iface)
			if got := wordsOf(in.Caps); got != tt.want {
				t.Errorf("%s's capabilities %+v, want %+v", tt.iface, got, tt.want)
			}
		})
	}

	// Every write is refused in a replay, with the reason.
	b := testBackend(s, nil)
	w := true
	for name, err := range map[string]error{
		"apply": second(b.Apply("ag", &w, nil)), "undo": second(b.Undo("ag")), "agent": second(b.SetAgent("ag", true)),
	} {
		if err == nil || err.Error() != replayWhy {
			t.Errorf("replay %s: %v, want %q", name, err, replayWhy)
		}
	}
	// Live, an interface the screen does not have calls nothing; a write
	// is one call into the run, whose host layer decides (engine/host's
	// tests) and whose refusal is the answer.
	fl := &fakeLive{err: errors.New(noneWhy)}
	b = testBackend(s, fl)
	if _, err := b.Apply("zz", &w, nil); err == nil || err.Error() != "zz is not in the snapshot" {
		t.Errorf("apply on an unknown interface: %v", err)
	}
	if _, err := b.Apply("no", &w, nil); err == nil || err.Error() != noneWhy {
		t.Errorf("apply without a local agent: %v", err)
	}
	if !slices.Equal(fl.calls, []string{"write no"}) {
		t.Errorf("calls into the run %v, want the one write", fl.calls)
	}
}

func second[T any](_ T, err error) error { return err }

// The screen's backend is what the screen needs.
var _ ui.Backend = (*Backend)(nil)

// capsWords is Capabilities as the operator reads them: what is allowed,
// and the words of each refusal.
type capsWords struct {
	CanWrite, CanAgent bool
	WriteWhy, AgentWhy string
}

func wordsOf(c engine.Capabilities) capsWords {
	return capsWords{CanWrite: c.CanWrite, CanAgent: c.CanAgent, WriteWhy: c.WriteWhy(), AgentWhy: c.AgentWhy()}
}

// countOf counts the elements of s equal to v.
func countOf[T comparable](s []T, v T) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// TestBackendApplyAgent: on dcbtop's agent, apply and undo are handed to
// the host layer on the engine goroutine, and the answer says what
// changed and what the agent now advertises: what its LLDPDU carries
// (host.Applied.Advertised), which for a willing host is the peer's ETS
// and PFC, not its own (54a24de said "ETS 100/0..., PFC off" while the
// peer received ETS 50/50 with PFC on 3).
func TestBackendApplyAgent(t *testing.T) {
	s := liveSnapshot(t)
	w := false
	sent := &dcb.Params{ETS: &dcb.ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}},
		PFC: &dcb.PFC{Willing: true, Cap: 8, Enabled: 1 << 3}}
	fl := &fakeLive{applied: host.Applied{Interface: "ag", Target: engine.WriteAgent,
		After: engine.LocalState{Willing: true, Params: agent.DefaultLocal().WithWilling(true)}, Changed: []string{"willing"}, Advertised: sent}}
	b := testBackend(s, fl)
	text, err := b.Apply("ag", &w, nil)
	if want := "applied to dcbtop's agent, changed willing; now advertising willing, ETS 50/50/0/0/0/0/0/0 (prio→TC 00010000), PFC 3"; err != nil || text != want {
		t.Errorf("apply: %q, %v; want %q", text, err, want)
	}
	p := agent.DefaultLocal()
	if _, err := b.Apply("ag", nil, p); err != nil {
		t.Fatal(err)
	}
	fl.applied.Changed = nil
	if text, err := b.Undo("ag"); err != nil || !strings.HasPrefix(text, "nothing changed; now advertising willing, ETS 50/50") {
		t.Errorf("undo: %q, %v", text, err)
	}
	want := []fakeWrite{{Iface: "ag", Willing: &w}, {Iface: "ag", Params: p}, {Iface: "ag", Undo: true}}
	if diff := cmp.Diff(want, fl.writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	fl.err = errors.New("invalid parameters: ets: bandwidths sum to 90")
	if _, err := b.Apply("ag", nil, p); err == nil || err.Error() != fl.err.Error() {
		t.Errorf("refusal: %v", err)
	}
}

// TestBackendApplyKernel: on a dcbnl interface, apply goes through
// kernel.Apply, feeds the read-back to the engine, and undo restores the
// state before.
func TestBackendApplyKernel(t *testing.T) {
	s := liveSnapshot(t)
	fake := kerneltest.NewFake()
	fl := &fakeLive{h: kernelHost(t), kw: kernel.NewWriter(func() (kernel.Client, func(), error) { return fake, func() {}, nil }, nil)}
	b := testBackend(s, fl)
	p := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1<<3 | 1<<4}}
	text, err := b.Apply("nl", nil, p)
	if err != nil || text != "applied through dcbnl and read back: PFC" {
		t.Fatalf("apply: %q, %v", text, err)
	}
	if fake.State.PFC.Enabled != 0x18 {
		t.Errorf("driver PFC %#x, want 0x18", fake.State.PFC.Enabled)
	}
	if len(fl.results) != 1 || fl.results[0].After.Params == nil || fl.results[0].After.Params.PFC.Enabled != 0x18 {
		t.Errorf("result reported to the host: %+v", fl.results)
	}
	if in, _ := fl.h.Engine().Interface("nl"); in.LocalSource != engine.SourceDCBNL || in.Local.PFC.Enabled != 0x18 {
		t.Errorf("the engine's local parameters after the write: %s %+v", in.LocalSource, in.Local)
	}
	// One read before (the undo state), one read back (the engine's):
	// nothing else reads.
	if n := slices.Index(fake.Calls, "SET PFC {Cap:8 Enabled:24 MBC:0 Delay:1234 Requests:[0 0 0 0 0 0 0 0] Indications:[0 0 0 0 0 0 0 0]}"); n < 0 ||
		countOf(fake.Calls[:n], "IEEE_GET") != 1 || countOf(fake.Calls[n:], "IEEE_GET") != 1 {
		t.Errorf("driver calls %q: want one IEEE_GET before the write and one after", fake.Calls)
	}
	undo, _ := fl.UndoState("nl")
	// The screen's undo preview reads the same state.
	if got, ok := b.UndoState("nl"); !ok || !cmp.Equal(got, undo) {
		t.Errorf("UndoState: %+v, %v; want the host's undo state %+v", got, ok, undo)
	}
	if diff := cmp.Diff(engine.LocalState{Params: &dcb.Params{
		ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}},
		PFC: &dcb.PFC{Cap: 8},
	}}, undo); diff != "" {
		t.Errorf("undo state: the state read before (-want +got):\n%s", diff)
	}
	w := true
	text, err = b.Apply("nl", &w, nil)
	if err != nil || !strings.Contains(text, "ETS willing set on") || !fake.State.ETS.Willing {
		t.Errorf("willing: %q, %v", text, err)
	}
	// Undo goes one step back: PFC on 3 and 4 (unchanged), willing off.
	text, err = b.Undo("nl")
	if err != nil || !strings.HasSuffix(text, "applied through dcbnl and read back: ETS; PFC unchanged (not rewritten)") {
		t.Errorf("undo: %q, %v", text, err)
	}
	if fake.State.ETS.Willing || fake.State.PFC.Enabled != 0x18 {
		t.Errorf("after undo: ETS willing %v, PFC %#x; want off, 0x18", fake.State.ETS.Willing, fake.State.PFC.Enabled)
	}
	if _, err := b.Undo("nl"); err == nil || err.Error() != "nothing left to undo on nl (one level: the last apply is already undone)" {
		t.Errorf("second undo: %v", err)
	}
	if st, ok := b.UndoState("nl"); ok {
		t.Errorf("UndoState after the undo: %+v, want nothing (one level)", st)
	}
	if st, ok := NewBackend(t.TempDir(), snapOf(s), nil).UndoState("nl"); ok {
		t.Errorf("a replay's UndoState: %+v", st)
	}
	// A driver error is one line without the interface name (the screen
	// adds it).
	fake.SetErr["PFC"] = &dcbnl.Error{Op: "IEEE_SET", Ifname: "nl", Err: errors.New("invalid argument")}
	_, err = b.Apply("nl", nil, &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 5}})
	if err == nil || strings.HasPrefix(err.Error(), "nl: ") || !strings.Contains(err.Error(), "PFC failed") {
		t.Errorf("driver error: %v", err)
	}
}

// TestBackendExport: an export the directory cannot take names the
// directory and the flag that chooses another (the file itself is
// capture/snapfile's, TestExport).
func TestBackendExport(t *testing.T) {
	s := liveSnapshot(t)
	s.TakenAt = time.Date(2026, 11, 21, 10, 0, 0, 500, time.UTC)
	b := testBackend(s, nil)
	b.dir = t.TempDir()
	if p, err := b.Export(s); err != nil || filepath.Dir(p) != b.dir {
		t.Errorf("export: %q, %v; want a file in %s", p, err, b.dir)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		b.dir = d
		if p, err := b.Export(s); err == nil || !strings.HasPrefix(err.Error(), d+": ") || !strings.HasSuffix(err.Error(), " (choose another directory with --snapshot-dir DIR)") {
			t.Errorf("export to %s: %q, %v; want an error naming the directory and the flag", d, p, err)
		}
	}
}

// t0 is when the tests' events happen.
func t0() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }

// peerFrame is an LLDPDU from a switch with PFC on priority 3.
func peerFrame(t *testing.T, ttl uint16) []byte {
	return lldptest.Frame(t, lldptest.MacA, ttl, lldptest.PFC3)
}
