// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/diag"
	"github.com/dcbtop/dcbtop/engine/jsondoc"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Validate checks p with the rules the codec applies to received TLVs
// (IEEE Std 802.1Q-2018 Annex D; see lldp.ETS.Validate and friends), so
// that what dcbtop sends or applies is held to the same standard as what
// it receives.
func (p *Params) Validate() (out []diag.Diagnostic) {
	defer func() {
		// Received, a priority mapped past Max TCs is the sender's
		// problem (a warning); what dcbtop sends or writes must not have it.
		// Likewise a repeated APP entry: received it is the sender's
		// (app-duplicate-entry, a warning); dcbtop does not write one.
		for i := range out {
			if out[i].Code == diag.CodeETSPrioTCRange || out[i].Code == diag.CodeAppDuplicate {
				out[i].Severity = diag.SeverityError
			}
		}
	}()
	if e := p.ETS; e != nil {
		out = diag.AppendFindings(out, (&lldp.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: e.MaxTCs, PrioTC: e.PrioTC, Bandwidth: e.TCBandwidth, TSA: e.TSA}).Validate())
		if e.MaxTCs == 0 || e.MaxTCs > 8 {
			out = append(out, diag.Diagnostic{Code: diag.CodeETSMaxTCsRange, Severity: diag.SeverityError, Feature: "ets", Message: fmt.Sprintf("max_tcs %d is not 1-8", e.MaxTCs)})
		}
	}
	if r := p.ETSReco; r != nil {
		out = diag.AppendFindings(out, (&lldp.ETS{Recommendation: true, PrioTC: r.PrioTC, Bandwidth: r.TCBandwidth, TSA: r.TSA}).Validate())
	}
	if f := p.PFC; f != nil {
		out = diag.AppendFindings(out, (&lldp.PFC{Willing: f.Willing, MBC: f.MBC, Cap: f.Cap, Enabled: uint8(f.Enabled)}).Validate())
	}
	if p.App != nil {
		a := &lldp.AppPriority{}
		for _, e := range p.App {
			if e.Priority > 7 {
				out = append(out, diag.Diagnostic{Code: diag.CodeAppPriorityRange, Severity: diag.SeverityError, Feature: "app", Message: fmt.Sprintf("APP priority %d is not 0-7", e.Priority)})
			}
			a.Entries = append(a.Entries, lldp.AppEntry{Priority: e.Priority & 7, Selector: e.Selector, Protocol: e.Protocol})
		}
		out = diag.AppendFindings(out, a.Validate())
		// What the wire can carry, checked by building the TLV.
		if _, err := a.MarshalBinary(); err != nil && len(a.Entries) > lldp.MaxAppEntries {
			out = append(out, diag.Diagnostic{Code: diag.CodeTLVTooLong, Severity: diag.SeverityError, Feature: "app",
				Message: fmt.Sprintf("%d APP entries do not fit in one APP TLV (at most %d: its value is limited to 511 bytes)", len(a.Entries), lldp.MaxAppEntries)})
		}
	}
	return out
}

