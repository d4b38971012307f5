// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// The renderings of a Record: a line of text (Line), the hex and decode
// of its LLDPDU (DetailLines, HexDump, DecodeLines) and its JSON document
// (Doc). The text is sanitized; the JSON is as sent, for
// engine.MarshalOutput to escape.

// TimeText is how a record's time is written on a line: UTC, to the
// microsecond (a capture's timestamps are microseconds or nanoseconds).
const TimeText = "2006-01-02T15:04:05.000000Z07:00"

// TimeJSON is how the JSON document writes a record's time: RFC 3339,
// UTC, to the nanosecond, always nine digits.
const TimeJSON = "2006-01-02T15:04:05.000000000Z07:00"

// Direction returns "out" for a frame this host sent, else "in".
func (r Record) Direction() string {
	if r.Outgoing {
		return "out"
	}
	return "in"
}

// Line is the record on one line of text, sanitized: its number, time,
// interface, direction, sender (Sender), length and what changed
// (ChangesText).
func (r Record) Line() string {
	return fmt.Sprintf("%6d  %s  %s  %-3s  %s  %4d bytes  %s", r.Number, r.At.UTC().Format(TimeText),
		engine.Sanitize(r.Interface), r.Direction(), r.Sender(), len(r.LLDPDU), r.ChangesText())
}

// Sender is the record's source MAC, and the destination's scope when
// it is not the nearest bridge's, where DCBX runs.
func (r Record) Sender() string {
	src := r.Header.Src.String()
	if r.Header.Dst != lldp.NearestBridge {
		src += " (to " + r.Header.Dst.Scope() + ")"
	}
	return src
}

// ChangesText is what changed, "; " between the changes, sanitized.
func (r Record) ChangesText() string { return engine.Sanitize(strings.Join(r.Changes, "; ")) }

// Identical reports an LLDPDU byte for byte its sender's previous one
// (ChangeIdentical, malformed or not).
func (r Record) Identical() bool {
	return len(r.Changes) == 1 && (r.Changes[0] == identical[0] || r.Changes[0] == identicalMalformed[0])
}

// HexDump lays b out as xxd, tshark and lldpcli do: the offset, n bytes
// in hex (a gap after each 8), and the same bytes as ASCII with "." for
// what is not printable (so the ASCII column is safe on a terminal).
func HexDump(b []byte, n int) []string {
	if n <= 0 {
		n = 16
	}
	var out []string
	for off := 0; off < len(b); off += n {
		row := b[off:min(len(b), off+n)]
		var sb strings.Builder
		fmt.Fprintf(&sb, "%04x  ", off)
		for i := range n {
			if i > 0 && i%8 == 0 {
				sb.WriteByte(' ')
			}
			if i < len(row) {
				fmt.Fprintf(&sb, "%02x ", row[i])
			} else {
				sb.WriteString("   ")
			}
		}
		sb.WriteByte(' ')
		for _, c := range row {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			sb.WriteByte(c)
		}
		out = append(out, sb.String())
	}
	return out
}

// nameWidth is the width of the TLV name column of DecodeLines.
const nameWidth = 20

// DecodeLines is the LLDPDU b decoded, one line per TLV as the screen's
// drill-down lays them out (lldp.DescribeLLDPDU): the TLV's name in a
// column, then its values and named fields; a TLV the codec does not
// decode shows its bytes in hex. The codec's findings follow ("finding:
// ..."); an LLDPDU it rejects is one line, "not decoded: ERROR". The
// lines are sanitized.
func DecodeLines(b []byte) []string {
	views, err := lldp.DescribeLLDPDU(b)
	if err != nil {
		return []string{engine.Sanitize("not decoded: " + err.Error())}
	}
	var out []string
	for _, v := range views {
		name := v.Name
		if len(name) < nameWidth {
			name += strings.Repeat(" ", nameWidth-len(name))
		}
		out = append(out, engine.Sanitize(name+" "+decodedText(v)))
	}
	if du, err := lldp.Parse(b); err == nil {
		for _, f := range du.Findings {
			out = append(out, engine.Sanitize("finding: "+f.Message))
		}
	}
	return out
}

// decodedText is a view's values and fields on one line, an undecoded
// TLV's bytes in hex in place of "N bytes, not decoded".
func decodedText(v lldp.TLVView) string {
	if v.Undecoded != nil {
		for i, f := range v.Fields {
			if f.Label == "" {
				fields := append([]lldp.TLVField(nil), v.Fields...)
				fields[i].Value = fmt.Sprintf("%s (%d bytes, not decoded)", hexWords(v.Undecoded), len(v.Undecoded))
				if len(v.Undecoded) == 0 {
					fields[i].Value = "no bytes"
				}
				v.Fields = fields
				break
			}
		}
	}
	return viewText(v)
}

// hexWords writes b as hex bytes separated by spaces: "03 6c 00".
func hexWords(b []byte) string { return fmt.Sprintf("% x", b) }

