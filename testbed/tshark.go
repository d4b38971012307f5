// SPDX-License-Identifier: Apache-2.0

package testbed

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TsharkFrame is one LLDP frame as Debian's tshark (4.0) decodes it.
//
// It comes from `tshark -n -r FILE -Y lldp -T json -x`: plain -T json keeps
// every field as a "name": "value" member in dissection order, but repeats
// keys (two "Unknown Application" subtrees, the ETS fields of ETS
// Configuration and ETS Recommendation in one frame), so it is read with an
// order-preserving token decoder rather than into a map; -x adds each
// field's raw bytes and offset ("NAME_raw": [hex, offset, length, bitmask,
// type]), from which Raw, TsharkTLV.Raw, OUI and Subtype are taken.
// (-T ek was not used: it renames fields, e.g. lldp.time_to_live becomes
// lldp_lldp_time_to_live, and merges the fields of all TLVs.)
type TsharkFrame struct {
	Number int              // frame.number (1-based, in the file)
	Time   time.Time        // frame.time_epoch
	Src    net.HardwareAddr // eth.src
	Dst    net.HardwareAddr // eth.dst
	Raw    []byte           // the whole frame (frame_raw)
	// Fields holds every field of the lldp layer, flattened over all TLVs
	// and subtrees: tshark field name (as used with -e and in display
	// filters) -> values in frame order. Subtree labels and the _raw
	// members are left out.
	Fields map[string][]string
	// TLVs are the TLVs in frame order, each with its own fields.
	TLVs []TsharkTLV
}

// TsharkTLV is one TLV of a TsharkFrame: one top-level subtree of tshark's
// lldp layer.
type TsharkTLV struct {
	Label   string              // tshark's subtree label, e.g. "IEEE - ETS Configuration", "Time To Live = 4 sec"
	Type    int                 // TLV type (lldp.tlv.type)
	OUI     [3]byte             // type 127: the OUI
	Subtype int                 // type 127: the subtype; -1 otherwise
	Raw     []byte              // the TLV's bytes, header included (nil without -x)
	Fields  map[string][]string // this TLV's fields, as in TsharkFrame.Fields
}

// Get returns the first value of a field of the frame, or "".
func (f *TsharkFrame) Get(field string) string { return firstOf(f.Fields[field]) }

// Get returns the first value of a field of the TLV, or "".
func (t *TsharkTLV) Get(field string) string { return firstOf(t.Fields[field]) }

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// TTL returns lldp.time_to_live.
func (f *TsharkFrame) TTL() (int, bool) {
	v, err := strconv.Atoi(f.Get("lldp.time_to_live"))
	return v, err == nil
}

// Org returns the first organisationally specific TLV with this OUI and
// subtype, or nil.
func (f *TsharkFrame) Org(oui [3]byte, subtype uint8) *TsharkTLV {
	for i := range f.TLVs {
		t := &f.TLVs[i]
		if t.Type == 127 && t.OUI == oui && t.Subtype == int(subtype) {
			return t
		}
	}
	return nil
}

// TsharkLLDP decodes the LLDP frames of a capture file with tshark (see
// TsharkFrame); it fails the test if tshark fails.
func TsharkLLDP(t testing.TB, path string) []TsharkFrame {
	t.Helper()
	RequireCommands(t, "tshark")
	frames, err := DecodeTshark(path)
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	return frames
}

// DecodeTshark runs `tshark -n -r PATH -Y lldp -T json -x` (bounded by
// CommandTimeout) and parses its output with ParseTsharkJSON.
func DecodeTshark(path string) ([]TsharkFrame, error) {
	if _, err := lookCmd("tshark"); err != nil {
		return nil, err
	}
	out, err := run("tshark", "-n", "-r", path, "-Y", "lldp", "-T", "json", "-x")
	if err != nil {
		return nil, err
	}
	return ParseTsharkJSON([]byte(out))
}

