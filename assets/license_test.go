// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/licensecheck"
)

var update = flag.Bool("update", false, "rewrite assets/deb/copyright from the modules built into dcbtop")

// licenseFiles are the names a module's licence file goes by, in the
// order they are looked for.
var licenseFiles = []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING", "License"}

// A builtIn is a Go module built into /usr/bin/dcbtop (go list -deps of
// ./cmd/dcbtop as the package builds it), or the standard library.
type builtIn struct {
	path, version, dir string
	license            string   // its SPDX identifier (licensecheck)
	text               string   // its licence file
	holders            []string // the copyright lines of that file
	notes              []string // NOTICE (Apache-2.0 section 4d) and PATENTS files
}

// copyrightLine matches a copyright statement in a licence file.
var copyrightLine = regexp.MustCompile(`(?i)^\s*copyright\s+(?:\(c\)\s*|©\s*)?(\d{4}.*)$`)

// TestDebCopyright: assets/deb/copyright (DEP-5) names dcbtop's licence,
// Apache-2.0 as in LICENSE, and for the Go standard library and every
// module built into the binary its copyright holders and its licence,
// read from the module's own licence file and classified by licensecheck
// (a module whose licence it cannot name fails the test). A module added,
// removed or moved to another version changes the file: go test
// ./assets -run TestDebCopyright -update rewrites it.
func TestDebCopyright(t *testing.T) {
	mods, err := builtInModules()
	if err != nil {
		t.Fatal(err)
	}
	for i := range mods {
		if err := mods[i].read(); err != nil {
			t.Fatal(err)
		}
	}
	got := copyrightFile(mods)
	const path = "deb/copyright"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("assets/deb/copyright is not what the modules built into dcbtop say (go test ./assets -run TestDebCopyright -update rewrites it); first difference at line %d", firstDiffLine(string(want), got))
	}
	checkDEP5(t, path, mods)
	lic, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if id := classify(lic); id != "Apache-2.0" {
		t.Errorf("LICENSE reads as %q, want Apache-2.0", id)
	}
}

// builtInModules lists the modules of the packages dcbtop's binary is
// built from (linux, no cgo: as assets/deb/build packages it), sorted by
// path, the standard library first.
func builtInModules() ([]builtIn, error) {
	goroot, err := goOut("env", "GOROOT")
	if err != nil {
		return nil, err
	}
	version, err := goOut("env", "GOVERSION")
	if err != nil {
		return nil, err
	}
	out, err := goOut("list", "-deps", "-json=Standard,Module", "./cmd/dcbtop")
	if err != nil {
		return nil, err
	}
	std := builtIn{path: "std", version: version, dir: goroot}
	seen := map[string]builtIn{}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p struct {
			Standard bool
			Module   *struct {
				Path, Version, Dir string
				Main               bool
			}
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		switch {
		case p.Standard || p.Module == nil || p.Module.Main:
		case p.Module.Dir == "":
			return nil, fmt.Errorf("go list: module %s has no directory (go mod download)", p.Module.Path)
		default:
			seen[p.Module.Path] = builtIn{path: p.Module.Path, version: p.Module.Version, dir: p.Module.Dir}
		}
	}
	mods := []builtIn{std}
	for _, path := range slices.Sorted(maps.Keys(seen)) {
		mods = append(mods, seen[path])
	}
	return mods, nil
}

