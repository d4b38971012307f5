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

// OUIIEEE8023 is the IEEE 802.3 OUI, 00-12-0F.
var OUIIEEE8023 = OUI{0x00, 0x12, 0x0f}

// orgTLVNames names the organizationally specific TLVs of IEEE 802.1 (IEEE
// Std 802.1Q-2018, Table D-1; 9 to 12 are decoded, named here for
// completeness), IEEE 802.3 (IEEE Std 802.3-2018, Table 79-1) and CIN
// DCBX (OUI 00-1B-21 subtype 1, CEE's predecessor, not decoded).
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
