// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
)

// The drill-down lays out any TLV view by its fields alone: a value, a
// list, details after a value, a record, no fields; a long name on a line
// of its own; strings from the wire sanitized.
func TestTLVViewLines(t *testing.T) {
	r := &renderer{st: ptr(NoColorStyles()), vs: &viewState{}}
	f := func(label, value string) lldp.TLVField { return lldp.TLVField{Label: label, Value: value} }
	tests := []struct {
		name string
		v    lldp.TLVView
		w    int
		want []string
	}{
		{"value with line breaks", lldp.TLVView{Name: "System Description", Fields: []lldp.TLVField{f("", "one\r\ntwo\x1b[31m")}}, 60,
			[]string{"System Description   one", "                     two\uFFFD[31m"}},
		{"value and details", lldp.TLVView{Name: "System Capabilities", Fields: []lldp.TLVField{f("", "bridge"), f("enabled", "none\x07")}}, 60,
			[]string{"System Capabilities  bridge · enabled: none\uFFFD"}},
		{"record wrapped", lldp.TLVView{Name: "PFC Configuration", Fields: []lldp.TLVField{f("willing", "on"), f("MBC", "off"), f("cap", "8")}}, 40,
			[]string{"PFC Configuration    willing on · MBC", "                     off · cap 8"}},
		{"list wrapped between entries, then details", lldp.TLVView{Name: "Application Priority",
			Fields: []lldp.TLVField{f("", "udp-port 4791→3"), f("", "dscp 26→3\x00"), f("x", "y")}}, 40,
			[]string{"Application Priority udp-port 4791→3, ", "                     dscp 26→3\uFFFD · x: y"}},
		{"no fields", lldp.TLVView{Name: "Application Priority"}, 40, []string{"Application Priority " + "—"}},
		{"long name", lldp.TLVView{Name: "MAC/PHY Configuration/Status", Fields: []lldp.TLVField{f("", "5 bytes, not decoded")}}, 60,
			[]string{"MAC/PHY Configuration/Status", "                     5 bytes, not decoded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.tlvViewLines(tt.v, tt.w)
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
			for i := range tt.want {
				tt.want[i] = strings.TrimRight(tt.want[i], " ")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tlvViewLines (-want +got):\n%s", diff)
			}
		})
	}
}

// hexDump lays bytes out as xxd and tshark do: offset, 16 bytes in hex
// with a gap after 8, ASCII with "." for what is not printable.
func TestHexDump(t *testing.T) {
	b := []byte("\x02\x07\x04\x02\xdc\xb0\x00\x00\x01\x04\x07\x05swp1\x7f\x1b\x00ab")
	want := []string{
		"0000  02 07 04 02 dc b0 00 00  01 04 07 05 73 77 70 31  ............swp1",
		"0010  7f 1b 00 61 62                                    ...ab",
	}
	if diff := cmp.Diff(want, hexDump(b, 16)); diff != "" {
		t.Errorf("hexDump (-want +got):\n%s", diff)
	}
	if got := hexDump(b[:9], 8); !cmp.Equal(got, []string{"0000  02 07 04 02 dc b0 00 00  ........", "0008  01                       ."}) {
		t.Errorf("hexDump 8 a line: %q", got)
	}
}

// The peers' drill-down shows a TLV the engine does not decode in hex, and
// x toggles a hex dump of the whole LLDPDU.
func TestPeerDetailHex(t *testing.T) {
	s := nexus(t)
	h := newHarness(t, s, nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 48})
	h.m.vs.focus = panePeers
	h.press("enter", "end")
	h.wantScreen("Organizationally Specific", "03 6c 00 00 10 (5 bytes, not decoded) · OUI: 00-01-42 · subtype: 1")
	h.wantNotScreen("5 bytes, not decoded ·")
	h.press("x")
	if d := h.m.vs.detail; d == nil || !d.hex {
		t.Fatalf("x: no hex view:\n%s", h.screen())
	}
	lldpdu := s.Interfaces[0].Peers[0].LLDPDU
	first := hexDump(lldpdu, 16)[0]
	h.wantScreen("Peers of eth0 (hex)", "last LLDPDU, "+fmt.Sprint(len(lldpdu))+" bytes", first, "x decoded")
	h.press("x")
	if h.m.vs.detail.hex {
		t.Error("a second x did not go back to the decoded view")
	}
	h.wantScreen("TLVs of the last LLDPDU")
	// Elsewhere x does nothing.
	h.press("esc", "x")
	if h.m.vs.detail != nil {
		t.Error("x outside the drill-down opened something")
	}
}

// The peer details flag the TLVs that matter for lossless against this
// interface (engine.TLVFlags): a Maximum Frame Size below its MTU's
// frames, and whether the host uses the VLANs the peer names.
func TestPeerDetailFlags(t *testing.T) {
	p := leaf1(40, 60, 1<<3)
	p.tlvs = append(p.tlvs, &lldp.MaxFrameSize{Size: 1518}, &lldp.PortVLANID{PVID: 1}, &lldp.VLANName{VID: 100, Name: []byte("roce")},
		&lldp.VLANName{VID: 200, Name: []byte("storage")})
	s := newScenario(t)
	s.e.Apply(engine.LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: macLocal0, Up: true, MTU: 9000, VLANs: []uint16{100}})
	s.e.Apply(engine.FrameReceived{Interface: "eth0", At: at(1), Data: p.frame(t)})
	h := newHarness(t, s.snap(), nil)
	h.send(tea.WindowSizeMsg{Width: 140, Height: 60})
	h.m.vs.focus = panePeers
	h.press("enter")
	h.wantScreen("Maximum Frame Size   1518",
		"⚠ below this interface's frames: MTU 9000 here makes frames of up to 9018",
		"ℹ this host has no VLAN interface for VLAN 1 on eth0 (its untagged frames are",
		"✓ this host uses VLAN 100 on eth0",
		"ℹ this host has no VLAN interface for VLAN 200 on eth0")
	in := s.snap().Interfaces[0]
	var codes []string
	for _, d := range in.Diagnostics {
		codes = append(codes, string(d.Code))
	}
	if !slices.Contains(codes, "max-frame-below-mtu") || slices.Contains(codes, "vlan-not-advertised") {
		t.Errorf("diagnostics %v: want max-frame-below-mtu, and no vlan-not-advertised (the peer names VLAN 100)", codes)
	}
}
