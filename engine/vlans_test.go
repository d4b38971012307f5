// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// vlan-not-advertised: a VLAN the host uses on the port that the peer,
// naming its VLANs, does not name; nothing while the host's VLANs are
// unknown or the peer names none.
func TestVLANNotAdvertised(t *testing.T) {
	for _, tc := range []struct {
		name  string
		host  []uint16 // nil: not known
		names []uint16 // the peer's VLAN Name TLVs
		want  []string // the VLANs flagged
	}{
		{name: "host VLANs unknown", host: nil, names: []uint16{100}},
		{name: "peer names none", host: []uint16{100}},
		{name: "all named", host: []uint16{100}, names: []uint16{100, 200}},
		{name: "one missing", host: []uint16{100, 300}, names: []uint16{100, 200}, want: []string{"VLAN 300"}},
		{name: "host uses none", host: []uint16{}, names: []uint16{100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true, VLANs: tc.host})
			tlvs := []lldp.TLV{pfc3}
			for _, v := range tc.names {
				tlvs = append(tlvs, &lldp.VLANName{VID: v, Name: []byte("v")})
			}
			e.Apply(rx(1, frame(t, macA, 120, tlvs...)))
			in, _ := e.Interface("eth0")
			var got []string
			for _, d := range in.Diagnostics {
				if d.Code == diag.CodeVLANNotAdvertised {
					if d.Severity != diag.SeverityWarning {
						t.Errorf("severity %v, want warning", d.Severity)
					}
					got = append(got, strings.Fields(d.Message)[3]+" "+strings.Fields(d.Message)[4])
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("flagged (-want +got):\n%s\n%v", diff, in.Diagnostics)
			}
			if len(tc.host) > 0 {
				if diff := cmp.Diff(tc.host, in.VLANs); diff != "" {
					t.Errorf("Interface.VLANs (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TLVFlags lines up with lldp.DescribeLLDPDU's views and says, for the
// Maximum Frame Size, Port VLAN ID and VLAN Name TLVs, how they compare
// with this interface.
func TestTLVFlags(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true, MTU: 9000, VLANs: []uint16{100}})
	du := frame(t, macA, 120, pfc3, &lldp.MaxFrameSize{Size: 1518}, &lldp.PortVLANID{PVID: 1}, &lldp.VLANName{VID: 100, Name: []byte("roce")})
	e.Apply(rx(1, du))
	in, _ := e.Interface("eth0")
	views, err := lldp.DescribeLLDPDU(in.Peers[0].LLDPDU)
	if err != nil {
		t.Fatal(err)
	}
	flags := TLVFlags(&in, in.Peers[0].LLDPDU)
	if len(flags) != len(views) {
		t.Fatalf("%d flags for %d views", len(flags), len(views))
	}
	got := map[string]TLVFlag{}
	for i, v := range views {
		if flags[i].Text != "" {
			got[v.Name] = flags[i]
		}
	}
	want := map[string]TLVFlag{
		"Maximum Frame Size": {Severity: diag.SeverityWarning, Text: "below this interface's frames: MTU 9000 here makes frames of up to 9018: the switch drops full-size frames"},
		"Port VLAN ID":       {Severity: diag.SeverityInfo, Text: "this host has no VLAN interface for VLAN 1 on eth0 (its untagged frames are in it)"},
		"VLAN Name":          {Severity: diag.SeverityInfo, Match: true, Text: "this host uses VLAN 100 on eth0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags by TLV (-want +got):\n%s", diff)
	}
	// Nothing known of the interface: no flags.
	in.MTU, in.VLANs = nil, nil
	if f := TLVFlags(&in, in.Peers[0].LLDPDU); f != nil {
		t.Errorf("flags %v without an MTU or VLANs, want none", f)
	}
}

// A Maximum Frame Size at or above this interface's frames is only
// information (the peer's capability, not its port's MTU): never a match.
func TestTLVFlagsFrameFitsIsNotOK(t *testing.T) {
	e := New(Config{})
	e.Apply(LinkChanged{Interface: "eth0", At: at(0), Ifindex: 2, MAC: lldp.MAC{2, 0, 0, 0, 0, 9}, Up: true, MTU: 1500})
	e.Apply(rx(1, frame(t, macA, 120, pfc3, &lldp.MaxFrameSize{Size: 9216})))
	in, _ := e.Interface("eth0")
	flags := TLVFlags(&in, in.Peers[0].LLDPDU)
	f := flags[len(flags)-1]
	if f.Match || f.Severity != diag.SeverityInfo || !strings.Contains(f.Text, "port's MTU is not advertised") {
		t.Errorf("flag %+v: want information that says the port's MTU is not known", f)
	}
	if hasCode(in.Diagnostics, diag.CodeMaxFrameBelowMTU) {
		t.Error("max-frame-below-mtu for a frame size above the MTU's frames")
	}
}
