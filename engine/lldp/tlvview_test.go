// SPDX-License-Identifier: Apache-2.0

package lldp_test

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/pcapgo"
)

// captureLLDPDUs returns the LLDPDUs (Ethernet header removed) of the
// frames of a capture, in order.
func captureLLDPDUs(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, _, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		_, du, err := lldp.SplitFrame(data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, du)
	}
}

// lldpduOf returns the LLDPDU of a frame built by frame.
func lldpduOf(t testing.TB, fr []byte) []byte {
	t.Helper()
	_, du, err := lldp.SplitFrame(fr)
	if err != nil {
		t.Fatal(err)
	}
	return du
}

// The views of the TLVs every LLDPDU of lldptest.Frame() starts with.
func frameViews(ttl string) []lldp.TLVView {
	return []lldp.TLVView{
		{Type: lldp.TLVTypeChassisID, Name: "Chassis ID", Fields: []lldp.TLVField{{Value: "mac 02:00:00:00:00:0a"}}},
		{Type: lldp.TLVTypePortID, Name: "Port ID", Fields: []lldp.TLVField{{Value: "ifname swp1"}}},
		{Type: lldp.TLVTypeTTL, Name: "Time To Live", Fields: []lldp.TLVField{{Value: ttl}}},
		{Type: lldp.TLVTypeSystemName, Name: "System Name", Fields: []lldp.TLVField{{Value: "leaf-0a"}}},
	}
}

