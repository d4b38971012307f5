package session

// The screen's Backend: what the operator's keys do. Live, writes go to
// dcbtop's own agent through the engine goroutine (the path the control
// socket takes) or to the kernel through DCB netlink (as dcbtop apply
// does); a replay has nothing to write to. Every method is safe for
// concurrent use and may block: the screen calls them inside tea.Cmds.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"

	"github.com/dcbtop/dcbtop/capture/kernel"
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

// exportBeforeLink, when set (tests), runs after the temporary file is
// written and synced and before it gets its final name; an error aborts
// the export.
var exportBeforeLink func(tmp string) error

// Export writes snap (the snapshot JSON contract) to
// DIR/dcbtop-IFACE-YYYYMMDDTHHMMSSZ.json, atomically: a temporary file in
// DIR, written and synced, then linked to its final name (never replacing
// a file: -1, -2... are added when the name is taken), and the directory
// synced. On error nothing is left behind.
func (b *Backend) Export(snap engine.Snapshot) (string, error) {
	data, err := engine.MarshalOutput(snap, true)
	if err != nil {
		return "", err
	}
	at := snap.TakenAt
	if at.IsZero() {
		at = b.now()
	}
	base := "dcbtop-" + exportName(snap) + "-" + at.UTC().Format("20060102T150405Z")
	path, err := writeExclusive(b.dir, base, ".json", data)
	if err != nil && dirProblem(err) {
		err = fmt.Errorf("%w (choose another directory with --snapshot-dir DIR)", err)
	}
	return path, err
}

// dirProblem reports whether err means the export directory cannot take
// the file (missing, not a directory, not writable, full).
func dirProblem(err error) bool {
	for _, e := range []error{os.ErrNotExist, os.ErrPermission, syscall.ENOTDIR, syscall.EROFS, syscall.ENOSPC, syscall.EDQUOT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// DefaultSnapshotDir is where the screen's s exports snapshots without
// --snapshot-dir: the current directory when this process may write
// there, else the home directory when it may, else the temporary
// directory (a read-only working directory, or dcbtop run as another
// user, must not make the export fail).
func DefaultSnapshotDir() string {
	return firstWritable([]string{".", os.Getenv("HOME")}, writableDir)
}

// firstWritable returns the first of dirs that writable accepts, or the
// temporary directory.
func firstWritable(dirs []string, writable func(string) bool) string {
	for _, d := range dirs {
		if d != "" && writable(d) {
			return d
		}
	}
	return os.TempDir()
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._+@-]`)

// exportName names the interfaces of a snapshot for a file name: the one
// interface, a few joined with "+", or the first and how many more.
func exportName(s engine.Snapshot) string {
	var names []string
	for _, in := range s.Interfaces {
		names = append(names, unsafeFileChars.ReplaceAllString(in.Name, "_"))
	}
	switch n := strings.Join(names, "+"); {
	case len(names) == 0:
		return "none"
	case len(n) <= 40:
		return n
	default:
		return fmt.Sprintf("%s+%d", names[0], len(names)-1)
	}
}

// writeExclusive writes data to DIR/BASE+EXT, or BASE-N+EXT when that is
// taken, atomically, with mode 0644, and returns the path.
func writeExclusive(dir, base, ext string, data []byte) (path string, err error) {
	f, err := os.CreateTemp(dir, ".dcbtop-export-*.tmp")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		os.Remove(tmp) // linked under its final name, or abandoned
	}()
	if _, err := f.Write(data); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Chmod(0o644); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		f = nil
		return "", fmt.Errorf("%s: %w", tmp, unwrapPath(err))
	}
	f = nil
	if exportBeforeLink != nil {
		if err := exportBeforeLink(tmp); err != nil {
			return "", err
		}
	}
	for n := 0; n < 1000; n++ {
		path = filepath.Join(dir, base+ext)
		if n > 0 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", base, n, ext))
		}
		err = os.Link(tmp, path)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) {
			return "", fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if err != nil {
			// No hard links here (vfat...): rename, after checking the
			// name is free (a race may still replace a file made since).
			if _, serr := os.Lstat(path); serr == nil {
				continue
			}
			if err := os.Rename(tmp, path); err != nil {
				return "", fmt.Errorf("%s: %w", path, unwrapPath(err))
			}
		}
		syncDir(dir)
		return path, nil
	}
	return "", fmt.Errorf("%s: too many files named %s-N%s", dir, base, ext)
}

// syncDir makes a new directory entry durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// unwrapPath drops the operation and path of an *os.PathError or
// *os.LinkError (the caller names the path).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
