// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dcbtop/dcbtop/testbed"
)

// TestMain removes what the package tests built once for every test.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the dcbtop binary and Debian package the tests build once
// (buildPackage), as make deb does.
var built struct {
	once    sync.Once
	dir     string
	bin     string // static dcbtop (CGO_ENABLED=0)
	deb     string // the package assets/deb/build made of bin
	version string // assets/deb/build --version
	arch    string // assets/deb/build --arch
	err     error
}

// debFiles are the files the package installs, each with its mode and
// the source it is a copy of (the man page is gzipped; the binary is the
// one built).
var debFiles = []struct {
	path, src string
	mode      fs.FileMode
}{
	{"/usr/bin/dcbtop", "", 0o755},
	{"/usr/share/man/man8/dcbtop.8.gz", "dcbtop.8", 0o644},
	{"/usr/share/bash-completion/completions/dcbtop", "completion/dcbtop.bash", 0o644},
	{"/usr/share/zsh/vendor-completions/_dcbtop", "completion/_dcbtop", 0o644},
	{"/usr/share/dcbtop/prometheus/dcbtop.rules.yml", "prometheus/dcbtop.rules.yml", 0o644},
	{"/usr/share/dcbtop/prometheus/dcbtop.rules.test.yml", "prometheus/dcbtop.rules.test.yml", 0o644},
	{"/usr/share/dcbtop/grafana/dcbtop.json", "grafana/dcbtop.json", 0o644},
	{"/usr/share/dcbtop/kubernetes/dcbtop.yaml", "kubernetes/dcbtop.yaml", 0o644},
	{"/usr/share/dcbtop/kubernetes/Dockerfile", "kubernetes/Dockerfile", 0o644},
	{"/lib/systemd/system/dcbtop.service", "systemd/dcbtop.service", 0o644},
	{"/etc/default/dcbtop", "systemd/dcbtop.default", 0o644},
	{"/usr/share/dcbtop/systemd/tls.conf", "systemd/tls.conf", 0o644},
	{"/usr/share/dcbtop/systemd/web-config.yml", "systemd/web-config.yml", 0o644},
	{"/usr/share/doc/dcbtop/copyright", "deb/copyright", 0o644},
}

// run runs a command with a timeout and returns its stdout; the error
// carries the command line and stderr.
func run(t testing.TB, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out), nil
}

// buildPackage builds, once per test binary, a static dcbtop with the
// Makefile's flags and packages it with assets/deb/build, as make deb
// does, into a temporary directory.
func buildPackage(t testing.TB) {
	t.Helper()
	testbed.RequireCommands(t, "git", "dpkg-deb")
	built.once.Do(func() {
		built.err = func() error {
			dir, err := os.MkdirTemp("", "dcbtop-deb-test-")
			if err != nil {
				return err
			}
			built.dir = dir
			built.bin = filepath.Join(dir, "dcbtop")
			if _, err := run(t, "..", []string{"CGO_ENABLED=0"}, "go", "build", "-trimpath",
				"-ldflags", "-X main.version=deb-test -X main.revision=deb-test -s -w",
				"-o", built.bin, "./cmd/dcbtop"); err != nil {
				return err
			}
			out, err := run(t, "", nil, "deb/build", "--version")
			if err != nil {
				return err
			}
			built.version = strings.TrimSpace(out)
			if out, err = run(t, "", nil, "deb/build", "--arch"); err != nil {
				return err
			}
			built.arch = strings.TrimSpace(out)
			if out, err = run(t, "", nil, "deb/build", built.bin, dir); err != nil {
				return err
			}
			built.deb = strings.TrimSpace(out)
			return nil
		}()
	})
	if built.err != nil {
		t.Fatalf("building the package: %v", built.err)
	}
}

