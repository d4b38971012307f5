// SPDX-License-Identifier: Apache-2.0

package output

import (
	"bytes"
	"encoding/json"
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
	if err := New(&b, JSON).Snapshot(snap); err != nil {
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
	ew := New(&b, JSON, WithHost(hostile))
	if err := ew.Indications([]engine.Indication{{Interface: "eth0", Peer: hostile}}); err != nil {
		t.Fatal(err)
	}
	check("--events", b.String())
	if strings.Count(b.String(), `sw\u009b2J\u202eevil\u200b`) != 2 {
		t.Errorf("--events: the peer and the host name are not both escaped: %s", b.String())
	}
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("%d lines for one indication", n)
	}
}

// A dumb terminal gets each indication as a plain line.
func TestTextEvents(t *testing.T) {
	var b bytes.Buffer
	ew := New(&b, Text, WithHost("node1"))
	at := time.Date(2026, 11, 25, 10, 0, 1, 0, time.UTC)
	in := engine.Indication{Time: at, Interface: "eth0", Status: engine.StatusRemote, Reason: engine.ReasonFirstReceipt,
		Flags: engine.FlagPFCConfigured | engine.FlagPFCChanged, Peer: "mac 02:00:00:00:00:01 / ifname swp1\x1b[2J"}
	if err := ew.Indications([]engine.Indication{in}); err != nil {
		t.Fatal(err)
	}
	want := "10:00:01.000 eth0 QOS_REMOTE_PARAMETERS_CHANGE first-receipt PFC_CONFIGURED|PFC_CHANGED peer mac 02:00:00:00:00:01 / ifname swp1\ufffd[2J\n"
	if b.String() != want {
		t.Errorf("line %q, want %q", b.String(), want)
	}
}

// TestEventLines: each NDJSON line names the host and carries an event
// ID that the same event always gets (on another run, in a replay) and
// another event does not; the engine's slice is left as it was; a
// replay's lines have the ID and no host.
func TestEventLines(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 1, 5, time.UTC)
	base := engine.Indication{Time: at, Interface: "eth0", Status: engine.StatusRemote, Reason: engine.ReasonFirstReceipt,
		Flags: engine.FlagPFCConfigured, Peer: "mac 02:00:00:00:00:01 / ifname swp1"}
	line := func(host string, in engine.Indication) map[string]any {
		t.Helper()
		var b bytes.Buffer
		ins := []engine.Indication{in}
		if err := New(&b, JSON, WithHost(host)).Indications(ins); err != nil {
			t.Fatal(err)
		}
		if ins[0].Host != "" || ins[0].ID != 0 {
			t.Errorf("the engine's indication was stamped: %+v", ins[0])
		}
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, b.String())
		}
		return m
	}
	first := line("node1", base)
	if first["host"] != "node1" {
		t.Errorf("host %v, want node1", first["host"])
	}
	id, _ := first["id"].(string)
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("id %q: want 16 hexadecimal digits", id)
	}
	if again := line("node1", base); again["id"] != id {
		t.Errorf("the same event got id %v, then %v", id, again["id"])
	}
	other := func(f func(*engine.Indication)) engine.Indication { in := base; f(&in); return in }
	for name, in := range map[string]engine.Indication{
		"time":      other(func(in *engine.Indication) { in.Time = in.Time.Add(time.Nanosecond) }),
		"interface": other(func(in *engine.Indication) { in.Interface = "eth1" }),
		"status":    other(func(in *engine.Indication) { in.Status = engine.StatusOperational }),
		"reason":    other(func(in *engine.Indication) { in.Reason = engine.ReasonChanged }),
		"flags":     other(func(in *engine.Indication) { in.Flags |= engine.FlagPFCChanged }),
		"peer":      other(func(in *engine.Indication) { in.Peer = "mac 02:00:00:00:00:02 / ifname swp1" }),
	} {
		if m := line("node1", in); m["id"] == id {
			t.Errorf("another %s, the same id %v", name, id)
		}
	}
	replay := line("", base)
	if _, ok := replay["host"]; ok || replay["id"] != id {
		t.Errorf("replay line: host %v, id %v; want no host and the live event's id %s", replay["host"], replay["id"], id)
	}
	in := base
	if n := testing.AllocsPerRun(100, func() { in.Stamp("node1") }); n != 0 {
		t.Errorf("Stamp allocates %v times", n)
	}
}
