package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// Diagnostic codes of Validate beyond the codec's.
const (
	CodeETSMaxTCsRange   Code = "ets-max-tcs-range"
	CodeAppPriorityRange Code = "app-priority-range"
	// CodeTLVTooLong: the parameters do not fit the TLV that carries
	// them (more than lldp.MaxAppEntries APP entries).
	CodeTLVTooLong Code = "tlv-too-long"
)

// Validate checks p with the rules the codec applies to received TLVs
// (IEEE Std 802.1Q-2018 Annex D; see lldp.ETS.Validate and friends), so
// that what dcbtop sends or applies is held to the same standard as what
// it receives.
func (p *Params) Validate() (out []Diagnostic) {
	defer func() {
		// Received, a priority mapped past Max TCs is the sender's
		// problem (a warning); what dcbtop sends or writes must not have it.
		// Likewise a repeated APP entry: received it is the sender's
		// (app-duplicate-entry, a warning); dcbtop does not write one.
		for i := range out {
			if out[i].Code == CodeETSPrioTCRange || out[i].Code == CodeAppDuplicate {
				out[i].Severity = SeverityError
			}
		}
	}()
	if e := p.ETS; e != nil {
		out = appendFindings(out, (&lldp.ETS{Willing: e.Willing, CBS: e.CBS, MaxTCs: e.MaxTCs, PrioTC: e.PrioTC, Bandwidth: e.TCBandwidth, TSA: e.TSA}).Validate())
		if e.MaxTCs == 0 || e.MaxTCs > 8 {
			out = append(out, Diagnostic{Code: CodeETSMaxTCsRange, Severity: SeverityError, Feature: "ets", Message: fmt.Sprintf("max_tcs %d is not 1-8", e.MaxTCs)})
		}
	}
	if r := p.ETSReco; r != nil {
		out = appendFindings(out, (&lldp.ETS{Recommendation: true, PrioTC: r.PrioTC, Bandwidth: r.TCBandwidth, TSA: r.TSA}).Validate())
	}
	if f := p.PFC; f != nil {
		out = appendFindings(out, (&lldp.PFC{Willing: f.Willing, MBC: f.MBC, Cap: f.Cap, Enabled: uint8(f.Enabled)}).Validate())
	}
	if p.App != nil {
		a := &lldp.AppPriority{}
		for _, e := range p.App {
			if e.Priority > 7 {
				out = append(out, Diagnostic{Code: CodeAppPriorityRange, Severity: SeverityError, Feature: "app", Message: fmt.Sprintf("APP priority %d is not 0-7", e.Priority)})
			}
			a.Entries = append(a.Entries, lldp.AppEntry{Priority: e.Priority & 7, Selector: e.Selector, Protocol: e.Protocol})
		}
		out = appendFindings(out, a.Validate())
		// What the wire can carry, checked by building the TLV.
		if _, err := a.MarshalBinary(); err != nil && len(a.Entries) > lldp.MaxAppEntries {
			out = append(out, Diagnostic{Code: CodeTLVTooLong, Severity: SeverityError, Feature: "app",
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
		if d.Severity == SeverityError {
			msgs = append(msgs, d.Feature+": "+d.Message)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// wire forms with slices, so that arrays of the wrong length are caught
// instead of silently truncated or zero-filled.
type etsJSON struct {
	Willing     bool       `json:"willing"`
	CBS         bool       `json:"cbs"`
	MaxTCs      *uint8     `json:"max_tcs"`
	PrioTC      []uint8    `json:"prio_tc"`
	TCBandwidth []uint8    `json:"tc_bandwidth"`
	TSA         []lldp.TSA `json:"tsa"`
	// StrictPrio is accepted as null or [] so that the snapshot's ets
	// object parses; it describes a CEE peer's PGID 15 and cannot be set.
	StrictPrio json.RawMessage `json:"strict_prio"`
}

// strictPrioGiven reports whether a strict_prio other than null or [] was
// given.
func (j *etsJSON) strictPrioGiven() bool {
	v := bytes.TrimSpace(j.StrictPrio)
	return len(v) > 0 && !bytes.Equal(v, []byte("null")) && !bytes.Equal(bytes.ReplaceAll(v, []byte(" "), nil), []byte("[]"))
}

type paramsJSON struct {
	ETS     *etsJSON        `json:"ets"`
	ETSReco *etsJSON        `json:"ets_reco"`
	PFC     *PFC            `json:"pfc"`
	App     []App           `json:"app"`
	CEE     json.RawMessage `json:"cee"`
}

func eight[T any](field string, v []T) ([8]T, error) {
	var a [8]T
	if len(v) != 8 {
		return a, fmt.Errorf("%s: want 8 values, got %d", field, len(v))
	}
	copy(a[:], v)
	return a, nil
}

func (j *etsJSON) tables(f string) (prio, bw [8]uint8, tsa [8]lldp.TSA, err error) {
	if prio, err = eight(f+".prio_tc", j.PrioTC); err != nil {
		return
	}
	if bw, err = eight(f+".tc_bandwidth", j.TCBandwidth); err != nil {
		return
	}
	tsa, err = eight(f+".tsa", j.TSA)
	return
}

// lineCol returns the 1-based line and column (in bytes) of offset off
// in b.
func lineCol(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// maxObjectMembers bounds the members of one object of a PARAMS file or
// policy: the largest real one has eight (ets.min_bandwidth).
const maxObjectMembers = 64

// maxArrayElements bounds the elements of one array of a PARAMS file or
// policy: the longest real one is an APP table (at most lldp.MaxAppEntries,
// 168, fit in a TLV). Past it the decoder would build and refuse every
// element (a megabyte of them cost 58 MB).
const maxArrayElements = 256

// duplicateKeys returns an error naming the first key that appears twice
// in one object of the JSON text b ("ets.willing"): encoding/json keeps the
// last silently, so a file saying two things would apply one of them. It
// also refuses an object of more than maxObjectMembers members and an array
// of more than maxArrayElements elements. A
// syntax error is left to the decoder, which reports it better. It scans
// the bytes itself, allocating only for object keys (json.Decoder.Token
// costs about a hundred bytes a token: 58 MB for a 1 MiB array), and
// gives up past MaxJSONDepth, which callers refuse first (CheckJSONDepth).
func duplicateKeys(b []byte) error {
	type level struct {
		object    bool
		expectKey bool
		seen      []string // keys so far, at most maxObjectMembers
		key       string   // the current member's key (objects)
		index     int      // the current element's index (arrays)
	}
	var stack [MaxJSONDepth]level
	depth := 0
	path := func(last string) string {
		var sb strings.Builder
		for _, l := range stack[:depth-1] {
			if l.object {
				if sb.Len() > 0 {
					sb.WriteByte('.')
				}
				sb.WriteString(l.key)
			} else {
				fmt.Fprintf(&sb, "[%d]", l.index)
			}
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(last)
		return sb.String()
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			if depth == len(stack) {
				return nil // too deep: CheckJSONDepth's error
			}
			// The level's key slice is reused: no allocation per object.
			stack[depth] = level{object: c == '{', expectKey: c == '{', seen: stack[depth].seen[:0]}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth > 0 {
				l := &stack[depth-1]
				l.index++
				l.expectKey = l.object
				if !l.object && l.index == maxArrayElements {
					line, col := lineCol(b, int64(i+1))
					return fmt.Errorf("line %d, column %d: more than %d elements in one array", line, col, maxArrayElements)
				}
			}
		case ':':
			if depth > 0 {
				stack[depth-1].expectKey = false
			}
		case '"':
			start, escaped := i, false
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					escaped = true
					i++
				}
			}
			if i >= len(b) {
				return nil // unterminated: the decoder's error
			}
			if depth == 0 || !stack[depth-1].expectKey {
				continue
			}
			l := &stack[depth-1]
			var k string
			if !escaped {
				k = string(b[start+1 : i])
			} else if json.Unmarshal(b[start:i+1], &k) != nil {
				return nil // a bad escape: the decoder's error
			}
			if slices.Contains(l.seen, k) {
				line, col := lineCol(b, int64(i+1))
				return fmt.Errorf("line %d, column %d: duplicate key %q", line, col, path(k))
			}
			if len(l.seen) == maxObjectMembers {
				line, col := lineCol(b, int64(i+1))
				return fmt.Errorf("line %d, column %d: more than %d members in one object", line, col, maxObjectMembers)
			}
			l.seen = append(l.seen, k)
			l.key, l.expectKey = k, false
		}
	}
	return nil
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
// stay nil ("not given"); unknown fields, arrays of the wrong length and
// trailing data are errors. ets.max_tcs defaults to 8.
func ParseParams(r io.Reader) (*Params, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxParamsJSON+1))
	if err != nil {
		return nil, fmt.Errorf("parameters JSON: %w", err)
	}
	if len(b) > MaxParamsJSON {
		return nil, ErrParamsTooLarge
	}
	if err := CheckJSONDepth(b); err != nil {
		return nil, fmt.Errorf("parameters JSON: %w", err)
	}
	if err := duplicateKeys(b); err != nil {
		return nil, fmt.Errorf("parameters JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j paramsJSON
	if err := dec.Decode(&j); err != nil {
		// Where: the error's own offset when it has one, else where the
		// decoder stopped.
		off := dec.InputOffset()
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset - 1 // the offending byte
		case errors.As(err, &te):
			off = te.Offset
		default:
			// An unknown field is reported once the object is read: find
			// its key.
			if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				if i := bytes.Index(b, []byte(name)); i >= 0 {
					off = int64(i)
				}
			}
		}
		line, col := lineCol(b, off)
		return nil, fmt.Errorf("parameters JSON: line %d, column %d: %w", line, col, err)
	}
	if dec.More() {
		return nil, errors.New("parameters JSON: trailing data after the object")
	}
	if len(j.CEE) > 0 && !bytes.Equal(j.CEE, []byte("null")) {
		return nil, errors.New("parameters JSON: \"cee\" cannot be set")
	}
	p := &Params{PFC: j.PFC, App: j.App}
	if p.PFC != nil {
		p.PFC.FromCEE = false // "mbc": null; local parameters are never CEE
	}
	for _, e := range []struct {
		name string
		j    *etsJSON
	}{{"ets", j.ETS}, {"ets_reco", j.ETSReco}} {
		if e.j != nil && e.j.strictPrioGiven() {
			return nil, fmt.Errorf("parameters JSON: %s.strict_prio lists a CEE peer's strict-priority group and cannot be set; give strict priority with tsa \"strict\"", e.name)
		}
	}
	if j.ETS != nil {
		prio, bw, tsa, err := j.ETS.tables("ets")
		if err != nil {
			return nil, fmt.Errorf("parameters JSON: %w", err)
		}
		p.ETS = &ETS{Willing: j.ETS.Willing, CBS: j.ETS.CBS, MaxTCs: 8, PrioTC: prio, TCBandwidth: bw, TSA: tsa}
		if j.ETS.MaxTCs != nil {
			p.ETS.MaxTCs = *j.ETS.MaxTCs
		}
	}
	if j.ETSReco != nil {
		if j.ETSReco.Willing || j.ETSReco.CBS || j.ETSReco.MaxTCs != nil {
			return nil, errors.New("parameters JSON: ets_reco has no willing, cbs or max_tcs")
		}
		prio, bw, tsa, err := j.ETSReco.tables("ets_reco")
		if err != nil {
			return nil, fmt.Errorf("parameters JSON: %w", err)
		}
		p.ETSReco = &ETSReco{PrioTC: prio, TCBandwidth: bw, TSA: tsa}
	}
	return p, nil
}
