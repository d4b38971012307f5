// SPDX-License-Identifier: Apache-2.0

package engine

import "github.com/dcbtop/dcbtop/engine/dcb"

// appendJSON appends the indication's JSON, the bytes encoding/json
// writes for it (its fields, and the MarshalJSON and MarshalText methods
// of the types in it), without reflection: --events writes one for every
// change in a capture, and reflection over the nested parameters cost a
// replay a fifth of its time. It reports false, having appended nothing,
// for what it does not write itself (CEE parameters, a time outside the
// years JSON can carry), which the caller then encodes with
// encoding/json. TestIndicationJSON pins it to encoding/json's bytes.
func (in *Indication) appendJSON(b []byte) ([]byte, bool) {
	if in.Params != nil && in.Params.CEE != nil {
		return b, false
	}
	start := len(b)
	b = append(b, `{"time":"`...)
	var err error
	if b, err = in.Time.AppendText(b); err != nil {
		return b[:start], false
	}
	b = append(b, `","interface":`...)
	b = dcb.AppendJSONString(b, in.Interface)
	b = append(b, `,"status":`...)
	b = dcb.AppendJSONString(b, in.Status.String())
	b = append(b, `,"reason":`...)
	b = dcb.AppendJSONString(b, string(in.Reason))
	b = append(b, `,"flags":`...)
	b = in.Flags.appendJSON(b)
	b = append(b, `,"params":`...)
	b = in.Params.AppendJSON(b)
	if in.Peer != "" {
		b = append(b, `,"peer":`...)
		b = dcb.AppendJSONString(b, in.Peer)
	}
	if in.PeerName != "" {
		b = append(b, `,"peer_name":`...)
		b = dcb.AppendJSONString(b, in.PeerName)
	}
	if in.Host != "" {
		b = append(b, `,"host":`...)
		b = dcb.AppendJSONString(b, in.Host)
	}
	if in.ID != 0 {
		b = append(b, `,"id":"`...)
		b = append(in.ID.appendText(b), '"')
	}
	return append(b, '}'), true
}

// appendJSON appends the flags as MarshalJSON writes them.
func (f Flags) appendJSON(b []byte) []byte {
	b = append(b, '[')
	first := true
	for _, n := range flagNames {
		if f&n.f != 0 {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(append(append(b, '"'), n.name...), '"')
		}
	}
	return append(b, ']')
}
