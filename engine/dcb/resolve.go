// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"fmt"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Source says where an operational feature's value came from.
type Source string

// Sources of operational values.
const (
	FromLocal      Source = "local"
	FromRemote     Source = "remote"
	FromRemoteReco Source = "remote-reco"
	FromMerged     Source = "local+remote"
	FromNone       Source = "none"
)

// A Choice records, for one feature, where the operational value came from
// and why, in words an operator can read on screen.
type Choice struct {
	Source Source `json:"source"`
	Why    string `json:"why"`
}

// A Resolution explains the operational parameters feature by feature.
type Resolution struct {
	ETS Choice `json:"ets"`
	PFC Choice `json:"pfc"`
	App Choice `json:"app"`
}

// A ResolveInput is what the resolver decides from.
type ResolveInput struct {
	Local     *Params // nil when unknown
	Willing   bool    // the local Willing state
	LocalMAC  *lldp.MAC
	Remote    *Params // nil when invalid
	RemoteMAC lldp.MAC
	Dialect   lldp.Dialect // the remote parameters' DCBX version
	// Unanswered, when set, says why this host's agent does not speak
	// the peer's dialect ("this host's agent sends IEEE 802.1Qaz only"):
	// nothing is negotiated, so nothing of the peer's is adopted.
	Unanswered string
	// CEEWaiting, for a CEE peer of dcbtop's agent, says per feature why
	// the peer's configuration cannot be adopted yet: the peer has not
	// acknowledged the sequence number the agent announced the feature
	// with ("" when it has, or when the local agent is not dcbtop's).
	CEEWaiting CEEWaiting
}

// CEEWaiting says, per CEE feature, why a CEE peer's configuration waits:
// "" for a feature the peer acknowledged (CEE DCBX 1.01, Control sub-TLV:
// a feature's configuration is used once the peer's AckNo reaches the
// sequence number it was announced with; lldpad run_feature_protocol,
// "Wait for Peer to synch").
type CEEWaiting struct {
	PG, PFC, App string
}

// Resolve computes the operational parameters. IEEE (docs/dcbx.md "The
// Willing resolver"; IEEE Std 802.1Q-2018 38.3, lldpad's ets_sm and pfc_sm; "Managing the Local DCBX Willing
// State"):
//   - Willing off, or no valid remote parameters: operational = local.
//   - ETS, willing: the peer's ETS Recommendation when present, else local
//     (a willing host never adopts the peer's ETS Configuration, 802.1Qaz
//     treats ETS as asymmetric).
//   - PFC, willing: the peer's PFC when the peer is not willing; when both
//     are willing the station with the lower MAC adopts the peer's and the
//     higher keeps its own (lldpad's tie-break).
//   - APP, willing: local entries plus the peer's (lldpad merges them).
//
// CEE peers follow resolveCEE. With no local parameters known, nothing can
// be resolved and the result is nil.
func Resolve(in ResolveInput) (*Params, Resolution) {
	var r Resolution
	if in.Local == nil {
		why := "local parameters unknown (no dcbnl, no observed local agent, no dcbtop agent)"
		r = Resolution{ETS: Choice{FromNone, why}, PFC: Choice{FromNone, why}, App: Choice{FromNone, why}}
		return nil, r
	}
	op := in.Local.Clone()
	op.CEE = nil
	switch {
	case in.Remote == nil:
		why := "local: no valid remote parameters"
		return op, Resolution{ETS: Choice{FromLocal, why}, PFC: Choice{FromLocal, why}, App: Choice{FromLocal, why}}
	case !in.Willing:
		why := "local: local Willing is off"
		return op, Resolution{ETS: Choice{FromLocal, why}, PFC: Choice{FromLocal, why}, App: Choice{FromLocal, why}}
	case in.Unanswered != "":
		why := "local: the peer's " + in.Dialect.Words() + " is not answered (" + in.Unanswered + ")"
		return op, Resolution{ETS: Choice{FromLocal, why}, PFC: Choice{FromLocal, why}, App: Choice{FromLocal, why}}
	case in.Dialect == lldp.DialectCEE:
		return resolveCEE(in, op)
	case in.Dialect == lldp.DialectCIN:
		why := "local: the peer speaks only CIN DCBX (1.00), which is not decoded and which an IEEE or CEE agent does not negotiate with"
		return op, Resolution{ETS: Choice{FromLocal, why}, PFC: Choice{FromLocal, why}, App: Choice{FromLocal, why}}
	}
	// ETS.
	switch {
	case in.Remote.ETSReco != nil:
		e := ETS{Willing: true, MaxTCs: 8}
		if in.Local.ETS != nil {
			e = *in.Local.ETS
		}
		e.PrioTC, e.TCBandwidth, e.TSA = in.Remote.ETSReco.PrioTC, in.Remote.ETSReco.TCBandwidth, in.Remote.ETSReco.TSA
		op.ETS = &e
		r.ETS = Choice{FromRemoteReco, "remote recommendation (local willing)"}
	case in.Remote.ETS != nil:
		r.ETS = Choice{FromLocal, "local: peer sends no ETS recommendation"}
	default:
		r.ETS = Choice{FromLocal, "local: peer sends no ETS"}
	}
	// PFC.
	rp := in.Remote.PFC
	switch {
	case rp == nil:
		r.PFC = Choice{FromLocal, "local: peer sends no PFC"}
	case !rp.Willing:
		op.PFC = adoptPFC(in.Local.PFC, rp)
		r.PFC = Choice{FromRemote, "remote (local willing, peer not willing)"}
	case in.LocalMAC == nil:
		r.PFC = Choice{FromLocal, "local: both willing and the local MAC is unknown, so the tie-break cannot be decided"}
	case macLess(*in.LocalMAC, in.RemoteMAC):
		op.PFC = adoptPFC(in.Local.PFC, rp)
		r.PFC = Choice{FromRemote, fmt.Sprintf("remote: both willing, local MAC %s is lower so it adopts the peer's", *in.LocalMAC)}
	default:
		r.PFC = Choice{FromLocal, fmt.Sprintf("local: both willing, local MAC %s is higher so the peer adopts ours", *in.LocalMAC)}
	}
	// APP.
	if in.Remote.App == nil {
		r.App = Choice{FromLocal, "local: peer sends no APP"}
	} else {
		op.App = mergeApp(in.Local.App, in.Remote.App)
		r.App = Choice{FromMerged, "local entries plus the peer's (local willing)"}
	}
	return op, r
}