// A JSONNode is a JSON value with object members kept in order, repeated
// keys included: tshark -T json repeats keys such as "Unknown
// Application", which encoding/json would merge. Tests that must see every
// field tshark prints walk it.
type JSONNode struct {
	Key   string     // member name within its object ("" in arrays)
	Leaf  bool       // a string, number, boolean or null
	Val   string     // the leaf's value as text
	Array bool       // an array (Kids are its elements)
	Kids  []JSONNode // object members or array elements
}

// DecodeJSON reads one JSON value from dec into a JSONNode. Object members
// that tshark --no-duplicate-keys merged into an array are expanded back
// into repeated members (a NAME_raw member is a genuine array).
func DecodeJSON(dec *json.Decoder) (JSONNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return JSONNode{}, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		switch v := tok.(type) {
		case string:
			return JSONNode{Leaf: true, Val: v}, nil
		case json.Number:
			return JSONNode{Leaf: true, Val: v.String()}, nil
		case nil:
			return JSONNode{Leaf: true}, nil
		default:
			return JSONNode{Leaf: true, Val: fmt.Sprint(v)}, nil
		}
	}
	n := JSONNode{Array: d == '['}
	for dec.More() {
		key := ""
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return n, err
			}
			key, _ = k.(string)
		}
		child, err := DecodeJSON(dec)
		if err != nil {
			return n, err
		}
		if d == '{' && child.Array && !strings.HasSuffix(key, "_raw") {
			for _, c := range child.Kids {
				c.Key = key
				n.Kids = append(n.Kids, c)
			}
			continue
		}
		child.Key = key
		n.Kids = append(n.Kids, child)
	}
	if _, err := dec.Token(); err != nil {
		return n, err
	}
	return n, nil
}

// Path returns the first member at the end of keys, or nil.
func (n *JSONNode) Path(keys ...string) *JSONNode {
	for _, k := range keys {
		if n = n.get(k); n == nil {
			return nil
		}
	}
	return n
}

func (n *JSONNode) get(key string) *JSONNode {
	for i := range n.Kids {
		if n.Kids[i].Key == key {
			return &n.Kids[i]
		}
	}
	return nil
}

// flatten appends every leaf field below n to m, skipping _raw members.
func (n *JSONNode) flatten(m map[string][]string) {
	for i := range n.Kids {
		k := &n.Kids[i]
		switch {
		case strings.HasSuffix(k.Key, "_raw"):
		case k.Leaf:
			m[k.Key] = append(m[k.Key], k.Val)
		default:
			k.flatten(m)
		}
	}
}

// rawOffset returns the offset in a "NAME_raw": [hex, offset, ...] member.
func (n *JSONNode) rawOffset(key string) (int, bool) {
	r := n.get(key)
	if r == nil || len(r.Kids) < 2 || !r.Kids[1].Leaf {
		return 0, false
	}
	v, err := strconv.Atoi(r.Kids[1].Val)
	return v, err == nil
}

// ParseTsharkJSON parses the output of `tshark -T json [-x]` (an array of
// packets) and returns the packets that have an lldp layer. Without -x,
// Raw and TsharkTLV.Raw are nil and OUI/Subtype come from the decoded
// fields (lldp.orgtlv.oui; lldp.ieee.802_1.subtype, lldp.ieee.802_3.subtype,
// lldp.dcbx.proto, ...).
func ParseTsharkJSON(b []byte) ([]TsharkFrame, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	root, err := DecodeJSON(dec)
	if err != nil {
		return nil, fmt.Errorf("testbed: tshark JSON: %w", err)
	}
	if !root.Array {
		return nil, errors.New("testbed: tshark JSON: not an array of packets")
	}
	var frames []TsharkFrame
	for i := range root.Kids {
		pkt := &root.Kids[i]
		src := pkt.get("_source")
		if src == nil {
			continue
		}
		layers := src.get("layers")
		if layers == nil {
			continue
		}
		lldp := layers.get("lldp")
		if lldp == nil {
			continue
		}
		f, err := tsharkFrame(layers, lldp)
		if err != nil {
			return nil, fmt.Errorf("testbed: tshark JSON packet %d: %w", i+1, err)
		}
		frames = append(frames, f)
	}
	return frames, nil
}

