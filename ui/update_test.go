// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// fakeBackend records every call and answers from its fields.
type fakeBackend struct {
	mu    sync.Mutex
	calls []string

	caps       Caps
	applied    []*dcb.Params // the local parameters of each Apply
	applyText  string
	applyErr   error
	exportPath string
	exported   []engine.Snapshot
	// undo is what Undo restores (UndoState), nil: nothing to undo. An
	// Apply sets it to applyUndo when that is set; an Undo clears it.
	undo      *engine.LocalState
	applyUndo *engine.LocalState
	// fixes are what QoSFixes answers; an ApplyQoS of a fix makes fixUndo
	// the pending undo (QoSUndo), an undo clears it.
	fixes       []FixPreview
	fixUndo     *FixPreview
	pendingUndo *FixPreview
	// previewErr is what PreviewQoS refuses with (nil: it previews the
	// change in the words of qos.Change.Args).
	previewErr error
}

func (f *fakeBackend) record(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func ptrWords(b *bool) string {
	if b == nil {
		return "nil"
	}
	return dcb.OnOff(*b)
}

// withCaps is s as the engine of the backend's host decides it: every
// interface has the backend's capabilities (what the real backend's
// snapshots carry, engine.Interface.Caps).
func (f *fakeBackend) withCaps(s engine.Snapshot) engine.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.caps == (Caps{}) {
		return s
	}
	s.Interfaces = slices.Clone(s.Interfaces)
	for i := range s.Interfaces {
		s.Interfaces[i].Caps = f.caps
	}
	return s
}

func (f *fakeBackend) Apply(iface string, willing *bool, local *dcb.Params) (string, error) {
	f.record("Apply(%s, willing %s, local %v)", iface, ptrWords(willing), local != nil)
	if f.caps != (Caps{}) && !f.caps.CanWrite {
		return "", errors.New(f.caps.WriteWhy()) // the host layer decides again at the write
	}
	f.mu.Lock()
	f.applied = append(f.applied, local)
	if f.applyUndo != nil && f.applyErr == nil {
		u := *f.applyUndo
		f.undo = &u
	}
	f.mu.Unlock()
	return f.applyText, f.applyErr
}

func (f *fakeBackend) Undo(iface string) (string, error) {
	f.record("Undo(%s)", iface)
	f.mu.Lock()
	f.undo = nil
	f.mu.Unlock()
	return "restored willing on; read back: willing on", nil
}

func (f *fakeBackend) UndoState(iface string) (engine.LocalState, bool) {
	f.record("UndoState(%s)", iface)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.undo == nil {
		return engine.LocalState{}, false
	}
	return *f.undo, true
}

func (f *fakeBackend) Export(s engine.Snapshot) (string, error) {
	f.record("Export(%d interfaces)", len(s.Interfaces))
	f.mu.Lock()
	f.exported = append(f.exported, s)
	f.mu.Unlock()
	return f.exportPath, nil
}

func (f *fakeBackend) SetAgent(iface string, on bool) (string, error) {
	f.record("SetAgent(%s, %s)", iface, dcb.OnOff(on))
	if f.caps != (Caps{}) && !f.caps.CanAgent {
		return "", errors.New(f.caps.AgentWhy())
	}
	return "agent " + dcb.OnOff(on), nil
}

// QoSFixes answers fixes (FixPreview) when set.
func (f *fakeBackend) QoSFixes(iface string) ([]FixPreview, error) {
	f.record("QoSFixes(%s)", iface)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fixes, nil
}

// ApplyQoS records the change; a fix leaves fixUndo as its undo.
func (f *fakeBackend) ApplyQoS(iface string, change qos.Change, undo bool) (string, error) {
	f.record("ApplyQoS(%s, %v, undo %v)", iface, change.Args(), undo)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pendingUndo = nil
	if !undo && f.fixUndo != nil {
		u := *f.fixUndo
		f.pendingUndo = &u
	}
	return "written and read back", nil
}

// QoSUndo answers the undo of the last ApplyQoS of a fix.
func (f *fakeBackend) QoSUndo(iface string) (FixPreview, bool) {
	f.record("QoSUndo(%s)", iface)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pendingUndo == nil {
		return FixPreview{}, false
	}
	return *f.pendingUndo, true
}

// PreviewQoS records the change and previews it (previewErr: refuses).
func (f *fakeBackend) PreviewQoS(iface string, change qos.Change) (FixPreview, error) {
	f.record("PreviewQoS(%s, %v)", iface, change.Args())
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.previewErr != nil {
		return FixPreview{}, f.previewErr
	}
	return FixPreview{Fix: qos.Fix{Change: change, Why: "typed"}, Lines: []string{strings.Join(change.Args(), " ")}, Changes: []string{"- some-diagnostic"}}, nil
}

var _ Backend = (*fakeBackend)(nil)

// keyPress builds the key message a terminal would send for s.
func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "insert":
		return tea.KeyPressMsg{Code: tea.KeyInsert}
	case "delete":
		return tea.KeyPressMsg{Code: tea.KeyDelete}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic("keyPress: unknown key " + s)
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// harness drives a Model the way Bubble Tea does: messages go to Update,
// the commands it returns run (synchronously) and their messages go back.
type harness struct {
	t  *testing.T
	m  Model
	be *fakeBackend
}

func newHarness(t *testing.T, snap engine.Snapshot, be *fakeBackend, opts ...Option) *harness {
	t.Helper()
	clock := func() time.Time { return snap.TakenAt.Add(2 * time.Second) }
	opts = append([]Option{WithColor(ColorNever), WithClock(clock), WithLocation(time.UTC), WithOverview(false)}, opts...)
	if be != nil {
		opts = append(opts, WithBackend(be))
	}
	h := &harness{t: t, m: NewModel(nil, opts...), be: be}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.send(snapshotMsg{snap})
	return h
}

// send delivers msg and runs every command that follows.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0; n++ {
		if n > 100 {
			h.t.Fatal("message loop does not settle")
		}
		msg, queue = queue[0], queue[1:]
		if sm, ok := msg.(snapshotMsg); ok && h.be != nil {
			msg = snapshotMsg{h.be.withCaps(sm.snap)}
		}
		mm, cmd := h.m.Update(msg)
		h.m = mm.(Model)
		queue = append(queue, runCmd(cmd)...)
	}
}

func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// press sends keys one after another.
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyPress(k))
	}
}

// typeText types each character of s.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(keyPress(string(r)))
	}
}

// screen is the current View's text, escapes stripped.
func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