// adoptPFC takes the peer's PFC enable bitmap and MBC, keeping the local
// Willing bit and capability (lldpad bld_ieee8021qaz_pfc_tlv).
func adoptPFC(local, remote *PFC) *PFC {
	p := PFC{Willing: true, Cap: 8}
	if local != nil {
		p = *local
	}
	p.Enabled, p.MBC = remote.Enabled, remote.MBC
	return &p
}

// mergeApp returns the local entries followed by the peer's entries whose
// selector and protocol no local entry already classifies.
func mergeApp(local, remote []App) []App {
	out := append([]App{}, local...)
next:
	for _, r := range remote {
		for _, l := range local {
			if l.Selector == r.Selector && l.Protocol == r.Protocol {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// macLess compares MACs byte by byte as unsigned numbers (lldpad
// cmp_mac_addrs).
func macLess(a, b lldp.MAC) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// resolveCEE applies the CEE feature resolution (docs/dcbx.md "The
// Willing resolver"; CEE DCBX v1.01 feature state machine, lldpad's F-steps) with the local side willing: a feature the peer does
// not send or has disabled stays local; a peer that is not willing and
// reports no error gives its configuration, once the peer acknowledged
// the feature (in.CEEWaiting); a peer that is also willing is
// only compared (no MAC tie-break in CEE): local stays operational.
func resolveCEE(in ResolveInput, op *Params) (*Params, Resolution) {
	var r Resolution
	c := in.Remote.CEE
	if c == nil {
		c = &CEE{}
	}
	feat := func(f *CEEFeature, present bool, name, wait string, adopt func()) Choice {
		switch {
		case f == nil || !present:
			return Choice{FromLocal, "local: CEE peer sends no " + name}
		case !f.Enable:
			return Choice{FromLocal, "local: CEE peer has " + name + " disabled"}
		case f.Error:
			return Choice{FromLocal, "local: CEE peer reports an error on " + name}
		case f.Willing:
			return Choice{FromLocal, "local: both sides willing (CEE has no tie-break; values are compared only)"}
		case wait != "":
			return Choice{FromLocal, "local: the CEE peer's " + name + " is adopted once it acknowledges dcbtop's agent: " + wait}
		}
		adopt()
		return Choice{FromRemote, "remote (local willing, CEE peer not willing)"}
	}
	w := in.CEEWaiting
	r.ETS = feat(c.PG, in.Remote.ETS != nil, "priority groups", w.PG, func() {
		e := *in.Remote.ETS
		if in.Local.ETS != nil {
			e.Willing, e.CBS = in.Local.ETS.Willing, in.Local.ETS.CBS
		}
		op.ETS = &e
	})
	r.PFC = feat(c.PFC, in.Remote.PFC != nil, "PFC", w.PFC, func() {
		op.PFC = adoptPFC(in.Local.PFC, in.Remote.PFC)
		op.PFC.FromCEE = true // a CEE peer's: no MBC; programmed through the CEE ops where the NIC runs CEE
	})
	r.App = feat(c.App, in.Remote.App != nil, "application", w.App, func() { op.App = mergeApp(in.Local.App, in.Remote.App) })
	if r.App.Source == FromRemote {
		r.App = Choice{FromMerged, "local entries plus the CEE peer's (local willing, peer not willing)"}
	}
	return op, r
}
