// SPDX-License-Identifier: Apache-2.0

package frames

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/engine/lldp/lldptest"
)

// record is the ring's record of frame f after prev (nil: none) from the
// same sender.
func record(t *testing.T, prev, f Frame) Record {
	t.Helper()
	tr := NewTracker(0)
	if prev.Data != nil {
		tr.Next(prev)
	}
	rec, ok := tr.Next(f)
	if !ok {
		t.Fatal("not an LLDP frame")
	}
	return rec
}

// TestLine: a record on one line of text.
func TestLine(t *testing.T) {
	a := lldptest.MacA
	tests := []struct {
		name string
		prev Frame
		f    Frame
		want string
	}{
		{"first", Frame{}, fr(1, lldptest.Frame(t, a, 120, lldptest.PFC3)),
			"     1  2026-03-01T12:00:01.000000Z  eth0  in   02:00:00:00:00:0a    46 bytes  first from this sender"},
		{"two changes", fr(1, lldptest.Frame(t, a, 120, lldptest.PFC3)), fr(2, lldptest.Frame(t, a, 120, &lldp.PFC{Willing: true, Cap: 8, Enabled: 0x18})),
			"     2  2026-03-01T12:00:02.000000Z  eth0  in   02:00:00:00:00:0a    46 bytes  PFC enabled 3 → 3,4; PFC willing off → on"},
		{"sent, to another agent", Frame{}, Frame{At: at(3), Interface: "eth1", Outgoing: true, Data: lldptest.FrameTo(t, lldp.NearestCustomerBridge, a, 120)},
			"     1  2026-03-01T12:00:03.000000Z  eth1  out  02:00:00:00:00:0a (to nearest-customer-bridge)    46 bytes  first from this sender"},
		{"wire strings sanitized", fr(1, named(t, a, 120, "leaf1")), Frame{At: at(2), Interface: "eth\x1b0", Data: named(t, a, 120, "\x1b[2Jevil\u202e")},
			"     2  2026-03-01T12:00:02.000000Z  eth\ufffd0  in   02:00:00:00:00:0a    46 bytes  first from this sender"},
		{"a changed name sanitized", fr(1, named(t, a, 120, "leaf1")), fr(2, named(t, a, 120, "\x1b[2Jevil\u202e")),
			"     2  2026-03-01T12:00:02.000000Z  eth0  in   02:00:00:00:00:0a    46 bytes  System Name leaf1 → \ufffd[2Jevil\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(t, tt.prev, tt.f)
			if diff := cmp.Diff(tt.want, rec.Line()); diff != "" {
				t.Errorf("Line (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDetailLines: a record's heading, changes, hex and decode.
func TestDetailLines(t *testing.T) {
	f := lldptest.Frame(t, lldptest.MacA, 120, lldptest.PFC3,
		&lldp.RawTLV{T: lldp.TLVTypeOrg, Value: []byte{0x00, 0x12, 0xbb, 0x01, 0xde, 0xad}})
	got := DetailLines(record(t, Frame{}, fr(1, f)), 16)
	want := []string{
		"LLDPDU 1 · 2026-03-01T12:00:01.000000000Z · eth0 · in",
		"from 02:00:00:00:00:0a to 01:80:c2:00:00:0e (nearest-bridge) · untagged · 47 bytes (EtherType 88cc payload)",
		"change: first from this sender",
		"",
		"0000  02 07 04 02 00 00 00 00  0a 04 05 05 73 77 70 31  ............swp1",
		"0010  06 02 00 78 0a 07 6c 65  61 66 2d 30 61 fe 06 00  ...x..leaf-0a...",
		"0020  80 c2 0b 08 08 fe 06 00  12 bb 01 de ad 00 00     ...............",
		"",
		"Chassis ID           mac 02:00:00:00:00:0a",
		"Port ID              ifname swp1",
		"Time To Live         120 s",
		"System Name          leaf-0a",
		"PFC Configuration    willing off · MBC off · cap 8 · enabled on 3",
		"Organizationally Specific de ad (2 bytes, not decoded) · OUI 00-12-bb · subtype 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DetailLines (-want +got):\n%s", diff)
	}
	// A malformed LLDPDU: its error, and no decode.
	got = DetailLines(record(t, Frame{}, fr(1, malformed(t, lldptest.MacA))), 8)
	if last := got[len(got)-1]; last != "not decoded: lldp: TLV Port ID at offset 9: truncated: length 5 but 1 bytes left" {
		t.Errorf("malformed: last line %q", last)
	}
}

// TestDoc: a record's JSON document, wire strings escaped as every
// output of dcbtop is.
func TestDoc(t *testing.T) {
	a := lldptest.MacA
	rec := record(t, fr(1, named(t, a, 120, "leaf1", lldptest.PFC3)), Frame{At: at(2).Add(123456789), Interface: "eth0",
		Data: named(t, a, 120, "leaf\u202e2", lldptest.PFC3, &lldp.RawTLV{T: 12, Value: []byte{1, 2}})})
	b, err := engine.MarshalOutput(rec.Doc(), false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(string(b), '\u202e') {
		t.Errorf("U+202E not escaped: %s", b)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"number": 2.0, "time": "2026-03-01T12:00:02.123456789Z", "interface": "eth0", "direction": "in",
		"src": "02:00:00:00:00:0a", "dst": "01:80:c2:00:00:0e", "scope": "nearest-bridge", "length": 46.0,
		"changes": []any{"System Name leaf1 → leaf\u202e2", "+ Reserved 2 bytes, not decoded · type 12"},
		"hex":     "02070402000000000a04050573777031060200780a086c656166e280ae32fe060080c20b08081802010200000000",
		"tlvs": []any{
			map[string]any{"type": 1.0, "name": "Chassis ID", "fields": []any{map[string]any{"value": "mac 02:00:00:00:00:0a"}}},
			map[string]any{"type": 2.0, "name": "Port ID", "fields": []any{map[string]any{"value": "ifname swp1"}}},
			map[string]any{"type": 3.0, "name": "Time To Live", "fields": []any{map[string]any{"value": "120 s"}}},
			map[string]any{"type": 5.0, "name": "System Name", "fields": []any{map[string]any{"value": "leaf\u202e2"}}},
			map[string]any{"type": 127.0, "oui": "00-80-c2", "subtype": 11.0, "name": "PFC Configuration", "fields": []any{
				map[string]any{"label": "willing", "value": "off"}, map[string]any{"label": "MBC", "value": "off"},
				map[string]any{"label": "cap", "value": "8"}, map[string]any{"label": "enabled on", "value": "3"}}},
			map[string]any{"type": 12.0, "name": "Reserved", "hex": "0102", "fields": []any{
				map[string]any{"value": "2 bytes, not decoded"}, map[string]any{"label": "type", "value": "12"}}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Doc (-want +got):\n%s", diff)
	}
	// A malformed LLDPDU: its error, its bytes, no TLVs.
	bad := record(t, Frame{}, fr(1, malformed(t, a))).Doc()
	if bad.Error == "" || len(bad.TLVs) != 0 || bad.TLVs == nil || bad.Hex == "" {
		t.Errorf("malformed: %+v", bad)
	}
}
