// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The words of the changes that stand alone.
const (
	// ChangeFirst: the sender's first LLDPDU the Tracker saw (or the first
	// since it forgot the sender for a newer one).
	ChangeFirst = "first from this sender"
	// ChangeIdentical: byte for byte the sender's previous LLDPDU (the
	// receiver only restarts its TTL, IEEE Std 802.1AB-2016,
	// 9.2.7.7.2).
	ChangeIdentical = "identical"
	// ChangeBytesOnly: other bytes, but nothing the decoding shows
	// differs (padding, the order of TLVs).
	ChangeBytesOnly = "other bytes, same decode"
	// ChangeValidAgain: a valid LLDPDU after a malformed one, which
	// there is nothing to compare with.
	ChangeValidAgain = "valid again after a malformed LLDPDU"
)

// Changes says in words what differs from the LLDPDU prev to cur (the
// payloads after EtherType 0x88cc) of one sender: ChangeFirst when prev
// is nil, ChangeIdentical when they are equal, "malformed: ERROR" when
// the codec rejects cur, else each change: the TTL ("TTL 120 → 0
// (shutdown)"), the Chassis and Port IDs, the DCBX dialect, the DCBX
// parameters as dcb.Params.Changes lists them ("PFC enabled 3 → 3,4",
// "ETS TC1 bandwidth 50% → 40%", "+ APP udp 4791 → priority 3"), the CEE
// control numbers, every other TLV added, removed or changed ("System
// Name leaf1 → leaf2") and the codec's findings. Strings from the wire
// are as sent.
func Changes(prev, cur []byte) []string {
	du, err := lldp.Parse(cur)
	if prev == nil {
		return firstChanges(du, err)
	}
	if slices.Equal(prev, cur) {
		if err != nil {
			return identicalMalformed
		}
		return identical
	}
	_, perr := lldp.Parse(prev)
	return changes(prev, perr != nil, cur, du, err)
}

// firstChanges is a sender's first LLDPDU's list.
func firstChanges(du *lldp.DU, err error) []string {
	switch {
	case err != nil:
		return []string{ChangeFirst, "malformed: " + err.Error()}
	case du.Shutdown():
		return []string{ChangeFirst, "TTL 0 (shutdown)"}
	}
	return []string{ChangeFirst}
}

// changes is the list of a sender's LLDPDU cur, decoded du (err: the
// codec's error), after its different previous one, prev (prevBad:
// malformed).
func changes(prev []byte, prevBad bool, cur []byte, du *lldp.DU, err error) []string {
	switch {
	case err != nil:
		return []string{"malformed: " + err.Error()}
	case prevBad:
		out := []string{ChangeValidAgain}
		if du.Shutdown() {
			out = append(out, "TTL 0 (shutdown)")
		}
		return out
	}
	old, perr := lldp.Parse(prev)
	if perr != nil { // not what the Tracker recorded: cannot be
		return []string{ChangeValidAgain}
	}
	out := duChanges(old, du, prev, cur)
	if len(out) == 0 {
		out = append(out, ChangeBytesOnly)
	}
	return out
}

// duChanges lists what differs from a to b, decoded from prev and cur.
func duChanges(a, b *lldp.DU, prev, cur []byte) []string {
	var out []string
	if a.TTL != b.TTL {
		s := fmt.Sprintf("TTL %d → %d", a.TTL, b.TTL)
		if b.Shutdown() {
			s += " (shutdown)"
		}
		out = append(out, s)
	}
	if x, y := a.ChassisID.String(), b.ChassisID.String(); x != y {
		out = append(out, "Chassis ID "+x+" → "+y)
	}
	if x, y := a.PortID.String(), b.PortID.String(); x != y {
		out = append(out, "Port ID "+x+" → "+y)
	}
	if b.Shutdown() {
		// A shutdown LLDPDU withdraws the MSAP's information at once
		// (IEEE Std 802.1AB-2016, 9.2.7.7.1): what it leaves out is
		// withdrawn with the rest, not changed.
		return out
	}
	if x, y := a.Dialect(), b.Dialect(); x != y {
		out = append(out, "DCBX "+x.Words()+" → "+y.Words())
	}
	out = append(out, paramChanges(dcb.ParamsFromDU(a), dcb.ParamsFromDU(b))...)
	out = append(out, ceeControlChanges(a.CEE(), b.CEE())...)
	out = append(out, tlvChanges(prev, cur)...)
	return append(out, findingChanges(a.Findings, b.Findings)...)
}

