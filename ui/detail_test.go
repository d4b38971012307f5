package ui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
)

// The drill-down lays out any TLV view by its fields alone: a value, a
// list, details after a value, a record, no fields; a long name on a line
// of its own; strings from the wire sanitized.
func TestTLVViewLines(t *testing.T) {
	r := &renderer{st: NoColorStyles(), vs: &viewState{}}
	f := func(label, value string) engine.TLVField { return engine.TLVField{Label: label, Value: value} }
	tests := []struct {
		name string
		v    engine.TLVView
		w    int
		want []string
	}{
		{"value with line breaks", engine.TLVView{Name: "System Description", Fields: []engine.TLVField{f("", "one\r\ntwo\x1b[31m")}}, 60,
			[]string{"System Description   one", "                     two\uFFFD[31m"}},
		{"value and details", engine.TLVView{Name: "System Capabilities", Fields: []engine.TLVField{f("", "bridge"), f("enabled", "none\x07")}}, 60,
			[]string{"System Capabilities  bridge · enabled: none\uFFFD"}},
		{"record wrapped", engine.TLVView{Name: "PFC Configuration", Fields: []engine.TLVField{f("willing", "on"), f("MBC", "off"), f("cap", "8")}}, 40,
			[]string{"PFC Configuration    willing on · MBC", "                     off · cap 8"}},
		{"list wrapped between entries, then details", engine.TLVView{Name: "Application Priority",
			Fields: []engine.TLVField{f("", "udp-port 4791→3"), f("", "dscp 26→3\x00"), f("x", "y")}}, 40,
			[]string{"Application Priority udp-port 4791→3, ", "                     dscp 26→3\uFFFD · x: y"}},
		{"no fields", engine.TLVView{Name: "Application Priority"}, 40, []string{"Application Priority " + "—"}},
		{"long name", engine.TLVView{Name: "MAC/PHY Configuration/Status", Fields: []engine.TLVField{f("", "5 bytes, not decoded")}}, 60,
			[]string{"MAC/PHY Configuration/Status", "                     5 bytes, not decoded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.tlvViewLines(tt.v, tt.w)
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
			for i := range tt.want {
				tt.want[i] = strings.TrimRight(tt.want[i], " ")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tlvViewLines (-want +got):\n%s", diff)
			}
		})
	}
}
