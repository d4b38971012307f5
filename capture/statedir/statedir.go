// SPDX-License-Identifier: Apache-2.0

// Package statedir keeps, per port, the local parameters an operator set
// on dcbtop's agent (dcbtop apply, a write on the screen), so that the
// next agent on that port starts from them: lldpad keeps its
// configuration in lldpad.conf, mlnx_qos users put theirs in a boot unit;
// dcbtop keeps one file per port in its state directory
// (/var/lib/dcbtop, the Debian unit's StateDirectory; DCBTOP_STATE_DIR
// relocates it).
//
// A port is keyed by its permanent MAC address (IFLA_PERM_ADDRESS, the
// address the NIC was made with), which a rename keeps; a device without
// one (veth, most virtual devices) is keyed by its current MAC. Files are
// written atomically (a temporary file in the same directory, synced,
// renamed over the old one, the directory synced) with mode 0600, and
// read back before a save is reported done.
package statedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// DefaultPath is the state directory of a system install.
const DefaultPath = "/var/lib/dcbtop"

// EnvDir names the environment variable that relocates the state
// directory (tests, a packaged unit with another StateDirectory).
const EnvDir = "DCBTOP_STATE_DIR"

// fileVersion is the version of the saved file's format.
const fileVersion = 1

// maxFile bounds what Load reads: a saved file is a few kilobytes (the
// PARAMS object of at most one LLDPDU's worth of parameters).
const maxFile = 64 << 10

// A Dir is a state directory.
type Dir struct{ Path string }

// Default is the state directory this process uses: $DCBTOP_STATE_DIR
// when set, else DefaultPath.
func Default() Dir {
	if p := os.Getenv(EnvDir); p != "" {
		return Dir{Path: p}
	}
	return Dir{Path: DefaultPath}
}

// A Saved is one port's kept local state.
type Saved struct {
	// Key is the port's permanent MAC (or current MAC, see the package
	// comment).
	Key lldp.MAC
	// Interface is the port's name when it was saved (for the words: a
	// renamed port is found by Key).
	Interface string
	// At is when it was saved.
	At time.Time
	// Willing and Params are the agent's local state.
	Willing bool
	Params  *dcb.Params
	// File is where it is kept (set by Load and Save).
	File string
}

// Describe says where a starting agent's parameters come from, for
// every surface that reports it ("saved for eth0 (…) on …").
func (s *Saved) Describe() string {
	return fmt.Sprintf("saved for %s (%s) on %s in %s; dcbtop apply --forget -i %s drops them",
		s.Interface, s.Key, s.At.UTC().Format(time.RFC3339), s.File, s.Interface)
}

// file is the saved file's JSON form.
type file struct {
	Version   int             `json:"version"`
	MAC       string          `json:"mac"`
	Interface string          `json:"interface"`
	SavedAt   time.Time       `json:"saved_at"`
	Willing   bool            `json:"willing"`
	Params    json.RawMessage `json:"params"`
}

// path is the file of key: one per port, named by its MAC.
func (d Dir) path(key lldp.MAC) string {
	return filepath.Join(d.Path, "ports", strings.ReplaceAll(key.String(), ":", "-")+".json")
}

// Load returns the state kept for key, nil when there is none. A file
// that cannot be read or does not decode to valid parameters is an error
// naming it (the agent then starts as if there were none, and says why).
func (d Dir) Load(key lldp.MAC) (*Saved, error) {
	path := d.path(key)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s: over %d bytes: not a saved state", path, maxFile)
	}
	var v file
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if v.Version != fileVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", path, v.Version, fileVersion)
	}
	if v.MAC != key.String() {
		return nil, fmt.Errorf("%s: kept for %q, not %s", path, v.MAC, key)
	}
	p, err := dcb.ParseParams(bytes.NewReader(v.Params))
	if err != nil {
		return nil, fmt.Errorf("%s: params: %v", path, err)
	}
	if err := p.Errors(); err != nil {
		return nil, fmt.Errorf("%s: invalid parameters: %w", path, err)
	}
	return &Saved{Key: key, Interface: v.Interface, At: v.SavedAt, Willing: v.Willing, Params: p, File: path}, nil
}

// Save keeps s for s.Key, replacing what was kept, and reads it back:
// the returned Saved is what Load now returns (with File set).
func (d Dir) Save(s Saved) (*Saved, error) {
	if s.Params == nil {
		return nil, errors.New("statedir: no parameters to save")
	}
	params, err := json.Marshal(s.Params)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(file{Version: fileVersion, MAC: s.Key.String(), Interface: s.Interface,
		SavedAt: s.At.UTC().Round(time.Second), Willing: s.Willing, Params: params}, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	path := d.path(s.Key)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".saving-*")
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return nil, err
	}
	if _, err := tmp.Write(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	done = true
	syncDir(dir)
	back, err := d.Load(s.Key)
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	if back == nil || back.Willing != s.Willing || len(s.Params.Changes(back.Params)) != 0 {
		return nil, fmt.Errorf("%s: read back other parameters than were saved", path)
	}
	return back, nil
}

// Forget drops what is kept for key; removed is false when nothing was.
func (d Dir) Forget(key lldp.MAC) (path string, removed bool, err error) {
	path = d.path(key)
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, err
	}
	syncDir(filepath.Dir(path))
	return path, true, nil
}

// syncDir makes a rename or removal in dir durable (best effort: some
// file systems refuse fsync on a directory).
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
}

// KeyOf is the key of a port: its permanent MAC when it has one (not all
// zero), else its current MAC.
func KeyOf(perm, mac [6]byte) (key lldp.MAC, permanent bool) {
	if perm != ([6]byte{}) {
		return lldp.MAC(perm), true
	}
	return lldp.MAC(mac), false
}
