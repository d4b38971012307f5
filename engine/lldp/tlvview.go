// SPDX-License-Identifier: Apache-2.0

package lldp

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// A TLVView is one TLV of an LLDPDU decoded for a person to read (the
// screen's drill-down into a peer): its name and its fields as text.
type TLVView struct {
	// Type is the TLV's type (IEEE Std 802.1AB-2016, Table 8-1).
	Type TLVType
	// OUI and Subtype identify an organizationally specific TLV (Type
	// 127); they are zero for the others.
	OUI     OUI
	Subtype uint8
	// Name names the TLV as the standard that defines it (and tshark)
	// does: "Chassis ID", "System Capabilities", "ETS Configuration".
	Name string
	// Fields are what the TLV carries, in order: first its value or
	// values (fields without a label: an ID, a text, the entries of a
	// list), then its named fields. A TLV of named fields only is a
	// record: "willing off", "CBS off", "max TCs 8".
	Fields []TLVField
	// Undecoded is the value of a TLV the codec does not decode (after
	// the OUI and subtype of an organizationally specific one), for a
	// hex view; nil for the TLVs it decodes.
	Undecoded []byte
}

// A TLVField is one field of a TLVView.
type TLVField struct {
	// Label names the field ("willing", "enabled"); "" marks a value of
	// the TLV itself.
	Label string
	// Value is the field as text. Strings from the wire (names,
	// descriptions, text IDs) are as sent, unsanitized: whoever prints
	// them to a terminal must sanitize them (Sanitize).
	Value string
}

// DescribeLLDPDU decodes the LLDPDU b (the Ethernet payload after
// EtherType 0x88cc, as Peer.LLDPDU holds it) into one view per TLV, in
// the order received: the Chassis ID, Port ID and Time To Live TLVs, then
// the optional TLVs. The End TLV is not listed, nor are the TLVs the
// codec discarded for an error (DU.Discarded, Peer.DiscardedTLVs).
// An LLDPDU that Parse rejects returns its error and no views.
func DescribeLLDPDU(b []byte) ([]TLVView, error) {
	du, err := Parse(b)
	if err != nil {
		return nil, err
	}
	out := make([]TLVView, 0, 3+len(du.TLVs))
	out = append(out,
		TLVView{Type: TLVTypeChassisID, Name: TLVTypeChassisID.String(), Fields: []TLVField{{Value: du.ChassisID.String()}}},
		TLVView{Type: TLVTypePortID, Name: TLVTypePortID.String(), Fields: []TLVField{{Value: du.PortID.String()}}},
		TLVView{Type: TLVTypeTTL, Name: "Time To Live", Fields: []TLVField{{Value: fmt.Sprintf("%d s", du.TTL)}}},
	)
	for _, t := range du.TLVs {
		out = append(out, describeTLV(t))
	}
	return out, nil
}