func (h *harness) wantScreen(subs ...string) {
	h.t.Helper()
	s := h.screen()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			h.t.Errorf("screen lacks %q:\n%s", sub, s)
		}
	}
}

// golden compares the screen with testdata/<Test>/<name>.golden.
func (h *harness) golden(name string) {
	h.t.Helper()
	h.t.Run(name, func(t *testing.T) {
		out := h.m.View().Content
		checkFrame(t, out, h.m.width, h.m.height)
		golden.RequireEqual(t, out)
	})
}

func (h *harness) wantNotScreen(subs ...string) {
	h.t.Helper()
	s := h.screen()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			h.t.Errorf("screen has %q:\n%s", sub, s)
		}
	}
}

func (h *harness) wantCalls(want ...string) {
	h.t.Helper()
	if diff := cmp.Diff(want, h.be.Calls()); diff != "" {
		h.t.Errorf("backend calls (-want +got):\n%s", diff)
	}
}

func writable() *fakeBackend {
	return &fakeBackend{caps: Caps{CanWrite: true, CanAgent: true}, applyText: "willing off; read back: willing off, ETS/PFC local"}
}

func TestWillingConfirm(t *testing.T) {
	be := writable()
	s := firstReceipt(t)
	h := newHarness(t, s, be)
	h.press("w")
	if h.m.vs.dialog == nil {
		t.Fatalf("no confirmation dialog after w:\n%s", h.screen())
	}
	h.wantScreen("Toggle Willing on eth0", "Local Willing: ON → OFF", "What operational becomes (preview):",
		"ETS from remote-reco → local (local: local Willing is off)", "ETS TC0 bandwidth 40% → 50%", "y set Willing off")
	// The dialog asks the backend nothing: the snapshot says Willing may
	// change and what operational would become (engine.PreviewOperational).
	h.wantCalls()
	h.golden("dialog")
	h.press("y")
	if h.m.vs.dialog != nil {
		t.Fatal("dialog still open after y")
	}
	h.wantScreen("✓ eth0: willing off; read back: willing off, ETS/PFC local")
	h.wantCalls("Apply(eth0, willing off, local false)")
}

func TestWillingCancel(t *testing.T) {
	for _, key := range []string{"n", "esc"} {
		t.Run(key, func(t *testing.T) {
			be := writable()
			h := newHarness(t, firstReceipt(t), be)
			h.press("w", key)
			if h.m.vs.dialog != nil {
				t.Fatal("dialog still open")
			}
			h.wantScreen("cancelled: nothing was changed")
			for _, c := range be.Calls() {
				if strings.HasPrefix(c, "Apply") {
					t.Errorf("backend applied after cancel: %v", be.Calls())
				}
			}
		})
	}
}

func TestWillingError(t *testing.T) {
	be := writable()
	be.applyErr = errors.New("IEEE_SET: \x1b[31moperation not supported")
	h := newHarness(t, firstReceipt(t), be)
	h.press("w", "y")
	h.wantScreen("✗ eth0: toggle Willing failed: IEEE_SET: �[31moperation not supported")
}

func TestEditValidation(t *testing.T) {
	be := writable()
	h := newHarness(t, mismatch(t), be)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.press("e")
	f := h.m.vs.form
	if f == nil {
		t.Fatalf("no form after e:\n%s", h.screen())
	}
	h.wantScreen("Edit local parameters · eth0", "✓ valid")
	// TC1 bandwidth 50 → 40: the bandwidths sum to 90.
	h.press("down", "right")
	h.typeText("40")
	if got := h.m.vs.form.bw[1]; got != "40" {
		t.Fatalf("TC1 bandwidth field = %q, want 40", got)
	}
	h.wantScreen("✗ ets: TC bandwidths sum to 90%, want 100%", "enter apply (disabled: 1 error)")
	h.golden("sum_90_at_80x24")
	h.press("enter")
	if h.m.vs.dialog != nil {
		t.Fatal("apply dialog opened with an invalid form")
	}
	h.wantScreen("cannot apply: fix 1 error first")
	for _, c := range be.Calls() {
		if strings.HasPrefix(c, "Preview") || strings.HasPrefix(c, "Apply") {
			t.Errorf("backend called with invalid parameters: %v", be.Calls())
		}
	}
	// TC0 50 → 60 makes it valid again: a preview, then apply.
	h.press("left")
	h.typeText("60")
	h.wantScreen("✓ valid", "ETS TC0 bandwidth 50% → 60%", "ETS TC1 bandwidth 50% → 40%")
	h.wantNotScreen("sum to")
	h.press("enter")
	if h.m.vs.dialog == nil || h.m.vs.dialog.kind != dialogApply {
		t.Fatalf("no apply dialog:\n%s", h.screen())
	}
	h.wantScreen("Apply local parameters on eth0", "Local parameters change:")
	h.golden("apply_dialog_at_80x24")
	h.press("y")
	if h.m.vs.form != nil {
		t.Error("form still open after apply")
	}
	if len(be.applied) != 1 || be.applied[0] == nil {
		t.Fatalf("applied %v", be.applied)
	}
	if got := be.applied[0].ETS.TCBandwidth; got != [8]uint8{60, 40} {
		t.Errorf("applied bandwidths %v", got)
	}
	be.wantOnly(t, "Apply(eth0, willing nil, local true)")
}

func TestEditFormFields(t *testing.T) {
	be := writable()
	h := newHarness(t, firstReceipt(t), be)
	h.press("e")
	// TSA of TC2: strict → cbs with "+", PFC on priority 4 with space.
	h.press("right", "right", "+")
	if got := h.m.vs.form.tsa[2]; got != lldp.TSACBS {
		t.Errorf("TC2 TSA %v, want cbs", got)
	}
	h.press("down", "down", "down", "right", "right", "space")
	if !h.m.vs.form.pfc[4] {
		t.Errorf("PFC priority 4 not enabled: %+v", h.m.vs.form.pfc)
	}
	// A new APP entry: FCoE (an EtherType typed in hex) on priority 3.
	h.press("insert")
	n := len(h.m.vs.form.app)
	h.press("left", "space", "space", "space") // udp → port → dscp → ethertype
	if got := h.m.vs.form.app[n-1].sel; got != lldp.AppSelEthertype {
		t.Fatalf("selector %v, want ethertype", got)
	}
	h.press("right")
	h.typeText("8906")
	h.wantScreen("FCoE (0x8906)", "+ APP FCoE (0x8906) → priority 3")
	p, errs, _ := h.m.vs.form.problems()
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if got := p.App[len(p.App)-1]; got != (dcb.App{Selector: lldp.AppSelEthertype, Protocol: 0x8906, Priority: 3}) {
		t.Errorf("APP entry %+v", got)
	}
	h.press("delete")
	if len(h.m.vs.form.app) != n-1 {
		t.Errorf("delete left %d entries", len(h.m.vs.form.app))
	}
	h.press("esc")
	if h.m.vs.form != nil {
		t.Error("esc did not close the form")
	}
	h.wantScreen("edit cancelled")
}

