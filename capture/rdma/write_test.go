// SPDX-License-Identifier: Apache-2.0

package rdma_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/capture/rdma"
)

const rdmaCM = "kernel/config/rdma_cm"

// fakeConfigfs is rdma_cm's configfs as drivers/infiniband/core/
// cma_configfs.c makes it, over the files of a DirWriter: a Mkdir of
// rdma_cm/DEV makes the device's ports (make_cma_dev), a write of
// default_roce_tos stores a decimal u8 and prints it back "%u\n"
// (default_roce_tos_store, kstrtou8; decimal only here).
type fakeConfigfs struct {
	rdma.WriteFS
	root string
	// ports is the port count of each RDMA device; a Mkdir of
	// rdma_cm/DEV for any other name fails with ENODEV.
	ports map[string]int
	// kept is the ToS the kernel holds for a device's ports, "0\n"
	// when missing: what default_roce_tos reads once the directory is
	// made (the value outlives the directory).
	kept map[string]string
	// mkdirErr and storeErr, when set, are what a Mkdir of rdma_cm/DEV
	// and a write of default_roce_tos fail with.
	mkdirErr, storeErr error
	// ignoreWrites: a write of default_roce_tos succeeds and changes
	// nothing.
	ignoreWrites bool
	// mkdirs and writes are the names given to Mkdir and WriteFile.
	mkdirs, writes []string
}

func newFake(t *testing.T) *fakeConfigfs {
	root := t.TempDir()
	return &fakeConfigfs{WriteFS: rdma.DirWriter(root), root: root, ports: map[string]int{"mlx5_0": 2, "bnxt_re0": 1}}
}

func (f *fakeConfigfs) Mkdir(name string) error {
	f.mkdirs = append(f.mkdirs, name)
	dir, dev := path.Split(name)
	if dir != rdmaCM+"/" {
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.EPERM} // no make_group there
	}
	if f.mkdirErr != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: f.mkdirErr}
	}
	n, ok := f.ports[dev]
	if !ok {
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENODEV}
	}
	if err := f.WriteFS.Mkdir(name); err != nil {
		return err
	}
	tos := f.kept[dev]
	if tos == "" {
		tos = "0\n"
	}
	for p := 1; p <= n; p++ {
		dir := filepath.Join(f.root, filepath.FromSlash(name), "ports", strconv.Itoa(p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "default_roce_tos"), []byte(tos), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "default_roce_mode"), []byte("RoCE v2\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeConfigfs) WriteFile(name string, data []byte) error {
	f.writes = append(f.writes, name)
	if path.Base(name) != "default_roce_tos" {
		return f.WriteFS.WriteFile(name, data)
	}
	if f.storeErr != nil {
		return &fs.PathError{Op: "write", Path: name, Err: f.storeErr}
	}
	v, err := strconv.ParseUint(strings.TrimSuffix(string(data), "\n"), 10, 8)
	if err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: syscall.EINVAL}
	}
	if f.ignoreWrites {
		return nil
	}
	return f.WriteFS.WriteFile(name, []byte(strconv.FormatUint(v, 10)+"\n"))
}

// makeTree makes the files of tree under root: a name ending in '/' is
// a directory, any other a file with that content.
func makeTree(t *testing.T, root string, tree map[string]string) {
	t.Helper()
	for name, content := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		dir := p
		if !strings.HasSuffix(name, "/") {
			dir = filepath.Dir(p)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "/") {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkFiles checks the content of files under root; "" for one that
// must not exist.
func checkFiles(t *testing.T, what, root string, files map[string]string) {
	t.Helper()
	for name, want := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case want == "" && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s: %s exists (%q, %v), want none", what, name, b, err)
		case want != "" && (err != nil || string(b) != want):
			t.Errorf("%s: %s = %q, %v; want %q", what, name, b, err, want)
		}
	}
}

func tosFile(dev, port string) string {
	return rdmaCM + "/" + dev + "/ports/" + port + "/default_roce_tos"
}