func TestDescribeLLDPDU(t *testing.T) {
	// The lldpd fixtures' common TLVs (engine/lldp/testdata, recorded by
	// testbed; tshark names them the same, lldpd-*.tshark.json).
	lldpdHead := func(name, desc string) []lldp.TLVView {
		return []lldp.TLVView{
			{Type: lldp.TLVTypeChassisID, Name: "Chassis ID", Fields: []lldp.TLVField{{Value: "mac 02:dc:b0:00:00:01"}}},
			{Type: lldp.TLVTypePortID, Name: "Port ID", Fields: []lldp.TLVField{{Value: "mac 02:dc:b0:00:00:01"}}},
			{Type: lldp.TLVTypeTTL, Name: "Time To Live", Fields: []lldp.TLVField{{Value: "4 s"}}},
			{Type: lldp.TLVTypeSystemName, Name: "System Name", Fields: []lldp.TLVField{{Value: name}}},
			{Type: lldp.TLVTypeSystemDescription, Name: "System Description", Fields: []lldp.TLVField{{Value: desc}}},
			{Type: lldp.TLVTypeSystemCapabilities, Name: "System Capabilities", Fields: []lldp.TLVField{{Value: "bridge, WLAN AP, router, station"}, {Label: "enabled", Value: "station"}}},
			{Type: lldp.TLVTypeManagementAddress, Name: "Management Address", Fields: []lldp.TLVField{{Value: "192.0.2.1 (interface 2, numbering 2)"}}},
			{Type: lldp.TLVTypePortDescription, Name: "Port Description", Fields: []lldp.TLVField{{Value: "p0"}}},
			// lldpd's 802.3 Link Aggregation: capable, not aggregated.
			{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8023, Subtype: 3, Name: "Link Aggregation",
				Fields: []lldp.TLVField{{"capable", "on"}, {"enabled", "off"}, {"port ID", "0"}}},
			// lldpd's MAC/PHY on a veth: no autoneg, "other", MAU type
			// 54 (10GBASE-PR-D1 in the IANA MAU MIB), which tshark 4.0
			// does not name either.
			{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8023, Subtype: 1, Name: "MAC/PHY Configuration/Status",
				Fields: []lldp.TLVField{{"autoneg supported", "off"}, {"autoneg enabled", "off"}, {"advertised", "other (0x8000)"}, {"MAU type", "54"}}},
		}
	}
	ieee := captureLLDPDUs(t, "testdata/lldpd-ieee-full.pcap")
	cee := captureLLDPDUs(t, "testdata/lldpd-cee.pcap")

	weird := lldptest.Frame(t, lldptest.MacA, 0,
		&lldp.Text{Kind: lldp.TLVTypeSystemDescription, Value: "line one\r\nline \x1b[31mtwo"},
		&lldp.SystemCapabilities{Capabilities: 0xffff},
		&lldp.ManagementAddress{Family: 6, Address: []byte{2, 0, 0, 0, 0, 1}, IfSubtype: 1, IfNumber: 0},
		&lldp.ManagementAddress{Family: 16, Address: []byte{1, 2, 3}, IfSubtype: 3, IfNumber: 7},
		&lldp.ETS{Willing: true, CBS: true, MaxTCs: 3, PrioTC: [8]uint8{7, 6, 5, 4, 3, 2, 1, 0}, Bandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{lldp.TSAETS, lldp.TSAVendor, lldp.TSACBS, 3}},
		&lldp.PFC{Willing: true, MBC: true, Cap: 15},
		&lldp.AppPriority{},
		&lldp.AppPriority{Entries: []lldp.AppEntry{{Priority: 7, Selector: lldp.AppSelEthertype, Protocol: 0}}},
		&lldp.CEE{},
		&lldp.CEE{PFC: &lldp.CEEPFC{}, Other: []lldp.CEESubTLV{{Type: 3, Value: []byte{0, 0, 0, 0, 0, 0}}, {Type: 9}}},
		&lldp.RawTLV{T: 9, Value: []byte{1, 2, 3}},
		&lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x1b, 0x21, 1, 0xaa}},
		&lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0xac, 0xde, 0x48, 7}},
	)
	weirdWant := append(frameViews("0 s"),
		lldp.TLVView{Type: lldp.TLVTypeSystemDescription, Name: "System Description", Fields: []lldp.TLVField{{Value: "line one\r\nline \x1b[31mtwo"}}},
		lldp.TLVView{Type: lldp.TLVTypeSystemCapabilities, Name: "System Capabilities", Fields: []lldp.TLVField{
			{Value: "other, repeater, bridge, WLAN AP, router, telephone, DOCSIS, station, C-VLAN, S-VLAN, TPMR"}, {Label: "enabled", Value: "none"}}},
		lldp.TLVView{Type: lldp.TLVTypeManagementAddress, Name: "Management Address", Fields: []lldp.TLVField{{Value: "02:00:00:00:00:01 (interface 0, numbering 1)"}}},
		lldp.TLVView{Type: lldp.TLVTypeManagementAddress, Name: "Management Address", Fields: []lldp.TLVField{{Value: "family 16 010203 (interface 7, numbering 3)"}}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 9, Name: "ETS Configuration", Fields: []lldp.TLVField{
			{"willing", "on"}, {"CBS", "on"}, {"max TCs", "3"}, {"priority→TC", "7 6 5 4 3 2 1 0"},
			{"TC bandwidth", "100 0 0 0 0 0 0 0 %"}, {"TSA", "ets vendor cbs unknown-3 strict strict strict strict"}}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 11, Name: "PFC Configuration", Fields: []lldp.TLVField{
			{"willing", "on"}, {"MBC", "on"}, {"cap", "15"}, {"enabled on", "none"}}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 12, Name: "Application Priority"},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 12, Name: "Application Priority", Fields: []lldp.TLVField{{Value: "ethertype 0x0000→7"}}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUICEE, Subtype: 2, Name: "CEE DCBX", Fields: []lldp.TLVField{{"sub-TLVs", "none"}}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUICEE, Subtype: 2, Name: "CEE DCBX", Fields: []lldp.TLVField{{"sub-TLVs", "PFC, PFC, type 9"}}},
		lldp.TLVView{Type: 9, Name: "Reserved", Fields: []lldp.TLVField{{Value: "3 bytes, not decoded"}, {"type", "9"}}, Undecoded: []byte{1, 2, 3}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUICEE, Subtype: 1, Name: "CIN DCBX", Fields: []lldp.TLVField{{Value: "1 bytes, not decoded"}, {"OUI", "00-1b-21"}, {"subtype", "1"}}, Undecoded: []byte{0xaa}},
		lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUI{0xac, 0xde, 0x48}, Subtype: 7, Name: "Organizationally Specific", Fields: []lldp.TLVField{{Value: "0 bytes, not decoded"}, {"OUI", "ac-de-48"}, {"subtype", "7"}}, Undecoded: []byte{}},
	)

	basic := lldptest.Frame(t, lldptest.MacA, 120,
		&lldp.PortVLANID{PVID: 100},
		&lldp.PortVLANID{},
		&lldp.ProtocolVLANID{Flags: 0x06, PPVID: 42},
		&lldp.ProtocolVLANID{Flags: 0xf9},
		&lldp.VLANName{VID: 100, Name: []byte("storage")},
		&lldp.VLANName{VID: 7, Name: []byte("\x1b[31mred\xff")},
		&lldp.ProtocolIdentity{Identity: []byte{0x88, 0x8e, 0x01}},
		&lldp.ProtocolIdentity{},
		&lldp.LinkAggregation{OUI: lldp.OUIIEEE8021, Status: 0x0f, PortID: 42},
		&lldp.LinkAggregation{OUI: lldp.OUIIEEE8021, Status: 0x05, PortID: 7},
		&lldp.LinkAggregation{OUI: lldp.OUIIEEE8023, Status: 0x03, PortID: 7},
		&lldp.CongestionNotification{CNPV: 0x18, Ready: 0x08},
		&lldp.CongestionNotification{},
		&lldp.MACPHYStatus{Autoneg: 0x03, Advertised: 0x6c01, MAUType: 16},
		&lldp.MACPHYStatus{Autoneg: 0x01, MAUType: 0},
		&lldp.PowerViaMDI{Support: 0x0f, PowerPair: 1, PowerClass: 4},
		&lldp.PowerViaMDI{Support: 0x00, PowerPair: 3, PowerClass: 0, Extension: []byte{0x51, 0x00, 0xff, 0x00, 0xff}},
		&lldp.MaxFrameSize{Size: 9216},
	)
	org := func(oui lldp.OUI, sub uint8, name string, fields ...lldp.TLVField) lldp.TLVView {
		return lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: oui, Subtype: sub, Name: name, Fields: fields}
	}
	basicWant := append(frameViews("120 s"),
		org(lldp.OUIIEEE8021, 1, "Port VLAN ID", lldp.TLVField{"PVID", "100"}),
		org(lldp.OUIIEEE8021, 1, "Port VLAN ID", lldp.TLVField{"PVID", "none (0)"}),
		org(lldp.OUIIEEE8021, 2, "Port And Protocol VLAN ID", lldp.TLVField{"PPVID", "42"}, lldp.TLVField{"supported", "on"}, lldp.TLVField{"enabled", "on"}),
		org(lldp.OUIIEEE8021, 2, "Port And Protocol VLAN ID", lldp.TLVField{"PPVID", "none (0)"}, lldp.TLVField{"supported", "off"}, lldp.TLVField{"enabled", "off"}),
		org(lldp.OUIIEEE8021, 3, "VLAN Name", lldp.TLVField{Value: "storage"}, lldp.TLVField{"VID", "100"}),
		// As sent, like a Text TLV: the screen sanitizes it.
		org(lldp.OUIIEEE8021, 3, "VLAN Name", lldp.TLVField{Value: "\x1b[31mred\xff"}, lldp.TLVField{"VID", "7"}),
		org(lldp.OUIIEEE8021, 4, "Protocol Identity", lldp.TLVField{Value: "88:8e:01"}),
		org(lldp.OUIIEEE8021, 4, "Protocol Identity", lldp.TLVField{Value: "none"}),
		org(lldp.OUIIEEE8021, 7, "Link Aggregation", lldp.TLVField{"capable", "on"}, lldp.TLVField{"enabled", "on"},
			lldp.TLVField{"port type", "single-port aggregator"}, lldp.TLVField{"port ID", "42"}),
		org(lldp.OUIIEEE8021, 7, "Link Aggregation", lldp.TLVField{"capable", "on"}, lldp.TLVField{"enabled", "off"},
			lldp.TLVField{"port type", "aggregation port"}, lldp.TLVField{"port ID", "7"}),
		org(lldp.OUIIEEE8023, 3, "Link Aggregation", lldp.TLVField{"capable", "on"}, lldp.TLVField{"enabled", "on"}, lldp.TLVField{"port ID", "7"}),
		org(lldp.OUIIEEE8021, 8, "Congestion Notification", lldp.TLVField{"CNPV on", "3,4"}, lldp.TLVField{"ready", "3"}),
		org(lldp.OUIIEEE8021, 8, "Congestion Notification", lldp.TLVField{"CNPV on", "none"}, lldp.TLVField{"ready", "none"}),
		org(lldp.OUIIEEE8023, 1, "MAC/PHY Configuration/Status", lldp.TLVField{"autoneg supported", "on"}, lldp.TLVField{"autoneg enabled", "on"},
			lldp.TLVField{"advertised", "10BASE-T, 10BASE-T FD, 100BASE-TX, 100BASE-TX FD, 1000BASE-T FD (0x6c01)"},
			lldp.TLVField{"MAU type", "16 (100BaseTXFD)"}),
		org(lldp.OUIIEEE8023, 1, "MAC/PHY Configuration/Status", lldp.TLVField{"autoneg supported", "on"}, lldp.TLVField{"autoneg enabled", "off"},
			lldp.TLVField{"advertised", "none (0x0000)"}, lldp.TLVField{"MAU type", "0 (other or unknown)"}),
		org(lldp.OUIIEEE8023, 2, "Power via MDI", lldp.TLVField{"port class", "PSE"}, lldp.TLVField{"PSE power supported", "on"},
			lldp.TLVField{"PSE power enabled", "on"}, lldp.TLVField{"pairs control", "on"},
			lldp.TLVField{"PSE power pair", "signal (1)"}, lldp.TLVField{"power class", "class 3 (4)"}),
		org(lldp.OUIIEEE8023, 2, "Power via MDI", lldp.TLVField{"port class", "PD"}, lldp.TLVField{"PSE power supported", "off"},
			lldp.TLVField{"PSE power enabled", "off"}, lldp.TLVField{"pairs control", "off"},
			lldp.TLVField{"PSE power pair", "3"}, lldp.TLVField{"power class", "0"},
			lldp.TLVField{"extension", "51:00:ff:00:ff (5 bytes, not decoded)"}),
		org(lldp.OUIIEEE8023, 4, "Maximum Frame Size", lldp.TLVField{Value: "9216 bytes"}),
	)

	tests := []struct {
		name   string
		lldpdu []byte
		want   []lldp.TLVView
	}{
		{"lldpd IEEE", ieee[0], append(lldpdHead("sw-ieee", "dcbtop fixture: IEEE 802.1Qaz ETS+RECO+PFC+APP"),
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 9, Name: "ETS Configuration", Fields: []lldp.TLVField{
				{"willing", "off"}, {"CBS", "off"}, {"max TCs", "8"}, {"priority→TC", "0 0 0 1 0 2 0 0"},
				{"TC bandwidth", "40 50 10 0 0 0 0 0 %"}, {"TSA", "ets ets ets strict strict strict strict strict"}}},
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 10, Name: "ETS Recommendation", Fields: []lldp.TLVField{
				{"priority→TC", "0 0 0 1 1 0 2 0"}, {"TC bandwidth", "30 70 0 0 0 0 0 0 %"}, {"TSA", "ets ets strict strict strict strict strict strict"}}},
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 11, Name: "PFC Configuration", Fields: []lldp.TLVField{
				{"willing", "off"}, {"MBC", "off"}, {"cap", "8"}, {"enabled on", "3,4"}}},
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 12, Name: "Application Priority", Fields: []lldp.TLVField{
				{Value: "ethertype 0x8906→3"}, {Value: "udp-port 4791→3"}, {Value: "tcp-port 3260→4"},
				{Value: "port 4420→2"}, {Value: "dscp 26→3"}, {Value: "dscp 46→5"}}},
		)},
		{"lldpd CEE", cee[0], append(lldpdHead("sw-cee", "dcbtop fixture: CEE DCBX (dcbx-reference 4.5)"),
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUICEE, Subtype: 2, Name: "CEE DCBX", Fields: []lldp.TLVField{{"sub-TLVs", "Control, PG, PFC, APP"}}},
		)},
		{"every kind, odd values", lldpduOf(t, weird), weirdWant},
		{"basic 802.1 and 802.3 TLVs", lldpduOf(t, basic), basicWant},
		// The PFC TLV with a one-byte body is discarded: not listed
		// (Peer.DiscardedTLVs has it).
		{"discarded TLV", lldpduOf(t, lldptest.BadPFCFrame(t)), append(frameViews("120 s"),
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 9, Name: "ETS Configuration", Fields: []lldp.TLVField{
				{"willing", "off"}, {"CBS", "off"}, {"max TCs", "8"}, {"priority→TC", "0 0 0 1 0 0 0 0"},
				{"TC bandwidth", "50 50 0 0 0 0 0 0 %"}, {"TSA", "ets ets strict strict strict strict strict strict"}}},
			lldp.TLVView{Type: lldp.TLVTypeOrg, OUI: lldp.OUIIEEE8021, Subtype: 12, Name: "Application Priority", Fields: []lldp.TLVField{{Value: "udp-port 4791→3"}}},
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lldp.DescribeLLDPDU(tt.lldpdu)
			if err != nil {
				t.Fatalf("lldp.DescribeLLDPDU: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lldp.DescribeLLDPDU (-want +got):\n%s", diff)
			}
		})
	}
}