func TestFilter(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	all := len(h.m.snap.Indications)
	h.press("/")
	if !h.m.vs.filtering {
		t.Fatal("/ did not start the filter")
	}
	tests := []struct {
		filter string
		want   int
	}{
		{"flag:pfc_changed", 8},
		{"reason:first-receipt", 3},
		{"eth1", 3},
		{"status:remote eth0", 2},
		{"ttl", 0},
	}
	for _, tt := range tests {
		h.m.vs.filter = ""
		h.typeText(tt.filter)
		if got := len(filtered(h.m.snap.Indications, h.m.vs.filter)); got != tt.want {
			t.Errorf("filter %q keeps %d, want %d", tt.filter, got, tt.want)
		}
		h.wantScreen(fmt.Sprintf("filter %q · %d of %d", tt.filter, tt.want, all))
	}
	h.press("backspace", "backspace", "backspace")
	h.typeText("reason:changed")
	h.press("enter")
	if h.m.vs.filtering || h.m.vs.filter != "reason:changed" {
		t.Fatalf("enter: filtering %v filter %q", h.m.vs.filtering, h.m.vs.filter)
	}
	h.wantScreen(fmt.Sprintf(`filter "reason:changed" · 2 of %d`, all))
	// q typed while filtering is text, not quit; here it is a key again.
	h.press("esc")
	if h.m.vs.filter != "" {
		t.Errorf("esc left filter %q", h.m.vs.filter)
	}
	h.wantScreen(fmt.Sprintf("%d entries, newest last", all))
	h.press("/")
	h.typeText("q")
	if h.m.vs.filter != "q" {
		t.Errorf("q while filtering: filter %q", h.m.vs.filter)
	}
	h.press("esc")
	if h.m.vs.filtering || h.m.vs.filter != "" {
		t.Error("esc while typing did not clear the filter")
	}
}

func TestInterfaceSwitch(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	steps := []struct {
		key, want string
	}{
		{"]", "eth1 (2/2)"},
		{"]", "eth0 (1/2)"},
		{"[", "eth1 (2/2)"},
		{"1", "eth0 (1/2)"},
		{"2", "eth1 (2/2)"},
	}
	for _, s := range steps {
		h.press(s.key)
		h.wantScreen(s.want)
		if want := strings.Fields(s.want)[0]; h.m.vs.iface != want {
			t.Errorf("after %q: iface %q, want %q", s.key, h.m.vs.iface, want)
		}
	}
	h.wantScreen("peer leaf2", "local dcbnl (driver) · host agent, IEEE", "willing OFF")
	h.press("3")
	h.wantScreen("no interface 3: there are 2", "eth1 (2/2)")
	// A new snapshot keeps the selection.
	h.send(snapshotMsg{realistic(t)})
	if h.m.vs.iface != "eth1" {
		t.Errorf("snapshot reset the selection to %q", h.m.vs.iface)
	}
}

// TestInterfaceSwitchNatural: [ ] and 1-9 step through the ports in
// natural order (h2 before h10), as the overview lists them, whatever the
// snapshot's order (the engine's is by bytes); the title's positions and
// its list of the first nine follow the same order.
func TestInterfaceSwitchNatural(t *testing.T) {
	snap := realistic(t)
	base := snap.Interfaces[0]
	snap.Interfaces = nil
	for _, n := range []string{"h1", "h10", "h2"} { // the engine's order
		in := base
		in.Name = n
		snap.Interfaces = append(snap.Interfaces, in)
	}
	h := newHarness(t, snap, nil, WithInterface("h1"))
	h.send(tea.WindowSizeMsg{Width: 200, Height: 40}) // room for the title's list
	h.wantScreen("h1 (1/3)", "2:h2 3:h10")
	steps := []struct {
		key, want, others string
	}{
		{"]", "h2 (2/3)", "1:h1 3:h10"},
		{"]", "h10 (3/3)", "1:h1 2:h2"},
		{"]", "h1 (1/3)", "2:h2 3:h10"},
		{"[", "h10 (3/3)", "1:h1 2:h2"},
		{"2", "h2 (2/3)", "1:h1 3:h10"},
		{"3", "h10 (3/3)", "1:h1 2:h2"},
	}
	for _, s := range steps {
		h.press(s.key)
		h.wantScreen(s.want, s.others)
		if want := strings.Fields(s.want)[0]; h.m.vs.iface != want {
			t.Errorf("after %q: iface %q, want %q", s.key, h.m.vs.iface, want)
		}
	}
}

func TestFirstPorts(t *testing.T) {
	var s engine.Snapshot
	for _, n := range []string{"h1", "h10", "h11", "h2", "h3", "h20", "h0"} {
		s.Interfaces = append(s.Interfaces, engine.Interface{Name: n})
	}
	names := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, s.Interfaces[i].Name)
		}
		return out
	}
	want := []string{"h0", "h1", "h2", "h3", "h10", "h11", "h20"}
	if diff := cmp.Diff(want, names(portOrder(s))); diff != "" {
		t.Errorf("portOrder (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:3], names(firstPorts(s, 3))); diff != "" {
		t.Errorf("firstPorts 3 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, names(firstPorts(s, 9))); diff != "" {
		t.Errorf("firstPorts 9 (-want +got):\n%s", diff)
	}
	for i, in := range s.Interfaces {
		if got, want := portPosition(s, i), slices.Index(want, in.Name); got != want {
			t.Errorf("portPosition(%s) = %d, want %d", in.Name, got, want)
		}
	}
}

func TestPauseCountsNew(t *testing.T) {
	sc := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(50, 50, 1<<3))
	first := sc.snap()
	h := newHarness(t, first, nil)
	h.press("p")
	if !h.m.vs.paused {
		t.Fatal("p did not pause")
	}
	// Capture continues: 2 new indications (remote change, operational change).
	sc.rx(31, "eth0", leaf1(40, 60, 1<<3))
	h.send(snapshotMsg{sc.snap()})
	sc.rx(61, "eth0", leaf1(40, 60, 1<<3)) // identical: nothing new
	h.send(snapshotMsg{sc.snap()})
	h.wantScreen("|| PAUSED: screen frozen, capture continues · 2 new indications since · p resumes")
	h.wantNotScreen("changed ")
	if h.m.snap.Generation != first.Generation {
		t.Error("the screen changed while paused")
	}
	h.press("p")
	if h.m.vs.paused {
		t.Fatal("p did not resume")
	}
	h.wantScreen("changed ")
	h.wantNotScreen("PAUSED")
}

