// SPDX-License-Identifier: Apache-2.0

package snapfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/agent"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed/snaptest"
)

// testSnapshot is a snapshot of five interfaces, ag, fw, nl, no and ob,
// one with local parameters, taken by a real engine.
func testSnapshot(t *testing.T) engine.Snapshot {
	t.Helper()
	e := engine.New(engine.Config{})
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	e.Apply(engine.HostObserved{At: now, NetAdmin: true})
	for i, name := range []string{"ag", "fw", "nl", "no", "ob"} {
		e.Apply(engine.LinkChanged{Interface: name, At: now, Ifindex: 2 + i, MAC: lldp.MAC{2, 0, 0, 0, 0, byte(0x10 + i)}, Up: true})
	}
	e.Apply(engine.LocalChanged{Interface: "nl", At: now, Source: engine.SourceDCBNL, Willing: true, Params: agent.DefaultLocal(), Mode: "host agent, IEEE"})
	return e.Snapshot()
}

// TestExport writes snapshots atomically under the documented names,
// never replacing a file, and leaves nothing behind on error.
func TestExport(t *testing.T) {
	s := testSnapshot(t)
	s.TakenAt = time.Date(2026, 11, 21, 10, 0, 0, 500, time.UTC)
	one := s
	one.Interfaces = s.Interfaces[:1]
	dir := t.TempDir()
	now := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC) // for a snapshot without a time

	path, err := Export(dir, one, now)
	if want := filepath.Join(dir, "dcbtop-ag-20261121T100000Z.json"); err != nil || path != want {
		t.Fatalf("export: %q, %v; want %q", path, err, want)
	}
	path2, err := Export(dir, one, now)
	if want := filepath.Join(dir, "dcbtop-ag-20261121T100000Z-1.json"); err != nil || path2 != want {
		t.Errorf("second export in the same second: %q, %v; want %q", path2, err, want)
	}
	for _, p := range []string{path, path2} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v; want 0644", p, err, st.Mode())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got := snaptest.Decode(t, p, string(b))
		if diff := cmp.Diff(one, got, cmpopts.IgnoreFields(engine.Peer{}, "LLDPDU"), cmpopts.IgnoreFields(engine.Interface{}, "Caps")); diff != "" { // the raw LLDPDU and the capabilities are for the screen only
			t.Errorf("%s (-exported +read back):\n%s", p, diff)
		}
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("directory holds %v, want the two exports only", names)
	}
	all, err := Export(dir, s, now)
	if want := filepath.Join(dir, "dcbtop-ag+fw+nl+no+ob-20261121T100000Z.json"); err != nil || all != want {
		t.Errorf("several interfaces: %q, %v; want %q", all, err, want)
	}
	hostile := one
	hostile.Interfaces = []engine.Interface{{Name: "../\x1b[2Jx y"}}
	if p, err := Export(dir, hostile, now); err != nil || filepath.Dir(p) != dir || !regexp.MustCompile(`^dcbtop-\.\._+2Jx_y-`).MatchString(filepath.Base(p)) {
		t.Errorf("hostile interface name: %q, %v", p, err)
	}
	// Strings from the wire are escaped beyond JSON's rules (C1, bidi,
	// zero-width): the file cannot act on a terminal, and reads back the same.
	name := "sw\u009b2J\u202eevil\u200b"
	c1 := one
	c1.Interfaces = []engine.Interface{{Name: "c1", Peers: []engine.Peer{{SystemName: &name}}}}
	if p, err := Export(dir, c1, now); err != nil {
		t.Errorf("export with a C1 system name: %v", err)
	} else if data, _ := os.ReadFile(p); !strings.Contains(string(data), `\u009b`) || strings.Contains(string(data), "\u009b") {
		t.Errorf("exported %s does not escape U+009B:\n%s", p, data)
	} else {
		var back engine.Snapshot // not schema-checked: the interface is a stub
		if err := json.Unmarshal(data, &back); err != nil || *back.Interfaces[0].Peers[0].SystemName != name {
			t.Errorf("read back: %v, %+v; want the name %q", err, back.Interfaces, name)
		}
	}

	// Atomic: the final name appears only once the file is complete.
	dir2 := t.TempDir()
	t.Cleanup(func() { beforeLink = nil })
	var sawTmp bool
	beforeLink = func(tmp string) error {
		names := dirNames(t, dir2)
		data, _ := os.ReadFile(tmp)
		sawTmp = len(names) == 1 && strings.HasPrefix(names[0], ".dcbtop-export-") && json.Valid(data)
		return nil
	}
	if _, err := Export(dir2, one, now); err != nil || !sawTmp {
		t.Errorf("export: %v; before the link, the directory held only the complete temporary file: %v", err, sawTmp)
	}
	// A failure on the way leaves nothing.
	dir3 := t.TempDir()
	beforeLink = func(string) error { return errors.New("disk on fire") }
	if _, err := Export(dir3, one, now); err == nil || err.Error() != "disk on fire" {
		t.Errorf("failed export: %v", err)
	}
	if names := dirNames(t, dir3); len(names) != 0 {
		t.Errorf("failed export left %v", names)
	}
	beforeLink = nil

	// An unusable directory: an error naming it, nothing created.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		if p, err := Export(d, one, now); err == nil || !strings.HasPrefix(err.Error(), d+": ") || !DirProblem(err) {
			t.Errorf("export to %s: %q, %v; want an error naming the directory, a problem of the directory", d, p, err)
		}
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if _, err := Export(ro, one, now); err == nil || !errors.Is(err, os.ErrPermission) || !DirProblem(err) {
			t.Errorf("read-only directory: %v", err)
		}
		if names := dirNames(t, ro); len(names) != 0 {
			t.Errorf("read-only directory holds %v", names)
		}
	}
}

// The default export directory is the first writable of the current
// directory and $HOME, else the temporary directory.
func TestFirstWritable(t *testing.T) {
	only := func(ok ...string) func(string) bool {
		return func(d string) bool { return slices.Contains(ok, d) }
	}
	for _, tc := range []struct {
		dirs []string
		ok   func(string) bool
		want string
	}{
		{[]string{".", "/home/u"}, only(".", "/home/u"), "."},
		{[]string{".", "/home/u"}, only("/home/u"), "/home/u"},
		{[]string{".", ""}, only(""), os.TempDir()},
		{[]string{".", "/nonexistent"}, only(), os.TempDir()},
	} {
		if got := firstWritable(tc.dirs, tc.ok); got != tc.want {
			t.Errorf("firstWritable(%q) = %q, want %q", tc.dirs, got, tc.want)
		}
	}
	if !writableDir(t.TempDir()) {
		t.Errorf("writableDir says a fresh temporary directory is not writable")
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		os.Chmod(ro, 0o555)
		if writableDir(ro) {
			t.Errorf("writableDir accepts a read-only directory")
		}
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
