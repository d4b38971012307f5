// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"errors"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/qos"
)

// t opens the tune form: each knob with what the NIC holds now; what is
// typed is parsed as dcbtop apply parses it (a bad value said in the
// form, nothing asked of the backend), enter has the backend preview it
// in the fix dialog, y writes it and u previews its undo.
func TestTuneForm(t *testing.T) {
	be := &fakeBackend{caps: Caps{CanWrite: true, CanAgent: true},
		fixUndo: &FixPreview{Fix: qos.Fix{Change: qos.Change{MaxRate: []qos.TCRate{{TC: 3}}}}, Lines: []string{"maxrate TC3 25 Gbit/s → unlimited"}}}
	h := newHarness(t, losslessSnap(t), be)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("t")
	if h.m.vs.tune == nil {
		t.Fatalf("t: no tune form:\n%s", h.screen())
	}
	h.wantScreen("Tune host QoS on eth0", "rate limits", "PFC storm timeout", "DCBX mode", "DSCP rewrite", "--maxrate", "enter preview")
	h.golden("tune_form")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.golden("tune_form_80x24")
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	// Nothing typed: nothing to change, no backend call.
	h.press("enter")
	h.wantScreen("nothing to change")
	// A bad value is said in the form.
	h.typeText("3:fast")
	h.press("enter")
	h.wantScreen("rate limits:")
	if h.m.vs.dialog != nil {
		t.Fatal("a bad value opened the dialog")
	}
	for range len("fast") {
		h.press("backspace")
	}
	h.typeText("25gbit")
	h.press("tab")
	h.typeText("300")
	h.press("enter")
	if d := h.m.vs.dialog; d == nil || d.kind != dialogFix {
		t.Fatalf("enter: no preview dialog:\n%s", h.screen())
	}
	h.wantScreen("Tune host QoS on eth0", "--maxrate 3:25gbit", "--pfc-storm-timeout 300", "- some-diagnostic", "y write it")
	// A snapshot with the same parameters in force (the next counters
	// sample) is no remote update: the dialog does not say it is.
	h.send(snapshotMsg{losslessSnap(t)})
	h.wantNotScreen("changed while this was open")
	h.press("y")
	h.wantScreen("eth0: written and read back")
	h.press("u")
	h.wantScreen("Undo the last fix on eth0", "maxrate TC3 25 Gbit/s → unlimited")
	h.press("y")
	want := []string{"PreviewQoS(eth0, [--maxrate 3:25gbit --pfc-storm-timeout 300])",
		"ApplyQoS(eth0, [--maxrate 3:25gbit --pfc-storm-timeout 300], undo false)", "QoSUndo(eth0)", "ApplyQoS(eth0, [--maxrate 3:0], undo true)"}
	if diff := cmp.Diff(want, be.Calls()); diff != "" {
		t.Errorf("backend calls (-want +got):\n%s", diff)
	}
}

// What the backend's preview refuses (the driver's capabilities) stays
// in the form, which keeps what was typed; esc cancels, nothing written.
func TestTuneRefused(t *testing.T) {
	be := &fakeBackend{caps: Caps{CanWrite: true}, previewErr: errors.New("the driver has no PFC storm prevention timeout (no ethtool tunable pfc-prevention-tout)")}
	h := newHarness(t, losslessSnap(t), be)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("t", "down")
	h.typeText("500")
	h.press("enter")
	if h.m.vs.tune == nil || h.m.vs.tune.text[tuneStorm] != "500" || h.m.vs.dialog != nil {
		t.Fatalf("after a refused preview: form %+v, dialog %v", h.m.vs.tune, h.m.vs.dialog)
	}
	h.wantScreen("the driver has no PFC storm prevention timeout")
	h.press("esc")
	h.wantScreen("tune cancelled: nothing was changed")
	for _, c := range be.Calls() {
		if len(c) > 8 && c[:8] == "ApplyQoS" {
			t.Errorf("refused, yet %s", c)
		}
	}
}

// A replay's screen cannot tune: t says why.
func TestTuneReadOnly(t *testing.T) {
	h := newHarness(t, losslessSnap(t), nil)
	h.press("t")
	if h.m.vs.tune != nil {
		t.Fatal("t opened the form without a backend")
	}
	h.wantScreen("tune host QoS unavailable")
}

// Every field parses as dcbtop apply's flag of the same knob.
func TestTuneChange(t *testing.T) {
	ms := uint16(0xffff)
	mode, _ := qos.ParseDCBXMode("host,ieee")
	f := tuneForm{text: [numTuneFields]string{"0:10gbit", "auto", "host,ieee", "3:26", "5"}}
	got, err := f.change()
	if err != nil {
		t.Fatal(err)
	}
	want := qos.Change{MaxRate: []qos.TCRate{{TC: 0, Kbps: 10_000_000}}, PFCStormTimeout: &ms, DCBXMode: &mode,
		RewriteDSCP: []qos.PrioDSCP{{Priority: 3, DSCP: 26}}, RewriteDSCPDelete: []uint8{5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	f = tuneForm{text: [numTuneFields]string{"", "", "firmware", "", "9"}}
	if _, err := f.change(); err == nil {
		t.Error("bad DCBX mode and priority parsed")
	}
}
