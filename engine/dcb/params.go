// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"encoding/json/v2"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// A PrioSet is a set of priorities 0..7, bit n for priority n, as in the
// PFC Enable field (IEEE Std 802.1Q-2018, D.2.11). In JSON it is the
// ascending list of priorities, e.g. [3,4].
type PrioSet uint8

// Has reports whether priority p is in the set.
func (s PrioSet) Has(p uint8) bool { return p < 8 && s&(1<<p) != 0 }

// List returns the priorities in the set, ascending.
func (s PrioSet) List() []uint8 {
	out := make([]uint8, 0, 8)
	for p := range uint8(8) {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// MarshalJSON encodes the set as a list of priorities.
func (s PrioSet) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, p := range s.List() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '0'+p)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON decodes a list of priorities 0..7.
func (s *PrioSet) UnmarshalJSON(b []byte) error {
	var l []int
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("PFC priorities: want a list of numbers 0-7: %w", err)
	}
	*s = 0
	for _, p := range l {
		if p < 0 || p > 7 {
			return fmt.Errorf("PFC priority %d is not 0-7", p)
		}
		*s |= 1 << p
	}
	return nil
}

// ETS holds ETS Configuration parameters: the PARAMS "ets" object.
type ETS struct {
	Willing     bool        `json:"willing"`
	CBS         bool        `json:"cbs"`
	MaxTCs      uint8       `json:"max_tcs"`
	PrioTC      [8]uint8    `json:"prio_tc"`
	TCBandwidth [8]uint8    `json:"tc_bandwidth"`
	TSA         [8]lldp.TSA `json:"tsa"`
	// FromCEE marks parameters mapped from a CEE Priority Group TLV: CEE
	// has no CBS bit (JSON "cbs": null), PrioTC holds the PGIDs, and
	// PGID 15 means strict priority (JSON "strict_prio" lists those
	// priorities; null for IEEE ETS, where strict priority is a TSA).
	FromCEE bool `json:"-"`
}

// ceeStrictPGID is the CEE priority group of strict priority (CEE DCBX
// 1.01, Priority Group TLV: "PGID 15 ... no bandwidth limitation").
const ceeStrictPGID = 15

// StrictPrio returns the priorities a CEE peer puts in PGID 15 (strict
// priority); empty for IEEE ETS.
func (e *ETS) StrictPrio() PrioSet {
	var s PrioSet
	if e.FromCEE {
		for p, pg := range e.PrioTC {
			if pg == ceeStrictPGID {
				s |= 1 << p
			}
		}
	}
	return s
}

// MarshalJSON writes the "ets" object: "cbs" null and "strict_prio" a
// list for CEE, "cbs" a boolean and "strict_prio" null for IEEE.
func (e ETS) MarshalJSON() ([]byte, error) { return e.appendJSON(nil), nil }

// ETSReco holds ETS Recommendation parameters: the PARAMS "ets_reco"
// object. The recommendation TLV carries no Willing, CBS or Max TCs
// (IEEE Std 802.1Q-2018, D.2.10), so neither does this.
type ETSReco struct {
	PrioTC      [8]uint8    `json:"prio_tc"`
	TCBandwidth [8]uint8    `json:"tc_bandwidth"`
	TSA         [8]lldp.TSA `json:"tsa"`
}

// PFC holds PFC parameters: the PARAMS "pfc" object.
type PFC struct {
	Willing bool    `json:"willing"`
	MBC     bool    `json:"mbc"`
	Cap     uint8   `json:"cap"`
	Enabled PrioSet `json:"enabled"`
	// FromCEE marks parameters mapped from a CEE PFC TLV, which has no
	// MBC bit (JSON "mbc": null).
	FromCEE bool `json:"-"`
}

// MarshalJSON writes the "pfc" object, "mbc" null for CEE.
func (p PFC) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

// An App is one application priority entry (a classification element in
// NDIS terms): traffic matching Selector and Protocol gets Priority.
type App struct {
	Selector lldp.AppSelector `json:"selector"`
	Protocol uint16           `json:"protocol"`
	Priority uint8            `json:"priority"`
}

