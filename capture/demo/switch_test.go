// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

var (
	leafMAC = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0x01}
	hostMAC = lldp.MAC{0x02, 0xdc, 0xb0, 0x00, 0x00, 0xfe} // higher than leafMAC
)

// decode returns the DCBX parameters and TTL of a frame.
func decode(t *testing.T, f []byte) (*dcb.Params, uint16, lldp.MAC) {
	t.Helper()
	hdr, pdu, err := lldp.SplitFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Dst != lldp.NearestBridge {
		t.Errorf("frame to %s, want the nearest-bridge address", hdr.Dst)
	}
	du, err := lldp.Parse(pdu)
	if err != nil {
		t.Fatal(err)
	}
	return dcb.ParamsFromDU(du), du.TTL, hdr.Src
}

func leafConfig(willing bool) SwitchConfig {
	return SwitchConfig{Name: "leaf-1", ChassisMAC: leafMAC, Port: "swp1", SystemName: "leaf-1",
		TxInterval: time.Second, ReactDelay: 2 * time.Second, Willing: willing,
		Params: &dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 3}, App: []dcb.App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}}}
}

// newSwitch is NewSwitch for a configuration that must be accepted.
func newSwitch(t *testing.T, cfg SwitchConfig, now time.Time, observe func(Event)) *Switch {
	t.Helper()
	s, err := NewSwitch(cfg, now, observe)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lastSent polls s every step from from to to (both included) and returns
// the last frame it sent, nil if none.
func lastSent(s *Switch, from, to time.Time, step time.Duration) []byte {
	var last []byte
	for at := from; !at.After(to); at = at.Add(step) {
		if f, ok := s.Poll(at); ok {
			last = f
		}
	}
	return last
}

// checkLog checks that the switches' log (every Event but steps, one
// "kind: text" a line) contains each of want.
func checkLog(t *testing.T, events []Event, want ...string) {
	t.Helper()
	var log []string
	for _, ev := range events {
		if ev.Kind != EventStep {
			log = append(log, string(ev.Kind)+": "+ev.Text)
		}
	}
	joined := strings.Join(log, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("switch log lacks %q:\n%s", w, joined)
		}
	}
}

// hostFrame returns what dcbtop's agent on the host sends.
func hostFrame(t *testing.T, mac lldp.MAC, willing bool, pfc dcb.PrioSet, now time.Time) []byte {
	t.Helper()
	local := agent.DefaultLocal()
	local.PFC = &dcb.PFC{Willing: willing, Cap: 8, Enabled: pfc}
	ag, err := agent.New(agent.Config{Ifname: "eth0", MAC: mac, SystemName: "host", TxInterval: 30 * time.Second},
		agent.Advert{Willing: willing, Local: local}, now)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := ag.Due(now)
	if !ok {
		t.Fatal("host agent sends nothing")
	}
	return f
}

// A willing switch adopts the PFC of a host that is not willing, after
// its reaction delay, with fast transmission; it goes back to its own when
// the host's information expires.
func TestSwitchAdoptsHostPFC(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var events []Event
	s := newSwitch(t, leafConfig(true), t0, func(ev Event) { events = append(events, ev) })
	f, ok := s.Poll(t0)
	if !ok {
		t.Fatal("no first LLDPDU at start")
	}
	p, ttl, src := decode(t, f)
	if ttl != 5 || src != leafMAC || p.PFC.Enabled != 1<<3 || !p.PFC.Willing || p.App == nil {
		t.Fatalf("first LLDPDU: ttl %d, src %s, %+v", ttl, src, p)
	}
	if _, ok := s.Poll(t0.Add(500 * time.Millisecond)); ok {
		t.Error("a second LLDPDU within the fast interval")
	}

	// The host: dcbtop's agent, not willing, higher MAC, PFC 3,4.
	s.Receive(hostFrame(t, hostMAC, false, 1<<3|1<<4, t0.Add(time.Second)), t0.Add(time.Second))
	if f, ok := s.Poll(t0.Add(2 * time.Second)); !ok {
		t.Fatal("no LLDPDU at 2 s")
	} else if p, _, _ := decode(t, f); p.PFC.Enabled != 1<<3 {
		t.Errorf("PFC %v before the reaction delay has passed, want still 3", p.PFC.Enabled.List())
	}
	next, ok := s.Next()
	if !ok || !next.Equal(t0.Add(3*time.Second)) {
		t.Errorf("Next = %v, %v; want the end of the reaction delay at 3 s", next, ok)
	}
	f, ok = s.Poll(t0.Add(3 * time.Second))
	if !ok {
		t.Fatal("no LLDPDU when the switch adopted the host's PFC")
	}
	if p, _, _ := decode(t, f); p.PFC.Enabled != 1<<3|1<<4 || !p.PFC.Willing || p.PFC.Cap != 8 {
		t.Errorf("advertised PFC %+v after hearing the host, want 3,4 (the host's), willing, cap 8", p.PFC)
	}
	if ad := s.Advert(); ad.Operational.PFC.Enabled != 1<<3|1<<4 || ad.Local.PFC.Enabled != 1<<3 || !ad.Willing {
		t.Errorf("Advert = %+v", ad)
	}
	v, ok := s.View()
	if !ok || v.Resolution.PFC.Source != dcb.FromRemote || v.Remote == nil || v.Remote.PFC.Willing {
		t.Errorf("View: resolution %+v, remote %+v", v.Resolution, v.Remote)
	}
	// Fast transmission after the change: the next ones 1 s apart.
	if _, ok := s.Poll(t0.Add(3*time.Second + 999*time.Millisecond)); ok {
		t.Error("sent again before 1 s")
	}
	if _, ok := s.Poll(t0.Add(4 * time.Second)); !ok {
		t.Error("no fast transmission at 4 s")
	}
	checkLog(t, events,
		"peer: leaf-1 hears mac 02:dc:b0:00:00:fe / ifname eth0: not willing",
		"PFC 3,4",
		"operational: leaf-1 now runs willing",
		"PFC: remote (local willing, peer not willing)",
	)

	// The host falls silent: its information (TTL 121 s) expires, and the
	// switch goes back to its own PFC.
	last := lastSent(s, t0.Add(5*time.Second), t0.Add(130*time.Second), time.Second)
	if p, _, _ := decode(t, last); p.PFC.Enabled != 1<<3 {
		t.Errorf("PFC %v after the host's information expired, want the switch's own 3", p.PFC.Enabled.List())
	}
}

