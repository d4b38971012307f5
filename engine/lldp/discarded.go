// SPDX-License-Identifier: Apache-2.0

package lldp

import "fmt"

// A DiscardedTLV is an optional TLV dropped for an error in its
// information string while the rest of its LLDPDU was used (IEEE Std
// 802.1AB-2016, 9.2.7.7.2: an error in an optional TLV discards that TLV
// and increments statsTLVsDiscardedTotal).
type DiscardedTLV struct {
	Offset int     // byte offset of the TLV header in the LLDPDU
	Type   TLVType // the TLV's type
	OUI    OUI     // organizationally specific TLVs, when known
	Sub    uint8   // organizationally specific subtype, when OUI is set
	Err    *ParseError
}

// CodeTLVDiscarded is the code of a DiscardedTLV's finding.
const CodeTLVDiscarded Code = "tlv-discarded"

// name names the TLV for a message: the DCBX TLVs by name, the other
// organizationally specific TLVs dcbtop decodes by name, OUI and subtype,
// the rest by OUI and subtype.
func (d DiscardedTLV) name() (name, feature string) {
	if d.Type != TLVTypeOrg {
		return d.Type.String() + " TLV", "lldp"
	}
	switch {
	case d.OUI == OUIIEEE8021 && d.Sub == SubtypeETSConfig:
		return "ETS Configuration TLV", "ets"
	case d.OUI == OUIIEEE8021 && d.Sub == SubtypeETSReco:
		return "ETS Recommendation TLV", "ets_reco"
	case d.OUI == OUIIEEE8021 && d.Sub == SubtypePFC:
		return "PFC Configuration TLV", "pfc"
	case d.OUI == OUIIEEE8021 && d.Sub == SubtypeAppPriority:
		return "Application Priority TLV", "app"
	case d.OUI == OUICEE && (d.Sub == SubtypeCEE || d.Sub == SubtypeCIN):
		return "CEE DCBX TLV", "cee"
	case d.OUI == (OUI{}):
		return "organizationally specific TLV", "lldp"
	}
	if n, ok := orgTLVNames[orgID{d.OUI, d.Sub}]; ok {
		return fmt.Sprintf("%s TLV %s/%d", n, d.OUI, d.Sub), "lldp"
	}
	return fmt.Sprintf("organizationally specific TLV %s/%d", d.OUI, d.Sub), "lldp"
}

// discardFindings reports each discarded TLV.
func (du *DU) discardFindings() []Finding {
	var out []Finding
	for _, d := range du.Discarded {
		name, feature := d.name()
		what := d.Err.Err.Error()
		if d.Err.Detail != "" {
			what += ": " + d.Err.Detail
		}
		out = append(out, finding(CodeTLVDiscarded, LevelWarning, feature,
			"%s at offset %d discarded (%s); the rest of the LLDPDU is used", name, d.Offset, what))
	}
	return out
}
