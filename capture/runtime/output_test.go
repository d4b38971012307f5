package runtime

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine"
)

// hostile is a system name with a C1 CSI (clear screen on terminals that
// read C1), a right-to-left override and a zero-width space.
const hostile = "sw\u009b2J\u202eevil\u200b"

// The snapshot (--json) and the indications (--events) escape C1
// controls, bidi overrides and zero-width characters from the wire, so
// that printing them cannot act on a terminal.
func TestOutputEscapesInvisible(t *testing.T) {
	name := hostile
	snap := engine.Snapshot{Interfaces: []engine.Interface{{Name: "eth0", Peers: []engine.Peer{{SystemName: &name}}}}}
	var b bytes.Buffer
	if err := writeJSON(&b, snap); err != nil {
		t.Fatal(err)
	}
	check := func(what, out string) {
		t.Helper()
		for _, r := range []string{"\u009b", "\u202e", "\u200b"} {
			if strings.Contains(out, r) {
				t.Errorf("%s holds %+q unescaped", what, r)
			}
		}
		if !strings.Contains(out, `sw\u009b2J\u202eevil\u200b`) {
			t.Errorf("%s lacks the escaped name: %s", what, out)
		}
	}
	check("--json", b.String())

	b.Reset()
	ew := newEventWriter(&b, true)
	if err := ew.write([]engine.Indication{{Interface: "eth0", Peer: hostile}}); err != nil {
		t.Fatal(err)
	}
	check("--events", b.String())
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("%d lines for one indication", n)
	}
}