// gitRepo makes a git repository in a temporary directory with one
// commit (every commit of it is dated 2026-11-27 04:30 UTC) and returns
// it and a function that runs git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	dir := t.TempDir()
	env := []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
		// 23:30 in UTC-5 is the next day in UTC: the version's date is UTC.
		"GIT_AUTHOR_DATE=2026-11-26T23:30:00-05:00", "GIT_COMMITTER_DATE=2026-11-26T23:30:00-05:00"}
	git := func(args ...string) string {
		t.Helper()
		out, err := run(t, dir, env, "git", args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("commit", "-q", "-m", "one")
	return dir, git
}

// TestDebVersion checks the package versions assets/deb/build derives
// from git: 0~gitYYYYMMDD.N.HASH (commit date in UTC, N commits) before
// any tag, the tag on a tagged commit, TAG+git... after one, +dirty with
// changes, that each is a valid Debian version, and that a later build of
// the same day sorts after an earlier one whatever their hashes (issue
// 35: by hash alone, a later build could look like a downgrade).
func TestDebVersion(t *testing.T) {
	testbed.RequireCommands(t, "git", "dpkg")
	dir, git := gitRepo(t)
	version := func() string {
		t.Helper()
		out, err := run(t, "", nil, "deb/build", "--version", dir)
		if err != nil {
			t.Fatal(err)
		}
		v := strings.TrimSpace(out)
		if _, err := run(t, "", nil, "dpkg", "--validate-version", v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
		return v
	}
	hash := git("rev-parse", "--short=7", "HEAD")
	first := version()
	if want := "0~git20261127.1." + hash; first != want {
		t.Errorf("untagged: version %q, want %q", first, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("1b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-a", "-m", "one b")
	second := version()
	if _, err := run(t, "", nil, "dpkg", "--compare-versions", first, "lt", second); err != nil {
		t.Errorf("a later build of the same day %s does not sort after %s", second, first)
	}
	git("tag", "v1.2.3")
	if v := version(); v != "1.2.3" {
		t.Errorf("tagged v1.2.3: version %q, want 1.2.3", v)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != "1.2.3+dirty" {
		t.Errorf("tagged, changed: version %q, want 1.2.3+dirty", v)
	}
	git("commit", "-q", "-a", "-m", "two")
	hash = git("rev-parse", "--short=7", "HEAD")
	if v, want := version(), "1.2.3+git20261127.3."+hash; v != want {
		t.Errorf("after the tag: version %q, want %q", v, want)
	}
	// Debian orders them as releases should be.
	if _, err := run(t, "", nil, "dpkg", "--compare-versions", "0~git20261127.3."+hash, "lt", "1.2.3"); err != nil {
		t.Error(err)
	}
	if _, err := run(t, "", nil, "dpkg", "--compare-versions", "1.2.3", "lt", "1.2.3+git20261127.3."+hash); err != nil {
		t.Error(err)
	}
}

// TestMakeDeb checks that make deb builds what buildPackage builds: a
// static binary with the Makefile's LDFLAGS, packaged by
// assets/deb/build into bin/.
func TestMakeDeb(t *testing.T) {
	testbed.RequireCommands(t, "make")
	out, err := run(t, "..", nil, "make", "-n", "deb")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0 ", " build ", "-ldflags '-X main.version=", " -s -w'", "-o bin/deb/dcbtop ./cmd/dcbtop", "assets/deb/build bin/deb/dcbtop bin"} {
		if !strings.Contains(out, want) {
			t.Errorf("make -n deb does not say %q:\n%s", want, out)
		}
	}
}

// controlFields parses a Debian control paragraph (continuation lines
// are appended to their field).
func controlFields(s string) map[string]string {
	f := map[string]string{}
	var last string
	for _, line := range strings.Split(s, "\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			f[last] += "\n" + line
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		last = k
		f[k] = strings.TrimSpace(v)
	}
	return f
}

// debEntry is a line of dpkg-deb -c.
type debEntry struct {
	mode, owner, path, target string
	size                      int64
}

// debContents lists a package's data archive with dpkg-deb -c.
func debContents(t *testing.T, deb string) []debEntry {
	t.Helper()
	out, err := run(t, "", nil, "dpkg-deb", "-c", deb)
	if err != nil {
		t.Fatal(err)
	}
	var es []debEntry
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("dpkg-deb -c: cannot read %q", line)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("dpkg-deb -c: size in %q: %v", line, err)
		}
		e := debEntry{mode: f[0], owner: f[1], size: size, path: strings.TrimPrefix(f[5], ".")}
		if len(f) == 8 && f[6] == "->" {
			e.target = f[7]
		}
		es = append(es, e)
	}
	return es
}

// TestDebContents builds the package and checks it with dpkg-deb: its
// name, control fields (no dependency: the binary is static), conffiles,
// maintainer scripts, md5sums, and every file it installs: path, owner
// root, mode, and content (a copy of its source in the repository).
func TestDebContents(t *testing.T) {
	buildPackage(t)
	if got, want := filepath.Base(built.deb), "dcbtop_"+built.version+"_"+built.arch+".deb"; got != want {
		t.Errorf("package file %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`).MatchString(built.version) {
		t.Errorf("version %q does not start with a digit or has characters Debian does not allow", built.version)
	}
	goarch, err := run(t, "", nil, "go", "env", "GOARCH")
	if err != nil {
		t.Fatal(err)
	}
	if d, g := built.arch, strings.TrimSpace(goarch); d != g && !(d == "i386" && g == "386") && !(d == "armhf" && g == "arm") && !(d == "ppc64el" && g == "ppc64le") {
		t.Errorf("architecture %s for GOARCH %s", d, g)
	}

	// Control archive.
	ctl := t.TempDir()
	if _, err := run(t, "", nil, "dpkg-deb", "-e", built.deb, ctl); err != nil {
		t.Fatal(err)
	}
	wantCtl := map[string]fs.FileMode{"control": 0o644, "conffiles": 0o644, "md5sums": 0o644, "postinst": 0o755, "prerm": 0o755, "postrm": 0o755}
	ents, err := os.ReadDir(ctl)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := wantCtl[e.Name()]; !ok {
			t.Errorf("control archive holds %s", e.Name())
		} else if fi.Mode().Perm() != m || !fi.Mode().IsRegular() {
			t.Errorf("control archive: %s is %v, want %v", e.Name(), fi.Mode(), m)
		}
		delete(wantCtl, e.Name())
	}
	for n := range wantCtl {
		t.Errorf("control archive has no %s", n)
	}
	b, _ := os.ReadFile(filepath.Join(ctl, "control"))
	f := controlFields(string(b))
	for k, want := range map[string]string{"Package": "dcbtop", "Version": built.version, "Architecture": built.arch, "Section": "net", "Priority": "optional"} {
		if f[k] != want {
			t.Errorf("control: %s %q, want %q", k, f[k], want)
		}
	}
	for _, k := range []string{"Maintainer", "Description", "Installed-Size", "Homepage"} {
		if f[k] == "" {
			t.Errorf("control: no %s", k)
		}
	}
	for _, k := range []string{"Depends", "Pre-Depends", "Recommends"} {
		if v, ok := f[k]; ok {
			t.Errorf("control: %s: %s (the binary is static: it needs nothing)", k, v)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ctl, "conffiles")); string(b) != "/etc/default/dcbtop\n" {
		t.Errorf("conffiles %q, want /etc/default/dcbtop alone", b)
	}
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		if _, err := run(t, "", nil, "sh", "-n", filepath.Join(ctl, s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}

	// Data archive.
	var regular []string
	var dataKB int64
	for _, e := range debContents(t, built.deb) {
		if e.owner != "root/root" {
			t.Errorf("%s is owned by %s, want root/root", e.path, e.owner)
		}
		switch e.mode[0] {
		case 'd':
			if e.mode != "drwxr-xr-x" {
				t.Errorf("directory %s is %s, want drwxr-xr-x", e.path, e.mode)
			}
		case '-':
			regular = append(regular, e.path)
			dataKB += (e.size + 1023) / 1024
		default:
			t.Errorf("%s: %s is neither a file nor a directory", e.path, e.mode)
		}
	}
	var want []string
	for _, df := range debFiles {
		want = append(want, df.path)
	}
	slices.Sort(regular)
	slices.Sort(want)
	if !slices.Equal(regular, want) {
		t.Errorf("the package installs\n  %s\nwant\n  %s", strings.Join(regular, "\n  "), strings.Join(want, "\n  "))
	}
	if n, err := strconv.ParseInt(f["Installed-Size"], 10, 64); err != nil || n != dataKB {
		t.Errorf("Installed-Size %q, want %d (KiB, each file rounded up)", f["Installed-Size"], dataKB)
	}

	data := t.TempDir()
	if _, err := run(t, "", nil, "dpkg-deb", "-x", built.deb, data); err != nil {
		t.Fatal(err)
	}
	for _, df := range debFiles {
		p := filepath.Join(data, df.path)
		fi, err := os.Stat(p)
		if err != nil {
			t.Error(err)
			continue
		}
		if fi.Mode().Perm() != df.mode {
			t.Errorf("%s is %v, want %v", df.path, fi.Mode().Perm(), df.mode)
		}
		got, _ := os.ReadFile(p)
		var src []byte
		switch {
		case df.src == "":
			src, err = os.ReadFile(built.bin)
		case strings.HasSuffix(df.path, ".gz"):
			src, err = os.ReadFile(df.src)
			zr, zerr := gzip.NewReader(bytes.NewReader(got))
			if zerr != nil {
				t.Errorf("%s: %v", df.path, zerr)
				continue
			}
			got, zerr = io.ReadAll(zr)
			if zerr != nil {
				t.Errorf("%s: %v", df.path, zerr)
			}
		default:
			src, err = os.ReadFile(df.src)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%s is not a copy of %s", df.path, cmp(df.src, "the built binary"))
		}
	}
	checkMD5sums(t, filepath.Join(ctl, "md5sums"), data)

	// Static: no interpreter, no shared library (ldd's "not a dynamic
	// executable"): hence no Depends.
	ef, err := elf.Open(filepath.Join(data, "usr/bin/dcbtop"))
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("/usr/bin/dcbtop has a %v program header: it is not static, and the package would need Depends", p.Type)
		}
	}
}

// cmp returns s, or alt when s is empty.
func cmp(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// checkMD5sums checks that DEBIAN/md5sums lists every file of the data
// tree root but the conffiles, with its digest.
func checkMD5sums(t *testing.T, md5sums, root string) {
	t.Helper()
	b, err := os.ReadFile(md5sums)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, path, ok := strings.Cut(line, "  ")
		if !ok {
			t.Errorf("md5sums: cannot read %q", line)
			continue
		}
		listed["/"+path] = true
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("md5sums: %v", err)
			continue
		}
		if h := md5.Sum(data); hex.EncodeToString(h[:]) != sum {
			t.Errorf("md5sums: %s has the wrong digest", path)
		}
	}
	for _, df := range debFiles {
		if conf := strings.HasPrefix(df.path, "/etc/"); listed[df.path] == conf {
			t.Errorf("md5sums lists %s: %v, want %v (conffiles are not listed)", df.path, listed[df.path], !conf)
		}
	}
}

