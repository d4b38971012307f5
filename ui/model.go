// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"os"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	tea "charm.land/bubbletea/v2"

	"github.com/dcbtop/dcbtop/engine"
)

// statusLevel ranks a status line message.
type statusLevel uint8

const (
	levelInfo statusLevel = iota
	levelOK
	levelErr
)

// A statusLine is the message under the panes: an action's read-back, an
// export path, an error, a read-only reason.
type statusLine struct {
	text  string
	level statusLevel
	at    time.Time // when it was set (the screen's clock)
	// refusal, when set, says the line says why act is unavailable on
	// iface: it clears once the action is allowed there (its cause gone).
	refusal *refusedAction
}

// A refusedAction is an action refused on an interface.
type refusedAction struct {
	act   actionKind
	iface string
}

// maxMessages is how many status messages the history keeps.
const maxMessages = 50

// Status messages clear after a while: errors stay longer.
const (
	statusLife    = 10 * time.Second
	statusErrLife = 30 * time.Second
)

// viewState is everything render needs besides the snapshot: the UI's own
// state plus what the model derives from the clock. render is a pure
// function of a Snapshot and a viewState.
type viewState struct {
	loc *time.Location
	// age is how much time has passed, in the snapshot's clock, since it
	// was taken: TTL left = expires_in_ms - age.
	age     time.Duration
	capture CaptureStatus
	closed  bool // the snapshot channel was closed

	iface string // the selected interface's name
	focus pane
	// overview shows every interface at a glance instead of one port;
	// ovCur is its cursor (a row in ovSort's order, of those ovFilter
	// matches), ovTop the first row on screen. ovDecided is set once the
	// first snapshot chose the default (overview with several
	// interfaces). ovFiltering: the filter is being typed.
	overview    bool
	ovCur       int
	ovTop       int
	ovSort      overviewSort
	ovDecided   bool
	ovFilter    string
	ovFiltering bool
	// ovCache keeps the overview's rows drawn in the last frames (nil:
	// none kept); the Model resets it when the theme changes.
	ovCache *rowCache
	// scroll is each pane's first body line shown (the log's, which
	// counts its restart marks, keeps the cursor on screen).
	scroll [numPanes]int
	// logCur is the cursor's index in the filtered log (entries, not
	// lines); logFollow keeps it on the newest entry.
	logCur    int
	logFollow bool
	// newestFirst shows the log newest on top (key O).
	newestFirst bool

	filter    string
	filtering bool // typing the filter

	paused   bool
	newCount int // indications received since the pause

	help   bool
	detail *detailView
	// frames is the screen's copy of the run's frame log while the frames
	// view is open (Model.refreshFrames).
	frames frameLog
	dialog *dialog
	form   *editForm
	tune   *tuneForm // the tune form (KeyMap.Tune)

	status statusLine
	busy   string // an action in flight
	// messages are the last maxMessages status messages, oldest first
	// (the message history, key m).
	messages []statusLine

	// diagSince is when the screen first saw each diagnostic that is
	// still raised, by diagKey.
	diagSince map[string]time.Time

	hasBackend bool
	hasPlayer  bool // a replay's player (WithPlayer) takes space, ←/→, +/- and r
	caps       Caps
	capsKnown  bool // caps belong to the selected interface
	// undoable: this screen applied something on the selected interface
	// that is not undone yet; the key bar offers u only then, so that it
	// does not come and go with a refused press.
	undoable bool
}

// A detailView is the drill-down overlay: one indication in full and what
// changed since the previous indication of the same status on the same
// interface, or the interface's peers (every TLV decoded), or its
// diagnostics (in full, with the rule, the action and since when).
type detailView struct {
	kind   detailKind
	ind    engine.Indication
	prev   *engine.Indication
	scroll int
	// hex shows the peers' LLDPDUs as a hex dump (detailPeers, KeyMap.Hex).
	hex bool
	// frames is the frames view's cursor (detailFrames).
	frames frameCursor
}

// detailKind says what a detailView shows.
type detailKind uint8

const (
	detailIndication detailKind = iota
	detailPeers
	detailDiagnostics
	detailMessages
	detailFrames // every LLDPDU of the run (KeyMap.Frames)
)

// dialogKind says what a confirmation dialog confirms.
type dialogKind uint8

const (
	dialogWilling dialogKind = iota
	dialogAgent
	dialogUndo
	dialogApply // the edit form's parameters
	// dialogQuit: q while dcbtop's agent runs, whose shutdown LLDPDU on
	// quitting withdraws the host's parameters from a willing switch.
	dialogQuit
	// dialogFix: a host QoS fix (or its undo) previewed.
	dialogFix
)

