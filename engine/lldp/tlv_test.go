// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChassisID(t *testing.T) {
	tests := []idTest[ChassisID]{
		{"reserved", hx("02 03 00 AB CD"), ChassisID{0, hx("AB CD")}, "reserved ab:cd"},
		{"chassis component", hx("02 04 01 73 77 31"), ChassisID{ChassisIDSubtypeChassisComponent, []byte("sw1")}, "chassis sw1"},
		{"interface alias", hx("02 07 02 75 70 6C 69 6E 6B"), ChassisID{ChassisIDSubtypeInterfaceAlias, []byte("uplink")}, "ifalias uplink"},
		{"port component", hx("02 04 03 70 63 31"), ChassisID{ChassisIDSubtypePortComponent, []byte("pc1")}, "port pc1"},
		{"mac", hx("02 07 04 02 00 00 00 00 02"), ChassisID{ChassisIDSubtypeMACAddress, hx("02 00 00 00 00 02")}, "mac 02:00:00:00:00:02"},
		{"mac of 5 bytes", hx("02 06 04 02 00 00 00 00"), ChassisID{ChassisIDSubtypeMACAddress, hx("02 00 00 00 00")}, "mac 02:00:00:00:00"},
		{"ipv4", hx("02 06 05 01 C0 00 02 01"), ChassisID{ChassisIDSubtypeNetworkAddress, hx("01 C0 00 02 01")}, "addr 192.0.2.1"},
		{"ipv6", hx("02 12 05 02 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 01"),
			ChassisID{ChassisIDSubtypeNetworkAddress, hx("02 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 01")}, "addr 2001:db8::1"},
		{"address of unknown family", hx("02 04 05 06 AA BB"), ChassisID{ChassisIDSubtypeNetworkAddress, hx("06 AA BB")}, "addr 06:aa:bb"},
		{"ifname", hx("02 05 06 73 77 70 31"), ChassisID{ChassisIDSubtypeInterfaceName, []byte("swp1")}, "ifname swp1"},
		{"local", hx("02 04 07 35 32 36"), ChassisID{ChassisIDSubtypeLocallyAssigned, []byte("526")}, "local 526"},
		{"subtype 8", hx("02 03 08 01 02"), ChassisID{8, hx("01 02")}, "subtype-8 01:02"},
		{"255 bytes", cat(hx("03 00 07"), bytes.Repeat([]byte("x"), 255)),
			ChassisID{ChassisIDSubtypeLocallyAssigned, bytes.Repeat([]byte("x"), 255)}, "local " + strings.Repeat("x", 255)},
	}
	runIDTests(t, tests,
		func(tlv []byte) []byte { return cat(tlv, tlvPort, tlvTTL, tlvEnd) },
		func(du *DU) ChassisID { return du.ChassisID },
		func(chassis, _ []byte) []byte { return chassis })
}

func TestPortID(t *testing.T) {
	tests := []idTest[PortID]{
		{"reserved", hx("04 02 00 01"), PortID{0, hx("01")}, "reserved 01"},
		{"interface alias", hx("04 07 01 75 70 6C 69 6E 6B"), PortID{PortIDSubtypeInterfaceAlias, []byte("uplink")}, "ifalias uplink"},
		{"port component", hx("04 04 02 70 63 31"), PortID{PortIDSubtypePortComponent, []byte("pc1")}, "port pc1"},
		{"mac", hx("04 07 03 02 DC B0 00 00 01"), PortID{PortIDSubtypeMACAddress, hx("02 DC B0 00 00 01")}, "mac 02:dc:b0:00:00:01"},
		{"ipv4", hx("04 06 04 01 C0 00 02 01"), PortID{PortIDSubtypeNetworkAddress, hx("01 C0 00 02 01")}, "addr 192.0.2.1"},
		{"ipv6", hx("04 12 04 02 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 02"),
			PortID{PortIDSubtypeNetworkAddress, hx("02 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 02")}, "addr 2001:db8::2"},
		{"ipv4 of wrong length", hx("04 05 04 01 C0 00 02"), PortID{PortIDSubtypeNetworkAddress, hx("01 C0 00 02")}, "addr 01:c0:00:02"},
		{"ifname", hx("04 05 05 73 77 70 31"), PortID{PortIDSubtypeInterfaceName, []byte("swp1")}, "ifname swp1"},
		{"agent circuit id", hx("04 04 06 00 01 FF"), PortID{PortIDSubtypeAgentCircuitID, hx("00 01 FF")}, "circuit 00:01:ff"},
		{"local", hx("04 07 07 45 74 68 31 2F 33"), PortID{PortIDSubtypeLocallyAssigned, []byte("Eth1/3")}, "local Eth1/3"},
		{"subtype 200", hx("04 02 C8 7F"), PortID{200, hx("7F")}, "subtype-200 7f"},
	}
	runIDTests(t, tests,
		func(tlv []byte) []byte { return cat(tlvChassis, tlv, tlvTTL, tlvEnd) },
		func(du *DU) PortID { return du.PortID },
		func(_, port []byte) []byte { return port })
}

