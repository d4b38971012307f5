// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"encoding/json"
	"strconv"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// AppendJSON appends the parameters without CEE ones, as encoding/json
// writes them: null for nil.
func (p *Params) AppendJSON(b []byte) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"ets":`...)
	b = p.ETS.appendJSON(b)
	b = append(b, `,"ets_reco":`...)
	if r := p.ETSReco; r == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = appendTCTable(b, &r.PrioTC, &r.TCBandwidth, &r.TSA)
		b = append(b, '}')
	}
	b = append(b, `,"pfc":`...)
	b = p.PFC.appendJSON(b)
	b = append(b, `,"app":`...)
	if p.App == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range p.App {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"selector":`...)
			b = AppendJSONString(b, a.Selector.String())
			b = append(b, `,"protocol":`...)
			b = strconv.AppendUint(b, uint64(a.Protocol), 10)
			b = append(b, `,"priority":`...)
			b = strconv.AppendUint(b, uint64(a.Priority), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// MarshalJSON writes the PARAMS object of the snapshot contract
// (AppendJSON, and a CEE peer's "cee" object), the same bytes from every
// encoder (encoding/json and encoding/json/v2 alike: v2 alone would
// write the [8] arrays as base64 and a nil APP table as []).
func (p Params) MarshalJSON() ([]byte, error) {
	b := p.AppendJSON(make([]byte, 0, 512))
	if p.CEE != nil {
		b = append(b[:len(b)-1], `,"cee":`...)
		b = p.CEE.appendJSON(b)
		b = append(b, '}')
	}
	return b, nil
}

// appendJSON appends the "ets" object: "cbs" null and "strict_prio" a
// list for CEE, "cbs" a boolean and "strict_prio" null for IEEE; null
// for nil.
func (e *ETS) appendJSON(b []byte) []byte {
	if e == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"willing":`...)
	b = strconv.AppendBool(b, e.Willing)
	b = append(b, `,"cbs":`...)
	if e.FromCEE {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, e.CBS)
	}
	b = append(b, `,"max_tcs":`...)
	b = strconv.AppendUint(b, uint64(e.MaxTCs), 10)
	b = appendTCTable(b, &e.PrioTC, &e.TCBandwidth, &e.TSA)
	b = append(b, `,"strict_prio":`...)
	if e.FromCEE {
		b = e.StrictPrio().AppendJSON(b)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendJSON appends the "pfc" object, "mbc" null for CEE; null for nil.
func (f *PFC) appendJSON(b []byte) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"willing":`...)
	b = strconv.AppendBool(b, f.Willing)
	b = append(b, `,"mbc":`...)
	if f.FromCEE {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, f.MBC)
	}
	b = append(b, `,"cap":`...)
	b = strconv.AppendUint(b, uint64(f.Cap), 10)
	b = append(b, `,"enabled":`...)
	b = f.Enabled.AppendJSON(b)
	return append(b, '}')
}

// appendJSON appends the "cee" object of a CEE peer's parameters.
func (c *CEE) appendJSON(b []byte) []byte {
	b = append(b, `{"oper_version":`...)
	b = strconv.AppendUint(b, uint64(c.OperVersion), 10)
	b = append(b, `,"max_version":`...)
	b = strconv.AppendUint(b, uint64(c.MaxVersion), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, uint64(c.Seq), 10)
	b = append(b, `,"ack":`...)
	b = strconv.AppendUint(b, uint64(c.Ack), 10)
	b = append(b, `,"control":`...)
	b = strconv.AppendBool(b, c.Control)
	for _, f := range []struct {
		name string
		f    *CEEFeature
	}{{`,"pg":`, c.PG}, {`,"pfc":`, c.PFC}, {`,"app":`, c.App}} {
		b = append(b, f.name...)
		b = f.f.appendJSON(b)
	}
	b = append(b, `,"pgid":`...)
	if c.PGID == nil {
		b = append(b, "null"...)
	} else {
		b = appendUint8s(b, c.PGID)
	}
	return append(b, '}')
}

// appendJSON appends a CEE feature's flags; null for nil.
func (f *CEEFeature) appendJSON(b []byte) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"enable":`...)
	b = strconv.AppendBool(b, f.Enable)
	b = append(b, `,"willing":`...)
	b = strconv.AppendBool(b, f.Willing)
	b = append(b, `,"error":`...)
	b = strconv.AppendBool(b, f.Error)
	b = append(b, `,"oper_version":`...)
	b = strconv.AppendUint(b, uint64(f.OperVersion), 10)
	b = append(b, `,"max_version":`...)
	b = strconv.AppendUint(b, uint64(f.MaxVersion), 10)
	return append(b, '}')
}

// appendTCTable appends the "prio_tc", "tc_bandwidth" and "tsa" members
// of an ETS object, each preceded by a comma except after an opening
// brace.
func appendTCTable(b []byte, prioTC, bw *[8]uint8, tsa *[8]lldp.TSA) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, `"prio_tc":`...)
	b = appendUint8s(b, prioTC)
	b = append(b, `,"tc_bandwidth":`...)
	b = appendUint8s(b, bw)
	b = append(b, `,"tsa":[`...)
	for i, t := range tsa {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, t.String())
	}
	return append(b, ']')
}

// appendUint8s appends a JSON array of numbers.
func appendUint8s(b []byte, v *[8]uint8) []byte {
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return append(b, ']')
}

// AppendJSON appends the set as MarshalJSON writes it.
func (s PrioSet) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	first := true
	for p := range uint8(8) {
		if s.Has(p) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '0'+p)
		}
	}
	return append(b, ']')
}

// AppendJSONString appends s as encoding/json writes a string: plain
// printable ASCII as it is, anything else (quotes, backslashes, control
// characters, HTML's <, > and &, non-ASCII) through encoding/json itself,
// so that its escaping rules hold to the byte.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