// CEEFeature holds the flags of one CEE feature sub-TLV.
type CEEFeature struct {
	Enable      bool  `json:"enable"`
	Willing     bool  `json:"willing"`
	Error       bool  `json:"error"`
	OperVersion uint8 `json:"oper_version"`
	MaxVersion  uint8 `json:"max_version"`
}

// CEE holds what a CEE DCBX peer sends beyond the mapped parameters: the
// Control sub-TLV's versions and sequence/acknowledgement numbers, each
// feature's flags, and the raw PGID table (15 = strict priority).
type CEE struct {
	OperVersion uint8       `json:"oper_version"`
	MaxVersion  uint8       `json:"max_version"`
	Seq         uint32      `json:"seq"`
	Ack         uint32      `json:"ack"`
	Control     bool        `json:"control"` // false when the Control sub-TLV is missing
	PG          *CEEFeature `json:"pg"`
	PFC         *CEEFeature `json:"pfc"`
	App         *CEEFeature `json:"app"`
	PGID        *[8]uint8   `json:"pgid"`
}

// Params is one set of DCB parameters (the PARAMS object of the snapshot
// contract): local, remote or operational. A nil feature was not
// advertised or is not known; App is nil when no APP TLV was received and
// empty when one with no entries was.
//
// A Params the engine holds is never changed once made (what changes is
// replaced by a new one; WithWilling and the edit form work on a Clone),
// so snapshots share the engine's and each other's: nothing may write to
// a Params it did not make.
type Params struct {
	ETS     *ETS     `json:"ets"`
	ETSReco *ETSReco `json:"ets_reco"`
	PFC     *PFC     `json:"pfc"`
	App     []App    `json:"app"`
	// CEE is set for parameters received from a CEE DCBX peer.
	CEE *CEE `json:"cee,omitempty"`
}

// Group is a bit set of NDIS QoS parameter groups.
type Group uint8

// Parameter groups as NDIS counts them: ETS (configuration and
// recommendation), PFC, and classification (the APP entries).
const (
	GroupETS Group = 1 << iota
	GroupPFC
	GroupApp
)

// Groups returns the groups present in p.
func (p *Params) Groups() Group {
	if p == nil {
		return 0
	}
	var g Group
	if p.ETS != nil || p.ETSReco != nil {
		g |= GroupETS
	}
	if p.PFC != nil {
		g |= GroupPFC
	}
	if p.App != nil {
		g |= GroupApp
	}
	return g
}

// Configured returns the groups p configures, as the NDIS_QOS_PARAMETERS
// *_CONFIGURED flags say them: ETS and PFC when present, the APP group
// only with at least one entry. An APP table without entries classifies
// nothing ("Guidelines for Setting the Flags Member":
// CLASSIFICATION_CONFIGURED says the adapter was configured with
// NumClassificationElements elements). One rule for every status: local,
// remote and operational.
func (p *Params) Configured() Group {
	g := p.Groups()
	if p != nil && len(p.App) == 0 {
		g &^= GroupApp
	}
	return g
}

