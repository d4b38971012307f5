// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A Scope names the LLDP agent an LLDPDU was addressed to, by its
// destination address (IEEE Std 802.1AB-2016, 7.1 and Table 7-1). Only
// the nearest-bridge agent carries DCBX (IEEE Std 802.1Q-2018, D.1).
type Scope string

// The scopes: the three standard group addresses, and any other address.
const (
	ScopeNearestBridge         Scope = "nearest-bridge"          // 01-80-C2-00-00-0E
	ScopeNearestNonTPMRBridge  Scope = "nearest-nontpmr-bridge"  // 01-80-C2-00-00-03
	ScopeNearestCustomerBridge Scope = "nearest-customer-bridge" // 01-80-C2-00-00-00
	ScopeOther                 Scope = "other"
)

// ScopeOf returns the scope of an LLDPDU sent to dst.
func ScopeOf(dst lldp.MAC) Scope {
	switch dst {
	case lldp.NearestBridge:
		return ScopeNearestBridge
	case lldp.NearestNonTPMRBridge:
		return ScopeNearestNonTPMRBridge
	case lldp.NearestCustomerBridge:
		return ScopeNearestCustomerBridge
	}
	return ScopeOther
}

// A VLANTag is the outermost IEEE 802.1Q (or 802.1ad) tag an LLDPDU
// arrived with. LLDP is normally sent untagged; a tag says a switch port
// runs LLDP in a VLAN (Cisco Nexus does for CEE on trunk ports).
type VLANTag struct {
	ID  uint16 `json:"id"`  // VLAN identifier, 0 for a priority tag
	PCP uint8  `json:"pcp"` // priority code point
}

// discardedName names a discarded TLV for an operator: the DCBX TLVs by
// their names, other organizationally specific TLVs by OUI and subtype.
func discardedName(d lldp.DiscardedTLV) string {
	if d.Type != lldp.TLVTypeOrg {
		return d.Type.String()
	}
	switch {
	case d.OUI == lldp.OUIIEEE8021 && d.Sub == lldp.SubtypeETSConfig:
		return "ETS Configuration"
	case d.OUI == lldp.OUIIEEE8021 && d.Sub == lldp.SubtypeETSReco:
		return "ETS Recommendation"
	case d.OUI == lldp.OUIIEEE8021 && d.Sub == lldp.SubtypePFC:
		return "PFC Configuration"
	case d.OUI == lldp.OUIIEEE8021 && d.Sub == lldp.SubtypeAppPriority:
		return "Application Priority"
	case d.OUI == lldp.OUICEE && d.Sub == lldp.SubtypeCEE:
		return "CEE DCBX"
	case d.OUI == lldp.OUICEE && d.Sub == lldp.SubtypeCIN:
		return "CIN DCBX"
	}
	return fmt.Sprintf("Org %s/%d", d.OUI, d.Sub)
}

// discardedError is what was wrong with a discarded TLV, without the
// TLV's name and offset (the snapshot has them apart).
func discardedError(d lldp.DiscardedTLV) string {
	if d.Err == nil {
		return "invalid"
	}
	if d.Err.Detail == "" {
		return d.Err.Err.Error()
	}
	return d.Err.Err.Error() + ": " + d.Err.Detail
}
