// SPDX-License-Identifier: Apache-2.0

package operator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/qos"

	"github.com/dcbtop/dcbtop/capture/snapfile"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/host"
)

// A Run is what the backend needs of a live run's engine goroutine
// (capture/session's Runtime): each call waits for the goroutine to
// carry it out, and fails once it has stopped. Write and SetAgent observe
// the host (the LLDP agents running, CAP_NET_ADMIN) in the same call, so
// that the host layer decides from the host as it is: one call an
// operator's action.
type Run interface {
	// Write hands an operator's write (undo: its undo) on iface to the
	// host layer, which decides where it goes: dcbtop's agent, done and
	// answered at once, or the kernel, which the run's effects write;
	// the kernel's typed result is then returned (kres), the host layer
	// having taken it. A refusal is an error.
	Write(iface string, change *dcb.Params, willing *bool, undo bool) (ap host.Applied, kres *engine.WriteResult, err error)
	// UndoState is the state an undo on iface restores (the host's, one
	// level for the agent's and the kernel's writes alike).
	UndoState(iface string) (engine.LocalState, bool)
	// SetAgent starts or stops dcbtop's agent on iface.
	SetAgent(iface string, on bool) (AgentChange, error)
	// PreviewQoS is qos.PreviewOf each change on iface in the run's
	// engine, now, in one call: a preview, or why not, per change.
	PreviewQoS(iface string, cs []qos.Change) ([]qos.Preview, []error)
	// WriteQoS hands a host QoS write (undo: the undo of the last one) on
	// iface to the host layer, which the run's effects write; its typed
	// result is returned, the host layer having taken it (the QoS undo).
	WriteQoS(iface string, c qos.Change, undo bool) (qos.WriteResult, error)
	// QoSUndo is the change that undoes the last host QoS write on iface,
	// while it is the last write there.
	QoSUndo(iface string) (qos.Change, bool)
}

// A Backend carries out what the screen's keys ask for (it implements
// ui.Backend), one call into the live run each: applies and undo, the
// agent's start and stop, host QoS fixes (the host layer decides, the
// run's effects write the kernel: the backend has no kernel code), and
// snapshot exports. What may be done is the snapshot's
// (engine.Interface.Caps) for the screen and the host layer's decision at
// the write: the backend asks nothing beforehand. Every method is safe
// for concurrent use and may block.
type Backend struct {
	replay bool
	dir    string // --snapshot-dir
	// snap returns the latest snapshot published to the screen.
	snap func() (engine.Snapshot, bool)
	live Run              // nil in a replay
	now  func() time.Time // a seam for tests
}

// NewBackend returns the screen's backend of a live run (run), or of a
// replay (run nil), which writes nothing but exports. snap returns the
// latest snapshot published to the screen; exports go to dir.
func NewBackend(dir string, snap func() (engine.Snapshot, bool), run Run) *Backend {
	return &Backend{replay: run == nil, dir: dir, snap: snap, live: run, now: time.Now}
}

// replayWhy is the answer to every write in a replay.
var replayWhy = engine.ReadOnly().WriteWhy()

// iface returns the named interface of the latest snapshot.
func (b *Backend) iface(name string) (engine.Interface, error) {
	s, ok := b.snap()
	if ok {
		for _, in := range s.Interfaces {
			if in.Name == name {
				return in, nil
			}
		}
	}
	return engine.Interface{}, fmt.Errorf("%s is not in the snapshot", name)
}

// writable says why nothing is written on iface from the screen: a
// replay, or an interface the screen's snapshot does not have; nil
// otherwise (the host layer decides the rest at the write).
func (b *Backend) writable(iface string) error {
	if b.replay {
		return errors.New(replayWhy)
	}
	_, err := b.iface(iface)
	return err
}

// Apply sets the local Willing state and/or parameters of iface, where
// the host layer sends it (dcbtop's agent, or the kernel).
func (b *Backend) Apply(iface string, willing *bool, local *dcb.Params) (string, error) {
	if willing == nil && local == nil {
		return "", errors.New("nothing to apply")
	}
	return b.write(iface, local, willing, false)
}