// featureNames name a dcb.Change's feature, as the screen does.
var featureNames = map[string]string{
	"ets": "ETS", "ets_reco": "ETS reco", "pfc": "PFC", "app": "APP",
	"cee_pg": "CEE PG", "cee_pfc": "CEE PFC", "cee_app": "CEE APP",
}

// paramChanges words the DCBX parameter changes from p to q
// (dcb.Params.Changes): the priorities PFC is enabled on in one change
// ("PFC enabled 3 → 3,4").
func paramChanges(p, q *dcb.Params) []string {
	var out []string
	pfcDone := false
	for _, c := range p.Changes(q) {
		name := featureNames[c.Feature]
		added, removed := c.Kind == dcb.ChangeAdded, c.Kind == dcb.ChangeRemoved
		switch {
		case c.Feature == "pfc" && strings.HasPrefix(c.Field, "priority "):
			if !pfcDone {
				pfcDone = true
				out = append(out, "PFC enabled "+p.PFC.Enabled.PrioWords()+" → "+q.PFC.Enabled.PrioWords())
			}
		case c.App != nil && added:
			out = append(out, "+ APP "+appWords(*c.App))
		case c.App != nil:
			out = append(out, "- APP "+appWords(*c.App))
		case c.Feature == "app" && c.Field == "table" && removed:
			out = append(out, "- APP table ("+c.From+")")
		case c.Feature == "app" && c.Field == "table" && added:
			out = append(out, "+ APP table ("+c.To+")")
		case c.Feature == "app" && c.Field == "table order":
			out = append(out, "APP table reordered ("+c.From+" → "+c.To+")")
		case c.Field == "" && added:
			out = append(out, "+ "+name+" "+c.To)
		case c.Field == "" && removed:
			out = append(out, "- "+name+" (was "+c.From+")")
		case added:
			out = append(out, name+" "+c.Field+" "+c.To)
		case removed:
			out = append(out, name+" "+c.Field+" "+c.From)
		default:
			out = append(out, name+" "+c.Field+" "+c.From+" → "+c.To)
		}
	}
	return out
}

// appWords is an APP entry: "udp 4791 → priority 3".
func appWords(e dcb.App) string {
	proto := strconv.Itoa(int(e.Protocol))
	if e.Selector == lldp.AppSelEthertype {
		proto = fmt.Sprintf("%#04x", e.Protocol)
	}
	return fmt.Sprintf("%s %s → priority %d", e.Selector, proto, e.Priority)
}

// ceeControlChanges words the CEE control sub-TLV's changes (its
// sequence and acknowledgement numbers, which dcb.Params.Changes leaves
// out: they are the handshake, not parameters).
func ceeControlChanges(a, b *lldp.CEE) []string {
	var x, y *lldp.CEEControl
	if a != nil {
		x = a.Control
	}
	if b != nil {
		y = b.Control
	}
	switch {
	case x == nil && y == nil:
		return nil
	case x == nil:
		return []string{fmt.Sprintf("+ CEE control seq %d ack %d", y.SeqNo, y.AckNo)}
	case y == nil:
		return []string{"- CEE control"}
	}
	var out []string
	if x.SeqNo != y.SeqNo {
		out = append(out, fmt.Sprintf("CEE control seq %d → %d", x.SeqNo, y.SeqNo))
	}
	if x.AckNo != y.AckNo {
		out = append(out, fmt.Sprintf("CEE control ack %d → %d", x.AckNo, y.AckNo))
	}
	if x.OperVersion != y.OperVersion || x.MaxVersion != y.MaxVersion {
		out = append(out, fmt.Sprintf("CEE control version %d/%d → %d/%d", x.OperVersion, x.MaxVersion, y.OperVersion, y.MaxVersion))
	}
	return out
}

// A viewKey identifies a TLV view across two LLDPDUs: its kind and its
// place among the TLVs of that kind.
type viewKey struct {
	typ  lldp.TLVType
	oui  lldp.OUI
	sub  uint8
	name string
	nth  int
}