func TestExport(t *testing.T) {
	be := writable()
	be.exportPath = "/tmp/dcbtop-20261121-100002.json"
	h := newHarness(t, realistic(t), be)
	h.press("s")
	h.wantScreen("✓ snapshot saved to /tmp/dcbtop-20261121-100002.json")
	if len(be.exported) != 1 || be.exported[0].Generation != h.m.snap.Generation {
		t.Errorf("exported %d snapshots", len(be.exported))
	}
	// Without a backend the viewer says so.
	h2 := newHarness(t, realistic(t), nil)
	h2.press("s")
	h2.wantScreen("export unavailable: viewer only (no backend)")
}

func TestReadOnlyReasons(t *testing.T) {
	be := &fakeBackend{caps: engine.ReadOnly()}
	h := newHarness(t, realistic(t), be)
	h.wantScreen("read-only: replay: a recording is read-only")
	for _, k := range []struct{ key, want string }{
		{"w", "toggle Willing unavailable on eth0: replay: a recording is read-only"},
		{"e", "edit local parameters unavailable on eth0: replay: a recording is read-only"},
		{"u", "undo unavailable on eth0: replay: a recording is read-only"},
		{"a", "host agent unavailable on eth0: replay: a recording is read-only"},
	} {
		h.press(k.key)
		h.wantScreen(k.want)
		if h.m.vs.dialog != nil || h.m.vs.form != nil {
			t.Errorf("%s opened a dialog or form on a read-only interface", k.key)
		}
	}
	be.wantOnly(t) // the snapshot said it all
	// Where the snapshot decided nothing, w is tried: the backend's answer
	// at the write says why not.
	m := NewModel(nil, WithBackend(be), WithColor(ColorNever))
	m.snap = realistic(t)
	m.vs.iface = "eth0"
	mm, _ := m.Update(keyPress("w"))
	if mm.(Model).vs.dialog == nil {
		t.Fatal("w opened no dialog")
	}
	mm, cmd := mm.(Model).Update(keyPress("y"))
	if cmd == nil {
		t.Fatal("y returned no command")
	}
	mm, _ = mm.(Model).Update(cmd())
	if got := mm.(Model).vs.status.text; !strings.Contains(got, "replay: a recording is read-only") {
		t.Errorf("status %q", got)
	}
	// Without any backend.
	h2 := newHarness(t, realistic(t), nil)
	h2.press("w")
	h2.wantScreen("toggle Willing unavailable on eth0: viewer only (no backend)")
	// Capabilities that refuse without a reason: one fallback, said once.
	h3 := newHarness(t, realistic(t), &fakeBackend{caps: Caps{CanWrite: true}})
	h3.press("a")
	h3.wantScreen("host agent unavailable on eth0: not allowed here")
}

func TestUndoAndAgent(t *testing.T) {
	be := writable()
	be.undo = &engine.LocalState{Willing: true, Params: localParams(true)}
	h := newHarness(t, firstReceipt(t), be)
	h.press("u")
	h.wantScreen("Undo the last apply on eth0")
	h.press("y")
	h.wantScreen("✓ eth0: restored willing on; read back: willing on")
	h.press("a") // local source is the agent: stop it
	h.wantScreen("Stop dcbtop's DCBX agent on eth0", "shutdown LLDPDU")
	h.press("y")
	h.wantScreen("✓ eth0: agent off")
	calls := strings.Join(be.Calls(), "\n")
	for _, want := range []string{"Undo(eth0)", "SetAgent(eth0, off)"} {
		if !strings.Contains(calls, want) {
			t.Errorf("no %s in %s", want, calls)
		}
	}
}

func TestScrollAndDetail(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	n := len(h.m.snap.Indications)
	h.press("up", "k")
	if h.m.vs.logFollow || h.m.vs.logCur != n-3 {
		t.Fatalf("after up,k: follow %v cur %d", h.m.vs.logFollow, h.m.vs.logCur)
	}
	h.press("home")
	if h.m.vs.logCur != 0 {
		t.Errorf("home: cur %d", h.m.vs.logCur)
	}
	h.press("j", "pgdown")
	if h.m.vs.logCur != n-1 || !h.m.vs.logFollow {
		t.Errorf("pgdown to the end: cur %d follow %v", h.m.vs.logCur, h.m.vs.logFollow)
	}
	h.press("home", "down", "down", "down", "down") // the eth0 first receipt
	h.press("enter")
	if h.m.vs.detail == nil {
		t.Fatal("enter opened no detail")
	}
	h.wantScreen("QOS_REMOTE_PARAMETERS_CHANGE", "reason first-receipt", "ETS_CONFIGURED|ETS_CHANGED|",
		"first REMOTE indication of eth0 in the log")
	h.press("esc")
	// The remote change of eth0 and what it changed.
	h.press("end", "up")
	h.press("enter", "end")
	h.wantScreen("Changes since 10:00:01.000 (previous REMOTE on eth0)", "ETS TC0 bandwidth 50% → 40%", "PFC priority 4 enabled")
	h.press("q")
	if h.m.vs.detail != nil {
		t.Error("q did not close the detail")
	}
	// Tab cycles panes; the compact slot shows the focused one.
	h.press("tab")
	if h.m.vs.focus != paneDiag {
		t.Errorf("focus %v after tab", h.m.vs.focus)
	}
	h.wantScreen("▶ Diagnostics")
	h.press("shift+tab", "shift+tab")
	if h.m.vs.focus != paneApp {
		t.Errorf("focus %v after shift+tab", h.m.vs.focus)
	}
	h.wantScreen("▶ APP", "RoCEv2 (UDP 4791)")
}