// describeTLV is the view of one optional TLV.
func describeTLV(t TLV) TLVView {
	v := TLVView{Type: t.Type(), Name: t.Type().String()}
	value := func(s string) { v.Fields = append(v.Fields, TLVField{Value: s}) }
	field := func(label, s string) { v.Fields = append(v.Fields, TLVField{Label: label, Value: s}) }
	switch x := t.(type) {
	case *Text:
		value(x.Value)
	case *SystemCapabilities:
		value(capWords(x.Capabilities))
		field("enabled", capWords(x.Enabled))
	case *ManagementAddress:
		value(mgmtAddress(x))
	case *ETS:
		v.OUI, v.Subtype, v.Name = OUIIEEE8021, SubtypeETSReco, "ETS Recommendation"
		if !x.Recommendation {
			v.Subtype, v.Name = SubtypeETSConfig, "ETS Configuration"
			field("willing", onOff(x.Willing))
			field("CBS", onOff(x.CBS))
			field("max TCs", strconv.Itoa(int(x.MaxTCs)))
		}
		tsa := make([]string, len(x.TSA))
		for i, t := range x.TSA {
			tsa[i] = t.String()
		}
		field("priority→TC", numbers(x.PrioTC))
		field("TC bandwidth", numbers(x.Bandwidth)+" %")
		field("TSA", strings.Join(tsa, " "))
	case *PFC:
		v.OUI, v.Subtype, v.Name = OUIIEEE8021, SubtypePFC, "PFC Configuration"
		field("willing", onOff(x.Willing))
		field("MBC", onOff(x.MBC))
		field("cap", strconv.Itoa(int(x.Cap)))
		field("enabled on", prioWords(x.Priorities()))
	case *AppPriority:
		v.OUI, v.Subtype, v.Name = OUIIEEE8021, SubtypeAppPriority, "Application Priority"
		for _, e := range x.Entries {
			proto := strconv.Itoa(int(e.Protocol))
			if e.Selector == AppSelEthertype {
				proto = fmt.Sprintf("%#04x", e.Protocol)
			}
			value(fmt.Sprintf("%s %s→%d", e.Selector, proto, e.Priority))
		}
	case *CEE:
		v.OUI, v.Subtype, v.Name = OUICEE, SubtypeCEE, "CEE DCBX"
		field("sub-TLVs", ceeSubTLVs(x))
	case *PortVLANID:
		v.setOrg(OUIIEEE8021, SubtypePortVLANID)
		field("PVID", vidWords(x.PVID))
	case *ProtocolVLANID:
		v.setOrg(OUIIEEE8021, SubtypeProtocolVLANID)
		field("PPVID", vidWords(x.PPVID))
		field("supported", onOff(x.Supported()))
		field("enabled", onOff(x.Enabled()))
	case *VLANName:
		v.setOrg(OUIIEEE8021, SubtypeVLANName)
		value(string(x.Name)) // as sent, like a Text TLV's value
		field("VID", strconv.Itoa(int(x.VID)))
	case *ProtocolIdentity:
		v.setOrg(OUIIEEE8021, SubtypeProtocolIdentity)
		if len(x.Identity) == 0 {
			value("none")
		} else {
			value(hexBytes(x.Identity)) // protocol header bytes, not text
		}
	case *LinkAggregation:
		v.setOrg(x.OUI, x.Subtype())
		field("capable", onOff(x.Capable()))
		field("enabled", onOff(x.Enabled()))
		if x.OUI == OUIIEEE8021 {
			field("port type", aggPortTypes[x.PortType()])
		}
		field("port ID", strconv.FormatUint(uint64(x.PortID), 10))
	case *CongestionNotification:
		v.setOrg(OUIIEEE8021, SubtypeCongestionNotification)
		field("CNPV on", prioWords(x.CNPVPriorities()))
		field("ready", prioWords(x.ReadyPriorities()))
	case *MACPHYStatus:
		v.setOrg(OUIIEEE8023, SubtypeMACPHYStatus)
		field("autoneg supported", onOff(x.AutonegSupported()))
		field("autoneg enabled", onOff(x.AutonegEnabled()))
		field("advertised", autonegWords(x.Advertised))
		field("MAU type", mauWords(x.MAUType))
	case *PowerViaMDI:
		v.setOrg(OUIIEEE8023, SubtypePowerViaMDI)
		class := "PD"
		if x.PSE() {
			class = "PSE"
		}
		field("port class", class)
		field("PSE power supported", onOff(x.PSESupported()))
		field("PSE power enabled", onOff(x.PSEEnabled()))
		field("pairs control", onOff(x.PairsControl()))
		field("PSE power pair", numberWord(x.PowerPair, psePairNames[:]))
		field("power class", numberWord(x.PowerClass, powerClassNames[:]))
		if len(x.Extension) > 0 {
			field("extension", fmt.Sprintf("%s (%d bytes, not decoded)", hexBytes(x.Extension), len(x.Extension)))
		}
	case *MaxFrameSize:
		v.setOrg(OUIIEEE8023, SubtypeMaxFrameSize)
		value(fmt.Sprintf("%d bytes", x.Size))
	case *RawTLV:
		n := len(x.Value)
		if oui, sub, ok := x.OrgID(); ok {
			v.OUI, v.Subtype, v.Name = oui, sub, orgTLVName(oui, sub)
			v.Undecoded = x.Value[4:]
			value(fmt.Sprintf("%d bytes, not decoded", n-4))
			field("OUI", oui.String())
			field("subtype", strconv.Itoa(int(sub)))
			break
		}
		if x.T > TLVTypeManagementAddress && x.T < TLVTypeOrg {
			v.Name = "Reserved" // IEEE Std 802.1AB-2016, Table 8-1: types 9 to 126
		}
		v.Undecoded = x.Value
		value(fmt.Sprintf("%d bytes, not decoded", n))
		field("type", strconv.Itoa(int(x.T)))
	}
	return v
}

