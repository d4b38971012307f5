// SPDX-License-Identifier: Apache-2.0

package host

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/cee"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// ceeSwitch is a CEE-only switch port: its own control state machine
// (the same engine/cee a host agent runs, as a switch's DCBX agent would),
// not willing, PFC on the priorities of pfc.
type ceeSwitch struct {
	ctl     *cee.Control
	pfc     uint8
	willing bool
	ieee    bool // send IEEE 802.1Qaz TLVs instead
}

func newCEESwitch(pfc uint8) *ceeSwitch {
	s := &ceeSwitch{ctl: cee.New(), pfc: pfc}
	s.ctl.LocalChange(cee.FeaturePG, cee.FeaturePFC, cee.FeatureApp)
	return s
}

// frame is the switch's next LLDPDU.
func (s *ceeSwitch) frame(t *testing.T, ttl uint16) []byte {
	t.Helper()
	du := &lldp.DU{
		ChassisID: lldp.ChassisID{Subtype: lldp.ChassisIDSubtypeMACAddress, ID: switchMAC[:]},
		PortID:    lldp.PortID{Subtype: lldp.PortIDSubtypeInterfaceName, ID: []byte("Ethernet1/1")},
		TTL:       ttl,
	}
	if s.ieee {
		du.TLVs = append(du.TLVs, &lldp.PFC{Cap: 8, Enabled: s.pfc})
	} else {
		ctl := s.ctl.Sent()
		f := lldp.CEEFeature{Enable: true, Willing: s.willing}
		du.TLVs = append(du.TLVs, &lldp.CEE{
			Control: &ctl,
			PG:      &lldp.CEEPG{CEEFeature: f, Bandwidth: [8]uint8{100}, NumTCs: 8},
			PFC:     &lldp.CEEPFC{CEEFeature: f, Enabled: s.pfc, NumTCs: 8},
			App:     &lldp.CEEApp{CEEFeature: f, Entries: []lldp.CEEAppEntry{}},
		})
	}
	b, err := lldp.AppendFrame(nil, lldp.NearestBridge, switchMAC, du)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hear takes the host agent's current LLDPDU as the switch receives it.
func (s *ceeSwitch) hear(t *testing.T, frame []byte) {
	t.Helper()
	_, pdu, err := lldp.SplitFrame(frame)
	if err != nil {
		t.Fatal(err)
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		t.Fatal(err)
	}
	if c := du.CEE(); c != nil {
		s.ctl.Received(c.Control)
	}
}

// ceeView is what a step of the handshake shows.
type ceeView struct {
	Sends     string // what the agent's LLDPDU speaks: "ieee", or "cee seq S ack A"
	Dialect   string // the snapshot's agent_dcbx dialect
	PFCWait   string // agent_dcbx's pfc_waiting, shortened
	PFC       dcb.PrioSet
	PFCSource dcb.Source
}

func viewCEE(t *testing.T, h *Host) ceeView {
	t.Helper()
	in, ok := h.Engine().Interface("h0")
	if !ok {
		t.Fatal("no h0")
	}
	var v ceeView
	_, pdu, _ := lldp.SplitFrame(h.AgentFrame("h0"))
	du, err := lldp.Parse(pdu)
	if err != nil {
		t.Fatal(err)
	}
	switch c := du.CEE(); {
	case c != nil && du.Dialect() == lldp.DialectCEE:
		v.Sends = "cee seq " + itoa(c.Control.SeqNo) + " ack " + itoa(c.Control.AckNo)
	default:
		v.Sends = du.Dialect().String()
	}
	if a := in.AgentDCBX; a != nil {
		v.Dialect = a.Dialect.String()
		if a.Control != nil {
			v.PFCWait = a.Control.PFCWait
			if i := strings.Index(v.PFCWait, " ("); i > 0 {
				v.PFCWait = v.PFCWait[:i]
			}
		}
	}
	if op := in.Operational; op != nil && op.PFC != nil {
		v.PFC = op.PFC.Enabled
	}
	v.PFCSource = in.Resolution.PFC.Source
	return v
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// A willing dcbtop agent against a CEE-only switch: it falls back to CEE,
// announces SeqNo 1, acknowledges the switch's, and adopts the switch's
// PFC only once the switch acknowledged SeqNo 1 (docs/dcbx.md, "The CEE
// control handshake"); a change on the switch is taken at once (the
// agent's features stay acknowledged); the switch moving to IEEE takes
// the agent back to IEEE.
func TestWillingAgentAgainstCEESwitch(t *testing.T) {
	h := started(t, AgentConfig{Willing: true, WillingSet: true})
	sw := newCEESwitch(1 << 3)
	at := t0.Add(10 * time.Second)
	recv := func() {
		at = at.Add(time.Second)
		h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: sw.frame(t, 120)})
	}
	steps := []struct {
		name string
		do   func()
		want ceeView
	}{
		{"before any peer: IEEE", func() {}, ceeView{Sends: "ieee", Dialect: "ieee", PFCSource: dcb.FromLocal}},
		{"the switch speaks only CEE (seq 1 ack 0): the agent falls back, announces 1, acknowledges 1; PFC waits",
			recv, ceeView{Sends: "cee seq 1 ack 1", Dialect: "cee", PFCWait: "waiting for the peer to acknowledge sequence 1", PFCSource: dcb.FromLocal}},
		{"the switch hears it and acknowledges 1: PFC adopted",
			func() { sw.hear(t, h.AgentFrame("h0")); recv() },
			ceeView{Sends: "cee seq 1 ack 1", Dialect: "cee", PFC: 1 << 3, PFCSource: dcb.FromRemote}},
		{"the switch repeats itself: nothing changes",
			recv, ceeView{Sends: "cee seq 1 ack 1", Dialect: "cee", PFC: 1 << 3, PFCSource: dcb.FromRemote}},
		{"the switch changes PFC under seq 2: acknowledged and taken at once",
			func() { sw.pfc = 1<<3 | 1<<4; sw.ctl.LocalChange(cee.FeaturePFC); recv() },
			ceeView{Sends: "cee seq 1 ack 2", Dialect: "cee", PFC: 1<<3 | 1<<4, PFCSource: dcb.FromRemote}},
		{"the switch's information ages out: local again, the handshake starts over",
			func() { at = at.Add(200 * time.Second); h.Step(engine.Tick{At: at}) },
			ceeView{Sends: "cee seq 1 ack 0", Dialect: "cee", PFCWait: "waiting for the peer to acknowledge sequence 1", PFCSource: dcb.FromLocal}},
		{"the switch comes back speaking IEEE: the agent follows",
			func() { sw.ieee = true; recv() },
			ceeView{Sends: "ieee", Dialect: "ieee", PFC: 1<<3 | 1<<4, PFCSource: dcb.FromRemote}},
	}
	for _, st := range steps {
		st.do()
		if diff := cmp.Diff(st.want, viewCEE(t, h)); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", st.name, diff)
		}
	}
}