// Errors returns the error-severity diagnostics of Validate joined into
// one message, or nil when there are none.
func (p *Params) Errors() error {
	var msgs []string
	for _, d := range p.Validate() {
		if d.Severity == diag.SeverityError {
			msgs = append(msgs, d.Feature+": "+d.Message)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// MaxParamsJSON bounds a PARAMS file: the largest valid one (every
// feature, 168 APP entries) is under 16 KiB, so 1 MiB is no limit for a
// real file and keeps a wrong one (a capture, a log) from filling memory.
// ParseParams reads at most this much.
const MaxParamsJSON = 1 << 20

// ErrParamsTooLarge is ParseParams' error for input over MaxParamsJSON.
var ErrParamsTooLarge = fmt.Errorf("larger than %d KiB: a PARAMS file is a few KiB of JSON", MaxParamsJSON>>10)

// ParseParams reads a PARAMS JSON object (the snapshot contract's form) as
// written by an operator for --local or dcbtop apply. Features left out
// stay nil ("not given"); unknown fields, arrays of the wrong length,
// values of the wrong type and trailing data are errors. Member names
// match exactly ("pfc", not "PFC"), and a list of numbers is a JSON array
// (not a base64 string). ets.max_tcs defaults to 8.
//
// It accepts parameters that Params.Validate would refuse (a bandwidth
// sum of 90): those are the caller's to judge (Params.Errors), or use
// ParseValidParams. But once it refuses a document, its error (a
// *JSONError) lists every problem found, those of Validate in the
// features that decoded included, each at its line and column.
func ParseParams(r io.Reader) (*Params, error) { return parseParams(r, false) }

// ParseValidParams is ParseParams refusing also what Params.Errors
// refuses (ranges, the bandwidth sum, the PFC capability, repeated APP
// entries), each at its place in the document, in one *JSONError with the
// rest: what a file that is applied whole or not at all wants.
func ParseValidParams(r io.Reader) (*Params, error) { return parseParams(r, true) }

func parseParams(r io.Reader, valid bool) (*Params, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxParamsJSON+1))
	if err != nil {
		return nil, fmt.Errorf("parameters JSON: %w", err)
	}
	return decodeParams(b, valid, false)
}

// UnmarshalJSON reads the PARAMS object as the snapshot contract writes
// it (MarshalJSON), with ParseParams' decoder in its snapshot form: a
// non-null "strict_prio" and a null PFC "mbc" mark a CEE peer's
// parameters (FromCEE), and a CEE peer's "cee" object is read too. What
// a recording, the control socket and a snapshot carry round-trips; an
// error is ParseParams' *JSONError, every problem at its place.
func (p *Params) UnmarshalJSON(b []byte) error {
	q, err := decodeParams(b, false, true)
	if err != nil {
		return err
	}
	*p = *q
	return nil
}

// decodeParams decodes the PARAMS document b: an operator's (ParseParams,
// valid: ParseValidParams) or, with snapshot, what MarshalJSON writes.
func decodeParams(b []byte, valid, snapshot bool) (*Params, error) {
	if len(b) > MaxParamsJSON {
		return nil, ErrParamsTooLarge
	}
	doc, root := jsondoc.Read(b)
	if root != nil {
		d := paramsDoc{Doc: doc, snapshot: snapshot}
		p, clean := d.params(root)
		if valid || d.Total() > 0 && !snapshot { // a snapshot's parameters are as received
			d.ruleErrors(clean)
		}
		if d.Total() == 0 {
			return p, nil
		}
	}
	return nil, doc.Err("parameters JSON")
}

// A paramsDoc walks a PARAMS document: an operator's, or (snapshot) the
// snapshot contract's own.
type paramsDoc struct {
	*jsondoc.Doc
	snapshot bool
}

// ReadPriorities decodes the list of priorities 0-7 at v (null: none),
// recording each bad one at its place in d: PARAMS' pfc.enabled, and a
// policy's.
func ReadPriorities(d *jsondoc.Doc, path string, v *jsondoc.Value) []int {
	return paramsDoc{Doc: d}.priorities(path, v)
}

// ReadApps decodes the APP table at v (null: nil, not given), recording
// what is wrong in d, and says which entries had a problem: PARAMS' app,
// and a policy's.
func ReadApps(d *jsondoc.Doc, path string, v *jsondoc.Value) (out []App, bad []bool) {
	return paramsDoc{Doc: d}.apps(path, v)
}

// params walks a PARAMS document: p as decoded, and clean holding only
// the features that decoded without a problem (those Validate can judge
// without repeating a problem already found).
func (d paramsDoc) params(v *jsondoc.Value) (p, clean *Params) {
	p, clean = &Params{}, &Params{}
	if !d.WantObject(v, "", "a PARAMS object") {
		return p, clean
	}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		before, path := d.Total(), jsondoc.MemberPath("", key)
		switch key {
		case "ets":
			p.ETS = d.ets(path, v, false)
			if d.Total() == before {
				clean.ETS = p.ETS
			}
		case "ets_reco":
			p.ETSReco = nil
			if e := d.ets(path, v, true); e != nil {
				p.ETSReco = &ETSReco{PrioTC: e.PrioTC, TCBandwidth: e.TCBandwidth, TSA: e.TSA}
			}
			if d.Total() == before {
				clean.ETSReco = p.ETSReco
			}
		case "pfc":
			p.PFC = d.pfc(path, v)
			if d.Total() == before {
				clean.PFC = p.PFC
			}
		case "app":
			p.App, _ = d.apps(path, v)
			if d.Total() == before {
				clean.App = p.App
			}
		case "cee":
			switch {
			case v.Null():
			case d.snapshot:
				p.CEE = d.cee(path, v)
			default:
				d.Errorf(v.Off, path, "cannot be set: CEE parameters are only received from a CEE peer")
			}
		default:
			d.Unknown(m, "", "ets, ets_reco, pfc or app")
		}
	}
	return p, clean
}