// setOrg names an organizationally specific TLV's view by its OUI and
// subtype.
func (v *TLVView) setOrg(oui OUI, sub uint8) {
	v.OUI, v.Subtype, v.Name = oui, sub, orgTLVName(oui, sub)
}

// vidWords renders a VLAN ID, "none (0)" for 0: a port without port-based
// (PVID, IEEE Std 802.1Q-2018 D.2.1) or protocol VLANs (PPVID,
// D.2.2) sends 0.
func vidWords(vid uint16) string {
	if vid == 0 {
		return "none (0)"
	}
	return strconv.Itoa(int(vid))
}

// aggPortTypes names the port type of the 802.1 Link Aggregation TLV's
// status byte, bits 3-2 (IEEE Std 802.1AX-2014, Annex F).
var aggPortTypes = [4]string{"not specified", "aggregation port", "aggregator", "single-port aggregator"}

// autonegNames name the bits of the PMD auto-negotiation advertised
// capability of the MAC/PHY TLV (IEEE Std 802.3-2018, 79.3.1), most
// significant bit first: RFC 4836's ifMauAutoNegCapAdvertisedBits, whose
// bit 0 ("other") is the field's most significant bit, as lldpd and
// Wireshark read it (tshark's lldp.ieee.802_3.pmd_auto_neg_advertised_caps.*:
// other 0x8000 ... 1000base_tfd 0x0001; TestTshark compares them).
var autonegNames = [16]string{
	"other", "10BASE-T", "10BASE-T FD", "100BASE-T4",
	"100BASE-TX", "100BASE-TX FD", "100BASE-T2", "100BASE-T2 FD",
	"PAUSE", "asym PAUSE", "sym PAUSE", "asym+sym PAUSE",
	"1000BASE-X", "1000BASE-X FD", "1000BASE-T", "1000BASE-T FD",
}

// autonegWords names the advertised capabilities, then the field in hex:
// "10BASE-T, 100BASE-TX FD (0x4400)", "none (0x0000)".
func autonegWords(bits uint16) string {
	var out []string
	for i, n := range autonegNames {
		if bits&(0x8000>>i) != 0 {
			out = append(out, n)
		}
	}
	words := "none"
	if len(out) > 0 {
		words = strings.Join(out, ", ")
	}
	return fmt.Sprintf("%s (%#04x)", words, bits)
}

