// SPDX-License-Identifier: Apache-2.0

package ui

import (
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/engine"
)

// A Backend carries out what the operator asks for: it applies local
// parameters and the local Willing state, undoes the last apply, exports
// snapshots and starts or stops dcbtop's host DCBX agent.
// capture/operator implements it over the engine and capture.
//
// The screen asks it nothing the snapshot carries: what may be done on an
// interface is the snapshot's (engine.Interface.Caps), and what a change
// would put in force is engine.PreviewOperational's, computed here. Each
// operator action is one call (the host layer decides again at the write
// and refuses with an error what the snapshot no longer allows).
//
// The UI calls every method from inside a tea.Cmd, never from Update, so
// methods may block (netlink round trips, file writes); they are called
// from several goroutines and must be safe for concurrent use. Results and
// errors come back to Update as messages. Strings returned (results, error
// messages, reasons) are sanitized before they are shown.
type Backend interface {
	// Apply sets the local Willing state (nil: unchanged) and local
	// parameters (nil: unchanged) of iface, reads them back and returns a
	// one-line account of what is now in force, e.g. "willing off; read
	// back: willing off".
	Apply(iface string, willing *bool, local *dcb.Params) (string, error)
	// Undo restores what was in force on iface before the last Apply and
	// returns a one-line read-back.
	Undo(iface string) (string, error)
	// UndoState returns what an Undo on iface would restore: the local
	// Willing state and parameters in force before the last Apply (one
	// level: an Undo forgets it), and false when there is nothing to undo.
	// The screen previews an undo with it.
	UndoState(iface string) (engine.LocalState, bool)
	// Export writes snap (the snapshot JSON contract) and returns the path
	// written.
	Export(snap engine.Snapshot) (path string, err error)
	// SetAgent starts (on) or stops dcbtop's host DCBX agent on iface and
	// returns a one-line account of the result.
	SetAgent(iface string, on bool) (string, error)
	// QoSFixes returns the host QoS fixes dcbtop can write on iface
	// (qos.Fixes), each previewed against the interface as it is
	// (qos.PreviewOf, dcbtop check); none, with nil, when there is
	// nothing to fix; an error when nothing can be written (a replay).
	QoSFixes(iface string) ([]FixPreview, error)
	// ApplyQoS writes a fix's change on iface (kernel.ApplyQoS: read
	// back) and returns a one-line account; the change that undoes it is
	// kept for QoSUndo (one level; it is the undo's while it is the last
	// write on iface). undo says the change is that undo, which it uses.
	ApplyQoS(iface string, change qos.Change, undo bool) (string, error)
	// PreviewQoS checks a host QoS change the operator typed (the tune
	// form: rate limits, storm timeout, DCBX mode, rewrite entries)
	// against iface's driver and previews it as QoSFixes previews a fix
	// (qos.PreviewOf), or says in an error why it cannot be written.
	PreviewQoS(iface string, change qos.Change) (FixPreview, error)
	// QoSUndo returns the undo of the last ApplyQoS on iface, previewed,
	// when that was the last write there; false otherwise.
	QoSUndo(iface string) (FixPreview, bool)
}

// A FixPreview is a host QoS fix previewed (qos.FixPreview).
type FixPreview = qos.FixPreview

// A Player controls a replay (capture/replay's Player): the screen's
// space, ←/→, +/- and r in a replay. Its methods return at once; the
// replay's CaptureStatus shows the effect.
type Player interface {
	TogglePause()
	Faster() float64
	Slower() float64
	// Seek moves by d in capture time (negative: back); the engine is
	// re-run from the start of the file up to there.
	Seek(d time.Duration)
	Restart()
}

// Caps says which actions a Backend allows on an interface, and why not:
// the engine's decision (engine.Interface.Capabilities). The zero value
// allows nothing and gives no reason.
type Caps = engine.Capabilities

// A CaptureMode says where snapshots come from.
type CaptureMode uint8

// Capture modes.
const (
	CaptureLive   CaptureMode = iota // packet sockets and netlink on this host
	CaptureReplay                    // a pcap/pcapng file; its timestamps drive the clock
)

// CaptureStatus describes the capture behind the snapshots: live, or the
// replay of a file with its position and pacing. Give the initial status
// with WithCapture; send a CaptureStatus to the program (tea.Program.Send)
// whenever it changes, and the header follows.
type CaptureStatus struct {
	Mode CaptureMode
	// Source names the capture file (replay) or a short description of
	// the live source; it is shown sanitized, and not at all in a demo.
	Source string
	// Position and Duration are the replay's progress in capture time;
	// Duration 0 means unknown.
	Position, Duration time.Duration
	// Frame and Frames count frames replayed and in the file (0: unknown).
	Frame, Frames int
	// Speed is the replay pacing: 1 recorded speed, 0 as fast as possible.
	Speed float64
	// Paused reports a replay paused by its source; Done a capture that
	// ended (the end of the file, or live capture stopped).
	Paused, Done bool
	// Demo, when set, says the capture is dcbtop's built-in demo: the
	// header shows a DEMO badge and a line with the scenario's step.
	Demo *DemoStatus
	// Ages says the source publishes a new snapshot about once a second
	// while the clock alone changes what one shows (a peer's TTL and last
	// receipt, a hold-down), as a live run does until it is Done: the
	// screen then redraws those countdowns on each snapshot and wakes on
	// its own only for what the source does not know (a status message,
	// the demo's next step, a playing replay).
	Ages bool
}

// DemoStatus describes the built-in demo's scenario for the header: the
// step last played and what it shows, when the next one plays, and when
// the looping scenario started over (marked in the log).
type DemoStatus struct {
	// Step is the step last played (1-based; 0 before the first) and
	// Steps the number of steps of a pass.
	Step, Steps int
	// Caption says in one line what the step shows (shown sanitized).
	Caption string
	// NextAt is when the next step plays, in the screen's clock (zero:
	// unknown).
	NextAt time.Time
	// Pass is 1 during the scenario's first pass, 2 after it restarted
	// once, and so on.
	Pass int
	// Restarts are the times the scenario started over, in the screen's
	// clock, oldest first (the latest few).
	Restarts []time.Time
	// Speed is the scenario's time scale: 1 real time, 8 eight times
	// faster (0 counts as 1).
	Speed float64
	// Start is when the scenario started, in the screen's clock: the log
	// then shows scenario time since it (+m:ss.mmm), not a wall-clock
	// time that a faster scenario would put in the future. Zero: the
	// log shows times of day.
	Start time.Time
}

// ErrorMsg shows an error from the wiring (for example a capture that
// failed) in the status line. The UI keeps running.
type ErrorMsg struct{ Err error }