// ets decodes the "ets" or (reco) "ets_reco" object at v; nil for null.
func (d paramsDoc) ets(path string, v *jsondoc.Value, reco bool) *ETS {
	if !d.WantObject(v, path, "an object") {
		return nil
	}
	e := &ETS{MaxTCs: 8}
	var given [3]bool // prio_tc, tc_bandwidth, tsa
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path, parent := jsondoc.MemberPath(path, key), path
		d.Place(path, v)
		switch key {
		case "willing", "cbs":
			var x bool
			if d.Leaf(v, path, "true or false", &x) && reco && x {
				d.Errorf(v.Off, path, "ets_reco has no %s (the recommendation TLV carries none)", key)
			}
			if key == "willing" {
				e.Willing = x
			} else {
				e.CBS = x
			}
		case "max_tcs":
			var m *uint8
			if d.Leaf(v, path, "a number 1-8", &m) && m != nil {
				if reco {
					d.Errorf(v.Off, path, "ets_reco has no max_tcs (the recommendation TLV carries none)")
				}
				e.MaxTCs = *m
			}
		case "prio_tc":
			given[0] = true
			e.PrioTC = eight[uint8](d, v, path, "traffic classes 0-7", "a traffic class 0-7")
		case "tc_bandwidth":
			given[1] = true
			e.TCBandwidth = eight[uint8](d, v, path, "percentages", "a percentage 0-100")
		case "tsa":
			given[2] = true
			e.TSA = eight[lldp.TSA](d, v, path, "TSA names", "a TSA name (strict, cbs, ets, vendor or unknown-N)")
		case "strict_prio":
			// A CEE peer's PGID 15, which PrioTC holds: in a snapshot,
			// a list marks a CEE peer's ETS (MarshalJSON). Accepted as
			// null or [] so that the snapshot's ets object parses.
			if d.snapshot && v.Array() {
				e.FromCEE = true
				continue
			}
			if !v.Null() && !(v.Array() && len(v.Elems) == 0) {
				d.Errorf(v.Off, path, "lists a CEE peer's strict-priority group and cannot be set; give strict priority with tsa \"strict\"")
			}
		default:
			if reco {
				d.Unknown(m, parent, "prio_tc, tc_bandwidth or tsa")
			} else {
				d.Unknown(m, parent, "willing, cbs, max_tcs, prio_tc, tc_bandwidth or tsa")
			}
		}
	}
	for i, name := range []string{"prio_tc", "tc_bandwidth", "tsa"} {
		if !given[i] {
			d.Errorf(v.Off, jsondoc.MemberPath(path, name), "missing (want 8 values)")
		}
	}
	return e
}

// eight decodes the list of 8 values at v, recording each bad element at
// its place and a list of another length (or not a list) at v.
func eight[T any](d paramsDoc, v *jsondoc.Value, path, what, want string) (a [8]T) {
	if !v.Array() {
		d.Errorf(v.Off, path, "want a list of 8 %s, got %s", what, jsondoc.Describe(v))
		return a
	}
	for i, x := range v.Elems {
		path := jsondoc.IndexPath(path, i)
		d.Place(path, x)
		var t T
		if d.Leaf(x, path, want, &t) && i < len(a) {
			a[i] = t
		}
	}
	if n := len(v.Elems); n != len(a) {
		d.Errorf(v.Off, path, "want 8 values, got %d", n)
	}
	return a
}

// cee decodes a CEE peer's "cee" object at v (a snapshot's): its
// members as CEE's JSON names them (MarshalJSON), none unknown.
func (d paramsDoc) cee(path string, v *jsondoc.Value) *CEE {
	if !d.WantObject(v, path, "an object") {
		return nil
	}
	c := &CEE{}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path, parent := jsondoc.MemberPath(path, key), path
		d.Place(path, v)
		switch key {
		case "oper_version":
			d.Leaf(v, path, "a number 0-255", &c.OperVersion)
		case "max_version":
			d.Leaf(v, path, "a number 0-255", &c.MaxVersion)
		case "seq":
			d.Leaf(v, path, "a sequence number", &c.Seq)
		case "ack":
			d.Leaf(v, path, "an acknowledgement number", &c.Ack)
		case "control":
			d.Leaf(v, path, "true or false", &c.Control)
		case "pg":
			c.PG = d.ceeFeature(path, v)
		case "pfc":
			c.PFC = d.ceeFeature(path, v)
		case "app":
			c.App = d.ceeFeature(path, v)
		case "pgid":
			if !v.Null() {
				pgid := eight[uint8](d, v, path, "priority group IDs", "a priority group ID 0-15")
				c.PGID = &pgid
			}
		default:
			d.Unknown(m, parent, "oper_version, max_version, seq, ack, control, pg, pfc, app or pgid")
		}
	}
	return c
}