// A disposable root: an overlay whose lower layer is this machine's root
// file system and whose upper layer is a tmpfs, in a mount namespace that
// a holder process keeps alive (unshare --mount ... exec sleep). Commands
// run chrooted in it through nsenter; its files are read through
// /proc/PID/root. When the holder is killed, the namespace and every
// mount in it go.
type disposableRoot struct {
	t      *testing.T
	pid    int
	dir    string // the tmpfs, in the holder's namespace: upper, work, root, lower
	merged string // dir/root as the test reads it (/proc/PID/root/dir/root)
}

// newDisposableRoot sets a disposableRoot up. /proc, /sys and /dev are
// the machine's; /run and /tmp are empty tmpfs, as on a machine booted
// without systemd (so the maintainer scripts see no running systemd).
// lower is / alone (a non-recursive bind), which the overlay's lower
// layer is.
func newDisposableRoot(t *testing.T) *disposableRoot {
	t.Helper()
	testbed.RequireCommands(t, "unshare", "nsenter", "chroot")
	// dpkg's database and the files the package installs must be on the
	// root file system: the overlay covers that one alone.
	var root unix.Stat_t
	if err := unix.Stat("/", &root); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"/usr", "/etc", "/var", "/var/lib/dpkg", "/lib"} {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err == nil && st.Dev != root.Dev {
			msg := fmt.Sprintf("%s is a file system of its own: an overlay of / would not cover it", d)
			if os.Getenv(testbed.EnvRequirePriv) == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	dir := t.TempDir()
	const script = `d=$1
mount -t tmpfs -o mode=0700 dcbtop-deb-test "$d"
mkdir "$d/upper" "$d/work" "$d/root" "$d/lower"
mount --bind / "$d/lower"
mount -t overlay dcbtop-deb-test -o lowerdir=/,upperdir="$d/upper",workdir="$d/work" "$d/root"
mount --rbind /proc "$d/root/proc"
mount --rbind /sys "$d/root/sys"
mount --rbind /dev "$d/root/dev"
mount -t tmpfs -o mode=0755 dcbtop-deb-run "$d/root/run"
mount -t tmpfs -o mode=1777 dcbtop-deb-tmp "$d/root/tmp"
echo ready
exec sleep 600`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", script, "sh", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if line != "ready\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("setting up the overlay root failed: %s", stderr.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("setting up the overlay root: no answer in 30 s: %s", stderr.Bytes())
	}
	pid := cmd.Process.Pid
	return &disposableRoot{t: t, pid: pid, dir: dir, merged: fmt.Sprintf("/proc/%d/root%s/root", pid, dir)}
}

// path returns where the test reads the root's path p.
func (r *disposableRoot) path(p string) string { return r.merged + p }

// run runs a command chrooted in the root (PATH and locale as dpkg
// expects them, no terminal) and returns its combined output.
func (r *disposableRoot) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := append([]string{fmt.Sprintf("--mount=/proc/%d/ns/mnt", r.pid), "--", "chroot", r.dir + "/root"}, args...)
	cmd := exec.CommandContext(ctx, "nsenter", a...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "DEBIAN_FRONTEND=noninteractive", "HOME=/root"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("in the disposable root, %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// must is run, failing the test on an error.
func (r *disposableRoot) must(args ...string) string {
	r.t.Helper()
	out, err := r.run(args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// status returns dpkg's status of dcbtop ("" when dpkg does not know it).
func (r *disposableRoot) status() string {
	out, err := r.run("dpkg-query", "-W", "-f=${Status}", "dcbtop")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// leftovers walks the overlay's upper layer (everything written to the
// root) and returns what is there beyond dpkg's own bookkeeping and
// man-db's index: every file or symbolic link, every directory that did
// not exist before, every opaque directory and every whiteout (a path
// that existed before and was removed).
func (r *disposableRoot) leftovers() []string {
	upper := fmt.Sprintf("/proc/%d/root%s/upper", r.pid, r.dir)
	lower := fmt.Sprintf("/proc/%d/root%s/lower", r.pid, r.dir)
	var left []string
	err := filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, upper)
		if rel == "" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		switch {
		case fi.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0:
			left = append(left, rel+" (removed: it existed before)")
		case d.IsDir():
			if v, err := xattr(p, "trusted.overlay.opaque"); err == nil && v == "y" {
				left = append(left, rel+"/ (replaced: an opaque directory)")
			} else if _, err := os.Lstat(lower + rel); err != nil {
				left = append(left, rel+"/ (created)")
			}
		case !allowedLeftover(rel):
			left = append(left, rel)
		}
		return nil
	})
	if err != nil {
		r.t.Fatalf("walking the overlay's upper layer: %v", err)
	}
	return left
}

// allowedLeftover reports whether a file the package's life cycle wrote
// may stay: dpkg's database, lock files and log, and man-db's index,
// which its trigger and mandb rebuild (/var/cache/man: index.db and the
// CACHEDIR.TAG files mandb rewrites), none named after dcbtop.
func allowedLeftover(rel string) bool {
	if strings.Contains(filepath.Base(rel), "dcbtop") {
		return false
	}
	return rel == "/var/log/dpkg.log" ||
		strings.HasPrefix(rel, "/var/lib/dpkg/") ||
		strings.HasPrefix(rel, "/var/cache/man/")
}

// xattr reads an extended attribute of p (not following symbolic links).
func xattr(p, name string) (string, error) {
	b := make([]byte, 64)
	n, err := unix.Lgetxattr(p, name, b)
	if err != nil {
		return "", err
	}
	return string(b[:n]), nil
}

// TestDebInstallPurge installs the package with dpkg -i into a disposable
// root (an overlay of this machine's root, chrooted, without systemd
// running), checks the installed files, that dcbtop runs and that
// systemd-analyze verify accepts the unit there, removes it (the conffile
// stays, the unit is masked), purges it, and checks that the root holds
// nothing of it: only dpkg's bookkeeping and man-db's index changed.
// whatis returns what man-db's index says of dcbtop ("" for nothing).
func (r *disposableRoot) whatis() string {
	out, err := r.run("whatis", "dcbtop")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// debManPage is the man page the package installs.
const debManPage = "/usr/share/man/man8/dcbtop.8.gz"

func TestDebInstallPurge(t *testing.T) {
	testbed.RequirePriv(t)
	buildPackage(t)
	r := newDisposableRoot(t)
	if _, err := r.run("dpkg-query", "-W", "dcbtop"); err == nil {
		t.Fatal("dcbtop is installed on this machine: the test needs a machine where dpkg does not know it")
	}
	if _, err := os.Stat(r.path("/run/systemd/system")); err == nil {
		t.Fatal("the disposable root has /run/systemd/system: it must look like a root without systemd")
	}
	deb, err := os.ReadFile(built.deb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.path("/tmp/dcbtop.deb"), deb, 0o644); err != nil {
		t.Fatal(err)
	}

	_, err = os.Stat(r.path("/usr/bin/mandb"))
	mandb := err == nil
	var whatisBefore string
	if mandb {
		r.must("mandb", "-q")
		whatisBefore = r.whatis()
	}
	start := time.Now()
	out := r.must("dpkg", "-i", "/tmp/dcbtop.deb")
	t.Logf("dpkg -i (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if s := r.status(); s != "install ok installed" {
		t.Fatalf("after dpkg -i: status %q", s)
	}
	for _, df := range debFiles {
		fi, err := os.Lstat(r.path(df.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if st := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || fi.Mode().Perm() != df.mode || st.Uid != 0 || st.Gid != 0 {
			t.Errorf("installed %s: %v uid %d gid %d, want a file, %v, root", df.path, fi.Mode(), st.Uid, st.Gid, df.mode)
		}
	}
	if out := r.must("/usr/bin/dcbtop", "--version"); !strings.HasPrefix(out, "dcbtop deb-test") {
		t.Errorf("dcbtop --version in the root: %q", out)
	}
	// The postinst enabled the unit (deb-systemd-helper), and started
	// nothing: systemd does not run.
	const wants = "/etc/systemd/system/multi-user.target.wants/dcbtop.service"
	if target, err := os.Readlink(r.path(wants)); err != nil || target != "/lib/systemd/system/dcbtop.service" {
		t.Errorf("after dpkg -i: %s -> %q (%v), want the unit: enabled", wants, target, err)
	}
	// --man=no: verify would run man(1) for Documentation=man:dcbtop(8),
	// which leaves a cat page in /var/cache/man that nothing removes (a
	// trace of the test, not of the package). man -w finds the page.
	if out, err := r.run("systemd-analyze", "verify", "--man=no", "/lib/systemd/system/dcbtop.service"); err != nil || strings.Contains(out, "dcbtop") {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if _, err := os.Stat(r.path("/usr/bin/man")); err == nil {
		if out := r.must("man", "-w", "dcbtop"); strings.TrimSpace(out) != debManPage {
			t.Errorf("man -w dcbtop: %q", out)
		}
	}

	out = r.must("dpkg", "-r", "dcbtop")
	t.Logf("dpkg -r:\n%s", out)
	if s := r.status(); s != "deinstall ok config-files" {
		t.Errorf("after dpkg -r: status %q", s)
	}
	if _, err := os.Lstat(r.path("/usr/bin/dcbtop")); err == nil {
		t.Error("after dpkg -r: /usr/bin/dcbtop is still there")
	}
	if _, err := os.Stat(r.path("/etc/default/dcbtop")); err != nil {
		t.Errorf("after dpkg -r: the conffile should stay until purge: %v", err)
	}
	if target, err := os.Readlink(r.path("/etc/systemd/system/dcbtop.service")); err != nil || target != "/dev/null" {
		t.Errorf("after dpkg -r: the unit should be masked (-> /dev/null), is -> %q (%v)", target, err)
	}

	out = r.must("dpkg", "-P", "dcbtop")
	t.Logf("dpkg -P:\n%s", out)
	if s := r.status(); s != "" {
		t.Errorf("after dpkg -P: status %q, want none", s)
	}
	if st, err := os.ReadFile(r.path("/var/lib/dpkg/status")); err != nil || bytes.Contains(st, []byte("\nPackage: dcbtop\n")) {
		t.Errorf("after dpkg -P: /var/lib/dpkg/status still lists dcbtop (%v)", err)
	}
	// man-db's trigger runs mandb -p (no purge): its index keeps dcbtop's
	// entry, as every removed package's, until the daily mandb run, which
	// is what purges it. Run that now: man-db must know of dcbtop what it
	// knew before the package came (nothing, or a cat page that man(1) left
	// in /var/cache/man after an earlier install on this machine: not the
	// package's).
	if mandb {
		r.must("mandb", "-q")
		if after := r.whatis(); after != whatisBefore {
			t.Errorf("after dpkg -P and mandb: man-db's index knows %q of dcbtop, and knew %q before the package", after, whatisBefore)
		}
	}
	if err := os.Remove(r.path("/tmp/dcbtop.deb")); err != nil {
		t.Fatal(err)
	}
	if left := r.leftovers(); len(left) > 0 {
		t.Errorf("after dpkg -P, the root keeps:\n  %s", strings.Join(left, "\n  "))
	}
	t.Logf("install, remove, purge: %v", time.Since(start).Round(time.Millisecond))
}