// The resolution says why a CEE peer's PFC is not adopted while the
// handshake waits, and an agent that is not willing never adopts it.
func TestCEEResolutionWords(t *testing.T) {
	h := started(t, AgentConfig{Willing: true, WillingSet: true})
	sw := newCEESwitch(1 << 3)
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(10 * time.Second), Data: sw.frame(t, 120)})
	in, _ := h.Engine().Interface("h0")
	want := "local: the CEE peer's PFC is adopted once it acknowledges dcbtop's agent: waiting for the peer to acknowledge sequence 1 (peer acknowledged 0)"
	if got := in.Resolution.PFC.Why; got != want {
		t.Errorf("PFC why = %q, want %q", got, want)
	}

	h = started(t, AgentConfig{Willing: false, WillingSet: true})
	sw = newCEESwitch(1 << 3)
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(10 * time.Second), Data: sw.frame(t, 120)})
	sw.hear(t, h.AgentFrame("h0"))
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(11 * time.Second), Data: sw.frame(t, 120)})
	in, _ = h.Engine().Interface("h0")
	if got := in.Resolution.PFC; got.Source != dcb.FromLocal {
		t.Errorf("not willing: PFC %+v, want local", got)
	}
	if in.AgentDCBX == nil || in.AgentDCBX.Control == nil || in.AgentDCBX.Control.PeerAck != 1 {
		t.Errorf("not willing: agent_dcbx %+v, want the switch's ack of 1", in.AgentDCBX)
	}
}

