// SPDX-License-Identifier: Apache-2.0

package engine

import (
	"encoding/json"
	"testing"
)

func TestEscapeJSONText(t *testing.T) {
	tests := []struct {
		in   string // a Go string, marshalled first
		want string // the JSON text after escaping
	}{
		{"plain", `"plain"`},
		{"caf\u00e9 \u00fc \u4e2d", "\"caf\u00e9 \u00fc \u4e2d\""},
		{"a\u009b2Jb", `"a\u009b2Jb"`},               // C1 CSI
		{"\u0080\u009f", `"\u0080\u009f"`},           // C1 bounds
		{"x\u00a0y", "\"x\u00a0y\""},                 // NBSP is visible
		{"evil\u202egnp.exe", `"evil\u202egnp.exe"`}, // RLO
		{"\u2066a\u2069\u061c\u200e\u200f", `"\u2066a\u2069\u061c\u200e\u200f"`},
		{"zero\u200bwidth\u200c\u200d\u2060\ufeff", `"zero\u200bwidth\u200c\u200d\u2060\ufeff"`},
		{"soft\u00adhyphen", `"soft\u00adhyphen"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"\x1b[2J", `"\u001b[2J"`}, // C0: encoding/json already escapes
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got := EscapeJSONText(b)
		if string(got) != tt.want {
			t.Errorf("EscapeJSONText(%q) = %s, want %s", b, got, tt.want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != tt.in {
			t.Errorf("%s decodes to %q (%v), want %q", got, back, err, tt.in)
		}
	}
}

func TestEscapeJSONTextNoAlloc(t *testing.T) {
	b := []byte(`{"system_name":"leaf-1 caf\u00e9","ttl_s":120}`)
	if n := testing.AllocsPerRun(100, func() { EscapeJSONText(b) }); n != 0 {
		t.Errorf("%v allocations for text with nothing to escape", n)
	}
}

func FuzzEscapeJSONText(f *testing.F) {
	for _, s := range []string{"", "plain", "a\u009bb", "\u202e\u200b", "\xff\xfe", "\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := EscapeJSONText(b)
		var back, want string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s does not decode: %v", got, err)
		}
		_ = json.Unmarshal(b, &want)
		if back != want {
			t.Fatalf("%s decodes to %q, want %q", got, back, want)
		}
		for _, r := range string(got) {
			if invisible(r) {
				t.Fatalf("%s still holds U+%04X", got, r)
			}
		}
	})
}

// An OutputEncoder writes exactly what MarshalOutput writes on one line,
// value after value, through its one buffer.
func TestOutputEncoderLine(t *testing.T) {
	var enc OutputEncoder
	values := []any{
		Indication{Interface: "eth0", Status: StatusRemote, Reason: ReasonChanged, Flags: FlagETSConfigured | FlagPFCChanged, Peer: "sw\u009b1 <a&b>"},
		Indication{Interface: "eth1"},
		map[string]string{"k": "\u202e\u2028 plain"},
		Flags(0),
	}
	for i, v := range values {
		want, err := MarshalOutput(v, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.Line(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("value %d: Line %q, MarshalOutput %q", i, got, want)
		}
	}
	if _, err := enc.Line(func() {}); err == nil {
		t.Error("a value JSON cannot carry gave no error")
	}
}