func tsharkFrame(layers, lldp *JSONNode) (TsharkFrame, error) {
	f := TsharkFrame{Fields: map[string][]string{}}
	if fr := layers.get("frame"); fr != nil {
		m := map[string][]string{}
		fr.flatten(m)
		f.Number, _ = strconv.Atoi(firstOf(m["frame.number"]))
		if ts := firstOf(m["frame.time_epoch"]); ts != "" {
			t, err := parseEpoch(ts)
			if err != nil {
				return f, err
			}
			f.Time = t
		}
	}
	if eth := layers.get("eth"); eth != nil {
		if n := eth.get("eth.src"); n != nil && n.Leaf {
			f.Src, _ = net.ParseMAC(n.Val)
		}
		if n := eth.get("eth.dst"); n != nil && n.Leaf {
			f.Dst, _ = net.ParseMAC(n.Val)
		}
	}
	if r := layers.get("frame_raw"); r != nil && len(r.Kids) > 0 && r.Kids[0].Leaf {
		raw, err := hex.DecodeString(r.Kids[0].Val)
		if err != nil {
			return f, fmt.Errorf("frame_raw: %w", err)
		}
		f.Raw = raw
	}
	lldp.flatten(f.Fields)
	for i := range lldp.Kids {
		k := &lldp.Kids[i]
		if k.Leaf || k.Array || k.get("lldp.tlv.type") == nil {
			continue
		}
		tlv := TsharkTLV{Label: k.Key, Subtype: -1, Fields: map[string][]string{}}
		k.flatten(tlv.Fields)
		tlv.Type, _ = strconv.Atoi(tlv.Get("lldp.tlv.type"))
		n, _ := strconv.Atoi(tlv.Get("lldp.tlv.len"))
		if off, ok := k.rawOffset("lldp.tlv.type_raw"); ok && f.Raw != nil && off >= 0 && off+2+n <= len(f.Raw) {
			tlv.Raw = f.Raw[off : off+2+n]
		}
		if tlv.Type == 127 {
			if len(tlv.Raw) >= 6 {
				copy(tlv.OUI[:], tlv.Raw[2:5])
				tlv.Subtype = int(tlv.Raw[5])
			} else {
				if v, err := strconv.ParseUint(tlv.Get("lldp.orgtlv.oui"), 0, 24); err == nil {
					tlv.OUI = [3]byte{byte(v >> 16), byte(v >> 8), byte(v)}
				}
				for _, name := range []string{"lldp.ieee.802_1.subtype", "lldp.ieee.802_3.subtype", "lldp.dcbx.proto", "lldp.orgtlv.subtype", "lldp.unknown_subtype"} {
					if v, err := strconv.ParseUint(tlv.Get(name), 0, 8); err == nil {
						tlv.Subtype = int(v)
						break
					}
				}
			}
		}
		f.TLVs = append(f.TLVs, tlv)
	}
	return f, nil
}

// parseEpoch parses "1795305006.765163000".
func parseEpoch(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	si, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("frame.time_epoch %q: %w", s, err)
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		frac += strings.Repeat("0", 9-len(frac))
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("frame.time_epoch %q: %w", s, err)
		}
	}
	return time.Unix(si, ns), nil
}