// The agent's CEE LLDPDU carries its local parameters as CEE features:
// the Willing bit, PFC, and an Error bit for a mismatch when neither side
// is willing (lldpad FEAT_ERR_MISMATCH).
func TestAgentCEEFrame(t *testing.T) {
	h := started(t, AgentConfig{Willing: false, WillingSet: true})
	sw := newCEESwitch(1 << 3)
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: t0.Add(10 * time.Second), Data: sw.frame(t, 120)})
	_, pdu, _ := lldp.SplitFrame(h.AgentFrame("h0"))
	du, err := lldp.Parse(pdu)
	if err != nil {
		t.Fatal(err)
	}
	c := du.CEE()
	if c == nil || du.ETS() != nil || du.PFC() != nil {
		t.Fatalf("want one CEE TLV and no IEEE TLV, got %v", du.TLVs)
	}
	type feat struct {
		Enable, Willing, Error bool
		PFC                    uint8
	}
	got := feat{c.PFC.Enable, c.PFC.Willing, c.PFC.Error, c.PFC.Enabled}
	if diff := cmp.Diff(feat{Enable: true, Error: true}, got); diff != "" {
		t.Errorf("PFC sub-TLV (-want +got):\n%s", diff)
	}
	if c.PG == nil || c.PG.Error || c.PG.Bandwidth[0] != 100 {
		t.Errorf("PG sub-TLV %+v: want 100%% on PG 0 and no error (PG never mismatches)", c.PG)
	}
}

// The four Willing combinations against a CEE switch whose PFC differs
// from the agent's (priority 3 against none), once the handshake is done:
// only a willing agent facing a switch that is not adopts; where both are
// willing or neither is, the agent keeps its own and sets the PFC Error
// bit for the mismatch (lldpad FEAT_ERR_MISMATCH; CEE has no tie-break).
func TestCEEWillingCombinations(t *testing.T) {
	for _, tt := range []struct {
		agent, sw bool
		source    dcb.Source
		errBit    bool
	}{
		{true, false, dcb.FromRemote, false},
		{true, true, dcb.FromLocal, true},
		{false, false, dcb.FromLocal, true},
		{false, true, dcb.FromLocal, false},
	} {
		h := started(t, AgentConfig{Willing: tt.agent, WillingSet: true})
		sw := newCEESwitch(1 << 3)
		sw.willing = tt.sw
		at := t0.Add(10 * time.Second)
		for range 3 {
			at = at.Add(time.Second)
			h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: sw.frame(t, 120)})
			sw.hear(t, h.AgentFrame("h0"))
		}
		in, _ := h.Engine().Interface("h0")
		_, pdu, _ := lldp.SplitFrame(h.AgentFrame("h0"))
		du, _ := lldp.Parse(pdu)
		c := du.CEE()
		got := []any{in.Resolution.PFC.Source, c != nil && c.PFC != nil && c.PFC.Error, in.AgentDCBX.Control.PFCWait}
		if diff := cmp.Diff([]any{tt.source, tt.errBit, ""}, got); diff != "" {
			t.Errorf("agent willing %v, switch willing %v: [PFC source, PFC Error bit, waiting] (-want +got):\n%s", tt.agent, tt.sw, diff)
		}
	}
}

// A host with an agent does not allocate for an LLDPDU identical to the
// peer's last, IEEE or CEE (the engine's rule; the agent's dialect choice
// and CEE handshake add nothing for a repeat).
func TestAgentIdenticalFrameAllocs(t *testing.T) {
	at := t0.Add(10 * time.Second)
	h := started(t, AgentConfig{Willing: true, WillingSet: true})
	sw := newCEESwitch(1 << 3)
	cee := sw.frame(t, 120)
	for range 3 {
		h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: cee})
		sw.hear(t, h.AgentFrame("h0"))
		cee = sw.frame(t, 120)
	}
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: cee})
	if n := testing.AllocsPerRun(100, func() { h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: cee}) }); n != 0 {
		t.Errorf("%v allocations per identical CEE LLDPDU with an agent, want 0", n)
	}
	h = started(t, AgentConfig{Willing: true, WillingSet: true})
	ieee := peerFrame(t, 120)
	h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: ieee})
	if n := testing.AllocsPerRun(100, func() { h.StepFrame(engine.FrameReceived{Interface: "h0", At: at, Data: ieee}) }); n != 0 {
		t.Errorf("%v allocations per identical IEEE LLDPDU with an agent, want 0", n)
	}
}