// An idTest is a table row for a Chassis ID or Port ID TLV: its bytes,
// what they decode to and the decoded ID's String.
type idTest[T any] struct {
	name string
	b    []byte
	want T
	str  string
}

// runIDTests parses each Chassis or Port ID TLV inside the LLDPDU that
// lldpdu builds around it, compares the ID that get returns with want and
// its String with str, re-encodes the LLDPDU, and checks that PeekMSAP
// (whose chassis or port result peek returns) gives the information string.
func runIDTests[T interface {
	ChassisID | PortID
	String() string
}](t *testing.T, tests []idTest[T], lldpdu func(tlv []byte) []byte, get func(*DU) T, peek func(chassis, port []byte) []byte) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := lldpdu(tt.b)
			du := mustParse(t, b)
			id := get(du)
			if diff := cmp.Diff(tt.want, id); diff != "" {
				t.Errorf("decode (-want +got):\n%s", diff)
			}
			if got := id.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if diff := cmp.Diff(b, mustMarshal(t, du)); diff != "" {
				t.Errorf("encode (-want +got):\n%s", diff)
			}
			chassis, port, _, err := PeekMSAP(b)
			if err != nil {
				t.Fatalf("PeekMSAP: %v", err)
			}
			if diff := cmp.Diff(tt.b[2:], peek(chassis, port)); diff != "" {
				t.Errorf("PeekMSAP (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTTL(t *testing.T) {
	tests := []struct {
		name     string
		b        []byte // the TTL TLV
		want     uint16
		shutdown bool
	}{
		{"shutdown", hx("06 02 00 00"), 0, true},
		{"lldpd tx-interval 1", hx("06 02 00 04"), 4, false},
		{"121", hx("06 02 00 79"), 121, false},
		{"max", hx("06 02 FF FF"), 65535, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := cat(tlvChassis, tlvPort, tt.b, tlvEnd)
			du := mustParse(t, b)
			if du.TTL != tt.want || du.Shutdown() != tt.shutdown {
				t.Errorf("TTL %d Shutdown %v, want %d %v", du.TTL, du.Shutdown(), tt.want, tt.shutdown)
			}
			if diff := cmp.Diff(b, mustMarshal(t, du)); diff != "" {
				t.Errorf("encode (-want +got):\n%s", diff)
			}
			if _, _, ttl, err := PeekMSAP(b); err != nil || ttl != tt.want {
				t.Errorf("PeekMSAP TTL = %d, %v; want %d", ttl, err, tt.want)
			}
		})
	}
}

// optionalTLVTest is a table row for an optional TLV: its bytes and what
// they decode to. When encoded is set, encoding want gives those bytes
// instead of b (reserved bits are sent as 0).
type optionalTLVTest struct {
	name    string
	b       []byte
	want    TLV
	encoded []byte
}