func checkErr(t *testing.T, what string, err error, want string, is []error) {
	t.Helper()
	got := ""
	if err != nil {
		got = err.Error()
	}
	if got != want {
		t.Errorf("%s: error\n  %q\nwant\n  %q", what, got, want)
	}
	if strings.ContainsAny(got, "\n\r") {
		t.Errorf("%s: error is not one line: %q", what, got)
	}
	for _, target := range is {
		if !errors.Is(err, target) {
			t.Errorf("%s: error %v is not %v", what, err, target)
		}
	}
}

// mlx5Configured is rdma_cm/mlx5_0 as made earlier, port 1 at ToS 0.
var mlx5Configured = map[string]string{
	tosFile("mlx5_0", "1"):                       "0\n",
	rdmaCM + "/mlx5_0/ports/1/default_roce_mode": "RoCE v2\n",
	rdmaCM + "/mlx5_0/ports/2/default_roce_tos":  "0\n",
	rdmaCM + "/mlx5_0/ports/2/default_roce_mode": "RoCE v2\n",
}

func TestSetDefaultToS(t *testing.T) {
	tos0, tos106 := rdma.ToS{}, rdma.DecodeToS(106)
	mlx5Tos := tosFile("mlx5_0", "1")
	for _, tc := range []struct {
		name string
		// tree is made under the root beside rdma_cm itself, unless
		// noConfigfs.
		tree       map[string]string
		noConfigfs bool
		fake       func(*fakeConfigfs)
		dev, port  string
		tos        uint8
		want       rdma.ToSWrite
		err        string
		is         []error
		files      map[string]string
		mkdirs     []string
	}{{
		name: "directory exists, 0 → 106",
		tree: mlx5Configured, dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos), After: tos106},
		files: map[string]string{mlx5Tos: "106\n", tosFile("mlx5_0", "2"): "0\n"},
	}, {
		name: "directory missing: made, its ports with it, written",
		dev:  "mlx5_0", port: "2", tos: 106,
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "2", Before: ok(tos0, tosFile("mlx5_0", "2")), After: tos106, Created: true},
		files: map[string]string{
			tosFile("mlx5_0", "2"): "106\n", mlx5Tos: "0\n",
			rdmaCM + "/mlx5_0/ports/2/default_roce_mode": "RoCE v2\n",
		},
		mkdirs: []string{rdmaCM + "/mlx5_0"},
	}, {
		name: "directory missing: the kernel kept what a removed one set",
		fake: func(f *fakeConfigfs) { f.kept = map[string]string{"mlx5_0": "104\n"} },
		dev:  "mlx5_0", port: "1", tos: 106,
		want:   rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(rdma.DecodeToS(104), mlx5Tos), After: tos106, Created: true},
		files:  map[string]string{mlx5Tos: "106\n"},
		mkdirs: []string{rdmaCM + "/mlx5_0"},
	}, {
		name: "same value",
		tree: mlx5Configured, dev: "mlx5_0", port: "1", tos: 0,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos), After: tos0},
		files: map[string]string{mlx5Tos: "0\n"},
	}, {
		name: "not an RDMA device: ENODEV, nothing made",
		dev:  "eth0", port: "1", tos: 106,
		want:   rdma.ToSWrite{Dev: "eth0", Port: "1"},
		err:    "kernel/config/rdma_cm/eth0: mkdir: no such device (ENODEV: eth0 is not an RDMA device)",
		is:     []error{syscall.ENODEV},
		files:  map[string]string{rdmaCM + "/eth0": ""},
		mkdirs: []string{rdmaCM + "/eth0"},
	}, {
		name: "mkdir not permitted",
		fake: func(f *fakeConfigfs) { f.mkdirErr = syscall.EACCES },
		dev:  "mlx5_0", port: "1", tos: 106,
		want:   rdma.ToSWrite{Dev: "mlx5_0", Port: "1"},
		err:    "kernel/config/rdma_cm/mlx5_0: mkdir: permission denied (configfs needs root)",
		is:     []error{os.ErrPermission, syscall.EACCES},
		files:  map[string]string{rdmaCM + "/mlx5_0": ""},
		mkdirs: []string{rdmaCM + "/mlx5_0"},
	}, {
		name: "port missing after the mkdir",
		dev:  "mlx5_0", port: "3", tos: 106,
		want:   rdma.ToSWrite{Dev: "mlx5_0", Port: "3", Created: true},
		err:    "kernel/config/rdma_cm/mlx5_0 has no port 3 (ports 1, 2); mkdir made kernel/config/rdma_cm/mlx5_0, which is left in place",
		is:     []error{fs.ErrNotExist},
		files:  map[string]string{mlx5Tos: "0\n", tosFile("mlx5_0", "3"): ""},
		mkdirs: []string{rdmaCM + "/mlx5_0"},
	}, {
		name: "port missing in a directory that was there",
		tree: map[string]string{rdmaCM + "/bnxt_re0/ports/": ""},
		dev:  "bnxt_re0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "bnxt_re0", Port: "1"},
		err:   "kernel/config/rdma_cm/bnxt_re0 has no port 1 (no ports)",
		is:    []error{fs.ErrNotExist},
		files: map[string]string{tosFile("bnxt_re0", "1"): ""},
	}, {
		name: "the store refuses: EINVAL",
		tree: mlx5Configured, fake: func(f *fakeConfigfs) { f.storeErr = syscall.EINVAL },
		dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos)},
		err:   "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: write 106: invalid argument (EINVAL: the kernel refused 106 for port 1)",
		is:    []error{syscall.EINVAL},
		files: map[string]string{mlx5Tos: "0\n"},
	}, {
		name: "the store refuses after the mkdir: EINVAL, and the mkdir said",
		fake: func(f *fakeConfigfs) { f.storeErr = syscall.EINVAL },
		dev:  "mlx5_0", port: "1", tos: 106,
		want:   rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos), Created: true},
		err:    "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: write 106: invalid argument (EINVAL: the kernel refused 106 for port 1); mkdir made kernel/config/rdma_cm/mlx5_0, which is left in place",
		is:     []error{syscall.EINVAL},
		files:  map[string]string{mlx5Tos: "0\n"},
		mkdirs: []string{rdmaCM + "/mlx5_0"},
	}, {
		name: "write not permitted",
		tree: mlx5Configured, fake: func(f *fakeConfigfs) { f.storeErr = syscall.EPERM },
		dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos)},
		err:   "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: write 106: operation not permitted (configfs needs root)",
		is:    []error{os.ErrPermission},
		files: map[string]string{mlx5Tos: "0\n"},
	}, {
		name: "the device went away: ENODEV on the write",
		tree: mlx5Configured, fake: func(f *fakeConfigfs) { f.storeErr = syscall.ENODEV },
		dev: "mlx5_0", port: "1", tos: 106,
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos)},
		err:  "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: write 106: no such device (ENODEV: mlx5_0 is gone)",
		is:   []error{syscall.ENODEV},
	}, {
		name: "the write is ignored: the read back differs",
		tree: mlx5Configured, fake: func(f *fakeConfigfs) { f.ignoreWrites = true },
		dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(tos0, mlx5Tos), After: tos0},
		err:   "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: wrote 106, reads back 0",
		files: map[string]string{mlx5Tos: "0\n"},
	}, {
		name: "the value before cannot be read: written all the same",
		tree: map[string]string{mlx5Tos: "0x6a\n"}, dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: bad[rdma.ToS](mlx5Tos, "not a number"), After: tos106},
		files: map[string]string{mlx5Tos: "106\n"},
	}, {
		name: "the attribute is missing: not created",
		tree: map[string]string{rdmaCM + "/mlx5_0/ports/1/": ""}, dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: bad[rdma.ToS](mlx5Tos, "missing")},
		err:   "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: write 106: no such attribute",
		is:    []error{fs.ErrNotExist},
		files: map[string]string{mlx5Tos: ""},
	}, {
		name: "the value read back is not a ToS",
		tree: mlx5Configured, fake: func(f *fakeConfigfs) {
			f.ignoreWrites = true
			makeTree(t, f.root, map[string]string{mlx5Tos: "-\n"})
		},
		dev: "mlx5_0", port: "1", tos: 106,
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: bad[rdma.ToS](mlx5Tos, "not a number")},
		err:  "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos: wrote 106, reads back not a number",
	}, {
		name:       "no configfs",
		noConfigfs: true, dev: "mlx5_0", port: "1", tos: 106,
		want:  rdma.ToSWrite{Dev: "mlx5_0", Port: "1"},
		err:   "kernel/config/rdma_cm: missing (configfs not mounted on /sys/kernel/config, or rdma_cm not loaded); nothing done",
		is:    []error{fs.ErrNotExist},
		files: map[string]string{"kernel": ""},
	}, {
		name:       "rdma_cm is a file",
		noConfigfs: true, tree: map[string]string{rdmaCM: "x"}, dev: "mlx5_0", port: "1", tos: 106,
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "1"},
		err:  "kernel/config/rdma_cm: not a directory; nothing done",
		is:   []error{syscall.ENOTDIR},
	}} {
		f := newFake(t)
		if !tc.noConfigfs {
			makeTree(t, f.root, map[string]string{rdmaCM + "/": ""})
		}
		makeTree(t, f.root, tc.tree)
		if tc.fake != nil {
			tc.fake(f)
		}
		got, err := rdma.SetDefaultToS(f, tc.dev, tc.port, tc.tos)
		checkErr(t, tc.name, err, tc.err, tc.is)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: ToSWrite (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.mkdirs, f.mkdirs); diff != "" {
			t.Errorf("%s: mkdirs (-want +got):\n%s", tc.name, diff)
		}
		checkFiles(t, tc.name, f.root, tc.files)
	}
}