// Field names of Debian's tshark 4.0 for the IEEE 802.1Qaz TLVs. Note
// tshark's own spellings: it reuses the CEE "pg" names for IEEE ETS
// (pgid_prioN is the priority's traffic class, perN the TC's bandwidth %),
// so in TsharkFrame.Fields those fields list the ETS Configuration value,
// then the Recommendation's, then a CEE PG's; use TsharkTLV.Fields to tell
// them apart. The APP selector field is "lldp.dcbx.iee.app.sf" (sic).
//
// The CEE DCBX TLV (OUI 00-1B-21, subtype 2; TsharkFrame.Org(OUICEE, 2)) has
// lldp.dcbx.proto (the subtype, "0x02") and per sub-TLV lldp.dcbx.type,
// lldp.dcbx.len, lldp.dcbx.version, lldp.dcbx.max_version; Control:
// lldp.dcbx.control.seq, lldp.dcbx.control.ack; feature sub-TLVs:
// lldp.dcbx.feature.enabled, .willing, .error, .subtype; PG:
// lldp.dcbx.feature.pg.pgid_prio0..7, lldp.dcbx.feature.pg.per0..7,
// lldp.dcbx.feature.pg.numtcs ("0x08"); PFC: lldp.dcbx.feature.pfc.prio0..7,
// lldp.dcbx.feature.pfc.numtcs; APP entries: lldp.dcbx.feature.app.proto,
// lldp.dcbx.feature.app.oui ("0x001b21"), lldp.dcbx.feature.app.sf,
// lldp.dcbx.feature.app.prio.
const (
	TsharkWilling     = "lldp.dcbx.ieee.willing"           // ETS Configuration and PFC: willing bit
	TsharkETSCBS      = "lldp.dcbx.ieee.ets.cbs"           // ETS Configuration: CBS bit
	TsharkETSMaxTCs   = "lldp.dcbx.ieee.ets.maxtcs"        // ETS Configuration: raw 3-bit Max TCs (0 means 8)
	TsharkETSPrioFmt  = "lldp.dcbx.feature.pg.pgid_prio%d" // ETS: priority N -> TC (N = 0..7)
	TsharkETSBWFmt    = "lldp.dcbx.feature.pg.per%d"       // ETS: TC N bandwidth %
	TsharkETSTSAFmt   = "lldp.dcbx.ieee.ets.tsa%d"         // ETS: TC N TSA (0 strict, 1 CBS, 2 ETS, 255 vendor)
	TsharkRecoRsvd    = "lldp.dcbx.feature.pg.reserved"    // ETS Recommendation: reserved first byte
	TsharkPFCMBC      = "lldp.dcbx.ieee.pfc.mbc"           // PFC: MBC bit
	TsharkPFCCap      = "lldp.dcbx.ieee.pfc.numtcs"        // PFC: PFC cap (0..15)
	TsharkPFCPrioFmt  = "lldp.dcbx.feature.pfc.prio%d"     // PFC: enable bit of priority N
	TsharkAppReserved = "lldp.dcbx.ieee.app.reserved"      // APP: reserved first byte
	TsharkAppPrio     = "lldp.dcbx.ieee.app.prio"          // APP entry: priority
	TsharkAppSel      = "lldp.dcbx.iee.app.sf"             // APP entry: selector (sic: "iee")
	TsharkAppProto    = "lldp.dcbx.feature.app.proto"      // APP entry: protocol ID, "0x12b7"
)

// TsharkETS is an ETS Configuration (subtype 9) or Recommendation (10) TLV
// as tshark decodes it. Willing, CBS and MaxTCs are zero for a
// Recommendation (which has no such fields).
type TsharkETS struct {
	Willing, CBS bool
	MaxTCs       int    // raw field value: 0 means 8
	PrioTC       [8]int // priority -> traffic class
	BW           [8]int // TC -> bandwidth %
	TSA          [8]int // TC -> transmission selection algorithm
}

// TsharkPFC is a PFC Configuration TLV (subtype 11) as tshark decodes it.
type TsharkPFC struct {
	Willing, MBC bool
	Cap          int     // PFC cap
	Enabled      [8]bool // per priority
}

// TsharkApp is one Application Priority entry (subtype 12).
type TsharkApp struct {
	Prio  int
	Sel   int
	Proto int
}