// A malformed LLDPDU is an error and no views, never a panic.
func TestDescribeLLDPDUMalformed(t *testing.T) {
	good := lldpduOf(t, lldptest.Frame(t, lldptest.MacA, 120, lldptest.ETSA))
	tests := []struct {
		name   string
		lldpdu []byte
	}{
		{"empty", nil},
		{"one byte", []byte{0x02}},
		{"truncated in a TLV", good[:len(good)-5]},
		{"TLV past the end", []byte{0x02, 0x07, 0x04, 0x02, 0x00}},
		{"no TTL", append(append([]byte(nil), good[:9]...), 0x08, 0x05, 0x05, 's', 'w', 'p', '1', 0, 0)},
		{"End first", []byte{0x00, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lldp.DescribeLLDPDU(tt.lldpdu)
			if err == nil || got != nil {
				t.Errorf("lldp.DescribeLLDPDU(%x) = %+v, %v; want an error and no views", tt.lldpdu, got, err)
			}
		})
	}
}

// FuzzDescribeLLDPDU: on any input lldp.DescribeLLDPDU does not panic, and on
// success lists no more TLVs than the LLDPDU holds (the End TLV aside),
// each named.
func FuzzDescribeLLDPDU(f *testing.F) {
	for _, path := range []string{"testdata/lldpd-ieee-full.pcap", "testdata/lldpd-cee.pcap", "testdata/lldpd-hostile.pcap"} {
		for _, b := range captureLLDPDUs(f, path) {
			f.Add(b)
		}
	}
	f.Add(lldpduOf(f, lldptest.BadPFCFrame(f)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1500 { // an Ethernet payload at most
			return
		}
		views, err := lldp.DescribeLLDPDU(b)
		if err != nil {
			if views != nil {
				t.Fatalf("error %v with views %+v", err, views)
			}
			return
		}
		if n := countTLVs(b); len(views) > n {
			t.Fatalf("%d views for an LLDPDU of %d TLVs", len(views), n)
		}
		for i, v := range views {
			if v.Name == "" {
				t.Fatalf("view %d has no name: %+v", i, v)
			}
		}
	})
}

// countTLVs counts the TLV headers of b up to the End TLV or the end of b
// (IEEE Std 802.1AB-2016, 8.4: 7 bits type, 9 bits length).
func countTLVs(b []byte) int {
	n := 0
	for len(b) >= 2 {
		typ, l := b[0]>>1, int(b[0]&1)<<8|int(b[1])
		if typ == 0 || len(b) < 2+l {
			break
		}
		n++
		b = b[2+l:]
	}
	return n
}