// handled says whether the TLV of view v is compared elsewhere: the
// mandatory TLVs and the DCBX TLVs (dcb.Params.Changes, the CEE control).
func handled(v lldp.TLVView) bool {
	switch v.Type {
	case lldp.TLVTypeChassisID, lldp.TLVTypePortID, lldp.TLVTypeTTL:
		return true
	}
	switch {
	case v.OUI == lldp.OUIIEEE8021 && (v.Subtype == lldp.SubtypeETSConfig || v.Subtype == lldp.SubtypeETSReco ||
		v.Subtype == lldp.SubtypePFC || v.Subtype == lldp.SubtypeAppPriority):
		return true
	case v.OUI == lldp.OUICEE && v.Subtype == lldp.SubtypeCEE:
		return true
	}
	return false
}

// keyed returns the views of b's TLVs that tlvChanges compares, by key,
// and the keys in order.
func keyed(views []lldp.TLVView) (map[viewKey]lldp.TLVView, []viewKey) {
	m := map[viewKey]lldp.TLVView{}
	var keys []viewKey
	count := map[viewKey]int{}
	for _, v := range views {
		if handled(v) {
			continue
		}
		k := viewKey{typ: v.Type, oui: v.OUI, sub: v.Subtype, name: v.Name}
		k.nth = count[k]
		count[viewKey{typ: v.Type, oui: v.OUI, sub: v.Subtype, name: v.Name}]++
		m[k] = v
		keys = append(keys, k)
	}
	return m, keys
}

// tlvChanges words the changes of the TLVs duChanges does not compare
// otherwise: each TLV of cur changed or added, in cur's order, then each
// of prev's that cur lacks.
func tlvChanges(prev, cur []byte) []string {
	va, err := lldp.DescribeLLDPDU(prev)
	if err != nil {
		return nil
	}
	vb, err := lldp.DescribeLLDPDU(cur)
	if err != nil {
		return nil
	}
	ma, ka := keyed(va)
	mb, kb := keyed(vb)
	var out []string
	for _, k := range kb {
		y := mb[k]
		x, ok := ma[k]
		if !ok {
			out = append(out, "+ "+y.Name+" "+viewText(y))
			continue
		}
		out = append(out, viewChanges(x, y)...)
	}
	for _, k := range ka {
		if _, ok := mb[k]; !ok {
			x := ma[k]
			out = append(out, "- "+x.Name+" (was "+viewText(x)+")")
		}
	}
	return out
}

// viewChanges words the changes of one TLV: each named field that
// changed when the TLV's values and labels stay ("MAC/PHY
// Configuration/Status autoneg enabled on → off"), else the whole TLV
// ("System Name leaf1 → leaf2").
func viewChanges(x, y lldp.TLVView) []string {
	tx, ty := viewText(x), viewText(y)
	if tx == ty && slices.Equal(x.Undecoded, y.Undecoded) {
		return nil
	}
	if tx == ty {
		return []string{x.Name + ": other bytes, not decoded"}
	}
	if len(x.Fields) == len(y.Fields) {
		var out []string
		same := true
		for i := range x.Fields {
			fx, fy := x.Fields[i], y.Fields[i]
			if fx.Label != fy.Label || (fx.Label == "" && fx.Value != fy.Value) {
				same = false
				break
			}
			if fx.Value != fy.Value {
				out = append(out, x.Name+" "+fx.Label+" "+fx.Value+" → "+fy.Value)
			}
		}
		if same {
			return out
		}
	}
	return []string{x.Name + " " + tx + " → " + ty}
}

// viewText is a TLV view on one line: its values ("bridge, router"),
// then its named fields ("enabled bridge"), " · " between.
func viewText(v lldp.TLVView) string {
	var values, named []string
	for _, f := range v.Fields {
		if f.Label == "" {
			values = append(values, f.Value)
		} else {
			named = append(named, f.Label+" "+f.Value)
		}
	}
	var parts []string
	if len(values) > 0 {
		parts = append(parts, strings.Join(values, ", "))
	}
	parts = append(parts, named...)
	return strings.Join(parts, " · ")
}

// findingChanges words the codec's findings that b has and a had not
// (a TLV discarded, a value the standard forbids), then those a had
// that b has not.
func findingChanges(a, b []lldp.Finding) []string {
	var out []string
	for _, f := range b {
		if !slices.Contains(a, f) {
			out = append(out, "finding: "+f.Message)
		}
	}
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, "finding gone: "+f.Message)
		}
	}
	return out
}
