package session

// The screen's Backend: what the operator's keys do. Live, writes go to
// dcbtop's own agent through the engine goroutine (the path the control
// socket takes) or to the kernel through DCB netlink (as dcbtop apply
// does); a replay has nothing to write to. Every method is safe for
// concurrent use and may block: the screen calls them inside tea.Cmds.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture/kernel"
	"github.com/dcbtop/dcbtop/capture/snapfile"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/host"
)

// liveControl is what the backend needs of a live run's engine goroutine
// (implemented by *liveRun): each call waits for the goroutine to carry
// it out.
type liveControl interface {
	// write hands an operator's write (undo: its undo) on iface to the
	// host layer, which decides where it goes: dcbtop's agent, done and
	// answered at once, or the kernel, returned as the WriteKernel to
	// carry out and report with kernelWritten. A refusal is an error.
	write(iface string, change *dcb.Params, willing *bool, undo bool) (host.Applied, *host.WriteKernel, error)
	kernelWritten(w host.WriteKernel, res engine.WriteResult) error
	// undoState is the state an undo on iface restores (the host's, one
	// level for the agent's and the kernel's writes alike).
	undoState(iface string) (engine.LocalState, bool)
	// undone reports whether the one level of undo on iface was used.
	undone(iface string) bool
	// setAgent starts or stops dcbtop's agent on iface.
	setAgent(iface string, on bool) (AgentChange, error)
	// refreshHost has the engine observe the host (LLDP agents running,
	// CAP_NET_ADMIN) before a snapshot's capabilities are read.
	refreshHost() error
}

// A Backend carries out what the screen's keys ask for (it implements
// ui.Backend): previews, applies and undo through dcbtop's agent or the
// kernel, the agent's start and stop, and snapshot exports. Every method
// is safe for concurrent use and may block.
type Backend struct {
	replay bool
	dir    string // --snapshot-dir
	// snap returns the latest snapshot published to the screen.
	snap func() (engine.Snapshot, bool)
	live liveControl // nil in a replay

	// Seams for tests.
	dial func() (kernel.Client, func(), error)
	now  func() time.Time

	mu sync.Mutex // serializes kernel writes
}

// Backend returns the screen's backend for the run; exports go to dir.
// A replay's backend writes nothing but exports.
func (rt *Runtime) Backend(dir string) *Backend {
	if rt.replay != nil {
		return newBackend(dir, rt.feed.Snapshot, nil)
	}
	return newBackend(dir, rt.feed.Snapshot, rt.liveRun)
}

// newBackend returns the backend of a live run (live != nil) or a replay.
func newBackend(dir string, snap func() (engine.Snapshot, bool), live liveControl) *Backend {
	return &Backend{replay: live == nil, dir: dir, snap: snap, live: live, dial: kernel.Dial, now: time.Now}
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

// Capabilities says what may be changed on iface, and why not: what the
// engine decided for the latest snapshot (engine.Interface.Caps), after
// having it observe the host again, so that an LLDP agent that exited a
// moment ago no longer blocks anything.
func (b *Backend) Capabilities(iface string) engine.Capabilities {
	if b.replay {
		return engine.ReadOnly()
	}
	_ = b.live.refreshHost() // a stopped run: the last snapshot stands
	in, err := b.iface(iface)
	if err != nil {
		r := engine.Refusal{Code: engine.RefuseUnknownInterface, Interface: iface}
		return engine.Capabilities{WriteNo: r, AgentNo: r}
	}
	caps := in.Caps
	if caps.CanWrite && b.live != nil && !b.hasUndo(iface) {
		caps.UndoNo = engine.Refusal{Code: engine.RefuseNothingToUndo, Interface: iface, Undone: b.live.undone(iface)}
	}
	return caps
}

// hasUndo reports whether an undo on iface has something to restore.
func (b *Backend) hasUndo(iface string) bool {
	_, ok := b.live.undoState(iface)
	return ok
}

// Preview returns the operational parameters and resolution iface would
// have with the given Willing state and local parameters (nil: the
// current ones): engine.PreviewOperational on the latest snapshot, with
// the Willing bits of the local parameters set as an apply would set them.
func (b *Backend) Preview(iface string, willing bool, local *dcb.Params) (*dcb.Params, dcb.Resolution, error) {
	in, err := b.iface(iface)
	if err != nil {
		return nil, dcb.Resolution{}, err
	}
	op, res := engine.PreviewOperational(in, willing, previewLocal(in, willing, local))
	return op, res, nil
}

// previewLocal is the local parameter set a preview resolves with: local
// (or the current one) with its Willing bits set to willing, as the agent
// (Params.WithWilling) and the kernel's read-back (kernel.ParamsFromIEEE)
// have them.
func previewLocal(in engine.Interface, willing bool, local *dcb.Params) *dcb.Params {
	if local == nil {
		local = in.Local
	}
	if local == nil {
		return nil
	}
	return local.WithWilling(willing)
}

// writable returns iface's state when its local parameters can be written
// from the screen, else an error saying why not.
func (b *Backend) writable(iface string) (engine.Interface, error) {
	if b.replay {
		return engine.Interface{}, errors.New(replayWhy)
	}
	in, err := b.iface(iface)
	if err != nil {
		return engine.Interface{}, err
	}
	if c := b.Capabilities(iface); !c.CanWrite {
		return engine.Interface{}, errors.New(c.WriteWhy())
	}
	return in, nil
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
	return b.live.undoState(iface)
}

// write carries out an apply or undo as the host layer decides it: the
// agent's answer, or the kernel write it asks for.
func (b *Backend) write(iface string, local *dcb.Params, willing *bool, undo bool) (string, error) {
	if _, err := b.writable(iface); err != nil {
		return "", err
	}
	ap, wk, err := b.live.write(iface, local, willing, undo)
	switch {
	case err != nil:
		return "", err
	case wk != nil:
		return b.kernel(*wk)
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

// kernel carries out a WriteKernel through DCB netlink (kernel.Apply: one
// read, only what changes is written, one read back) and reports the
// typed result to the host layer (the undo state; the state read back
// becomes the engine's at once). Its message is the result's one
// rendering (engine.WriteResult), without the interface name: the screen
// adds it.
func (b *Backend) kernel(w host.WriteKernel) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, closeC, err := b.dial()
	if err != nil {
		return "", fmt.Errorf("DCB netlink: %w", err)
	}
	defer closeC()
	res := kernel.Apply(c, w.Interface, w.Params, w.Willing)
	_ = b.live.kernelWritten(w, res)
	if err := res.Failure(); err != nil {
		return "", err
	}
	return res.String(), nil
}

// SetAgent starts or stops dcbtop's agent on iface.
func (b *Backend) SetAgent(iface string, on bool) (string, error) {
	if b.replay {
		return "", errors.New(replayWhy)
	}
	if c := b.Capabilities(iface); !c.CanAgent {
		return "", errors.New(c.AgentWhy())
	}
	c, err := b.live.setAgent(iface, on)
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