// A dialog asks y/n before an action, with what it would change.
type dialog struct {
	kind    dialogKind
	iface   string
	willing bool // dialogWilling: the new state; dialogAgent: start (true) or stop
	// curOp and curRes are what is in force now; op and res the preview.
	curOp, op   *dcb.Params
	curRes, res dcb.Resolution
	hasPreview  bool
	local       *dcb.Params // dialogApply: the parameters to apply; dialogUndo: to restore
	curWilling  *bool       // dialogUndo: the local Willing state in force (willing: restored)
	localDiff   []change    // dialogApply: local before → after
	agentDetail string      // dialogAgent: what starting/stopping means
	agentPorts  []string    // dialogQuit: the ports dcbtop's agent runs on
	// nic says what the action does to the NIC (engine.NICWriteNote,
	// engine.NICAgentStartNote), "" when nothing.
	nic string
	// fixes are dialogFix's previews (fix the one shown); qosUndo says it
	// is the undo of the last fix.
	fixes   []FixPreview
	fix     int
	qosUndo bool
	// rebased says the state in force changed while it was open.
	rebased bool
	// verdicts say what the change does to the verdicts of lossless
	// readiness (dialogVerdicts): those that change, then those still not
	// OK after it.
	verdicts []string
}

// Model is the dcbtop screen: a tea.Model that renders the latest engine
// Snapshot from a channel and turns key presses into Backend calls.
type Model struct {
	snaps   <-chan engine.Snapshot
	backend Backend
	clock   func() time.Time
	keys    *KeyMap // shared, as styles
	styles  *Styles // shared, never changed in place: a Model is copied on every message
	color   ColorMode
	dark    bool
	ascii   bool // WithASCII: styles are drawn in ASCII

	width, height int
	mouseOn       bool        // the mouse focuses, selects and scrolls (WithMouse)
	player        Player      // a replay's controls (WithPlayer); nil live
	frameSrc      FrameSource // the run's frame log (WithFrames); nil: none
	ticking       bool        // the 1 Hz countdown tick is armed
	// redrawn: the last message was a tick while snapshots flow
	// (snapshotsFlow): View gives the screen drawn before, from drawn.
	redrawn bool
	drawn   *drawnView

	snap       engine.Snapshot // on screen
	latest     engine.Snapshot // newest received (differs from snap while paused)
	haveLatest bool
	recvAt     time.Time     // clock reading when snap arrived or the replay pacing changed
	ageBase    time.Duration // replay: the age at recvAt
	pausedAt   time.Time
	// demoLatest is the demo's newest status while the screen is paused
	// (demoHeld): the header keeps the step, caption and countdown it had
	// when paused, as frozen as the rest, until the pause ends.
	demoLatest *DemoStatus
	demoHeld   bool

	// caps are the capabilities of each interface of the latest snapshot
	// (engine.Interface.Caps); noUndo why there is nothing to undo where
	// the backend said so or this screen undid the last apply.
	caps   map[string]Caps
	noUndo map[string]engine.Refusal
	// undone marks the interfaces whose last apply this screen undid:
	// one level of undo, nothing left until the next apply.
	undone map[string]bool
	// applied marks the interfaces where this screen applied or fixed
	// something since the last undo.
	applied map[string]bool

	vs viewState
}

// NewModel returns a Model that shows the snapshots received on snaps
// (nil: none; tests feed them as messages). Options set the backend,
// clock, colours, keys and initial state.
func NewModel(snaps <-chan engine.Snapshot, opts ...Option) Model {
	m := Model{
		snaps: snaps,
		clock: time.Now,
		keys:  ptr(DefaultKeyMap()),
		dark:  true,
		caps:  map[string]Caps{},
		// Init arms the 1 Hz tick; it stops while nothing counts down.
		ticking: true,
		// The mouse is on unless WithMouse(false) turns it off.
		mouseOn: true,
		vs:      viewState{loc: time.Local, logFollow: true, focus: paneLog},
	}
	for _, o := range opts {
		o(&m)
	}
	if m.vs.loc == nil {
		m.vs.loc = time.Local
	}
	m.vs.hasBackend = m.backend != nil
	m.vs.hasPlayer = m.player != nil
	m.vs.ovCache = newRowCache()
	m.styles = ptr(m.themeFor(m.dark))
	m.drawn = &drawnView{}
	return m
}