// An intReader reads integer fields of a TLV with a sticky error: after
// the first failure every read returns 0 and err keeps that failure.
type intReader struct {
	t   *TsharkTLV
	err error
}

// get returns the value idx of the field name (decimal or 0x hex).
func (r *intReader) get(name string, idx int) int {
	if r.err != nil {
		return 0
	}
	v := r.t.Fields[name]
	if idx >= len(v) {
		r.err = fmt.Errorf("%s: no value %d", name, idx)
		return 0
	}
	n, err := strconv.ParseInt(v[idx], 0, 32)
	if err != nil {
		r.err = fmt.Errorf("%s: %w", name, err)
		return 0
	}
	return int(n)
}

// ets decodes the common ETS tables of a TLV.
func (t *TsharkTLV) ets(config bool) (TsharkETS, error) {
	var e TsharkETS
	r := intReader{t: t}
	if config {
		e.Willing = r.get(TsharkWilling, 0) != 0
		e.CBS = r.get(TsharkETSCBS, 0) != 0
		e.MaxTCs = r.get(TsharkETSMaxTCs, 0)
	}
	for i := range 8 {
		e.PrioTC[i] = r.get(fmt.Sprintf(TsharkETSPrioFmt, i), 0)
		e.BW[i] = r.get(fmt.Sprintf(TsharkETSBWFmt, i), 0)
		e.TSA[i] = r.get(fmt.Sprintf(TsharkETSTSAFmt, i), 0)
	}
	return e, r.err
}

// ETSConfig decodes the frame's first ETS Configuration TLV.
func (f *TsharkFrame) ETSConfig() (TsharkETS, error) {
	t := f.Org(OUI8021, 9)
	if t == nil {
		return TsharkETS{}, errors.New("no ETS Configuration TLV")
	}
	return t.ets(true)
}

// ETSReco decodes the frame's first ETS Recommendation TLV.
func (f *TsharkFrame) ETSReco() (TsharkETS, error) {
	t := f.Org(OUI8021, 10)
	if t == nil {
		return TsharkETS{}, errors.New("no ETS Recommendation TLV")
	}
	return t.ets(false)
}

// PFC decodes the frame's first PFC Configuration TLV.
func (f *TsharkFrame) PFC() (TsharkPFC, error) {
	t := f.Org(OUI8021, 11)
	if t == nil {
		return TsharkPFC{}, errors.New("no PFC Configuration TLV")
	}
	r := intReader{t: t}
	p := TsharkPFC{Willing: r.get(TsharkWilling, 0) != 0, MBC: r.get(TsharkPFCMBC, 0) != 0, Cap: r.get(TsharkPFCCap, 0)}
	for i := range 8 {
		p.Enabled[i] = r.get(fmt.Sprintf(TsharkPFCPrioFmt, i), 0) != 0
	}
	return p, r.err
}

// App decodes the entries of the frame's first Application Priority TLV, in
// frame order.
func (f *TsharkFrame) App() ([]TsharkApp, error) {
	t := f.Org(OUI8021, 12)
	if t == nil {
		return nil, errors.New("no Application Priority TLV")
	}
	n := len(t.Fields[TsharkAppPrio])
	if len(t.Fields[TsharkAppSel]) != n || len(t.Fields[TsharkAppProto]) != n {
		return nil, fmt.Errorf("APP: %d priorities, %d selectors, %d protocols",
			n, len(t.Fields[TsharkAppSel]), len(t.Fields[TsharkAppProto]))
	}
	r := intReader{t: t}
	apps := make([]TsharkApp, n)
	for i := range apps {
		apps[i] = TsharkApp{Prio: r.get(TsharkAppPrio, i), Sel: r.get(TsharkAppSel, i), Proto: r.get(TsharkAppProto, i)}
	}
	if r.err != nil {
		return nil, r.err
	}
	return apps, nil
}