// mauNames are the operational MAU types tshark 4.0 names (Wireshark's
// operational_mau_type_values, from the dot3MauType objects of RFC 4836:
// 1 to 53, and 0), up to the first " - " of its description, with two
// misspellings of Wireshark's corrected to RFC 4836's names (13
// 10BaseFLFD, 20 100BaseT2FD). TestTsharkMAUNames compares them with
// tshark -G values. Later types (the IANA MAU MIB's 54 on) are shown as
// numbers, as tshark shows them.
var mauNames = [...]string{
	"other or unknown", "AUI", "10Base5", "Foirl", "10Base2", "10BaseT", "10BaseFP", "10BaseFB",
	"10BaseFL", "10Broad36", "10BaseTHD", "10BaseTFD", "10BaseFLHD", "10BaseFLFD", "10BaseT4", "100BaseTXHD",
	"100BaseTXFD", "100BaseFXHD", "100BaseFXFD", "100BaseT2HD", "100BaseT2FD", "1000BaseXHD", "1000BaseXFD", "1000BaseLXHD",
	"1000BaseLXFD", "1000BaseSXHD", "1000BaseSXFD", "1000BaseCXHD", "1000BaseCXFD", "1000BaseTHD", "1000BaseTFD", "10GigBaseX",
	"10GigBaseLX4", "10GigBaseR", "10GigBaseER", "10GigBaseLR", "10GigBaseSR", "10GigBaseW", "10GigBaseEW", "10GigBaseLW",
	"10GigBaseSW", "10GBASE-CX4", "2BASE-TL", "10PASS-TS", "100BASE-BX10D", "100BASE-BX10U", "100BASE-LX10", "1000BASE-BX10D",
	"1000BASE-BX10U", "1000BASE-LX10", "1000BASE-PX10D", "1000BASE-PX10U", "1000BASE-PX20D", "1000BASE-PX20U",
}

// mauWords renders an operational MAU type as its number and, where
// mauNames has it, its name: "16 (100BaseTXFD)", "54".
func mauWords(t uint16) string {
	if int(t) < len(mauNames) {
		return fmt.Sprintf("%d (%s)", t, mauNames[t])
	}
	return strconv.Itoa(int(t))
}

// psePairNames and powerClassNames name the PSE power pair and the power
// class of the Power via MDI TLV (IEEE Std 802.3-2018, 79.3.2, after RFC
// 3621): pair 1 signal, 2 spare; class 1 to 5 are classes 0 to 4.
var (
	psePairNames    = [...]string{1: "signal", 2: "spare"}
	powerClassNames = [...]string{1: "class 0", 2: "class 1", 3: "class 2", 4: "class 3", 5: "class 4"}
)

// numberWord renders n as "NAME (n)" when names has a name for it, else
// as the number.
func numberWord(n uint8, names []string) string {
	if int(n) < len(names) && names[n] != "" {
		return fmt.Sprintf("%s (%d)", names[n], n)
	}
	return strconv.Itoa(int(n))
}

// numbers writes eight small numbers separated by spaces: "0 0 0 1 0 0 0 0".
func numbers(v [8]uint8) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(int(n))
	}
	return strings.Join(s, " ")
}

// sysCapNames are the system capabilities (IEEE Std 802.1AB-2016, Table
// 8-4, "System capabilities"), bit 0 (the standard's bit 1) first: other,
// repeater, MAC Bridge component, WLAN Access Point, router, telephone,
// DOCSIS cable device, station only, C-VLAN component, S-VLAN component,
// Two-port MAC Relay (TPMR) component. Bits 11-15 are reserved.
var sysCapNames = [...]string{"other", "repeater", "bridge", "WLAN AP", "router", "telephone", "DOCSIS", "station", "C-VLAN", "S-VLAN", "TPMR"}