// TestSetDefaultToSRefuses refuses names that are not a device's or a
// port's before touching anything, and panics on none.
func TestSetDefaultToSRefuses(t *testing.T) {
	for _, tc := range []struct{ dev, port, err string }{
		{"", "1", `invalid RDMA device name "": empty; nothing done`},
		{"..", "1", `invalid RDMA device name "..": not a name; nothing done`},
		{".", "1", `invalid RDMA device name ".": not a name; nothing done`},
		{"../mlx5_0", "1", `invalid RDMA device name "../mlx5_0": contains '/'; nothing done`},
		{"mlx5_0/ports", "1", `invalid RDMA device name "mlx5_0/ports": contains '/'; nothing done`},
		{"/etc", "1", `invalid RDMA device name "/etc": contains '/'; nothing done`},
		{"mlx5_0\n", "1", `invalid RDMA device name "mlx5_0\n": not printable ASCII; nothing done`},
		{"mlx5 0", "1", `invalid RDMA device name "mlx5 0": not printable ASCII; nothing done`},
		{"mlx5_\x00", "1", `invalid RDMA device name "mlx5_\x00": not printable ASCII; nothing done`},
		{"mlx5_\xff", "1", `invalid RDMA device name "mlx5_\xff": not printable ASCII; nothing done`},
		{"mlx5_é", "1", `invalid RDMA device name "mlx5_é": not printable ASCII; nothing done`},
		{strings.Repeat("m", 65), "1", `invalid RDMA device name "` + strings.Repeat("m", 65) + `": longer than 64 bytes; nothing done`},
		{"mlx5_0", "", `invalid port "" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "0", `invalid port "0" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "256", `invalid port "256" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "01", `invalid port "01" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "+1", `invalid port "+1" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "-1", `invalid port "-1" of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "1/..", `invalid port "1/.." of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "..", `invalid port ".." of mlx5_0: not a decimal number 1-255; nothing done`},
		{"mlx5_0", "99999999999999999999", `invalid port "99999999999999999999" of mlx5_0: not a decimal number 1-255; nothing done`},
	} {
		f := newFake(t)
		makeTree(t, f.root, mlx5Configured)
		what := strconv.Quote(tc.dev) + " port " + strconv.Quote(tc.port)
		got, err := rdma.SetDefaultToS(f, tc.dev, tc.port, 106)
		checkErr(t, what, err, tc.err, nil)
		if want := (rdma.ToSWrite{Dev: tc.dev, Port: tc.port}); !cmp.Equal(want, got) {
			t.Errorf("%s: ToSWrite %+v, want %+v", what, got, want)
		}
		// An undo of a write of these names refuses them just so.
		_, err = rdma.UndoDefaultToS(f, rdma.ToSWrite{Dev: tc.dev, Port: tc.port, Before: ok(rdma.ToS{}, "x")})
		checkErr(t, "undo "+what, err, tc.err, nil)
		if f.mkdirs != nil || f.writes != nil {
			t.Errorf("%s: mkdirs %q, writes %q; want none", what, f.mkdirs, f.writes)
		}
		checkFiles(t, what, f.root, map[string]string{tosFile("mlx5_0", "1"): "0\n"})
	}
}

func TestUndoDefaultToS(t *testing.T) {
	const notConfigured = "not configured: no kernel/config/rdma_cm/mlx5_0 (mkdir makes it)"
	for _, tc := range []struct {
		name    string
		tree    map[string]string
		tos     uint8 // set first, unless the write is given
		w       *rdma.ToSWrite
		want    rdma.ToSWrite
		err     string
		content string // default_roce_tos of mlx5_0 port 1 after
	}{{
		name: "known before: restored",
		tree: mlx5Configured, tos: 106,
		want:    rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(rdma.DecodeToS(106), tosFile("mlx5_0", "1")), After: rdma.ToS{}},
		content: "0\n",
	}, {
		name: "known before, directory made: restored, the directory stays",
		tos:  184,
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(rdma.DecodeToS(184), tosFile("mlx5_0", "1")), After: rdma.ToS{}},
		// the directory stays: the file is there, back at 0
		content: "0\n",
	}, {
		name: "unknown before: refused, nothing changed",
		tree: map[string]string{tosFile("mlx5_0", "1"): "106\n"},
		w:    &rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: bad[rdma.ToS](tosFile("mlx5_0", "1"), notConfigured), After: rdma.DecodeToS(106), Created: true},
		want: rdma.ToSWrite{Dev: "mlx5_0", Port: "1"},
		err: "mlx5_0 port 1: the ToS before was not known (" + notConfigured +
			"): nothing changed; set one with SetDefaultToS",
		content: "106\n",
	}, {
		name:    "nothing at all",
		tree:    mlx5Configured,
		w:       &rdma.ToSWrite{},
		err:     " port : the ToS before was not known (no value was read): nothing changed; set one with SetDefaultToS",
		content: "0\n",
	}} {
		f := newFake(t)
		makeTree(t, f.root, map[string]string{rdmaCM + "/": ""})
		makeTree(t, f.root, tc.tree)
		w := tc.w
		if w == nil {
			set, err := rdma.SetDefaultToS(f, "mlx5_0", "1", tc.tos)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			w = &set
		}
		mkdirs, writes := len(f.mkdirs), len(f.writes)
		got, err := rdma.UndoDefaultToS(f, *w)
		checkErr(t, tc.name, err, tc.err, nil)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: ToSWrite (-want +got):\n%s", tc.name, diff)
		}
		if len(f.mkdirs) != mkdirs {
			t.Errorf("%s: undo made %q", tc.name, f.mkdirs[mkdirs:])
		}
		if tc.err != "" && len(f.writes) != writes {
			t.Errorf("%s: a refused undo wrote %q", tc.name, f.writes[writes:])
		}
		checkFiles(t, tc.name, f.root, map[string]string{tosFile("mlx5_0", "1"): tc.content})
	}
}

func TestToSWriteString(t *testing.T) {
	src := tosFile("mlx5_0", "1")
	for _, tc := range []struct {
		w    rdma.ToSWrite
		want string
	}{
		{rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(rdma.ToS{}, src), After: rdma.DecodeToS(106), Created: true},
			"mlx5_0 port 1: default_roce_tos 0 → 106 (DSCP 26, ECN ECT(0)) (rdma_cm/mlx5_0 created); applies to new rdma_cm connections"},
		{rdma.ToSWrite{Dev: "mlx5_0", Port: "1", Before: ok(rdma.DecodeToS(106), src), After: rdma.DecodeToS(184)},
			"mlx5_0 port 1: default_roce_tos 106 → 184 (DSCP 46, ECN Not-ECT); applies to new rdma_cm connections"},
		{rdma.ToSWrite{Dev: "bnxt_re0", Port: "2", Before: bad[rdma.ToS](src, "not a number"), After: rdma.DecodeToS(107)},
			"bnxt_re0 port 2: default_roce_tos unknown → 107 (DSCP 26, ECN CE); applies to new rdma_cm connections"},
		{rdma.ToSWrite{Dev: "a\nb", Port: "1", After: rdma.DecodeToS(105)},
			`a\nb port 1: default_roce_tos unknown → 105 (DSCP 26, ECN ECT(1)); applies to new rdma_cm connections`},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("String() =\n  %q\nwant\n  %q", got, tc.want)
		}
	}
	if got, want := (rdma.ToS{Byte: 1, DSCP: 0, ECN: 9}).String(), "1 (DSCP 0, ECN 9)"; got != want {
		t.Errorf("ToS with ECN 9: %q, want %q", got, want)
	}
}

// TestDirWriterPaths refuses names that are not clean, relative and
// inside the root, symbolic links out of it included, and makes
// nothing outside it.
func TestDirWriterPaths(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	makeTree(t, base, map[string]string{"root/a/": "", "outside/attr": "0\n"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(root, "up")); err != nil {
		t.Fatal(err)
	}
	w := rdma.DirWriter(root)
	for _, name := range []string{"", ".", "..", "../x", "../outside/attr", "/x", "/", "a/../../x", "a/../x", "a//x", "a/", "./a/x", "out/x", "out/attr", "up/x", "up/attr"} {
		if err := w.Mkdir(name); err == nil {
			t.Errorf("Mkdir(%q) succeeded", name)
		}
		if err := w.WriteFile(name, []byte("1\n")); err == nil {
			t.Errorf("WriteFile(%q) succeeded", name)
		}
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 1 {
		t.Errorf("outside the root: %v, %v; want attr alone", entries, err)
	}
	checkFiles(t, "outside", outside, map[string]string{"attr": "0\n"})
	for _, name := range []string{"x", "../x"} {
		checkFiles(t, "beside the root", root, map[string]string{name: ""})
	}
	checkFiles(t, "the root", root, map[string]string{"a/x": ""})
	if err := w.Mkdir("a/x"); err != nil {
		t.Errorf("Mkdir(a/x): %v", err)
	}
	if fi, err := os.Stat(filepath.Join(root, "a/x")); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755&^umask(t) {
		t.Errorf("a/x: %v, %v; want a directory 0755", fi, err)
	}
}

func umask(t *testing.T) fs.FileMode {
	dir := t.TempDir()
	p := filepath.Join(dir, "probe")
	if err := os.Mkdir(p, 0o777); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ fi.Mode().Perm()
}

// TestDirWriterWriteFile writes an existing file only, in place of what
// it held, and never makes one.
func TestDirWriterWriteFile(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, map[string]string{"ports/1/default_roce_tos": "255\n", "ports/2/": ""})
	if err := syscall.Mkfifo(filepath.Join(root, "ports/1/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := rdma.DirWriter(root)
	if err := w.WriteFile("ports/1/default_roce_tos", []byte("1\n")); err != nil {
		t.Errorf("WriteFile: %v", err)
	}
	checkFiles(t, "written", root, map[string]string{"ports/1/default_roce_tos": "1\n"})

	err := w.WriteFile("ports/2/default_roce_tos", []byte("1\n"))
	checkErr(t, "missing", err, "write ports/2/default_roce_tos: no such attribute", []error{fs.ErrNotExist})
	checkFiles(t, "missing", root, map[string]string{"ports/2/default_roce_tos": ""})
	err = w.WriteFile("ports/3/default_roce_tos", []byte("1\n"))
	checkErr(t, "missing directory", err, "write ports/3/default_roce_tos: no such attribute", []error{fs.ErrNotExist})
	checkFiles(t, "missing directory", root, map[string]string{"ports/3": ""})

	if err := w.WriteFile("ports/1", []byte("1\n")); err == nil {
		t.Error("WriteFile of a directory succeeded")
	}
	// A FIFO without a reader is refused, without waiting for one.
	if err := w.WriteFile("ports/1/fifo", []byte("1\n")); err == nil {
		t.Error("WriteFile of a FIFO succeeded")
	}
	// Read through the same FS.
	b, err := w.ReadFile("ports/1/default_roce_tos", 16)
	if err != nil || string(b) != "1\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	// A root that is the current directory.
	t.Chdir(root)
	if err := rdma.DirWriter("").WriteFile("ports/1/default_roce_tos", []byte("2\n")); err != nil {
		t.Errorf("DirWriter(\"\").WriteFile: %v", err)
	}
	checkFiles(t, "root \"\"", root, map[string]string{"ports/1/default_roce_tos": "2\n"})
}