// Undo restores what was in force before the last Apply.
func (b *Backend) Undo(iface string) (string, error) {
	return b.write(iface, nil, nil, true)
}

// UndoState returns what an Undo on iface would restore (the host layer's
// one-level undo state, for the agent's and the kernel's writes alike),
// for the screen's undo preview; false in a replay or when there is
// nothing to undo.
func (b *Backend) UndoState(iface string) (engine.LocalState, bool) {
	if b.replay {
		return engine.LocalState{}, false
	}
	return b.live.UndoState(iface)
}

// write carries out an apply or undo as the host layer decides it: the
// agent's answer, or the kernel's result. A kernel result's message is
// its one rendering (engine.WriteResult), without the interface name:
// the screen adds it.
func (b *Backend) write(iface string, local *dcb.Params, willing *bool, undo bool) (string, error) {
	if err := b.writable(iface); err != nil {
		return "", err
	}
	ap, kres, err := b.live.Write(iface, local, willing, undo)
	switch {
	case err != nil:
		return "", err
	case kres != nil:
		if err := kres.Failure(); err != nil {
			return "", err
		}
		return kres.String(), nil
	case undo:
		return agentResult("undone on dcbtop's agent", ap), nil
	}
	return agentResult("applied to dcbtop's agent", ap), nil
}

// agentResult is the one-line account of an apply or undo through the
// agent: what changed, and what it now advertises.
func agentResult(what string, ap host.Applied) string {
	// "applied: willing; read back: willing off" read like a failure:
	// say what changed, then what the agent now advertises.
	s := what + ", changed " + strings.Join(ap.Changed, ", ")
	if len(ap.Changed) == 0 {
		s = "nothing changed"
	}
	// What the agent's next LLDPDU carries (read back from it): a willing
	// host advertises the ETS and PFC it took from the peer, not its own.
	rb := "willing " + dcb.OnOff(ap.After.Willing)
	if ap.Advertised != nil {
		rb = ap.Advertised.String() // says willing or not willing
	}
	return s + "; now advertising " + rb
}

// SetAgent starts or stops dcbtop's agent on iface.
func (b *Backend) SetAgent(iface string, on bool) (string, error) {
	if err := b.writable(iface); err != nil {
		return "", err
	}
	c, err := b.live.SetAgent(iface, on)
	if err != nil {
		return "", err
	}
	return c.String(), nil
}

// Export writes snap (the snapshot JSON contract) to
// DIR/dcbtop-IFACE-YYYYMMDDTHHMMSSZ.json, atomically, never replacing a
// file (capture/snapfile); an error of the directory says which flag
// chooses another.
func (b *Backend) Export(snap engine.Snapshot) (string, error) {
	path, err := snapfile.Export(b.dir, snap, b.now())
	if err != nil && snapfile.DirProblem(err) {
		err = fmt.Errorf("%w (choose another directory with --snapshot-dir DIR)", err)
	}
	return path, err
}

// An AgentChange is what starting or stopping dcbtop's agent on an
// interface did.
type AgentChange struct {
	// Started: the agent runs now (false: it stopped, or did not run).
	Started bool
	// Unchanged: it already ran (start) or did not run (stop).
	Unchanged bool
	// Interval and TTL are a started agent's transmit interval and the
	// TTL of its LLDPDUs; Willing its Willing state.
	Interval time.Duration
	TTL      uint16
	Willing  bool
	// From says where the local parameters in force come from now.
	From string
}