func TestHelpAndQuit(t *testing.T) {
	// The local parameters come from the kernel: no agent of dcbtop's to
	// withdraw, q quits at once (TestQuitAgentConfirm: with one).
	h := newHarness(t, mismatch(t), nil)
	h.press("?")
	h.wantScreen("dcbtop help", "≠ differs from local")
	h.press("q") // closes help, does not quit
	if h.m.vs.help {
		t.Error("help still open")
	}
	if _, cmd := h.m.Update(keyPress("q")); !isQuit(cmd) {
		t.Error("q does not quit")
	}
	h.press("/")
	if _, cmd := h.m.Update(keyPress("q")); isQuit(cmd) {
		t.Error("q quits while typing the filter")
	}
	if _, cmd := h.m.Update(keyPress("ctrl+c")); !isQuit(cmd) {
		t.Error("ctrl+c does not quit while typing")
	}
}

// isQuit reports whether cmd is tea.Quit.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestResize(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	h.wantNotScreen("too small")
	h.wantScreen("eth0", "link", "Log", "q quit")
	h.send(tea.WindowSizeMsg{Width: 39, Height: 20})
	h.wantScreen("terminal too small: dcbtop needs 40x8,", "this is 39x20")
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.wantNotScreen("too small")
	h.wantScreen("Peers", "Diagnostics", "ETS_CONFIGURED|ETS_CHANGED")
	if v := h.m.View(); !v.AltScreen {
		t.Error("not in the alternate screen")
	}
}

// TestCountdown checks the TTL left = expires_in_ms less the clock's
// distance from TakenAt, in live mode and in a replay at 4x.
func TestCountdown(t *testing.T) {
	s := firstReceipt(t) // taken at 10:00:01, TTL 120 s
	now := s.TakenAt.Add(10 * time.Second)
	m := NewModel(nil, WithColor(ColorNever), WithClock(func() time.Time { return now }))
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(snapshotMsg{s})
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "110s/120s") {
		t.Errorf("live: no 110s/120s in\n%s", got)
	}
	// The peer sends every 30 s (TTL 120 / 4): late after two missed
	// LLDPDUs (silent 70 s), stale after three (silent 105 s), by the
	// engine's rule (engine.Peer.FreshnessAt), not by the seconds left.
	now = now.Add(60 * time.Second)
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "50s/120s LATE") {
		t.Errorf("live: no 50s/120s LATE in\n%s", got)
	}
	now = now.Add(35 * time.Second)
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "15s/120s STALE") {
		t.Errorf("live: no 15s/120s STALE in\n%s", got)
	}
	// Replay at 4x: 5 s of wall time are 20 s of capture time.
	now = s.TakenAt.Add(time.Hour) // the wall clock has nothing to do with capture time
	m = NewModel(nil, WithColor(ColorNever), WithClock(func() time.Time { return now }), WithCapture(CaptureStatus{Mode: CaptureReplay, Speed: 4}))
	mm, _ = m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(snapshotMsg{s})
	now = now.Add(5 * time.Second)
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "100s/120s") {
		t.Errorf("replay: no 100s/120s in\n%s", got)
	}
	// Paused, it stands still.
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureReplay, Speed: 4, Paused: true})
	now = now.Add(5 * time.Second)
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "100s/120s") {
		t.Errorf("replay paused: countdown not at 100s in\n%s", got)
	}
	// The replay ends: the end of a capture is the state at its last frame
	// (what -r FILE --json reports), and the screen says so; the countdown
	// stands still.
	mm, _ = mm.Update(CaptureStatus{Mode: CaptureReplay, Speed: 4, Done: true})
	now = now.Add(5 * time.Second)
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "100s/120s") || !strings.Contains(got, "END · as at the last frame") {
		t.Errorf("replay done: countdown moved, or END not explained, in\n%s", got)
	}
}

func TestSnapshotChannel(t *testing.T) {
	ch := make(chan engine.Snapshot, 1)
	m := NewModel(ch, WithColor(ColorNever))
	if m.Init() == nil {
		t.Fatal("Init returned no command")
	}
	s := realistic(t)
	ch <- s
	msg := waitSnapshot(ch)()
	if sm, ok := msg.(snapshotMsg); !ok || sm.snap.Generation != s.Generation {
		t.Fatalf("got %T", msg)
	}
	mm, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatal("no re-subscription after a snapshot")
	}
	close(ch)
	msg = waitSnapshot(ch)()
	if _, ok := msg.(snapshotsDoneMsg); !ok {
		t.Fatalf("closed channel gave %T", msg)
	}
	mm, _ = mm.Update(msg)
	mm, _ = mm.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := ansi.Strip(mm.View().Content); !strings.Contains(got, "CAPTURE ENDED") {
		t.Errorf("no CAPTURE ENDED:\n%s", got)
	}
}

func TestErrorMsg(t *testing.T) {
	h := newHarness(t, firstReceipt(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.send(ErrorMsg{Err: errors.New("eth0: capture: permission denied (run as root or grant CAP_NET_RAW)")})
	h.wantScreen("✗ eth0: capture: permission denied")
}

func TestParseColorMode(t *testing.T) {
	for _, s := range []string{"auto", "always", "never"} {
		m, err := ParseColorMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseColorMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseColorMode("sometimes"); err == nil {
		t.Error("ParseColorMode accepted sometimes")
	}
	// ColorAuto: colour unless NO_COLOR is set or TERM is dumb.
	for _, env := range []struct {
		term, noColor string
		colour        bool
	}{
		{"xterm-256color", "", true},
		{"xterm-256color", "1", false},
		{"dumb", "", false},
	} {
		t.Setenv("TERM", env.term)
		t.Setenv("NO_COLOR", env.noColor)
		m := NewModel(nil)
		if got := m.styles.Crit.Render("x") != "x"; got != env.colour {
			t.Errorf("TERM=%s NO_COLOR=%q: colour %v, want %v", env.term, env.noColor, got, env.colour)
		}
	}
}

// With the demo's restart marks in the log, the cursor still moves from
// entry to entry, is drawn on its entry, and Enter opens that entry.
func TestRestartMarksKeys(t *testing.T) {
	snap := realistic(t)
	h := newHarness(t, snap, nil)
	h.send(CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Step: 3, Steps: 12, Caption: "c", Pass: 3,
		Restarts: []time.Time{at(3), at(20)}}})
	h.wantScreen("◆ DEMO", "step 3/12 · c", "── demo scenario restarts: pass 2 ──", "── demo scenario restarts: pass 3 ──")
	n := len(snap.Indications)
	h.press("up", "up") // from the last entry (31 s) over a mark to the eth1 first receipt at 5 s
	if h.m.vs.logCur != n-3 {
		t.Fatalf("cursor on entry %d, want %d", h.m.vs.logCur, n-3)
	}
	cursorLine := ""
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.HasPrefix(l, "▸") {
			cursorLine = l
		}
	}
	if !strings.Contains(cursorLine, "10:00:05.000 eth1 REMOTE first-receipt") {
		t.Errorf("cursor drawn on %q, want the eth1 first receipt", cursorLine)
	}
	h.press("enter")
	if h.m.vs.detail == nil || h.m.vs.detail.ind.Interface != "eth1" || h.m.vs.detail.ind.Reason != engine.ReasonFirstReceipt {
		t.Fatalf("enter opened %+v, want eth1's first receipt", h.m.vs.detail)
	}
}

