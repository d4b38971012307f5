// SPDX-License-Identifier: Apache-2.0

package host

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

var (
	t0        = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	hostMAC   = lldp.MAC{2, 0, 0, 0, 0, 1}
	otherMAC  = lldp.MAC{2, 0, 0, 0, 0, 2}
	switchMAC = lldp.MAC{2, 0xdc, 0xb0, 0, 0, 1}
)

// peerFrame is a switch's LLDPDU with PFC on priority 3.
func peerFrame(t *testing.T, ttl uint16) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: switchMAC[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")},
		TTL:       ttl,
		TLVs:      []lldp.TLV{&lldp.Text{Kind: lldp.TLVTypeSystemName, Value: "leaf1"}, &lldp.PFC{Cap: 8, Enabled: 1 << 3}},
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, switchMAC, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newHost returns a host with interface h0 up, as the capture reports it.
func newHost(t *testing.T, ac AgentConfig) *Host {
	t.Helper()
	if ac.TxInterval == 0 {
		ac.TxInterval = 30 * time.Second
	}
	h := New(Config{Agent: ac})
	h.Step(engine.HostObserved{At: t0, NetAdmin: true})
	h.Step(engine.LinkChanged{Interface: "h0", At: t0, Ifindex: 2, MAC: hostMAC, Up: true})
	return h
}

// started returns a host whose agent runs on h0 since t0 and has sent its
// first LLDPDU and its fast transmissions (the next is due at t0+33s).
func started(t *testing.T, ac AgentConfig) *Host {
	t.Helper()
	h := newHost(t, ac)
	plan, ok, err := h.PlanAgent("h0", nil)
	if err != nil || !ok {
		t.Fatalf("PlanAgent: %v, %v", ok, err)
	}
	if _, _, err := h.StartAgent(plan, t0); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= agent.FastCount; i++ {
		h.Step(engine.Tick{At: t0.Add(time.Duration(i) * time.Second)})
	}
	return h
}

// An effect as a test states it: "tx h0", "shutdown h0 02:00:00:00:00:01",
// "release h0".
func effects(res Result) []string {
	var out []string
	for _, e := range res.Effects {
		switch e := e.(type) {
		case Transmit:
			hdr, _, err := lldp.SplitFrame(e.Frame)
			src := ""
			if err == nil {
				src = " " + hdr.Src.String()
			}
			if e.Shutdown {
				out = append(out, "shutdown "+e.Interface+src)
			} else {
				out = append(out, "tx "+e.Interface+src)
			}
		case Release:
			out = append(out, "release "+e.Interface)
		}
	}
	return out
}

// Each event with the effects it produces on a host whose agent runs on
// h0 and has finished its fast transmissions.
func TestHostEffects(t *testing.T) {
	src := " " + hostMAC.String()
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, h *Host) Result
		want []string
	}{
		{"nothing due", func(t *testing.T, h *Host) Result {
			return h.Step(engine.Tick{At: t0.Add(10 * time.Second)})
		}, nil},
		{"transmit interval", func(t *testing.T, h *Host) Result {
			return h.Step(engine.Tick{At: t0.Add(33 * time.Second)})
		}, []string{"tx h0" + src}},
		{"new peer: fast transmission", func(t *testing.T, h *Host) Result {
			return h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(10 * time.Second), Data: peerFrame(t, 120)})
		}, []string{"tx h0" + src}},
		{"the same peer again: nothing", func(t *testing.T, h *Host) Result {
			h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(10 * time.Second), Data: peerFrame(t, 120)})
			for i := 11; i <= 13; i++ {
				h.Step(engine.Tick{At: t0.Add(time.Duration(i) * time.Second)})
			}
			return h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(20 * time.Second), Data: peerFrame(t, 120)})
		}, nil},
		{"link down: nothing", func(t *testing.T, h *Host) Result {
			return h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
		}, nil},
		{"link returns: fast transmission", func(t *testing.T, h *Host) Result {
			h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
			return h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(11 * time.Second), Ifindex: 2, MAC: hostMAC, Up: true})
		}, []string{"tx h0" + src}},
		{"MAC changes: old MSAP withdrawn, new one announced", func(t *testing.T, h *Host) Result {
			return h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: otherMAC, Up: true})
		}, []string{"shutdown h0" + src, "tx h0 " + otherMAC.String()}},
		{"renamed: old MSAP withdrawn, the new name's announced", func(t *testing.T, h *Host) Result {
			res := h.Step(engine.LinkChanged{Interface: "h1", Was: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: hostMAC, Up: true})
			du, err := lldp.Parse(lldpdu(t, h.AgentFrame("h1")))
			if err != nil || string(du.PortID.ID) != "h1" {
				t.Errorf("the agent's Port ID after the rename: %v (%v), want h1", du, err)
			}
			if _, ok := h.Agent("h0"); ok || h.Engine().NeighborCount("h1") != 0 {
				t.Errorf("an agent still under h0, or h1 has neighbours")
			}
			if in, ok := h.Engine().Interface("h1"); !ok || in.LocalSource != engine.SourceAgent {
				t.Errorf("the engine's port under h1: %v, local %s; want the agent's", ok, in.LocalSource)
			}
			if _, ok := h.Engine().Interface("h0"); ok {
				t.Error("the engine still has h0")
			}
			return res
		}, []string{"shutdown h1" + src, "tx h1" + src}},
		{"renamed while down: nothing goes out", func(t *testing.T, h *Host) Result {
			h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
			return h.Step(engine.LinkChanged{Interface: "h1", Was: "h0", At: t0.Add(11 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
		}, nil},
		{"renamed while down, up again: the old MSAP withdrawn first", func(t *testing.T, h *Host) Result {
			// ip link set down, name, up (kernels before 6.2), renamed
			// twice meanwhile: the peer knows h0 alone.
			h.Step(engine.LinkChanged{Interface: "h0", At: t0.Add(10 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
			h.Step(engine.LinkChanged{Interface: "h1", Was: "h0", At: t0.Add(11 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
			h.Step(engine.LinkChanged{Interface: "h2", Was: "h1", At: t0.Add(11 * time.Second), Ifindex: 2, MAC: hostMAC, Up: false})
			res := h.Step(engine.LinkChanged{Interface: "h2", At: t0.Add(12 * time.Second), Ifindex: 2, MAC: hostMAC, Up: true})
			var ports []string
			for _, e := range res.Effects {
				if tx, ok := e.(Transmit); ok {
					du, err := lldp.Parse(lldpdu(t, tx.Frame))
					if err != nil {
						t.Fatal(err)
					}
					ports = append(ports, fmt.Sprintf("%s shutdown %v", du.PortID.ID, du.TTL == 0))
				}
			}
			if diff := cmp.Diff([]string{"h0 shutdown true", "h2 shutdown false"}, ports); diff != "" {
				t.Errorf("Port IDs sent as the link came back (-want +got):\n%s", diff)
			}
			return res
		}, []string{"shutdown h2" + src, "tx h2" + src}},
		{"local change: fast transmission", func(t *testing.T, h *Host) Result {
			_, res, err := h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, t0.Add(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}, []string{"tx h0" + src}},
		{"willing toggled: fast transmission", func(t *testing.T, h *Host) Result {
			off := false
			_, res, err := h.Apply("h0", nil, &off, t0.Add(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}, []string{"tx h0" + src}},
		{"the same parameters again: nothing sent", func(t *testing.T, h *Host) Result {
			_, res, err := h.Apply("h0", nil, nil, t0.Add(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}, nil},
		{"stop: shutdown LLDPDU, then the control socket released", func(t *testing.T, h *Host) Result {
			ran, res := h.StopAgent("h0", t0.Add(10*time.Second))
			if !ran {
				t.Fatal("StopAgent: no agent ran")
			}
			return res
		}, []string{"shutdown h0" + src, "release h0"}},
		{"the run ends: every agent withdrawn", func(t *testing.T, h *Host) Result {
			return h.StopAll(t0.Add(10 * time.Second))
		}, []string{"shutdown h0" + src, "release h0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := started(t, AgentConfig{Willing: true})
			if diff := cmp.Diff(tt.want, effects(tt.run(t, h))); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
		})
	}
}

// Starting the agent: its first LLDPDU at once, then fast transmission
// (FastCount frames a second apart), then the transmit interval; the
// engine takes its parameters as the local ones.
func TestStartAgent(t *testing.T) {
	h := newHost(t, AgentConfig{Willing: true})
	plan, ok, err := h.PlanAgent("h0", nil)
	if err != nil || !ok {
		t.Fatalf("PlanAgent: %v, %v", ok, err)
	}
	st, res, err := h.StartAgent(plan, t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tx h0 " + hostMAC.String()}, effects(res)); diff != "" {
		t.Errorf("start (-want +got):\n%s", diff)
	}
	if want := (AgentStarted{Interval: 30 * time.Second, TTL: 121, Willing: true, From: "the defaults (100% ETS on TC0, PFC off)"}); st != want {
		t.Errorf("started %+v, want %+v", st, want)
	}
	in, _ := h.Engine().Interface("h0")
	if in.LocalSource != engine.SourceAgent || in.Willing == nil || !*in.Willing {
		t.Errorf("engine's local source %q willing %v, want the agent's, willing", in.LocalSource, in.Willing)
	}
	var sent []time.Duration
	for s := time.Duration(0); s <= 70*time.Second; s += 500 * time.Millisecond {
		if len(effects(h.Step(engine.Tick{At: t0.Add(s)}))) > 0 {
			sent = append(sent, s)
		}
	}
	want := []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second, 33 * time.Second, 63 * time.Second}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("transmissions after the first (-want +got):\n%s", diff)
	}
	if _, ok, err := h.PlanAgent("h0", nil); ok || err != nil {
		t.Errorf("PlanAgent with the agent running: %v, %v; want not ok, no error", ok, err)
	}
}

// What a starting agent adopts: the configured parameters, else the
// driver's when complete and valid, else the defaults.
func TestPlanAgentAdoption(t *testing.T) {
	driver := agent.DefaultLocal()
	driver.PFC.Enabled = 1 << 3
	bad := agent.DefaultLocal()
	bad.ETS.TCBandwidth = [8]uint8{50} // does not sum to 100
	conf := agent.DefaultLocal()
	conf.PFC.Enabled = 1 << 4
	for _, tt := range []struct {
		name        string
		ac          AgentConfig
		dcbnl       *dcb.Params
		dcbnlWill   bool
		want        AdoptedFrom
		wantPFC     dcb.PrioSet
		wantWilling bool
	}{
		{"nothing known: defaults", AgentConfig{Willing: true}, nil, false, FromDefaults, 0, true},
		{"the driver's, with its Willing state", AgentConfig{Willing: true}, driver, false, FromDriver, 1 << 3, false},
		{"the driver's, the operator's Willing state", AgentConfig{Willing: true, WillingSet: true}, driver, false, FromDriver, 1 << 3, true},
		{"the driver's when invalid: defaults", AgentConfig{Willing: true}, bad, false, FromDefaults, 0, true},
		{"configured beats the driver's", AgentConfig{Willing: true, Local: conf, LocalFrom: "from p.json"}, driver, false, FromConfig, 1 << 4, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, tt.ac)
			if tt.dcbnl != nil {
				h.Step(engine.LocalChanged{Interface: "h0", At: t0, Source: engine.SourceDCBNL, Willing: tt.dcbnlWill, Params: tt.dcbnl, Mode: "host agent, IEEE"})
			}
			plan, ok, err := h.PlanAgent("h0", nil)
			if err != nil || !ok {
				t.Fatalf("PlanAgent: %v, %v", ok, err)
			}
			if plan.From != tt.want || plan.Local.PFC.Enabled != tt.wantPFC || plan.Willing != tt.wantWilling {
				t.Errorf("plan from %d, PFC %v, willing %v; want from %d, PFC %v, willing %v", plan.From, plan.Local.PFC.Enabled, plan.Willing, tt.want, tt.wantPFC, tt.wantWilling)
			}
			if plan.MAC != hostMAC || plan.Ifindex != 2 {
				t.Errorf("plan speaks from %v (ifindex %d), want %v (2)", plan.MAC, plan.Ifindex, hostMAC)
			}
			if plan.Local.ETS.Willing != plan.Willing {
				t.Errorf("the plan's parameters carry Willing %v, the plan %v", plan.Local.ETS.Willing, plan.Willing)
			}
		})
	}
}

// Another LLDP agent of this host that transmits blocks a start unless
// forced; one that only receives (lldpd -r) does not; an unknown
// interface is refused.
func TestPlanAgentCapabilities(t *testing.T) {
	for _, tt := range []struct {
		name    string
		force   bool
		agents  []engine.HostAgent
		wantErr string
	}{
		{"alone", false, nil, ""},
		{"receive-only lldpd", false, []engine.HostAgent{{Name: "lldpd", PID: 42}}, ""},
		{"transmitting lldpd", false, []engine.HostAgent{{Name: "lldpd", PID: 42, Transmits: true}}, "another LLDP agent (lldpd (pid 42)) transmits LLDP here"},
		{"transmitting lldpd, forced", true, []engine.HostAgent{{Name: "lldpd", PID: 42, Transmits: true}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, AgentConfig{Force: tt.force})
			h.Step(engine.HostObserved{At: t0, NetAdmin: true, Agents: tt.agents})
			_, ok, err := h.PlanAgent("h0", nil)
			switch {
			case tt.wantErr == "" && (err != nil || !ok):
				t.Errorf("PlanAgent: %v, %v; want a plan", ok, err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("PlanAgent: %v; want %q...", err, tt.wantErr)
			}
		})
	}
	if got := Transmitting([]engine.HostAgent{{Name: "lldpd", PID: 1}, {Name: "lldpad", PID: 2, Transmits: true}}); !cmp.Equal(got, []string{"lldpad (pid 2)"}) {
		t.Errorf("Transmitting = %q", got)
	}
	if _, _, err := New(Config{}).PlanAgent("nope", nil); err == nil || err.Error() != "nope is not captured" {
		t.Errorf("PlanAgent(unknown): %v", err)
	}
}

// Apply and undo are typed: the state before and after, and what changed;
// one level of undo, shared with the kernel's path (Saved).
func TestApplyUndo(t *testing.T) {
	h := started(t, AgentConfig{Willing: true})
	at := t0.Add(10 * time.Second)
	before, _ := h.Agent("h0")
	off := false
	ap, _, err := h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, &off, at)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pfc", "willing"}, ap.Changed); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	if ap.Before.Willing != true || ap.After.Willing != false || ap.After.Params.PFC.Enabled != 1<<3 || ap.Before.Params.PFC.Enabled != 0 {
		t.Errorf("applied %+v", ap)
	}
	in, _ := h.Engine().Interface("h0")
	if in.Local.PFC.Enabled != 1<<3 || *in.Willing {
		t.Errorf("the engine's local parameters: PFC %v willing %v", in.Local.PFC.Enabled, *in.Willing)
	}
	_, b, err := lldp.SplitFrame(h.AgentFrame("h0"))
	if err != nil {
		t.Fatal(err)
	}
	du, err := lldp.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if p := du.PFC(); p == nil || p.Enabled != 1<<3 || p.Willing {
		t.Errorf("the agent advertises PFC %+v", p)
	}
	undo, ok := h.Undo("h0")
	if !ok || !cmp.Equal(undo, before) {
		t.Errorf("undo state %+v, %v; want the state before", undo, ok)
	}
	ap, res, err := h.UndoApply("h0", at.Add(time.Second))
	if err != nil || !cmp.Equal(ap.After, before) || len(effects(res)) != 1 {
		t.Errorf("undo: %+v, %v, effects %v", ap, err, effects(res))
	}
	if _, _, err := h.UndoApply("h0", at.Add(2*time.Second)); err == nil || err.Error() != "nothing left to undo on h0 (one level: the last apply is already undone)" {
		t.Errorf("a second undo: %v", err)
	}
	// A kernel write's state before is the same one level.
	h.Saved("h0", engine.LocalState{Willing: true, Params: agent.DefaultLocal()})
	if _, ok := h.Undo("h0"); !ok {
		t.Error("Saved kept nothing")
	}
	h.Undone("h0")
	if _, ok := h.Undo("h0"); ok {
		t.Error("Undone forgot nothing")
	}
	// Invalid parameters change nothing.
	cur, _ := h.Agent("h0")
	if _, _, err := h.Apply("h0", &dcb.Params{ETS: &dcb.ETS{MaxTCs: 8, TCBandwidth: [8]uint8{50}}}, nil, at); err == nil || !strings.HasPrefix(err.Error(), "invalid parameters: ") {
		t.Errorf("invalid apply: %v", err)
	}
	if now, _ := h.Agent("h0"); !cmp.Equal(now, cur) {
		t.Error("a refused apply changed the agent's state")
	}
	if _, _, err := h.Apply("h1", nil, nil, at); !errors.Is(err, ErrNoAgent) {
		t.Errorf("apply without an agent: %v", err)
	}
}

// An agent that cannot advertise what it is given: a refused apply
// changes nothing; a later advertisement that fails keeps the previous
// LLDPDU and sets AdvertiseErr (reported in Status) until one succeeds.
func TestAdvertiseRefused(t *testing.T) {
	h := started(t, AgentConfig{Willing: true})
	frame := string(h.AgentFrame("h0"))
	refuse := errors.New("agent: TLV too long (injected)")
	agentCheck = func(*agent.Agent, agent.Advert) error { return refuse }
	t.Cleanup(func() { agentCheck = (*agent.Agent).Check })
	_, _, err := h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, t0.Add(10*time.Second))
	if want := "h0: not applied: dcbtop's agent cannot advertise these parameters: agent: TLV too long (injected)"; err == nil || err.Error() != want {
		t.Errorf("apply: %v, want %q", err, want)
	}
	agentCheck = (*agent.Agent).Check

	agentSet = func(*agent.Agent, agent.Advert, time.Time) error { return refuse }
	t.Cleanup(func() { agentSet = (*agent.Agent).Set })
	_, res, err := h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, t0.Add(11*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.Status, []string{"h0"}) || h.AdvertiseErr("h0") != "advertise: agent: TLV too long (injected) (still sending the previous LLDPDU)" {
		t.Errorf("status %v, AdvertiseErr %q", res.Status, h.AdvertiseErr("h0"))
	}
	if string(h.AgentFrame("h0")) != frame {
		t.Error("the agent's frame changed although Set failed")
	}
	agentSet = (*agent.Agent).Set
	_, res, _ = h.Apply("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 4}}, nil, t0.Add(12*time.Second))
	if !cmp.Equal(res.Status, []string{"h0"}) || h.AdvertiseErr("h0") != "" {
		t.Errorf("after a success: status %v, AdvertiseErr %q", res.Status, h.AdvertiseErr("h0"))
	}
}

// NextWake is the earliest of the engine's deadlines and the agents' next
// LLDPDU.
func TestNextWake(t *testing.T) {
	h := newHost(t, AgentConfig{})
	if _, ok := h.NextWake(); ok {
		t.Error("a wake with nothing scheduled")
	}
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0, Data: peerFrame(t, 20)})
	if w, ok := h.NextWake(); !ok || !w.Equal(t0.Add(20*time.Second)) {
		t.Errorf("wake %v, %v; want the peer's TTL, t0+20s", w, ok)
	}
	plan, _, _ := h.PlanAgent("h0", nil)
	if _, _, err := h.StartAgent(plan, t0.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if w, ok := h.NextWake(); !ok || !w.Equal(t0.Add(6*time.Second)) {
		t.Errorf("wake %v, %v; want the agent's next fast transmission, t0+6s", w, ok)
	}
}

// On a host without agents (a replay), an LLDPDU identical to the peer's
// last costs no allocation through the host either.
func TestStepFrameNoAlloc(t *testing.T) {
	h := newHost(t, AgentConfig{})
	fr := engine.FrameReceived{Interface: "h0", At: t0, Data: peerFrame(t, 120)}
	h.StepFrame(fr)
	n := testing.AllocsPerRun(100, func() {
		fr.At = fr.At.Add(time.Second)
		h.StepFrame(fr)
	})
	if n != 0 {
		t.Errorf("%v allocations per identical LLDPDU", n)
	}
}

// Where an operator's write goes is the host's one decision: dcbtop's
// agent when it runs there, else the kernel when the engine allows it (a
// WriteKernel effect, whose result KernelWritten takes: the undo state,
// the state read back), else a refusal with the reason.
func TestWriteTarget(t *testing.T) {
	pfc3 := &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}
	at := t0.Add(10 * time.Second)

	// dcbtop's agent: answered at once, a Transmit follows.
	h := started(t, AgentConfig{Willing: true})
	ap, res, err := h.Write("h0", pfc3, nil, at)
	if err != nil || ap.Target != engine.WriteAgent || !cmp.Equal(effects(res), []string{"tx h0 " + hostMAC.String()}) {
		t.Errorf("agent write: %+v, effects %v, %v", ap, effects(res), err)
	}
	if ap, _, err := h.UndoWrite("h0", at); err != nil || ap.Target != engine.WriteAgent || ap.After.Params.PFC.Enabled != 0 {
		t.Errorf("agent undo: %+v, %v", ap, err)
	}

	// The kernel, through DCB netlink.
	h = newHost(t, AgentConfig{})
	driver := agent.DefaultLocal()
	h.Step(engine.LocalChanged{Interface: "h0", At: t0, Source: engine.SourceDCBNL, Params: driver, Mode: "host agent, IEEE"})
	if _, _, err := h.UndoWrite("h0", at); err == nil || err.Error() != "nothing to undo on h0 (no apply since dcbtop started)" {
		t.Errorf("undo before any write: %v", err)
	}
	on := true
	ap, res, err = h.Write("h0", pfc3, &on, at)
	want := WriteKernel{Interface: "h0", Params: pfc3, Willing: &on}
	if err != nil || ap.Target != engine.WriteKernel || len(res.Effects) != 1 || !cmp.Equal(res.Effects[0], want) {
		t.Fatalf("kernel write: %+v, effects %+v, %v; want %+v", ap, res.Effects, err, want)
	}
	after := driver.Clone()
	after.PFC.Enabled = 1 << 3
	h.KernelWritten(want, engine.WriteResult{Interface: "h0", Target: engine.WriteKernel, Mode: "host agent, IEEE",
		Before: engine.LocalState{Params: driver}, After: engine.LocalState{Willing: true, Params: after}}, at)
	in, _ := h.Engine().Interface("h0")
	if in.LocalSource != engine.SourceDCBNL || in.Local.PFC.Enabled != 1<<3 {
		t.Errorf("the state read back is not the engine's: %s %+v", in.LocalSource, in.Local)
	}
	if u, ok := h.Undo("h0"); !ok || u.Willing || u.Params.PFC.Enabled != 0 {
		t.Errorf("undo state %+v, %v; want the state read before", u, ok)
	}
	_, res, err = h.UndoWrite("h0", at.Add(time.Second))
	off := false
	wantUndo := WriteKernel{Interface: "h0", Params: driver, Willing: &off, Undo: true}
	if err != nil || len(res.Effects) != 1 || !cmp.Equal(res.Effects[0], wantUndo) {
		t.Fatalf("kernel undo: effects %+v, %v; want %+v", res.Effects, err, wantUndo)
	}
	// A failed undo keeps what there is to undo; one that worked does not.
	h.KernelWritten(wantUndo, engine.WriteResult{Interface: "h0", Before: engine.LocalState{Params: after},
		Err: &engine.WriteError{Kind: engine.WritePartial}}, at)
	if _, ok := h.Undo("h0"); !ok {
		t.Error("a failed undo dropped the undo state")
	}
	h.KernelWritten(wantUndo, engine.WriteResult{Interface: "h0", Before: engine.LocalState{Params: after}, After: engine.LocalState{Params: driver}}, at)
	if _, ok := h.Undo("h0"); ok {
		t.Error("an undo that worked left something to undo")
	}

	// Nothing to write to: the engine's reason.
	h = newHost(t, AgentConfig{})
	if _, res, err := h.Write("h0", pfc3, nil, at); err == nil || !strings.HasPrefix(err.Error(), "no local DCB source here") || len(res.Effects) != 0 {
		t.Errorf("no local source: %v, effects %v", err, res.Effects)
	}
	h.Step(engine.LocalChanged{Interface: "h0", At: t0, Source: engine.SourceDCBNL, Params: driver, FirmwareManaged: true})
	if _, _, err := h.Write("h0", pfc3, nil, at); err == nil || !strings.HasPrefix(err.Error(), "the NIC firmware runs DCBX") {
		t.Errorf("firmware DCBX: %v", err)
	}
}

// TestAppliedAdvertised: the answer to an apply or an undo says what the
// agent's LLDPDU now carries, read back from it: a willing host
// advertises the ETS and PFC it took from the peer, not its own local
// parameters.
func TestAppliedAdvertised(t *testing.T) {
	h := started(t, AgentConfig{Willing: false})
	peerETS := &lldp.ETS{MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, Bandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}}
	du := &lldp.DU{ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: []byte{2, 0, 0, 0, 0, 9}},
		PortID: lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("swp1")}, TTL: 120,
		TLVs: []lldp.TLV{peerETS, &lldp.ETS{Recommendation: true, PrioTC: peerETS.PrioTC, Bandwidth: peerETS.Bandwidth, TSA: peerETS.TSA},
			&lldp.PFC{Cap: 8, Enabled: 1 << 3}}}
	f, err := lldp.AppendFrame(nil, lldp.NearestBridge, lldp.MAC{2, 0, 0, 0, 0, 9}, du)
	if err != nil {
		t.Fatal(err)
	}
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(5 * time.Second), Data: f})
	on := true
	ap, _, err := h.Apply("h0", nil, &on, t0.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	a := ap.Advertised
	if a == nil || a.ETS == nil || a.PFC == nil || !a.ETS.Willing || a.ETS.TCBandwidth != peerETS.Bandwidth || a.PFC.Enabled != 1<<3 {
		t.Fatalf("advertised %v, want willing, the peer's ETS 50/50 and PFC 3", a)
	}
	if ap.After.Params.PFC.Enabled != 0 {
		t.Errorf("the local parameters changed: %v", ap.After.Params)
	}
	ap, _, err = h.UndoApply("h0", t0.Add(11*time.Second))
	if err != nil || ap.Advertised == nil || ap.Advertised.ETS.Willing || ap.Advertised.PFC.Enabled != 0 {
		t.Errorf("undone: advertised %v (%v), want its own, not willing, PFC off", ap.Advertised, err)
	}
}

