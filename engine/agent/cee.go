// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"cmp"
	"slices"

	"github.com/dcbtop/dcbtop/engine/cee"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// CEEState is what a CEE LLDPDU carries besides the local parameters: the
// Control sub-TLV the port's control state machine gives (cee.Control.Sent)
// and the Error bit of each feature sub-TLV, indexed by cee.Feature
// (lldpad sets a feature's Error when the peer's sub-TLV is missing or the
// two sides' configurations do not match: docs/dcbx.md, "The CEE control
// handshake").
type CEEState struct {
	Control lldp.CEEControl
	Error   [3]bool
}

// CEEFeatures maps local parameters to the CEE DCBX 1.01 feature
// sub-TLVs a host sends, with the local Willing bit and the Oper_Version
// and Max_Version of ctl. A CEE feature sub-TLV carries the sender's own
// configuration, not the operational one: lldpad builds them from the
// port's configured attributes (tlv_dcbx.c bld_dcbx2_pg_tlv and
// bld_dcbx2_pfc_tlv read get_pg and get_pfc, not get_oper_*), so that a
// willing host adopting its peer's values does not change what it
// announces and need not take a new sequence number for it.
//
//   - PG: a priority's PGID is its traffic class; a priority whose class
//     has the strict-priority TSA gets PGID 15 (strict, no bandwidth
//     limit) and the class's bandwidth is not counted; the others' PG
//     bandwidth is their class's. NumTCs is the ETS Max TCs (8 when 0).
//     Local parameters read from a CEE PG already hold PGIDs and are sent
//     as they are.
//   - PFC: the enabled priorities and the capability as NumTCs (8 when 0).
//   - Application: one entry per selector and protocol, with the bitmap
//     of its priorities; IEEE selector 1 (EtherType) is CEE selector 0,
//     the port selectors 2, 3 and 4 are CEE selector 1 (TCP/UDP port).
//     DSCP entries (selector 5) have no CEE form and are left out.
//
// A feature the local parameters lack is not sent (nil).
func CEEFeatures(local *dcb.Params, willing bool, ctl lldp.CEEControl, st CEEState) (*lldp.CEEPG, *lldp.CEEPFC, *lldp.CEEApp) {
	hdr := func(f cee.Feature) lldp.CEEFeature {
		return lldp.CEEFeature{OperVersion: ctl.OperVersion, MaxVersion: ctl.MaxVersion, Enable: true, Willing: willing, Error: st.Error[f]}
	}
	var pg *lldp.CEEPG
	if e := local.ETS; e != nil {
		pg = &lldp.CEEPG{CEEFeature: hdr(cee.FeaturePG), NumTCs: maxTCs(e.MaxTCs)}
		for prio, tc := range e.PrioTC {
			switch {
			case e.FromCEE:
				pg.PGID[prio] = min(tc, 15)
			case tc < 8 && e.TSA[tc] == lldp.TSAStrict:
				pg.PGID[prio] = 15
			default:
				pg.PGID[prio] = tc & 7
			}
		}
		for tc := range pg.Bandwidth {
			if e.FromCEE || e.TSA[tc] != lldp.TSAStrict {
				pg.Bandwidth[tc] = e.TCBandwidth[tc]
			}
		}
	}
	var pfc *lldp.CEEPFC
	if p := local.PFC; p != nil {
		pfc = &lldp.CEEPFC{CEEFeature: hdr(cee.FeaturePFC), Enabled: uint8(p.Enabled), NumTCs: cmp.Or(p.Cap, 8)}
	}
	var app *lldp.CEEApp
	if local.App != nil {
		app = &lldp.CEEApp{CEEFeature: hdr(cee.FeatureApp), Entries: []lldp.CEEAppEntry{}}
		for _, e := range local.App {
			var sel uint8
			switch e.Selector {
			case lldp.AppSelEthertype:
				sel = 0
			case lldp.AppSelTCP, lldp.AppSelUDP, lldp.AppSelPort:
				sel = 1
			default:
				continue // DSCP: no CEE form
			}
			i := slices.IndexFunc(app.Entries, func(x lldp.CEEAppEntry) bool { return x.Selector == sel && x.Protocol == e.Protocol })
			if i < 0 {
				app.Entries = append(app.Entries, lldp.CEEAppEntry{Protocol: e.Protocol, Selector: sel})
				i = len(app.Entries) - 1
			}
			app.Entries[i].PriorityMap |= 1 << (e.Priority & 7)
		}
	}
	return pg, pfc, app
}

// ceeTLV is the CEE DCBX TLV of an advertisement: the Control sub-TLV,
// then the local parameters' features (CEEFeatures).
func ceeTLV(local *dcb.Params, ad Advert) *lldp.CEE {
	ctl := ad.CEE.Control
	c := &lldp.CEE{Control: &ctl}
	c.PG, c.PFC, c.App = CEEFeatures(local, ad.Willing, ctl, ad.CEE)
	return c
}