// DetailLines is the record in full, as text: a heading (number, time,
// interface, direction, addresses, tag, length), what changed, the
// codec's error, then the LLDPDU in hex, width bytes a line (HexDump),
// and decoded (DecodeLines). The lines are sanitized.
func DetailLines(r Record, width int) []string {
	tag := "untagged"
	if r.Header.Tagged {
		tag = fmt.Sprintf("VLAN %d, PCP %d", r.Header.VLAN, r.Header.PCP)
	}
	out := []string{
		fmt.Sprintf("LLDPDU %d · %s · %s · %s", r.Number, r.At.UTC().Format(TimeJSON), engine.Sanitize(r.Interface), r.Direction()),
		fmt.Sprintf("from %s to %s (%s) · %s · %d bytes (EtherType 88cc payload)", r.Header.Src, r.Header.Dst, r.Header.Dst.Scope(), tag, len(r.LLDPDU)),
	}
	for _, c := range r.Changes {
		out = append(out, engine.Sanitize("change: "+c))
	}
	out = append(out, "")
	out = append(out, HexDump(r.LLDPDU, width)...)
	out = append(out, "")
	return append(out, DecodeLines(r.LLDPDU)...)
}

// A Doc is a record as JSON: one NDJSON line of dcbtop -r FILE --frames
// --json.
type Doc struct {
	Number    uint64 `json:"number"`
	Time      string `json:"time"` // TimeJSON
	Interface string `json:"interface"`
	Direction string `json:"direction"` // "in" or "out"
	Src       string `json:"src"`
	Dst       string `json:"dst"`
	// Scope names the LLDP agent of the destination address
	// (lldp.MAC.Scope): "nearest-bridge", ...
	Scope   string   `json:"scope"`
	VLAN    *VLAN    `json:"vlan,omitempty"`
	Length  int      `json:"length"`
	Changes []string `json:"changes"`
	// Error is the codec's reason to reject the LLDPDU, absent when it
	// accepted it.
	Error string `json:"error,omitempty"`
	// Hex is the LLDPDU, two lowercase hex digits a byte.
	Hex string `json:"hex"`
	// TLVs is the decode (lldp.DescribeLLDPDU); empty for an LLDPDU the
	// codec rejects.
	TLVs []TLVDoc `json:"tlvs"`
	// Findings are the codec's findings on the LLDPDU (a TLV discarded,
	// a value the standard forbids).
	Findings []FindingDoc `json:"findings,omitempty"`
}

// A VLAN is a frame's outermost 802.1Q tag.
type VLAN struct {
	ID  uint16 `json:"id"`
	PCP uint8  `json:"pcp"`
}

// A TLVDoc is one TLV of a Doc (an lldp.TLVView).
type TLVDoc struct {
	Type uint8 `json:"type"`
	// OUI and Subtype identify an organizationally specific TLV.
	OUI     string     `json:"oui,omitempty"`
	Subtype *uint8     `json:"subtype,omitempty"`
	Name    string     `json:"name"`
	Fields  []FieldDoc `json:"fields"`
	// Hex is the value of a TLV the codec does not decode.
	Hex string `json:"hex,omitempty"`
}

// A FieldDoc is one field of a TLVDoc: a value of the TLV (no label) or
// a named field.
type FieldDoc struct {
	Label string `json:"label,omitempty"`
	Value string `json:"value"`
}

// A FindingDoc is one of the codec's findings (lldp.Finding).
type FindingDoc struct {
	Code    string `json:"code"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

// Doc returns the record's JSON document, its LLDPDU in hex and decoded.
// Strings from the wire are as sent: write it with engine.MarshalOutput,
// which escapes what a terminal would act on.
func (r Record) Doc() Doc {
	d := Doc{Number: r.Number, Time: r.At.UTC().Format(TimeJSON), Interface: r.Interface, Direction: r.Direction(),
		Src: r.Header.Src.String(), Dst: r.Header.Dst.String(), Scope: r.Header.Dst.Scope(), Length: len(r.LLDPDU),
		Changes: r.Changes, Error: r.Err, Hex: hex.EncodeToString(r.LLDPDU), TLVs: []TLVDoc{}}
	if d.Changes == nil {
		d.Changes = []string{}
	}
	if r.Header.Tagged {
		d.VLAN = &VLAN{ID: r.Header.VLAN, PCP: r.Header.PCP}
	}
	views, err := lldp.DescribeLLDPDU(r.LLDPDU)
	if err != nil {
		return d
	}
	for _, v := range views {
		t := TLVDoc{Type: uint8(v.Type), Name: v.Name, Fields: make([]FieldDoc, len(v.Fields))}
		if v.Type == lldp.TLVTypeOrg && v.OUI != (lldp.OUI{}) {
			sub := v.Subtype
			t.OUI, t.Subtype = v.OUI.String(), &sub
		}
		for i, f := range v.Fields {
			t.Fields[i] = FieldDoc{Label: f.Label, Value: f.Value}
		}
		if v.Undecoded != nil {
			t.Hex = hex.EncodeToString(v.Undecoded)
		}
		d.TLVs = append(d.TLVs, t)
	}
	if du, err := lldp.Parse(r.LLDPDU); err == nil {
		for _, f := range du.Findings {
			d.Findings = append(d.Findings, FindingDoc{Code: string(f.Code), Level: f.Level.String(), Message: f.Message})
		}
	}
	return d
}
