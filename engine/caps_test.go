// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The rules of Interface.Capabilities, one case each.
func TestCapabilities(t *testing.T) {
	mac := lldp.MAC{0x02, 0, 0, 0, 0, 1}
	now := time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC)
	own := LocalAgent{ChassisID: "mac " + mac.String(), PortID: "ifname eth0", LastSeen: now}
	other := LocalAgent{ChassisID: "mac 02:00:00:00:00:99", PortID: "ifname eth0", LastSeen: now.Add(-time.Minute)}
	stale := other
	stale.LastSeen = now.Add(-3 * time.Minute)
	iface := func(src LocalSource, fw bool, agents ...LocalAgent) Interface {
		return Interface{Name: "eth0", MAC: &mac, LocalSource: src, FirmwareManaged: fw, LocalAgents: agents}
	}
	proc := Refusal{Code: RefuseOtherAgent, Agent: "lldpd (pid 7)"}
	seen := Refusal{Code: RefuseOtherAgent, Agent: "mac 02:00:00:00:00:99", Seen: true}
	none := Refusal{Code: RefuseNoLocalSource}
	fw := Refusal{Code: RefuseFirmware, Interface: "eth0"}
	root := HostFacts{NetAdmin: true, Now: now}
	tests := []struct {
		name string
		in   Interface
		host HostFacts
		want Capabilities
	}{
		{"replay", iface(SourceAgent, false), HostFacts{Replay: true}, Capabilities{WriteNo: Refusal{Code: RefuseReplay}, AgentNo: Refusal{Code: RefuseReplay}}},
		{"own agent", iface(SourceAgent, false, own), root, Capabilities{CanWrite: true, CanAgent: true}},
		{"own agent, lldpd beside (it may be stopped)", iface(SourceAgent, false), HostFacts{OtherAgents: []string{"lldpd (pid 7)"}}, Capabilities{CanWrite: true, CanAgent: true}},
		{"dcbnl", iface(SourceDCBNL, false), root, Capabilities{CanWrite: true, CanAgent: true}},
		{"dcbnl without CAP_NET_ADMIN", iface(SourceDCBNL, false), HostFacts{Now: now}, Capabilities{WriteNo: Refusal{Code: RefuseNoNetAdmin}, CanAgent: true}},
		{"firmware", iface(SourceDCBNL, true), root, Capabilities{WriteNo: fw, AgentNo: fw}},
		{"observed agent", iface(SourceObserved, false, other), root, Capabilities{WriteNo: seen, AgentNo: seen}},
		{"observed long ago", iface(SourceObserved, false, stale), root, Capabilities{WriteNo: none, CanAgent: true}},
		{"own frames are not another agent", iface(SourceNone, false, own), root, Capabilities{WriteNo: none, CanAgent: true}},
		{"lldpd process", iface(SourceNone, false), HostFacts{NetAdmin: true, OtherAgents: []string{"lldpd (pid 7)"}}, Capabilities{WriteNo: proc, AgentNo: proc}},
		{"dcbnl beside lldpd", iface(SourceDCBNL, false), HostFacts{NetAdmin: true, OtherAgents: []string{"lldpd (pid 7)"}}, Capabilities{CanWrite: true, AgentNo: proc}},
		{"nothing", iface(SourceNone, false), root, Capabilities{WriteNo: none, CanAgent: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.in.Capabilities(tt.host)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if !strings.HasPrefix(firmwareWhy("x"), "the NIC firmware runs DCBX (LLD_MANAGED): hand DCBX to the host first") {
		t.Errorf("firmwareWhy = %q", firmwareWhy("x"))
	}
}

// Each refusal's words: the one rendering the screen, the errors and the
// host layer's answers share.
func TestRefusalWords(t *testing.T) {
	otherWhy := func(who string) string {
		return who + " transmits LLDP here and owns what this host advertises: dcbtop will not run a second agent beside it (the switch would see two peers). " +
			"Change the parameters in that agent (lldptool, lldpcli), or stop it and press a to run dcbtop's agent"
	}
	for _, tt := range []struct {
		r    Refusal
		want string
	}{
		{Refusal{}, ""},
		{Refusal{Code: RefuseReplay}, "replay: a recording is read-only"},
		{Refusal{Code: RefuseFirmware, Interface: "eth0"}, firmwareWhy("eth0")},
		{Refusal{Code: RefuseOtherAgent, Agent: "lldpd (pid 7)"}, otherWhy("another LLDP agent (lldpd (pid 7))")},
		{Refusal{Code: RefuseOtherAgent, Agent: "mac 02:00:00:00:00:99", Seen: true}, otherWhy("another LLDP agent of this host (mac 02:00:00:00:00:99)")},
		{Refusal{Code: RefuseNoNetAdmin}, "needs CAP_NET_ADMIN to write DCB netlink (run as root)"},
		{Refusal{Code: RefuseNoLocalSource}, "no local DCB source here (no agent, no driver DCB support): press a to run dcbtop's agent, then change its parameters"},
		{Refusal{Code: RefuseUnknownInterface, Interface: "zz"}, "zz is not in the snapshot"},
		{Refusal{Code: RefuseNothingToUndo, Interface: "eth0"}, "nothing to undo on eth0 (no apply since dcbtop started)"},
	} {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
	c := Capabilities{WriteNo: Refusal{Code: RefuseNoNetAdmin}, AgentNo: Refusal{Code: RefuseReplay}, UndoNo: Refusal{Code: RefuseNothingToUndo, Interface: "x"}}
	if c.WriteWhy() != c.WriteNo.String() || c.AgentWhy() != c.AgentNo.String() || c.UndoWhy() != c.UndoNo.String() {
		t.Errorf("the Why methods differ from their refusals' words: %+v", c)
	}
}

// TestHostObservedCaps: each snapshot's capabilities come from the last
// HostObserved: a transmitting lldpd blocks the agent, the snapshot after
// it exited allows it, and a receive-only lldpd (-r) never blocks it.
func TestHostObservedCaps(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: macA, Up: true})
	lldpd := HostAgent{Name: "lldpd", PID: 7, Transmits: true}
	steps := []struct {
		name      string
		agents    []HostAgent
		canAgent  bool
		whyPrefix string
	}{
		{"lldpd transmits", []HostAgent{lldpd}, false, "another LLDP agent (lldpd (pid 7)) transmits LLDP here"},
		{"lldpd exited", nil, true, ""},
		{"lldpd -r", []HostAgent{{Name: "lldpd", PID: 8}}, true, ""},
	}
	for i, st := range steps {
		o := e.Step(HostObserved{At: at(float64(i + 1)), NetAdmin: true, Agents: st.agents})
		if !o.Changed {
			t.Errorf("%s: not a change", st.name)
		}
		in, _ := e.Interface("eth0")
		c := e.Snapshot().Interfaces[0].Caps
		if c != in.Caps {
			t.Errorf("%s: Snapshot and Interface disagree: %+v, %+v", st.name, c, in.Caps)
		}
		if c.CanAgent != st.canAgent || !strings.HasPrefix(c.AgentWhy(), st.whyPrefix) {
			t.Errorf("%s: caps %+v, want CanAgent %v and a reason starting %q", st.name, c, st.canAgent, st.whyPrefix)
		}
	}
	if o := e.Step(HostObserved{At: at(9), NetAdmin: true, Agents: []HostAgent{{Name: "lldpd", PID: 8}}}); o.Changed {
		t.Error("the same host again reported as a change")
	}
}
