// SPDX-License-Identifier: Apache-2.0

package cee

import "github.com/dcbtop/dcbtop/engine/lldp"

// ChooseDialect returns the DCBX dialect a host agent speaks on a port
// after receiving an LLDPDU, as lldpad chooses it (docs/dcbx.md, "The CEE control handshake", rule 6;
// lldpad lldp_dcbx.c dcbx_rchange and lldp_8021qaz.c
// ieee8021qaz_rchange): peerIEEE reports whether the LLDPDU carried any
// IEEE 802.1Qaz TLV (OUI 00-80-C2, subtypes 9 to 12), peerCEE whether it
// carried a CEE DCBX TLV (OUI 00-1B-21, subtype 2), and current is the
// dialect spoken so far.
//
//   - IEEE is the default: a current dialect other than DialectCEE counts
//     as DialectIEEE.
//   - Any IEEE TLV selects or keeps IEEE, also when the LLDPDU carries a
//     CEE TLV too (IEEE precedence, as lldp.DU.Dialect).
//   - A CEE TLV without IEEE TLVs selects CEE.
//   - An LLDPDU with neither (no DCBX, or only CIN's TLV, which this host
//     does not speak) keeps the current dialect.
//
// The result is DialectIEEE or DialectCEE. lldpad, once fallen back to
// CEE, returns to IEEE only when the link is reset (its IEEE module goes
// active again only at ifup); ChooseDialect returns to IEEE as soon as the
// peer sends IEEE TLVs ("any IEEE TLV received keeps or selects IEEE"),
// so a peer that moves from CEE to IEEE is followed without a link reset.
// To model a link reset the caller passes DialectIEEE (or DialectNone) as
// current.
func ChooseDialect(current lldp.Dialect, peerIEEE, peerCEE bool) lldp.Dialect {
	switch {
	case peerIEEE:
		return lldp.DialectIEEE
	case peerCEE:
		return lldp.DialectCEE
	case current == lldp.DialectCEE:
		return lldp.DialectCEE
	}
	return lldp.DialectIEEE
}