// Diff returns the groups whose values differ between p and q. A group
// present in one and absent in the other differs.
func (p *Params) Diff(q *Params) Group {
	var a, b Params
	if p != nil {
		a = *p
	}
	if q != nil {
		b = *q
	}
	var ca, cb CEE
	if a.CEE != nil {
		ca = *a.CEE
	}
	if b.CEE != nil {
		cb = *b.CEE
	}
	var g Group
	if !eqPtr(a.ETS, b.ETS) || !eqPtr(a.ETSReco, b.ETSReco) || !eqPtr(ca.PG, cb.PG) {
		g |= GroupETS
	}
	if !eqPtr(a.PFC, b.PFC) || !eqPtr(ca.PFC, cb.PFC) {
		g |= GroupPFC
	}
	if (a.App == nil) != (b.App == nil) || !slices.Equal(a.App, b.App) || !eqPtr(ca.App, cb.App) {
		g |= GroupApp
	}
	return g
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Clone returns a deep copy of p.
func (p *Params) Clone() *Params {
	if p == nil {
		return nil
	}
	q := &Params{ETS: clonePtr(p.ETS), ETSReco: clonePtr(p.ETSReco), PFC: clonePtr(p.PFC)}
	if p.App != nil {
		q.App = slices.Clone(p.App)
		if q.App == nil {
			q.App = []App{}
		}
	}
	if p.CEE != nil {
		c := *p.CEE
		c.PG, c.PFC, c.App, c.PGID = clonePtr(c.PG), clonePtr(c.PFC), clonePtr(c.App), clonePtr(c.PGID)
		q.CEE = &c
	}
	return q
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// ParamsFromDU maps the DCBX TLVs of an LLDPDU to Params: the IEEE 802.1Qaz
// TLVs when present (IEEE takes precedence, as in lldpad), otherwise the CEE
// TLV's features. It returns nil when du carries no DCBX TLV.
func ParamsFromDU(du *lldp.DU) *Params {
	switch du.Dialect() {
	case lldp.DialectIEEE:
		return paramsFromIEEE(du)
	case lldp.DialectCEE:
		if c := du.CEE(); c != nil {
			return paramsFromCEE(c)
		}
		return &Params{}
	case lldp.DialectCIN:
		return &Params{} // DCBX present, nothing decoded
	}
	return nil
}

func paramsFromIEEE(du *lldp.DU) *Params {
	p := &Params{}
	if e := du.ETS(); e != nil {
		p.ETS = &ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: e.MaxTCs, PrioTC: e.PrioTC, TCBandwidth: e.Bandwidth, TSA: e.TSA}
	}
	if e := du.ETSReco(); e != nil {
		p.ETSReco = &ETSReco{PrioTC: e.PrioTC, TCBandwidth: e.Bandwidth, TSA: e.TSA}
	}
	if f := du.PFC(); f != nil {
		p.PFC = &PFC{Willing: f.Willing, MBC: f.MBC, Cap: f.Cap, Enabled: PrioSet(f.Enabled)}
	}
	if a := du.App(); a != nil {
		p.App = make([]App, 0, len(a.Entries))
		for _, e := range a.Entries {
			p.App = append(p.App, App{Selector: e.Selector, Protocol: e.Protocol, Priority: e.Priority})
		}
	}
	return p
}

func ceeFeature(f lldp.CEEFeature) *CEEFeature {
	return &CEEFeature{Enable: f.Enable, Willing: f.Willing, Error: f.Error, OperVersion: f.OperVersion, MaxVersion: f.MaxVersion}
}

// paramsFromCEE maps CEE features to Params: PG to "ets" (PGID per
// priority as the TC, PG bandwidths as TC bandwidths, TSA ets; PGID 15,
// strict priority, is kept as 15, listed in strict_prio and in cee.pgid), PFC to "pfc" with
// NumTCs as the capability, and each APP entry to one entry per priority in
// its bitmap (CEE selector 0 is an EtherType, 1 a TCP/UDP port).
func paramsFromCEE(c *lldp.CEE) *Params {
	p := &Params{CEE: &CEE{}}
	if ctl := c.Control; ctl != nil {
		p.CEE.Control = true
		p.CEE.OperVersion, p.CEE.MaxVersion, p.CEE.Seq, p.CEE.Ack = ctl.OperVersion, ctl.MaxVersion, ctl.SeqNo, ctl.AckNo
	}
	if pg := c.PG; pg != nil {
		p.CEE.PG = ceeFeature(pg.CEEFeature)
		pgid := pg.PGID
		p.CEE.PGID = &pgid
		e := &ETS{Willing: pg.Willing, MaxTCs: pg.NumTCs, PrioTC: pg.PGID, TCBandwidth: pg.Bandwidth, FromCEE: true}
		for i := range e.TSA {
			e.TSA[i] = lldp.TSAETS
		}
		p.ETS = e
	}
	if f := c.PFC; f != nil {
		p.CEE.PFC = ceeFeature(f.CEEFeature)
		p.PFC = &PFC{Willing: f.Willing, Cap: f.NumTCs, Enabled: PrioSet(f.Enabled), FromCEE: true}
	}
	if a := c.App; a != nil {
		p.CEE.App = ceeFeature(a.CEEFeature)
		p.App = []App{}
		for _, e := range a.Entries {
			sel := lldp.AppSelEthertype
			if e.Selector == 1 {
				sel = lldp.AppSelPort
			}
			for prio := range uint8(8) {
				if e.PriorityMap&(1<<prio) != 0 {
					p.App = append(p.App, App{Selector: sel, Protocol: e.Protocol, Priority: prio})
				}
			}
		}
	}
	return p
}

// WithWilling returns a copy of p whose ETS and PFC Willing bits are
// willing: what an agent with that local Willing state advertises
// ("Managing the Local DCBX Willing State"). A nil p gives nil.
func (p *Params) WithWilling(willing bool) *Params {
	p = p.Clone()
	if p == nil {
		return nil
	}
	if p.ETS != nil {
		p.ETS.Willing = willing
	}
	if p.PFC != nil {
		p.PFC.Willing = willing
	}
	return p
}

// Willing reports whether p's ETS or PFC carries the Willing bit: the
// local DCBX Willing state of an agent that advertises p.
func (p *Params) Willing() bool {
	return p != nil && ((p.ETS != nil && p.ETS.Willing) || (p.PFC != nil && p.PFC.Willing))
}

// Merge returns a copy of p in which every feature change gives (ets,
// ets_reco, pfc, app) replaces p's; the others stay. It is how a partial
// PARAMS file is applied. A nil p starts from nothing.
func (p *Params) Merge(change *Params) *Params {
	out := p.Clone()
	if out == nil {
		out = &Params{}
	}
	if change == nil {
		return out
	}
	c := change.Clone()
	if c.ETS != nil {
		out.ETS = c.ETS
	}
	if c.ETSReco != nil {
		out.ETSReco = c.ETSReco
	}
	if c.PFC != nil {
		out.PFC = c.PFC
	}
	if c.App != nil {
		out.App = c.App
	}
	return out
}

// String renders p on one line, e.g. "willing, ETS 50/0/0/50/0/0/0/0
// (prio→TC 00030000), PFC 3,4, APP udp-port 4791→3".
func (p *Params) String() string {
	if p == nil {
		return "nothing"
	}
	var parts []string
	if p.Willing() {
		parts = append(parts, "willing")
	} else {
		parts = append(parts, "not willing")
	}
	if e := p.ETS; e != nil {
		parts = append(parts, fmt.Sprintf("ETS %s (prio→TC %s)", JoinNums(e.TCBandwidth[:], "/"), JoinNums(e.PrioTC[:], "")))
	}
	if r := p.ETSReco; r != nil {
		parts = append(parts, fmt.Sprintf("reco %s (prio→TC %s)", JoinNums(r.TCBandwidth[:], "/"), JoinNums(r.PrioTC[:], "")))
	}
	if f := p.PFC; f != nil {
		l := JoinNums(f.Enabled.List(), ",")
		if l == "" {
			l = "off"
		}
		parts = append(parts, "PFC "+l)
	}
	if p.App != nil {
		apps := make([]string, 0, len(p.App))
		for _, a := range p.App {
			apps = append(apps, fmt.Sprintf("%s %d→%d", a.Selector, a.Protocol, a.Priority))
		}
		slices.Sort(apps)
		if len(apps) == 0 {
			apps = append(apps, "none")
		}
		parts = append(parts, "APP "+strings.Join(apps, " "))
	}
	return strings.Join(parts, ", ")
}

// JoinNums joins the numbers of v with sep: "0,3", "50/50".
func JoinNums(v []uint8, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, sep)
}
