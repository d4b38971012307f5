package session

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
	ew := newEventWriter(&b, true, false)
	if err := ew.write([]engine.Indication{{Interface: "eth0", Peer: hostile}}); err != nil {
		t.Fatal(err)
	}
	check("--events", b.String())
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("%d lines for one indication", n)
	}
}

// A dumb terminal gets each indication as a plain line.
func TestTextEvents(t *testing.T) {
	var b bytes.Buffer
	ew := newEventWriter(&b, true, true)
	at := time.Date(2026, 11, 25, 10, 0, 1, 0, time.UTC)
	in := engine.Indication{Time: at, Interface: "eth0", Status: engine.StatusRemote, Reason: engine.ReasonFirstReceipt,
		Flags: engine.FlagPFCConfigured | engine.FlagPFCChanged, Peer: "mac 02:00:00:00:00:01 / ifname swp1\x1b[2J"}
	if err := ew.write([]engine.Indication{in}); err != nil {
		t.Fatal(err)
	}
	want := "10:00:01.000 eth0 QOS_REMOTE_PARAMETERS_CHANGE first-receipt PFC_CONFIGURED|PFC_CHANGED peer mac 02:00:00:00:00:01 / ifname swp1\ufffd[2J\n"
	if b.String() != want {
		t.Errorf("line %q, want %q", b.String(), want)
	}
}