// The remote side changes while the edit form is open: the form takes
// the new state as its baseline, asks for a new preview and says so, and
// the preview lists only what the edit changes, not the switch's change;
// the same for the confirmation dialog over it.
func TestEditRemoteChangesMeanwhile(t *testing.T) {
	be := writable()
	sc := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "").
		rx(1, "eth0", leaf1(50, 50, 1<<3))
	before := sc.snap()
	h := newHarness(t, before, be)
	h.press("e")
	// While the form is open the switch changes its ETS (50/50 -> 40/60),
	// then the operator enables PFC on priority 5 (willing: the switch's
	// PFC is in force, so the preview shows no operational change).
	h.send(snapshotMsg{sc.rx(30, "eth0", leaf1(40, 60, 1<<3)).snap()})
	f := h.m.vs.form
	if f == nil || !f.rebased || f.curOp.ETS.TCBandwidth[0] != 40 {
		t.Fatalf("the form did not take the new state: %+v", f)
	}
	h.wantScreen("what is in force changed while this was open")
	h.press("down", "down", "down", "right", "right", "right", "right", "right", "space")
	h.wantScreen("PFC priority 5 enabled", "no change to the operational parameters")
	if s := h.screen(); strings.Contains(s, "50% → 40%") {
		t.Errorf("the preview credits the switch's ETS change to the edit:\n%s", s)
	}
	// A remote change after the edit makes the preview again: the
	// switch's PFC on 3 and 4 is what a willing host runs.
	h.send(snapshotMsg{sc.rx(35, "eth0", leaf1(40, 60, 1<<3|1<<4)).snap()})
	if pv := h.m.vs.form.preview; pv == nil || pv.op == nil || pv.op.PFC == nil || pv.op.PFC.Enabled != 1<<3|1<<4 {
		t.Errorf("preview after the remote change: %+v, want the switch's PFC on 3 and 4", pv)
	}
	// The confirmation dialog, then another remote change under it.
	h.press("enter")
	if h.m.vs.dialog == nil {
		t.Fatal("enter opened no dialog")
	}
	h.send(snapshotMsg{sc.rx(40, "eth0", leaf1(30, 70, 1<<3|1<<4)).snap()})
	d := h.m.vs.dialog
	if d == nil || !d.rebased || !d.hasPreview || d.curOp.ETS.TCBandwidth[0] != 30 {
		t.Fatalf("the dialog did not follow the new state: %+v", d)
	}
	if s := h.screen(); strings.Contains(s, "40% → 30%") || !strings.Contains(s, "what is in force changed") {
		t.Errorf("the dialog credits the switch's change to the apply, or does not say it changed:\n%s", s)
	}
}

// The log's window moves only when the cursor would leave it, with or
// without the demo's restart marks among its lines: up from the newest
// entry to the oldest, then down again.
func TestLogWindowSteady(t *testing.T) {
	// long is a log of 2+2×12 entries, one change every 10 s.
	long := func(t testing.TB) engine.Snapshot {
		sc := newScenario(t).link(0, "eth0", macLocal0).local(0, "eth0", "agent", true, localParams(true), "")
		for i := range 12 {
			sc.rx(float64(10+10*i), "eth0", leaf1(uint8(40+i), uint8(60-i), 1<<3))
		}
		return sc.snap()
	}
	for _, tt := range []struct {
		name     string
		snap     func(testing.TB) engine.Snapshot
		restarts []time.Time
	}{
		{"no marks", realistic, nil},
		{"marks", realistic, []time.Time{at(3), at(20)}},
		{"mark first", realistic, []time.Time{at(-1)}},
		{"long log", long, nil},
		{"long log with marks", long, []time.Time{at(5), at(35), at(36), at(75), at(1000)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.snap(t)
			h := newHarness(t, snap, nil)
			h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			if tt.restarts != nil {
				h.send(CaptureStatus{Mode: CaptureLive, Demo: &DemoStatus{Step: 1, Steps: 10, Pass: 1 + len(tt.restarts), Restarts: tt.restarts}})
			}
			// window is the log's body lines on screen, the cursor's
			// unmarked, and the cursor's line.
			window := func() (lines []string, cursor string) {
				all := strings.Split(h.screen(), "\n")
				in := false
				for _, l := range all[:len(all)-1] {
					switch {
					case strings.Contains(l, "Log ·"):
						in = true
					case in && strings.HasPrefix(l, UnicodeSymbols().Cursor+" "):
						cursor = "  " + strings.TrimPrefix(l, UnicodeSymbols().Cursor+" ")
						lines = append(lines, cursor)
					case in:
						lines = append(lines, l)
					}
				}
				return lines, cursor
			}
			n := len(snap.Indications)
			keys := append(slices.Repeat([]string{"up"}, n), slices.Repeat([]string{"down"}, n)...)
			before, _ := window()
			for i, k := range keys {
				h.press(k)
				after, cur := window()
				if cur == "" {
					t.Fatalf("after key %d (%s) the cursor is off screen", i, k)
				}
				if slices.Contains(before, cur) {
					if diff := cmp.Diff(before, after); diff != "" {
						t.Fatalf("after key %d (%s) the window moved though the cursor's line was on screen (-before +after):\n%s", i, k, diff)
					}
				}
				before = after
			}
		})
	}
}

// Each CaptureStatus the demo's wiring sends replaces the last: the step
// line follows the scenario, and a restart mark appears in the log.
func TestDemoStatusReplaced(t *testing.T) {
	snap := realistic(t)
	h := newHarness(t, snap, nil)
	h.wantScreen("● LIVE")
	h.send(CaptureStatus{Mode: CaptureLive, Source: "in-memory link", Demo: &DemoStatus{Step: 9, Steps: 10, Caption: "first caption", Pass: 1}})
	h.wantScreen("◆ DEMO", "step 9/10 · first caption")
	h.send(CaptureStatus{Mode: CaptureLive, Source: "in-memory link", Demo: &DemoStatus{Step: 1, Steps: 10, Caption: "second caption", Pass: 2,
		Restarts: []time.Time{at(20)}}})
	h.wantScreen("◆ DEMO", "step 1/10 · second caption · in-memory link", "── demo scenario restarts: pass 2 ──")
	h.wantNotScreen("first caption", "● LIVE")
	h.send(CaptureStatus{Mode: CaptureLive, Source: "host"})
	h.wantScreen("● LIVE host")
	h.wantNotScreen("DEMO", "step 1/10", "demo scenario restarts")
}