// The IEEE tie-break when both are willing: the lower MAC adopts.
func TestSwitchBothWilling(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		name string
		host lldp.MAC
		want dcb.PrioSet
	}{
		{"host MAC higher: the switch adopts", hostMAC, 1<<3 | 1<<4},
		{"host MAC lower: the switch keeps its own", lldp.MAC{0x02, 0, 0, 0, 0, 0x01}, 1 << 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSwitch(t, leafConfig(true), t0, nil)
			s.Receive(hostFrame(t, tc.host, true, 1<<3|1<<4, t0), t0)
			last := lastSent(s, t0, t0.Add(5*time.Second), 250*time.Millisecond)
			if p, _, _ := decode(t, last); p.PFC.Enabled != tc.want {
				t.Errorf("advertised PFC %v, want %v", p.PFC.Enabled.List(), tc.want.List())
			}
		})
	}
}

// A switch that is not willing only takes note of the host.
func TestSwitchNotWilling(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var events []Event
	s := newSwitch(t, leafConfig(false), t0, func(ev Event) { events = append(events, ev) })
	s.Receive(hostFrame(t, hostMAC, false, 1<<4, t0), t0)
	last := lastSent(s, t0, t0.Add(5*time.Second), 250*time.Millisecond)
	if p, _, _ := decode(t, last); p.PFC.Enabled != 1<<3 || p.PFC.Willing {
		t.Errorf("advertised PFC %+v, want its own 3, not willing", p.PFC)
	}
	if v, _ := s.View(); v.Remote == nil || v.Remote.PFC.Enabled != 1<<4 {
		t.Errorf("the switch did not keep the host's parameters: %+v", v.Remote)
	}
	if len(events) != 1 || events[0].Kind != EventPeer || !strings.Contains(events[0].Text, "PFC 4") {
		t.Errorf("events = %+v, want one peer event with the host's PFC", events)
	}
}

// Set, Silence, Resume and Shutdown.
func TestSwitchLifecycle(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	s := newSwitch(t, leafConfig(false), t0, nil)
	lastSent(s, t0, t0.Add(9*time.Second), time.Second)
	t1 := t0.Add(10 * time.Second)
	w := true
	if err := s.Set(&dcb.Params{PFC: &dcb.PFC{Cap: 8, Enabled: 1 << 5}}, &w, t1); err != nil {
		t.Fatal(err)
	}
	f, ok := s.Poll(t1)
	if !ok {
		t.Fatal("no LLDPDU at once after Set")
	}
	if p, _, _ := decode(t, f); p.PFC.Enabled != 1<<5 || !p.PFC.Willing || len(p.App) != 1 {
		t.Errorf("after Set: %+v (APP must stay)", p)
	}
	if err := s.Set(&dcb.Params{PFC: &dcb.PFC{Cap: 1, Enabled: 3}}, nil, t1); err == nil {
		t.Error("Set accepted PFC on 2 priorities with capability 1")
	}
	s.Silence(t1)
	if _, ok := s.Poll(t1.Add(time.Second)); ok || s.Transmitting() {
		t.Error("a silent switch transmits")
	}
	if _, ok := s.Next(); ok {
		t.Error("a silent switch wants a Poll")
	}
	s.Receive(hostFrame(t, hostMAC, false, 1<<4, t1), t1) // not heard: the link is cut
	if err := s.Resume(t1.Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Resume(t1.Add(10 * time.Second)); err == nil {
		t.Error("Resume of a transmitting switch succeeded")
	}
	if v, ok := s.View(); !ok || v.Remote != nil || len(v.Peers) != 0 {
		t.Errorf("after Resume the switch knows %+v, want nothing", v.Peers)
	}
	if _, ok := s.Poll(t1.Add(10 * time.Second)); !ok {
		t.Error("no LLDPDU at once after Resume")
	}
	f = s.Shutdown(t1.Add(11 * time.Second))
	if _, ttl, _ := decode(t, f); ttl != 0 {
		t.Errorf("shutdown TTL %d", ttl)
	}
	if f := s.Shutdown(t1.Add(12 * time.Second)); f != nil {
		t.Error("a second shutdown LLDPDU")
	}
	if _, err := NewSwitch(SwitchConfig{Name: "x", ChassisMAC: leafMAC, Port: "p", TxInterval: time.Millisecond, Params: agent.DefaultLocal()}, t0, nil); err == nil {
		t.Error("NewSwitch accepted a 1 ms transmit interval")
	}
}