// ceeFeature decodes a CEE feature's flags at v; nil for null.
func (d paramsDoc) ceeFeature(path string, v *jsondoc.Value) *CEEFeature {
	if !d.WantObject(v, path, "an object") {
		return nil
	}
	f := &CEEFeature{}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path, parent := jsondoc.MemberPath(path, key), path
		d.Place(path, v)
		switch key {
		case "enable":
			d.Leaf(v, path, "true or false", &f.Enable)
		case "willing":
			d.Leaf(v, path, "true or false", &f.Willing)
		case "error":
			d.Leaf(v, path, "true or false", &f.Error)
		case "oper_version":
			d.Leaf(v, path, "a number 0-255", &f.OperVersion)
		case "max_version":
			d.Leaf(v, path, "a number 0-255", &f.MaxVersion)
		default:
			d.Unknown(m, parent, "enable, willing, error, oper_version or max_version")
		}
	}
	return f
}

// pfc decodes the "pfc" object at v; nil for null.
func (d paramsDoc) pfc(path string, v *jsondoc.Value) *PFC {
	if !d.WantObject(v, path, "an object") {
		return nil
	}
	f := &PFC{}
	for _, m := range v.Members {
		key, v := m.Key, m.Value
		path, parent := jsondoc.MemberPath(path, key), path
		d.Place(path, v)
		switch key {
		case "willing":
			d.Leaf(v, path, "true or false", &f.Willing)
		case "mbc": // null: a CEE peer's; local parameters are never CEE
			var m *bool
			if d.Leaf(v, path, "true, false or null", &m) && m != nil {
				f.MBC = *m
			}
			f.FromCEE = d.snapshot && v.Null()
		case "cap":
			d.Leaf(v, path, "a number 0-8", &f.Cap)
		case "enabled":
			f.Enabled = 0
			for _, p := range d.priorities(path, v) {
				f.Enabled |= 1 << p
			}
		default:
			d.Unknown(m, parent, "willing, mbc, cap or enabled")
		}
	}
	return f
}

// priorities decodes a list of priorities 0-7 at v (null: none),
// recording each bad one at its place.
func (d paramsDoc) priorities(path string, v *jsondoc.Value) []int {
	if v.Null() {
		return nil
	}
	if !v.Array() {
		d.Errorf(v.Off, path, "want a list of priorities 0-7, got %s", jsondoc.Describe(v))
		return nil
	}
	l := []int{}
	for i, v := range v.Elems {
		path := jsondoc.IndexPath(path, i)
		d.Place(path, v)
		var x int
		switch {
		case !d.Leaf(v, path, "a priority 0-7", &x):
		case x < 0 || x > 7:
			d.Errorf(v.Off, path, "priority %d is not 0-7", x)
		default:
			l = append(l, x)
		}
	}
	return l
}

// apps decodes an APP table at v (null: nil, not given), and which
// entries had a problem.
func (d paramsDoc) apps(path string, v *jsondoc.Value) (out []App, bad []bool) {
	if v.Null() {
		return nil, nil
	}
	if !v.Array() {
		d.Errorf(v.Off, path, "want a list of APP entries, got %s", jsondoc.Describe(v))
		return nil, nil
	}
	d.Place(path, v)
	out = []App{}
	for i, v := range v.Elems {
		before, path := d.Total(), jsondoc.IndexPath(path, i)
		d.Place(path, v)
		var a App
		switch {
		case v.Object():
			for _, m := range v.Members {
				key, v := m.Key, m.Value
				path, parent := jsondoc.MemberPath(path, key), path
				d.Place(path, v)
				switch key {
				case "selector":
					d.Leaf(v, path, "a selector (ethertype, tcp-port, udp-port, port or dscp)", &a.Selector)
				case "protocol":
					d.Leaf(v, path, "a number 0-65535", &a.Protocol)
				case "priority":
					d.Leaf(v, path, "a priority 0-7", &a.Priority)
				default:
					d.Unknown(m, parent, "selector, protocol or priority")
				}
			}
		case !v.Null():
			d.Errorf(v.Off, path, "want an APP entry (an object), got %s", jsondoc.Describe(v))
		}
		out, bad = append(out, a), append(bad, d.Total() != before)
	}
	return out, bad
}