// The Lossless pane takes the log's place while focused: l shows it and
// brings the log back, Tab reaches it after the peers, and in the compact
// layout it is one more pane of the slot and scrolls.
func TestLosslessPane(t *testing.T) {
	h := newHarness(t, losslessSnap(t), nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("l")
	if h.m.vs.focus != paneLossless {
		t.Fatalf("focus %v after l", h.m.vs.focus)
	}
	h.wantScreen("▶ Lossless · pauses from ethtool · every 1s", "Log 4 ↓17", "   3 ●       120     40    2.0      0")
	h.wantNotScreen("Log · 4 entries", "10:00:01.000 eth0 REMOTE")
	h.press("end")
	h.wantScreen("CNP/ECN mlx5_0/1", "ECN notification point on 3 · reaction point on 3", "↑17")
	h.press("l")
	if h.m.vs.focus != paneLog {
		t.Fatalf("focus %v after l again", h.m.vs.focus)
	}
	h.wantScreen("▶ Log · 4 entries", "10:00:01.000 eth0 REMOTE")
	h.wantNotScreen("Lossless")
	h.press("tab", "tab", "tab") // Log → Diagnostics → Peers → Lossless
	if h.m.vs.focus != paneLossless {
		t.Fatalf("focus %v after three tabs from the log", h.m.vs.focus)
	}
	h.press("tab")
	if h.m.vs.focus != paneETS {
		t.Fatalf("focus %v after Lossless", h.m.vs.focus)
	}
	// Compact: a pane of the slot, scrolled to its end.
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.wantScreen("Lossless 2.0/s")
	h.press("l", "end")
	h.wantScreen("▶ Lossless", "Log 4  APP 5", "≈ derived: approximates the NDK counter", "↑20")
	h.wantNotScreen("Prio PFC")
	h.press("home")
	h.wantScreen("Prio PFC", "↓20")
}

// TestCapsFollowSnapshots: the capabilities the engine decides for each
// snapshot replace what the screen knew, without switching interface: an
// LLDP agent that blocked a and then exited no longer blocks it at the
// next snapshot (the screen once refused a for 40 s and more, naming dead
// pids, until the interface was switched away and back).
func TestCapsFollowSnapshots(t *testing.T) {
	why := engine.Refusal{Code: engine.RefuseOtherAgent, Agent: "lldpd (pid 7)"}
	blocked := Caps{WriteNo: why, AgentNo: why}
	snap := realistic(t)
	for i := range snap.Interfaces {
		snap.Interfaces[i].Caps = blocked
	}
	be := &fakeBackend{caps: blocked}
	h := newHarness(t, snap, be)
	h.press("a")
	h.wantScreen("host agent unavailable on eth0: another LLDP agent (lldpd (pid 7))")

	// lldpd exits: the engine's next snapshot allows the agent; the
	// backend would now say so too.
	allowed := Caps{CanAgent: true, WriteNo: engine.Refusal{Code: engine.RefuseNoLocalSource}}
	next := realistic(t)
	next.Generation++
	for i := range next.Interfaces {
		next.Interfaces[i].Caps = allowed
	}
	be.mu.Lock()
	be.caps = allowed
	be.mu.Unlock()
	h.send(snapshotMsg{next})
	if !h.m.vs.caps.CanAgent {
		t.Fatalf("caps after the snapshot: %+v", h.m.vs.caps)
	}
	h.press("a")
	if h.m.vs.dialog == nil {
		t.Errorf("a after the agent exited: no dialog; status %q", h.m.vs.status.text)
	}
}

// wantOnly fails t unless want are the backend's calls, in order.
func (f *fakeBackend) wantOnly(t *testing.T, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, f.Calls()); diff != "" {
		t.Errorf("backend calls (-want +got):\n%s", diff)
	}
}