// runOptionalTLVTests decodes each TLV inside a minimal LLDPDU, compares
// it with want, and encodes want with AppendTLV and MarshalBinary.
func runOptionalTLVTests(t *testing.T, tests []optionalTLVTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du := mustParse(t, lldpdu(tt.b))
			if diff := cmp.Diff([]TLV{tt.want}, du.TLVs); diff != "" {
				t.Errorf("decode (-want +got):\n%s", diff)
			}
			want := tt.b
			if tt.encoded != nil {
				want = tt.encoded
			}
			prefix := []byte{0xAA}
			got, err := AppendTLV(prefix, tt.want)
			if err != nil {
				t.Fatalf("AppendTLV: %v", err)
			}
			if diff := cmp.Diff(cat(prefix, want), got); diff != "" {
				t.Errorf("AppendTLV (-want +got):\n%s", diff)
			}
			m, ok := tt.want.(interface{ MarshalBinary() ([]byte, error) })
			if !ok {
				t.Fatalf("%T has no MarshalBinary", tt.want)
			}
			got, err = m.MarshalBinary()
			if err != nil {
				t.Fatalf("MarshalBinary: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("MarshalBinary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextTLVs(t *testing.T) {
	long := strings.Repeat("d", 300) // over the 255 of the standard, kept as sent
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "port description", b: hx("08 02 70 30"), want: &Text{TLVTypePortDescription, "p0"}},
		{name: "system name", b: hx("0A 07 73 77 2D 69 65 65 65"), want: &Text{TLVTypeSystemName, "sw-ieee"}},
		{name: "system description", b: hx("0C 0B 4A 75 6E 6F 73 20 31 32 2E 33 20"), want: &Text{TLVTypeSystemDescription, "Junos 12.3 "}},
		{name: "empty system name", b: hx("0A 00"), want: &Text{TLVTypeSystemName, ""}},
		{name: "hostile bytes kept as sent", b: hx("0A 11 65 76 69 6C 1B 5B 33 31 6D 68 6F 73 74 1B 5B 30 6D"),
			want: &Text{TLVTypeSystemName, "evil\x1b[31mhost\x1b[0m"}},
		{name: "not UTF-8", b: hx("08 03 FF FE 00"), want: &Text{TLVTypePortDescription, "\xff\xfe\x00"}},
		{name: "300-byte description", b: cat(hx("0D 2C"), []byte(long)), want: &Text{TLVTypeSystemDescription, long}},
	})
}

func TestTextAccessors(t *testing.T) {
	tests := []struct {
		name                 string
		b                    []byte
		sysName, sysDesc, pd string
	}{
		{"none", lldpdu(), "", "", ""},
		{"all", lldpdu(hx("08 02 70 30"), hx("0A 03 73 77 31"), hx("0C 01 44")), "sw1", "D", "p0"},
		{"first of repeated", lldpdu(hx("0A 01 61"), hx("0A 01 62")), "a", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			du := mustParse(t, tt.b)
			got := [3]string{du.SystemName(), du.SystemDescription(), du.PortDescription()}
			if diff := cmp.Diff([3]string{tt.sysName, tt.sysDesc, tt.pd}, got); diff != "" {
				t.Errorf("name, description, port description (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSystemCapabilities(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "lldpd", b: hx("0E 04 00 9C 00 80"), want: &SystemCapabilities{Capabilities: 0x009c, Enabled: 0x0080}},
		{name: "bridge router", b: hx("0E 04 00 14 00 14"), want: &SystemCapabilities{Capabilities: 0x0014, Enabled: 0x0014}},
		{name: "all bits", b: hx("0E 04 FF FF FF FF"), want: &SystemCapabilities{Capabilities: 0xffff, Enabled: 0xffff}},
	})
}

func TestManagementAddress(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "ipv4 (lldpd)", b: hx("10 0C 05 01 C0 00 02 01 02 00 00 00 02 00"),
			want: &ManagementAddress{Family: 1, Address: hx("C0 00 02 01"), IfSubtype: 2, IfNumber: 2}},
		{name: "ipv6", b: hx("10 18 11 02 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 01 03 00 00 01 00 00"),
			want: &ManagementAddress{Family: 2, Address: hx("20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 01"), IfSubtype: 3, IfNumber: 256}},
		{name: "ipv4 with OID", b: hx("10 13 05 01 C0 A8 00 3A 02 05 00 00 00 07 2B 06 01 04 01 BF 08"),
			want: &ManagementAddress{Family: 1, Address: hx("C0 A8 00 3A"), IfSubtype: 2, IfNumber: 0x05000000, OID: hx("2B 06 01 04 01 BF 08")}},
		{name: "mac", b: hx("10 0E 07 06 02 00 00 00 00 01 01 FF FF FF FF 00"),
			want: &ManagementAddress{Family: 6, Address: hx("02 00 00 00 00 01"), IfSubtype: 1, IfNumber: 0xffffffff}},
		{name: "OID of 128 bytes", b: cat(hx("10 8C 05 01 C0 00 02 01 02 00 00 00 02 80"), bytes.Repeat([]byte{1}, 128)),
			want: &ManagementAddress{Family: 1, Address: hx("C0 00 02 01"), IfSubtype: 2, IfNumber: 2, OID: bytes.Repeat([]byte{1}, 128)}},
	})
}