// String is the one-line account the screen shows.
func (c AgentChange) String() string {
	switch {
	case c.Started && c.Unchanged:
		return "dcbtop's agent already runs here"
	case c.Started:
		return fmt.Sprintf("dcbtop's agent started: LLDPDUs every %s (TTL %d s), willing %s, local parameters %s",
			c.Interval, c.TTL, dcb.OnOff(c.Willing), c.From)
	case c.Unchanged:
		return "dcbtop's agent does not run here"
	}
	if c.From == engine.SourceNone.Describe() {
		return "dcbtop's agent stopped: shutdown LLDPDU sent (TTL 0); no local parameters now (no DCB in the driver, no other agent)"
	}
	return "dcbtop's agent stopped: shutdown LLDPDU sent (TTL 0); local parameters now from " + c.From
}

// QoSFixes returns the host QoS fixes of iface's diagnostics (on the
// screen's latest snapshot: qos.Fixes), each previewed by the run's
// engine now, with the checks of dcbtop check it changes.
func (b *Backend) QoSFixes(iface string) ([]qos.FixPreview, error) {
	if err := b.writable(iface); err != nil {
		return nil, err
	}
	in, err := b.iface(iface)
	if err != nil {
		return nil, err
	}
	fixes := qos.Fixes(in)
	pvs, errs := b.preview(iface, fixes)
	var out []qos.FixPreview
	var bad []error
	for i, f := range fixes {
		if errs[i] != nil {
			bad = append(bad, fmt.Errorf("%s: %w", f.Code, errs[i]))
			continue
		}
		out = append(out, pvs[i])
	}
	if len(out) == 0 && len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	return out, nil
}

// preview previews fixes on iface with the run's engine, in one call,
// each with the checks of dcbtop check it changes.
func (b *Backend) preview(iface string, fixes []qos.Fix) ([]qos.FixPreview, []error) {
	cs := make([]qos.Change, len(fixes))
	for i, f := range fixes {
		cs[i] = f.Change
	}
	pvs, errs := b.live.PreviewQoS(iface, cs)
	out := make([]qos.FixPreview, len(fixes))
	for i, f := range fixes {
		if errs[i] == nil {
			pv := &pvs[i]
			out[i] = qos.FixPreview{Fix: f, Lines: pv.Lines, Changes: append(pv.Changes(), check.Changes(&pv.Before, &pv.After, check.Options{})...)}
		}
	}
	return out, errs
}

// ApplyQoS writes change on iface through the host layer (the run's
// effects: DCB netlink and configfs, read back); the host keeps its undo,
// unless it is that undo (undo), which it uses up.
func (b *Backend) ApplyQoS(iface string, change qos.Change, undo bool) (string, error) {
	if err := b.writable(iface); err != nil {
		return "", err
	}
	res, err := b.live.WriteQoS(iface, change, undo)
	switch {
	case err != nil:
		return "", err
	case res.Err != nil:
		return "", errors.New(res.String())
	}
	return res.String(), nil
}

// tunedWhy is what the preview of a change typed in the screen's tune
// form says it is.
const tunedWhy = "typed in the tune form; written as dcbtop apply writes it"

// PreviewQoS checks a host QoS change the operator typed on the screen
// against iface's driver (qos.Change.Errors, through qos.PreviewOf) and
// previews it, with the checks of dcbtop check it changes, as QoSFixes
// previews a fix.
func (b *Backend) PreviewQoS(iface string, c qos.Change) (qos.FixPreview, error) {
	if err := b.writable(iface); err != nil {
		return qos.FixPreview{}, err
	}
	pvs, errs := b.preview(iface, []qos.Fix{{Change: c, Why: tunedWhy}})
	return pvs[0], errs[0]
}

// QoSUndo returns the undo of the last host QoS fix on iface, previewed,
// while it is the last write there.
func (b *Backend) QoSUndo(iface string) (qos.FixPreview, bool) {
	if b.replay {
		return qos.FixPreview{}, false
	}
	u, ok := b.live.QoSUndo(iface)
	if !ok {
		return qos.FixPreview{}, false
	}
	fps, errs := b.preview(iface, []qos.Fix{{Change: u, Why: "restores what the NIC held before the last fix"}})
	if errs[0] != nil {
		return qos.FixPreview{}, false
	}
	return fps[0], true
}