// capWords names the capabilities set in bits, "none" for none; reserved
// bits are not named.
func capWords(bits uint16) string {
	var out []string
	for i, n := range sysCapNames {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// mgmtAddress describes a Management Address TLV (IEEE Std 802.1AB-2016,
// 8.5.9): the address, as an IP or MAC address when its IANA address
// family (1 IPv4, 2 IPv6, 6 802 MAC) and length say so, else the family
// and the bytes in hex; then the interface number and its numbering
// subtype (8.5.9.5: 1 unknown, 2 ifIndex, 3 system port number).
func mgmtAddress(m *ManagementAddress) string {
	a := fmt.Sprintf("family %d %x", m.Family, m.Address)
	switch {
	case m.Family == 1 && len(m.Address) == 4, m.Family == 2 && len(m.Address) == 16:
		if ip, ok := netip.AddrFromSlice(m.Address); ok {
			a = ip.String()
		}
	case m.Family == 6 && len(m.Address) == 6:
		a = MAC(m.Address).String()
	}
	return fmt.Sprintf("%s (interface %d, numbering %d)", a, m.IfNumber, m.IfSubtype)
}

// ceeSubTLVs lists the sub-TLVs of a CEE DCBX TLV in the order the codec
// keeps them (Control, PG, PFC, APP, then the others: unknown types and
// repeats, by type).
func ceeSubTLVs(c *CEE) string {
	var out []string
	for _, s := range []struct {
		present bool
		name    string
	}{{c.Control != nil, "Control"}, {c.PG != nil, "PG"}, {c.PFC != nil, "PFC"}, {c.App != nil, "APP"}} {
		if s.present {
			out = append(out, s.name)
		}
	}
	for _, o := range c.Other {
		out = append(out, ceeSubTLVName(o.Type))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// ceeSubTLVName names a CEE sub-TLV type (CEE DCBX 1.01: 1 Control, 2
// Priority Groups, 3 PFC, 4 Application); a repeat is named as the first.
func ceeSubTLVName(t uint8) string {
	switch t {
	case 1:
		return "Control"
	case 2:
		return "PG"
	case 3:
		return "PFC"
	case 4:
		return "APP"
	}
	return fmt.Sprintf("type %d", t)
}

// An orgID is an organizationally specific TLV's OUI and subtype.
type orgID struct {
	oui OUI
	sub uint8
}

// orgTLVNames names the organizationally specific TLVs of IEEE 802.1 (IEEE
// Std 802.1Q-2018, Table D-1; 5, 6, 13 and 14 are not decoded), IEEE
// 802.3 (IEEE Std 802.3-2018, Table 79-1; 5 is not decoded) and CIN DCBX
// (OUI 00-1B-21 subtype 1, CEE's predecessor, not decoded).
var orgTLVNames = map[orgID]string{
	{OUIIEEE8021, 1}:  "Port VLAN ID",
	{OUIIEEE8021, 2}:  "Port And Protocol VLAN ID",
	{OUIIEEE8021, 3}:  "VLAN Name",
	{OUIIEEE8021, 4}:  "Protocol Identity",
	{OUIIEEE8021, 5}:  "VID Usage Digest",
	{OUIIEEE8021, 6}:  "Management VID",
	{OUIIEEE8021, 7}:  "Link Aggregation",
	{OUIIEEE8021, 8}:  "Congestion Notification",
	{OUIIEEE8021, 9}:  "ETS Configuration",
	{OUIIEEE8021, 10}: "ETS Recommendation",
	{OUIIEEE8021, 11}: "PFC Configuration",
	{OUIIEEE8021, 12}: "Application Priority",
	{OUIIEEE8021, 13}: "EVB",
	{OUIIEEE8021, 14}: "CDCP",
	{OUIIEEE8023, 1}:  "MAC/PHY Configuration/Status",
	{OUIIEEE8023, 2}:  "Power via MDI",
	{OUIIEEE8023, 3}:  "Link Aggregation",
	{OUIIEEE8023, 4}:  "Maximum Frame Size",
	{OUIIEEE8023, 5}:  "EEE",
	{OUICEE, 1}:       "CIN DCBX",
	{OUICEE, 2}:       "CEE DCBX",
}

// orgTLVName names an organizationally specific TLV, "Organizationally
// Specific" (IEEE Std 802.1AB-2016, 8.6) when dcbtop does not know it.
func orgTLVName(oui OUI, sub uint8) string {
	if n, ok := orgTLVNames[orgID{oui, sub}]; ok {
		return n
	}
	return "Organizationally Specific"
}

// onOff says "on" or "off".
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// prioWords renders priorities as "3,4", or "none".
func prioWords(p []uint8) string {
	if len(p) == 0 {
		return "none"
	}
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}