// ruleErrors records the errors of p.Validate, each at the value it is
// about (findingPaths); p holds the features that decoded cleanly.
func (d paramsDoc) ruleErrors(p *Params) {
	seen := map[string]int{}
	for _, f := range p.Validate() {
		if f.Severity != diag.SeverityError {
			continue
		}
		key := f.Feature + " " + string(f.Code)
		n := seen[key]
		seen[key]++
		path, msg := f.Feature, f.Message
		if paths := findingPaths(p, f.Feature, f.Code); n < len(paths) {
			path = paths[n]
		}
		if f.Code == diag.CodeETSBandwidthSum {
			path, msg = sumFinding(p, f.Feature, msg)
		}
		off, ok := d.At(path)
		if !ok {
			path = f.Feature
			off, _ = d.At(path)
		}
		d.Errorf(off, path, "%s", msg)
	}
}

// etsTables returns the tables of feature f ("ets", "ets_reco") of p and
// the traffic class limit of its priority table.
func etsTables(p *Params, f string) (prio, bw [8]uint8, tsa [8]lldp.TSA, limit uint8) {
	limit = 8
	switch {
	case f == "ets" && p.ETS != nil:
		prio, bw, tsa = p.ETS.PrioTC, p.ETS.TCBandwidth, p.ETS.TSA
		if m := p.ETS.MaxTCs; m > 0 && m < limit {
			limit = m
		}
	case f == "ets_reco" && p.ETSReco != nil:
		prio, bw, tsa = p.ETSReco.PrioTC, p.ETSReco.TCBandwidth, p.ETSReco.TSA
	}
	return prio, bw, tsa, limit
}

// sumFinding places a bandwidth sum other than 100: past 100, at the
// bandwidth that takes it past; under, at the table.
func sumFinding(p *Params, f, msg string) (path, _ string) {
	_, bw, _, _ := etsTables(p, f)
	total, at := 0, -1
	for tc, x := range bw {
		if total += int(x); total > 100 && at < 0 {
			at = tc
		}
	}
	if at < 0 {
		return f + ".tc_bandwidth", msg
	}
	return jsondoc.IndexPath(f+".tc_bandwidth", at), fmt.Sprintf("%d%% takes the sum past 100%%: the TC bandwidths sum to %d%%", bw[at], total)
}

// findingPaths returns the paths of the values that Validate's findings of
// code in feature f are about, in the order Validate reports them; a
// finding past them is placed at the feature.
func findingPaths(p *Params, f string, code diag.Code) []string {
	prio, bw, tsa, limit := etsTables(p, f)
	var out []string
	switch code {
	case diag.CodeETSBandwidthRange:
		for tc, x := range bw {
			if x > 100 {
				out = append(out, jsondoc.IndexPath(f+".tc_bandwidth", tc))
			}
		}
	case diag.CodeETSTSAReserved:
		for tc, t := range tsa {
			if t != lldp.TSAStrict && t != lldp.TSACBS && t != lldp.TSAETS && t != lldp.TSAVendor {
				out = append(out, jsondoc.IndexPath(f+".tsa", tc))
			}
		}
	case diag.CodeETSPrioTCRange: // one finding: placed at its first priority
		for pr, tc := range prio {
			if tc >= limit && tc < 16 {
				return []string{jsondoc.IndexPath(f+".prio_tc", pr)}
			}
		}
	case diag.CodeETSMaxTCsRange:
		out = append(out, "ets.max_tcs")
	case diag.CodePFCCapRange:
		out = append(out, "pfc.cap")
	case diag.CodePFCCapExceeded:
		out = append(out, "pfc.enabled")
	case diag.CodeAppPriorityRange, diag.CodeAppSelector, diag.CodeAppDSCPRange, diag.CodeAppEthertypeRange, diag.CodeAppDuplicate:
		for i, a := range p.App {
			sel, prot := a.Selector, a.Protocol
			switch {
			case code == diag.CodeAppPriorityRange && a.Priority > 7:
				out = append(out, jsondoc.IndexPath("app", i)+".priority")
			case code == diag.CodeAppSelector && (sel == 0 || sel > lldp.AppSelDSCP):
				out = append(out, jsondoc.IndexPath("app", i)+".selector")
			case code == diag.CodeAppDSCPRange && sel == lldp.AppSelDSCP && prot > 63,
				code == diag.CodeAppEthertypeRange && sel == lldp.AppSelEthertype && prot != 0 && prot < 0x600:
				out = append(out, jsondoc.IndexPath("app", i)+".protocol")
			case code == diag.CodeAppDuplicate && slices.ContainsFunc(p.App[:i], func(b App) bool {
				return b.Selector == sel && b.Protocol == prot && b.Priority&7 == a.Priority&7
			}):
				out = append(out, jsondoc.IndexPath("app", i))
			}
		}
	}
	return out
}