func TestManagementAddressAddr(t *testing.T) {
	tests := []struct {
		name string
		m    ManagementAddress
		want netip.Addr
		ok   bool
	}{
		{"ipv4", ManagementAddress{Family: 1, Address: hx("C0 00 02 01")}, netip.MustParseAddr("192.0.2.1"), true},
		{"ipv6", ManagementAddress{Family: 2, Address: netip.MustParseAddr("2001:db8::1").AsSlice()}, netip.MustParseAddr("2001:db8::1"), true},
		{"ipv4 family, 16 bytes", ManagementAddress{Family: 1, Address: make([]byte, 16)}, netip.Addr{}, false},
		{"mac", ManagementAddress{Family: 6, Address: hx("02 00 00 00 00 01")}, netip.Addr{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.m.Addr()
			if got != tt.want || ok != tt.ok {
				t.Errorf("Addr() = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRawTLV(t *testing.T) {
	runOptionalTLVTests(t, []optionalTLVTest{
		{name: "reserved type 9", b: hx("12 03 01 02 03"), want: &RawTLV{T: 9, Value: hx("01 02 03")}},
		{name: "reserved type 126, empty", b: hx("FC 00"), want: &RawTLV{T: 126}},
		{name: "802.3 unknown subtype 5 (EEE)", b: hx("FE 0E 00 12 0F 05 00 10 00 10 00 10 00 10 00 10"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 12 0F 05 00 10 00 10 00 10 00 10 00 10")}},
		{name: "802.1 unknown subtype 6 (management VID)", b: hx("FE 06 00 80 C2 06 00 32"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 80 C2 06 00 32")}},
		{name: "802.1 unknown subtype 5 (VID usage digest)", b: hx("FE 08 00 80 C2 05 12 34 56 78"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 80 C2 05 12 34 56 78")}},
		{name: "802.1 unknown subtype 13 (EVB)", b: hx("FE 05 00 80 C2 0D 07"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 80 C2 0D 07")}},
		{name: "Cisco", b: hx("FE 05 00 01 42 01 01"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 01 42 01 01")}},
		{name: "CEE OUI, subtype 3", b: hx("FE 06 00 1B 21 03 AA BB"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 1B 21 03 AA BB")}},
		{name: "org, OUI and subtype only", b: hx("FE 04 00 00 00 00"), want: &RawTLV{T: TLVTypeOrg, Value: hx("00 00 00 00")}},
		{name: "org of 511 bytes", b: cat(hx("FF FF 00 12 0F 63"), make([]byte, 507)), want: &RawTLV{T: TLVTypeOrg, Value: cat(hx("00 12 0F 63"), make([]byte, 507))}},
	})
}

func TestRawTLVOrgID(t *testing.T) {
	tests := []struct {
		name string
		r    RawTLV
		oui  OUI
		sub  uint8
		ok   bool
	}{
		{"802.3", RawTLV{T: TLVTypeOrg, Value: hx("00 12 0F 01 00")}, OUI{0x00, 0x12, 0x0f}, 1, true},
		{"CIN", RawTLV{T: TLVTypeOrg, Value: hx("00 1B 21 01")}, OUICEE, 1, true},
		{"too short", RawTLV{T: TLVTypeOrg, Value: hx("00 1B 21")}, OUI{}, 0, false},
		{"not org", RawTLV{T: 9, Value: hx("00 1B 21 01")}, OUI{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oui, sub, ok := tt.r.OrgID()
			if oui != tt.oui || sub != tt.sub || ok != tt.ok {
				t.Errorf("OrgID() = %v, %d, %v; want %v, %d, %v", oui, sub, ok, tt.oui, tt.sub, tt.ok)
			}
		})
	}
}

func TestAppendTLVErrors(t *testing.T) {
	tests := []struct {
		name string
		tlv  TLV
	}{
		{"text of type Chassis ID", &Text{Kind: TLVTypeChassisID, Value: "x"}},
		{"text of type Org", &Text{Kind: TLVTypeOrg, Value: "x"}},
		{"text of 512 bytes", &Text{Kind: TLVTypeSystemDescription, Value: strings.Repeat("x", 512)}},
		{"raw End", &RawTLV{T: TLVTypeEnd}},
		{"raw TTL", &RawTLV{T: TLVTypeTTL, Value: hx("00 78")}},
		{"raw type 128", &RawTLV{T: 128, Value: hx("01")}},
		{"raw org of 3 bytes", &RawTLV{T: TLVTypeOrg, Value: hx("00 12 0F")}},
		{"raw of 512 bytes", &RawTLV{T: 9, Value: make([]byte, 512)}},
		{"management address empty", &ManagementAddress{Family: 1}},
		{"management address of 32 bytes", &ManagementAddress{Family: 1, Address: make([]byte, 32)}},
		{"management OID of 129 bytes", &ManagementAddress{Family: 1, Address: hx("C0 00 02 01"), OID: make([]byte, 129)}},
		{"ETS max TCs 9", &ETS{MaxTCs: 9}},
		{"ETS TC 16", &ETS{MaxTCs: 8, PrioTC: [8]uint8{7: 16}}},
		{"PFC cap 16", &PFC{Cap: 16}},
		{"APP priority 8", &AppPriority{Entries: []AppEntry{{Priority: 8, Selector: AppSelUDP, Protocol: 4791}}}},
		{"APP selector 8", &AppPriority{Entries: []AppEntry{{Priority: 3, Selector: 8, Protocol: 4791}}}},
		{"APP of 169 entries", &AppPriority{Entries: make([]AppEntry, 169)}},
		{"CEE PGID 16", &CEE{PG: &CEEPG{PGID: [8]uint8{16}}}},
		{"CEE APP selector 4", &CEE{App: &CEEApp{Entries: []CEEAppEntry{{Protocol: 0x8906, Selector: 4}}}}},
		{"CEE APP of 85 entries", &CEE{App: &CEEApp{Entries: make([]CEEAppEntry, 85)}}},
		{"CEE sub-TLV type 128", &CEE{Other: []CEESubTLV{{Type: 128}}}},
		{"CEE sub-TLV of 512 bytes", &CEE{Other: []CEESubTLV{{Type: 9, Value: make([]byte, 512)}}}},
		{"CEE of 512 bytes", &CEE{Other: []CEESubTLV{{Type: 9, Value: make([]byte, 300)}, {Type: 9, Value: make([]byte, 300)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := hx("01 02 03")
			got, err := AppendTLV(prefix, tt.tlv)
			checkErr(t, err, ErrInvalidValue)
			if diff := cmp.Diff(prefix, got); diff != "" {
				t.Errorf("AppendTLV changed b on error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		name string
		got  interface{ String() string }
		want string
	}{
		{"TLV End", TLVTypeEnd, "End"},
		{"TLV Management Address", TLVTypeManagementAddress, "Management Address"},
		{"TLV Org", TLVTypeOrg, "Org"},
		{"TLV reserved", TLVType(9), "type 9"},
		{"OUI", OUIIEEE8021, "00-80-c2"},
		{"OUI CEE", OUICEE, "00-1b-21"},
		{"MAC", MAC{0x02, 0xdc, 0xb0, 0, 0, 0xfe}, "02:dc:b0:00:00:fe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if m, ok := tt.got.(interface{ MarshalText() ([]byte, error) }); ok {
				b, err := m.MarshalText()
				if err != nil || string(b) != tt.want {
					t.Errorf("MarshalText() = %q, %v; want %q", b, err, tt.want)
				}
			}
		})
	}
}

// The enums that appear in JSON: String and MarshalText give the text,
// UnmarshalText reads it back and rejects anything else.
func TestEnumText(t *testing.T) {
	t.Run("TSA", func(t *testing.T) {
		checkEnumText(t, []enumText[TSA]{
			{TSAStrict, "strict"}, {TSACBS, "cbs"}, {TSAETS, "ets"}, {TSAVendor, "vendor"},
			{3, "unknown-3"}, {254, "unknown-254"},
		}, "", "ETS", "unknown-", "unknown-256", "unknown--1", "3")
	})
	t.Run("AppSelector", func(t *testing.T) {
		checkEnumText(t, []enumText[AppSelector]{
			{0, "reserved-0"}, {AppSelEthertype, "ethertype"}, {AppSelTCP, "tcp-port"}, {AppSelUDP, "udp-port"},
			{AppSelPort, "port"}, {AppSelDSCP, "dscp"}, {6, "reserved-6"}, {7, "reserved-7"},
		}, "", "DSCP", "reserved-", "reserved-256", "5")
	})
	t.Run("Level", func(t *testing.T) {
		// Not in JSON (diag.Severity is): String only.
		for l, want := range map[Level]string{LevelInfo: "info", LevelWarning: "warning", LevelError: "error"} {
			if l.String() != want {
				t.Errorf("Level(%d).String() = %q, want %q", l, l.String(), want)
			}
		}
	})
	t.Run("Dialect", func(t *testing.T) {
		checkEnumText(t, []enumText[Dialect]{
			{DialectNone, "none"}, {DialectIEEE, "ieee"}, {DialectCEE, "cee"}, {DialectCIN, "cin"},
		}, "", "IEEE", "CIN")
	})
}

// An enumText is an enum value and its text.
type enumText[T any] struct {
	v    T
	text string
}

// checkEnumText checks that String and MarshalText of each value give its
// text and that UnmarshalText gives the value back, and that UnmarshalText
// rejects each of bad.
func checkEnumText[T interface {
	comparable
	String() string
	MarshalText() ([]byte, error)
}, P interface {
	*T
	UnmarshalText([]byte) error
}](t *testing.T, tests []enumText[T], bad ...string) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			b, err := tt.v.MarshalText()
			if err != nil || string(b) != tt.text || tt.v.String() != tt.text {
				t.Errorf("MarshalText() = %q, %v; String() = %q; want %q", b, err, tt.v.String(), tt.text)
			}
			var got T
			if err := P(&got).UnmarshalText([]byte(tt.text)); err != nil || got != tt.v {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tt.text, got, err, tt.v)
			}
		})
	}
	for _, s := range bad {
		t.Run("bad "+s, func(t *testing.T) {
			var got T
			if err := P(&got).UnmarshalText([]byte(s)); err == nil {
				t.Errorf("UnmarshalText(%q) = %v, want an error", s, got)
			}
		})
	}
}

func TestMACScope(t *testing.T) {
	tests := []struct {
		mac  MAC
		want string
	}{
		{NearestBridge, "nearest-bridge"},
		{NearestNonTPMRBridge, "nearest-nontpmr-bridge"},
		{NearestCustomerBridge, "nearest-customer-bridge"},
		{MAC{0x01, 0x80, 0xc2, 0, 0, 0x01}, "other"},
	}
	for _, tt := range tests {
		t.Run(tt.mac.String(), func(t *testing.T) {
			if got := tt.mac.Scope(); got != tt.want {
				t.Errorf("Scope() = %q, want %q", got, tt.want)
			}
		})
	}
}
