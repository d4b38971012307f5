// SPDX-License-Identifier: Apache-2.0

package host

import (
	"slices"
	"time"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/cee"
	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// ceeSide is dcbtop's agent's side of DCBX dialects on one port: which
// one it speaks and, for CEE, its control state machine (engine/cee) and
// what it last announced of each feature.
type ceeSide struct {
	dialect lldp.Dialect // lldp.DialectIEEE until the peer speaks only CEE
	why     string       // why it speaks dialect, in words
	ctl     *cee.Control
	// pg, pfc and app are the features last announced (nil: not sent),
	// to tell a local change of each (cee.Control.LocalChange).
	pg  *lldp.CEEPG
	pfc *lldp.CEEPFC
	app *lldp.CEEApp
	// errs are the Error bits sent, per cee.Feature.
	errs [3]bool

	peerKnown bool     // a peer was in force at the last look
	peerSrc   lldp.MAC // its source MAC
	lastCtl   lldp.CEEControl
	lastSet   bool // lastCtl holds the last Control passed to Received
	// dirty says the state changed since it was last reported to the
	// engine; reported is what was.
	dirty    bool
	reported *engine.AgentDCBXState
}

// Why dcbtop's agent speaks the dialect it does.
const (
	whyIEEEDefault = "IEEE 802.1Qaz, the default (lldpad's order: IEEE first)"
	whyIEEEPeer    = "IEEE 802.1Qaz: the peer sends IEEE 802.1Qaz TLVs"
	whyCEEPeer     = "CEE DCBX: the peer speaks only CEE, so the agent falls back to it as lldpad does (IEEE again once the peer sends IEEE 802.1Qaz TLVs)"
	whyCEEKept     = "CEE DCBX: the last peer spoke only CEE (IEEE again once a peer sends IEEE 802.1Qaz TLVs)"
)

// newCEESide starts a port's dialect state for an agent that advertises
// local with the Willing state willing: IEEE, and every advertised
// feature a local change, so that the first CEE LLDPDU carries SeqNo 1
// (docs/dcbx.md, "The CEE control handshake", rule 1).
func newCEESide(local *dcb.Params, willing bool) *ceeSide {
	s := &ceeSide{dialect: lldp.DialectIEEE, why: whyIEEEDefault, ctl: cee.New(), dirty: true}
	s.localChanged(local, willing)
	return s
}

// localChanged compares what the agent would announce for local and
// willing with what it announced, and hands the features that changed to
// the control state machine. It reports whether any did.
func (s *ceeSide) localChanged(local *dcb.Params, willing bool) bool {
	if local == nil {
		local = agent.DefaultLocal()
	}
	pg, pfc, app := agent.CEEFeatures(local, willing, lldp.CEEControl{}, agent.CEEState{})
	var fs []cee.Feature
	if !samePtr(s.pg, pg) {
		fs = append(fs, cee.FeaturePG)
	}
	if !samePtr(s.pfc, pfc) {
		fs = append(fs, cee.FeaturePFC)
	}
	if (s.app == nil) != (app == nil) || app != nil && (s.app.CEEFeature != app.CEEFeature || !slices.Equal(s.app.Entries, app.Entries)) {
		fs = append(fs, cee.FeatureApp)
	}
	if len(fs) == 0 {
		return false
	}
	s.pg, s.pfc, s.app = pg, pfc, app
	s.ctl.LocalChange(fs...)
	s.dirty = true
	return true
}

// samePtr reports whether a and b are both nil or point to equal values.
func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// peer takes what the peer in force sends (ok false: none): the dialect
// is chosen again (cee.ChooseDialect), a new or lost peer restarts the
// handshake (cee.Control.Expired), and a CEE peer's Control sub-TLV is
// acknowledged (cee.Control.Received). It reports whether what the
// agent sends changed.
func (s *ceeSide) peer(pd engine.PeerDCBX, ok bool, local *dcb.Params, willing bool) bool {
	if !ok {
		if !s.peerKnown {
			return false
		}
		s.peerKnown, s.lastSet, s.dirty = false, false, true
		s.ctl.Expired()
		if s.dialect == lldp.DialectCEE {
			s.why = whyCEEKept
		}
		s.setErrors(local, willing, nil)
		return true // the Control sub-TLV starts over
	}
	resend := false
	if s.peerKnown && pd.Source != s.peerSrc {
		s.ctl.Expired() // another peer (MSAP) took the place of the one that acknowledged
		s.lastSet, s.dirty, resend = false, true, true
	}
	s.peerKnown, s.peerSrc = true, pd.Source
	d := cee.ChooseDialect(s.dialect, pd.Dialect == lldp.DialectIEEE, pd.Dialect == lldp.DialectCEE)
	why := s.why
	switch pd.Dialect {
	case lldp.DialectIEEE:
		why = whyIEEEPeer
	case lldp.DialectCEE:
		why = whyCEEPeer
	}
	if d != s.dialect || why != s.why {
		resend = resend || d != s.dialect
		s.dialect, s.why, s.dirty = d, why, true
	}
	if s.dialect != lldp.DialectCEE || pd.Dialect != lldp.DialectCEE {
		return resend
	}
	switch {
	case pd.Control == nil:
		s.lastSet = false
		s.ctl.Received(nil)
	case !s.lastSet || *pd.Control != s.lastCtl:
		s.lastCtl, s.lastSet, s.dirty = *pd.Control, true, true
		before := s.ctl.Sent()
		s.ctl.Received(pd.Control)
		resend = resend || s.ctl.Sent() != before
	}
	return s.setErrors(local, willing, pd.Remote) || resend
}

// setErrors sets the Error bit of each feature as lldpad's CEE feature
// machine does (docs/dcbx.md, "The CEE control handshake"; lldpad
// dcb_protocol.c, FEAT_ERR_NO_TLV and FEAT_ERR_MISMATCH): the CEE peer
// does not send the feature, or both sides are willing or both not and
// their configurations differ (PFC: the enabled priorities; Application:
// the entries; priority groups are asymmetric and never mismatch). Before
// any peer, nothing is in error. It reports whether a bit changed.
func (s *ceeSide) setErrors(local *dcb.Params, willing bool, remote *dcb.Params) bool {
	var errs [3]bool
	if remote != nil && remote.CEE != nil {
		c := remote.CEE
		errs[cee.FeaturePG] = c.PG == nil
		errs[cee.FeaturePFC] = c.PFC == nil ||
			c.PFC.Willing == willing && local != nil && local.PFC != nil && remote.PFC != nil && local.PFC.Enabled != remote.PFC.Enabled
		errs[cee.FeatureApp] = c.App == nil ||
			c.App.Willing == willing && local != nil && local.App != nil && !sameAppSet(local.App, remote.App)
	}
	if errs == s.errs {
		return false
	}
	s.errs, s.dirty = errs, true
	return true
}

// sameAppSet reports whether a and b hold the same entries in any order,
// DSCP entries of a (which CEE cannot carry) aside.
func sameAppSet(a, b []dcb.App) bool {
	n := 0
	for _, x := range a {
		if x.Selector == lldp.AppSelDSCP {
			continue
		}
		n++
		if !slices.ContainsFunc(b, func(y dcb.App) bool { return sameCEEApp(x, y) }) {
			return false
		}
	}
	return n == len(b)
}

// sameCEEApp compares two entries as CEE carries them: one port selector.
func sameCEEApp(x, y dcb.App) bool {
	port := func(s lldp.AppSelector) bool {
		return s == lldp.AppSelTCP || s == lldp.AppSelUDP || s == lldp.AppSelPort
	}
	return x.Protocol == y.Protocol && x.Priority == y.Priority && (x.Selector == y.Selector || port(x.Selector) && port(y.Selector))
}

// state is what the engine is told (engine.AgentDCBX).
func (s *ceeSide) state() engine.AgentDCBXState {
	st := engine.AgentDCBXState{Dialect: s.dialect, Why: s.why}
	if s.dialect == lldp.DialectCEE {
		sent := s.ctl.Sent()
		st.Control = &engine.AgentCEEControl{Seq: sent.SeqNo, Ack: sent.AckNo, PeerAck: s.ctl.PeerAck(),
			PGWait: s.ctl.Waiting(cee.FeaturePG), PFCWait: s.ctl.Waiting(cee.FeaturePFC), AppWait: s.ctl.Waiting(cee.FeatureApp)}
	}
	return st
}

// advert is what the agent on p sends for the local Willing state,
// local and operational parameters: IEEE 802.1Qaz, or CEE with the
// control sub-TLV and Error bits of p's handshake.
func (p *port) advert(willing bool, local, op *dcb.Params) agent.Advert {
	ad := agent.Advert{Willing: willing, Local: local, Operational: op}
	if s := p.cee; s != nil && s.dialect == lldp.DialectCEE {
		ad.Dialect, ad.CEE = lldp.DialectCEE, agent.CEEState{Control: s.ctl.Sent(), Error: s.errs}
	}
	return ad
}

// dcbx runs the dialect choice and the CEE handshake of the agent on p
// after an event, at at: what the peer in force sends now is taken, a
// change of what the agent sends is advertised, and a change of where
// the handshake stands goes to the engine (engine.AgentDCBX), which
// adopts a CEE peer's configuration only once acknowledged.
func (h *Host) dcbx(p *port, at time.Time) {
	s := p.cee
	if s == nil {
		return
	}
	pd, ok := h.eng.PeerDCBX(p.name)
	if s.peer(pd, ok, p.local, p.willing) {
		h.readvertise(p)
	}
	if !s.dirty {
		return
	}
	s.dirty = false
	st := s.state()
	if s.reported != nil && sameState(*s.reported, st) {
		return
	}
	s.reported = &st
	h.step(engine.AgentDCBX{Interface: p.name, At: at, State: st})
}

// sameState compares two reports.
func sameState(a, b engine.AgentDCBXState) bool {
	if a.Dialect != b.Dialect || a.Why != b.Why || (a.Control == nil) != (b.Control == nil) {
		return false
	}
	return a.Control == nil || *a.Control == *b.Control
}