// lldpdu returns the LLDPDU of an Ethernet frame.
func lldpdu(t *testing.T, frame []byte) []byte {
	t.Helper()
	_, pdu, err := lldp.SplitFrame(frame)
	if err != nil {
		t.Fatal(err)
	}
	return pdu
}

// TestWriteQoS: a host QoS write is an effect; its result's undo is the
// one level of QoS undo while it is the last write (a DCBX write, by the
// agent or the kernel, drops it), an undo uses it up, and a write that
// changed nothing or failed leaves none.
func TestWriteQoS(t *testing.T) {
	at := t0.Add(10 * time.Second)
	driver := agent.DefaultLocal()
	trust := qos.Change{Trust: []string{"dscp", "pcp"}}
	pcp := []string{"pcp"}
	done := qos.WriteResult{Interface: "h0", Before: qos.State{Trust: pcp},
		After: qos.State{Trust: trust.Trust}, Written: []string{"trust"}}
	written := func(t *testing.T, h *Host, undo bool, res qos.WriteResult) {
		t.Helper()
		r, err := h.WriteQoS("h0", trust, undo, at)
		want := WriteQoS{Interface: "h0", Change: trust, Undo: undo}
		if err != nil || len(r.Effects) != 1 || !cmp.Equal(r.Effects[0], want) {
			t.Fatalf("WriteQoS: effects %+v, %v; want %+v", r.Effects, err, want)
		}
		h.QoSWritten(want, res, at)
	}
	kernelHost := func(t *testing.T) *Host {
		h := newHost(t, AgentConfig{})
		h.Step(engine.LocalChanged{Interface: "h0", At: t0, Source: engine.SourceDCBNL, Params: driver, Mode: "host agent, IEEE"})
		return h
	}

	h := kernelHost(t)
	if _, err := h.WriteQoS("nowhere", trust, false, at); err == nil || err.Error() != "nowhere is not captured" {
		t.Errorf("an interface not captured: %v", err)
	}
	written(t, h, false, done)
	if u, ok := h.QoSUndo("h0"); !ok || !cmp.Equal(u.Trust, pcp) {
		t.Fatalf("QoSUndo after a write: %+v, %v; want trust pcp", u, ok)
	}
	written(t, h, true, done) // the undo, carried out
	if u, ok := h.QoSUndo("h0"); ok {
		t.Errorf("QoSUndo after the undo: %+v", u)
	}

	written(t, h, false, done)
	if _, _, err := h.Write("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, at); err != nil {
		t.Fatal(err)
	}
	if u, ok := h.QoSUndo("h0"); ok {
		t.Errorf("QoSUndo after a later kernel write: %+v", u)
	}

	for name, res := range map[string]qos.WriteResult{
		"nothing written": {Interface: "h0", Before: done.Before, After: done.Before},
		"failed":          {Interface: "h0", Err: errors.New("DCB netlink: protocol not supported")},
	} {
		h := kernelHost(t)
		written(t, h, false, res)
		if u, ok := h.QoSUndo("h0"); ok {
			t.Errorf("%s: QoSUndo %+v", name, u)
		}
	}

	// dcbtop's agent: its apply is the last write.
	h = started(t, AgentConfig{Willing: true})
	written(t, h, false, done)
	if _, _, err := h.Write("h0", &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}}, nil, at); err != nil {
		t.Fatal(err)
	}
	if u, ok := h.QoSUndo("h0"); ok {
		t.Errorf("QoSUndo after the agent's apply: %+v", u)
	}
}