// colorOn reports whether the colour mode allows colour.
func (m Model) colorOn() bool {
	switch m.color {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// themeFor is the theme for a dark (or light) background, in colour or
// not, in ASCII or not.
func (m Model) themeFor(dark bool) Styles {
	st := DefaultStyles(dark)
	if !m.colorOn() {
		st = NoColorStyles()
	}
	if m.ascii {
		st = st.ASCII()
	}
	return st
}

// Init subscribes to the snapshot channel, starts the 1 Hz countdown tick
// and, in colour, asks the terminal for its background.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitSnapshot(m.snaps), tick()} // ticking starts true
	if m.colorOn() {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// snapshotMsg delivers a snapshot from the channel.
type snapshotMsg struct{ snap engine.Snapshot }

// snapshotsDoneMsg reports that the snapshot channel was closed.
type snapshotsDoneMsg struct{}

// tickMsg redraws the countdowns once a second.
type tickMsg time.Time

// waitSnapshot waits for the next snapshot.
func waitSnapshot(ch <-chan engine.Snapshot) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return snapshotsDoneMsg{}
		}
		return snapshotMsg{s}
	}
}

func tick() tea.Cmd {
	return tea.Every(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// now is the clock reading the screen is drawn at: frozen while paused.
func (m Model) now() time.Time {
	if m.vs.paused {
		return m.pausedAt
	}
	return m.clock()
}

// age is how much time has passed since the snapshot on screen was taken,
// in the snapshot's clock. Live, that is the clock minus TakenAt. A
// replay's clock is the capture's: it advances at the replay speed from
// when the snapshot arrived, and stands still while the replay is paused,
// running as fast as possible, or over: the end of a capture shows the
// state at its last frame, as `dcbtop -r FILE --json` reports it.
func (m Model) age() time.Duration {
	now := m.now()
	if m.vs.capture.Mode == CaptureReplay {
		c := m.vs.capture
		if c.Done || c.Paused || c.Speed <= 0 || m.vs.closed {
			return m.ageBase
		}
		speed := c.Speed
		return m.ageBase + time.Duration(float64(now.Sub(m.recvAt))*speed)
	}
	if m.snap.TakenAt.IsZero() {
		return 0
	}
	return max(0, now.Sub(m.snap.TakenAt))
}

// View renders the screen in the alternate screen buffer.
func (m Model) View() tea.View {
	if m.redrawn && m.drawn != nil && m.drawn.ok {
		return m.drawn.v
	}
	v := m.view()
	if m.drawn != nil {
		m.drawn.v, m.drawn.ok = v, true
	}
	return v
}

// A drawnView is the last screen View drew, shared by the copies of a
// Model.
type drawnView struct {
	v  tea.View
	ok bool
}

// view draws the screen.
func (m Model) view() tea.View {
	vs := m.vs
	vs.age = m.age()
	v := tea.NewView(render(m.snap, vs, m.styles, m.keys, m.width, m.height))
	v.AltScreen = true
	if m.mouseOn {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "dcbtop"
	if in := selected(m.snap, m.vs.iface); in != nil {
		v.WindowTitle = "dcbtop: " + clean(in.Name, 32)
	}
	return v
}

// selected returns the interface named name, or the first one when there
// is no such interface; nil when the snapshot has none.
func selected(s engine.Snapshot, name string) *engine.Interface {
	i := selectedIndex(s, name)
	if i < 0 {
		return nil
	}
	return &s.Interfaces[i]
}

func selectedIndex(s engine.Snapshot, name string) int {
	for i := range s.Interfaces {
		if s.Interfaces[i].Name == name {
			return i
		}
	}
	if len(s.Interfaces) > 0 {
		return 0
	}
	return -1
}

// needsTick reports whether anything on screen changes with the clock
// alone: a peer's TTL and "last seen", a multi-peer hold-down, a lost
// peer's "gone ... ago", a local agent's "last ... ago" (unless the
// source's snapshots redraw them: CaptureStatus.Ages, which redraws the
// peers' countdowns only while the engine ages), the demo's next step, a
// status message that will clear, a replay that plays. An idle screen (no
// peer, a paused or ended replay with nothing left to expire) then wakes
// for nothing, and a live one with a peer sending every second once a
// second, on its snapshot.
func (m Model) needsTick() bool {
	if m.vs.paused {
		return false // the screen is frozen
	}
	if m.vs.status.text != "" || m.vs.capture.Demo != nil {
		return true
	}
	if c := m.vs.capture; c.Mode == CaptureReplay && !c.Done && !c.Paused {
		return true
	}
	ages := m.vs.capture.Ages && !m.vs.capture.Done && !m.vs.closed
	for i := range m.snap.Interfaces {
		in := &m.snap.Interfaces[i]
		if !ages && (len(in.Peers) > 0 || in.MultiPeer != nil) {
			return true
		}
		// "gone ... ago" and "last ... ago" move on after the engine's
		// last deadline, when no snapshot comes to redraw them (54a24de
		// showed "expired 0s ago" until the next event).
		if (in.LastPeer != nil && len(in.Peers) == 0) || len(in.LocalAgents) > 0 {
			return true
		}
	}
	return false
}