// The panes say per operational feature whether the NIC holds what
// dcbtop's agent negotiated (engine.NICProgram): "in the NIC", "NIC
// differs"; without DCB in the driver every pane says "not in NIC" and
// the header, once, why.
func TestNICStates(t *testing.T) {
	in, differs := engine.NICInForce, engine.NICDiffers
	snap := realistic(t)
	snap.Interfaces[0].NIC = &engine.NICProgram{ETS: &in, PFC: &differs, App: &in}
	h := newHarness(t, snap, nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.wantScreen("operational = remote recommendation (local willing) · in the NIC", "peer not willing) · NIC", "differs", "(local willing) · in the NIC")
	h.wantNotScreen("not in NIC", "not programmed")

	snap = realistic(t)
	if snap.Interfaces[0].NIC == nil || snap.Interfaces[0].NIC.Brief == "" {
		t.Fatalf("eth0 runs dcbtop's agent with no DCB netlink source: NIC %+v, want not programmable", snap.Interfaces[0].NIC)
	}
	h = newHarness(t, snap, nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.wantScreen("local dcbtop agent · negotiated, not programmed (no DCB in this driver)", "(local willing) · not in NIC")
}

// f previews the host QoS fixes of the interface's diagnostics, one at a
// time (f again: the next), y writes the one shown; u then previews its
// undo, which y writes.
func TestFixDialog(t *testing.T) {
	delay := uint16(7)
	be := &fakeBackend{
		fixes: []FixPreview{
			{Fix: qos.Fix{Code: "trust-pcp-with-dscp-map", Change: qos.Change{Trust: []string{"dscp", "pcp"}}, Why: "the DSCP map is used once the port trusts DSCP"},
				Lines: []string{"trust pcp → dscp, pcp"}, Changes: []string{"- trust-pcp-with-dscp-map", "trust: WARNING → OK"}},
			{Fix: qos.Fix{Code: "pfc-no-headroom", Change: qos.Change{PFCDelay: &delay}}, Lines: []string{"PFC delay 0 → 7"}},
		},
		fixUndo: &FixPreview{Fix: qos.Fix{Change: qos.Change{Trust: []string{"pcp"}}}, Lines: []string{"trust dscp, pcp → pcp"}},
	}
	h := newHarness(t, realistic(t), be)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("f")
	h.wantScreen("Fix trust-pcp-with-dscp-map on eth0 (1 of 2)", "the DSCP map is used once the port trusts DSCP",
		"trust pcp → dscp, pcp", "- trust-pcp-with-dscp-map", "trust: WARNING → OK", "f the next fix", "y write it")
	h.press("f")
	h.wantScreen("Fix pfc-no-headroom on eth0 (2 of 2)", "PFC delay 0 → 7", "no verdict changes")
	h.press("f", "y")
	h.wantScreen("eth0: written and read back")
	h.press("u")
	h.wantScreen("Undo the last fix on eth0", "trust dscp, pcp → pcp")
	h.press("y")
	want := []string{"QoSFixes(eth0)", "ApplyQoS(eth0, [--trust dscp,pcp], undo false)", "QoSUndo(eth0)", "ApplyQoS(eth0, [--trust pcp], undo true)"}
	if diff := cmp.Diff(want, be.Calls()); diff != "" {
		t.Errorf("backend calls (-want +got):\n%s", diff)
	}
	// Nothing to fix: said, no dialog.
	be.fixes = nil
	h.press("f")
	h.wantScreen("eth0: no diagnostic here has a fix dcbtop can write")
}

// A number past the last interface says so in words that count right.
func TestInterfaceNumberWords(t *testing.T) {
	h := newHarness(t, losslessSnap(t), nil)
	h.press("2")
	h.wantScreen("no interface 2: there is only 1")
}

// The detail of a neighbour event says it carries no parameters, rather
// than "none: zeroed" as for an invalidation.
func TestNeighborEventDetail(t *testing.T) {
	r := testRenderer(realistic(t), nil, 120, 40)
	lines := strings.Join(r.indicationLines(&detailView{ind: engine.Indication{Interface: "eth0", Status: engine.StatusNeighbor, Reason: engine.ReasonFirstReceipt}}, 100), "\n")
	if !strings.Contains(lines, "an LLDP neighbour event: it carries no DCB parameters") || strings.Contains(lines, "zeroed") {
		t.Errorf("neighbour event detail:\n%s", lines)
	}
}

// The header labels the peer's port and chassis, and names them once
// when the port ID is the chassis ID (both the peer's MAC).
func TestPeerHeaderIDs(t *testing.T) {
	snap := realistic(t)
	h := newHarness(t, snap, nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.wantScreen("port ifname swp1", "chassis mac 02:dc:b0:00:00:01")
	in := &snap.Interfaces[0]
	in.Peers = slices.Clone(in.Peers)
	for i := range in.Peers {
		in.Peers[i].PortID = in.Peers[i].ChassisID
	}
	msap := in.Peers[0].MSAP()
	in.RemotePeer = &msap
	h = newHarness(t, snap, nil)
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.wantScreen("chassis = port mac 02:dc:b0:00:00:01")
	h.wantNotScreen("· chassis mac")
}

// The header says how a capture without direction was read: which end
// is this host and by which rule, or that it is ambiguous.
func TestHeaderCaptureEnds(t *testing.T) {
	local, peer := lldp.MAC{2, 0, 0, 0, 0, 0xa}, lldp.MAC{2, 0, 0, 0, 0, 0xb}
	for _, tt := range []struct {
		ends engine.CaptureEnds
		want string
	}{
		{engine.CaptureEnds{LocalMAC: &local, PeerMAC: &peer, Rule: engine.EndRuleCapabilities}, "this host 02:00:00:00:00:0a: System Capabilities"},
		{engine.CaptureEnds{Ambiguous: true, Rule: engine.EndRuleAmbiguous,
			Readings: []engine.EndsReading{{LocalMAC: local, PeerMAC: peer}, {LocalMAC: peer, PeerMAC: local}}}, "ends ambiguous: --local-mac to choose"},
	} {
		snap := realistic(t)
		snap.Interfaces[0].CaptureEnds = &tt.ends
		h := newHarness(t, snap, nil)
		h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
		h.wantScreen(tt.want)
	}
}

// x outside the peers' details says where it works; in them, a peer that
// has gone shows its last LLDPDU kept, not an empty box.
func TestHexKey(t *testing.T) {
	h := newHarness(t, realistic(t), nil)
	h.press("x")
	h.wantScreen("x shows the peers' LLDPDUs in hex in their details: focus Peers (tab) and press enter")

	snap := realistic(t)
	in := &snap.Interfaces[0]
	gone := in.Peers[0]
	in.LastPeer = &engine.LostPeer{ChassisID: gone.ChassisID, PortID: gone.PortID, SystemName: gone.SystemName, SourceMAC: gone.SourceMAC,
		GoneAt: snap.TakenAt, Reason: engine.ReasonShutdown, LLDPDU: gone.LLDPDU}
	in.Peers, in.RemotePeer, in.RemoteValid = nil, nil, false
	r := testRenderer(snap, &detailView{kind: detailPeers, hex: true}, 120, 40)
	lines := ansi.Strip(strings.Join(r.peerHexLines(100), "\n"))
	if !strings.Contains(lines, "leaf1 · gone ") || !strings.Contains(lines, "(shutdown) · its last LLDPDU, ") || !strings.Contains(lines, "0000") {
		t.Errorf("the hex view of a gone peer:\n%s", lines)
	}
}

// A refusal in the status line clears once its cause has gone: another
// LLDP agent stops, and the next snapshot allows the agent.
func TestRefusalClears(t *testing.T) {
	other := engine.Refusal{Code: engine.RefuseOtherAgent, Agent: "lldpd (pid 42)"}
	be := &fakeBackend{caps: Caps{CanWrite: false, WriteNo: other, AgentNo: other}}
	snap := realistic(t)
	h := newHarness(t, snap, be)
	h.press("a")
	h.wantScreen("host agent unavailable on eth0: another LLDP agent (lldpd (pid 42))")
	be.mu.Lock()
	be.caps = Caps{CanAgent: true, WriteNo: engine.Refusal{Code: engine.RefuseNoLocalSource}}
	be.mu.Unlock()
	snap.TakenAt = snap.TakenAt.Add(time.Second)
	h.send(snapshotMsg{snap})
	h.wantNotScreen("host agent unavailable")
}

// testRenderer is a renderer of snap a second after it was taken, with
// the overlay detail (nil: none), at w×h in colour.
func testRenderer(snap engine.Snapshot, detail *detailView, w, h int) *renderer {
	vs := testState(snap, time.Second)
	vs.detail = detail
	styles := DefaultStyles(false)
	return newRenderer(snap, &vs, &styles, ptr(DefaultKeyMap()), w, h)
}