// goOut runs the go command in the repository's root, for linux without
// cgo, and returns its output trimmed.
func goOut(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

// read reads the module's licence file, its holders and its NOTICE and
// PATENTS files, and names its licence.
func (m *builtIn) read() error {
	for _, name := range licenseFiles {
		b, err := os.ReadFile(filepath.Join(m.dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		m.text = strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
		m.license = classify(b)
		if m.license == "" {
			return fmt.Errorf("%s %s: licensecheck does not name the licence in %s", m.path, m.version, name)
		}
		break
	}
	if m.text == "" {
		return fmt.Errorf("%s %s: no licence file (%s) in %s", m.path, m.version, strings.Join(licenseFiles, ", "), m.dir)
	}
	for _, l := range strings.Split(m.text, "\n") {
		if s := copyrightLine.FindStringSubmatch(l); s != nil && !slices.Contains(m.holders, strings.TrimSpace(s[1])) {
			m.holders = append(m.holders, strings.TrimSpace(s[1]))
		}
	}
	for _, name := range []string{"NOTICE", "PATENTS"} {
		if b, err := os.ReadFile(filepath.Join(m.dir, name)); err == nil {
			m.notes = append(m.notes, name+":\n"+strings.TrimSpace(string(b)))
		}
	}
	return nil
}

// classify names the one licence a licence file holds, "" unless
// licensecheck finds exactly one covering most of it.
func classify(b []byte) string {
	cov := licensecheck.Scan(b)
	if cov.Percent < 75 || len(cov.Match) == 0 {
		return ""
	}
	id := cov.Match[0].ID
	for _, m := range cov.Match[1:] {
		if m.ID != id {
			return ""
		}
	}
	return id
}

// copyrightFile writes the DEP-5 file of dcbtop and mods
// (https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/).
func copyrightFile(mods []builtIn) string {
	var b strings.Builder
	b.WriteString(`Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: dcbtop
Upstream-Contact: dcbtop maintainers <maintainers@users.noreply.a-seed-7b62601a.example>
Source: https://github.com/dcbtop/dcbtop
Comment: /usr/bin/dcbtop is a static Go program: beside dcbtop's own code
 it contains the Go standard library and the Go modules below, each under
 its own licence. A paragraph of Files go/PATH/* stands for the module PATH
 built into the binary (no such file is installed); go version -m
 /usr/bin/dcbtop lists the modules with their versions. This file is
 generated from each module's licence file by go test ./assets -run
 TestDebCopyright -update, and the test fails when it is not up to date.

Files: *
Copyright: dcbtop maintainers
License: Apache-2.0
`)
	for _, m := range mods {
		b.WriteString("\nFiles: go/" + m.path + "/*\n")
		holders := m.holders
		if len(holders) == 0 {
			holders = []string{"the authors of " + m.path + " (its licence file names no holder)"}
		}
		b.WriteString("Copyright: " + strings.Join(holders, "\n ") + "\n")
		what := "the Go module " + m.path + " " + m.version
		if m.path == "std" {
			what = "the Go standard library and runtime of " + m.version
		}
		b.WriteString("Comment: " + what)
		for _, n := range m.notes {
			b.WriteString("\n ." + continuation(n))
		}
		b.WriteString("\nLicense: " + m.license)
		if m.license != "Apache-2.0" {
			b.WriteString(continuation(m.text))
		}
		b.WriteString("\n")
	}
	b.WriteString(`
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may
 not use this file except in compliance with the License. You may obtain
 a copy of the License at http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS,
 WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 See the License for the specific language governing permissions and
 limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0
 can be found in /usr/share/common-licenses/Apache-2.0.
`)
	return b.String()
}

// continuation writes text as the continuation lines of a DEP-5 field:
// each line after a space, an empty line as " .".
func continuation(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(strings.ReplaceAll(l, "\t", "    "), " ")
		if l == "" {
			l = "."
		}
		b.WriteString("\n " + l)
	}
	return b.String()
}

// firstDiffLine is the first line (from 1) where a and b differ.
func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

// dep5Check reads a copyright file with python3-debian's DEP-5 parser
// (debian.copyright, strict) and prints each Files paragraph's first
// pattern and licence, failing where a licence has neither its text nor
// a standalone License paragraph.
const dep5Check = `
import sys
from debian import copyright
with open(sys.argv[1]) as f:
    c = copyright.Copyright(f, strict=True)
standalone = {p.license.synopsis for p in c.all_license_paragraphs()}
for p in c.all_files_paragraphs():
    l = p.license
    if not l.text.strip() and l.synopsis not in standalone:
        sys.exit("%s: licence %s has no text and no License paragraph" % (p.files[0], l.synopsis))
    print(p.files[0], l.synopsis)
`

// checkDEP5 has Debian's own parser of the copyright format judge the
// file: it parses, and names for each module the licence found here.
func checkDEP5(t *testing.T, path string, mods []builtIn) {
	t.Helper()
	// Debian's interpreter, where python3-debian installs (make deps).
	out, err := exec.Command("/usr/bin/python3", "-c", dep5Check, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3-debian on %s: %v: %s", path, err, out)
	}
	want := "* Apache-2.0\n"
	for _, m := range mods {
		want += "go/" + m.path + "/* " + m.license + "\n"
	}
	if string(out) != want {
		t.Errorf("python3-debian reads %s as:\n%s\nwant:\n%s", path, out, want)
	}
}

// spdxTag is the SPDX identifier of dcbtop's licence, as each source
// file states it (https://spdx.dev/learn/handling-license-info/).
const spdxTag = "SPDX-License-Identifier: Apache-2.0"

// spdxTagOf returns the SPDX identifier file f must state: testbed/kmod,
// a Linux kernel module, is GPL-2.0 (its LICENSE says why), every other
// file dcbtop's.
func spdxTagOf(f string) string {
	if strings.HasPrefix(f, "testbed/kmod/") {
		return "SPDX-License-Identifier: GPL-2.0"
	}
	return spdxTag
}

// spdxExempt are files whose format has no comment (JSON, dpkg's
// conffiles and control) or which state their licence otherwise (the
// copyright file itself, the documentation, test data and captures).
var spdxExempt = regexp.MustCompile(`(^|/)testdata/|\.(json|md|golden|pcap|pcapng|sum|mod)$|^assets/deb/(conffiles|control\.in|copyright)$|(^|/)LICENSE$`)

// TestSPDX: every file of the repository that can carry a comment names
// its licence in its first three lines.
func TestSPDX(t *testing.T) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	n := 0
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if spdxExempt.MatchString(f) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", f))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		head := strings.SplitN(string(b), "\n", 4)
		if tag := spdxTagOf(f); !strings.Contains(strings.Join(head[:min(3, len(head))], "\n"), tag) {
			t.Errorf("%s: no %q in its first three lines", f, tag)
		}
		n++
	}
	if n < 500 {
		t.Errorf("checked %d files: git ls-files listed too few", n)
	}
}
