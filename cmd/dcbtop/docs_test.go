// SPDX-License-Identifier: Apache-2.0

package main

// The manual is README.md, a first screen, and its chapters in docs/.
// These tests hold the README to its size and every relative link of the
// manual to a file (and a heading) that exists.

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is the most lines README.md may have: what dcbtop is,
// the picture of the screen, install, the two commands, four first uses,
// the case book's score and the chapters; everything else is a chapter.
const readmeMaxLines = 200

// TestREADMEFirstScreen: README.md stays within readmeMaxLines.
func TestREADMEFirstScreen(t *testing.T) {
	s := readDoc(t, readmePath)
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	if n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into a chapter in docs/", n, readmeMaxLines)
	}
}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file that exists, and a link into a markdown file with #anchor names one
// of its headings (as GitHub makes anchors of them); and every chapter in
// docs/ can be reached from README.md through such links.
func TestDocsLinks(t *testing.T) {
	chapters, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{readmePath}, chapters...)
	reached := map[string]bool{}
	var walk func(string)
	links := map[string][]docLink{}
	for _, f := range files {
		links[filepath.Clean(f)] = markdownLinks(readDoc(t, f))
	}
	walk = func(f string) {
		if reached[f] {
			return
		}
		reached[f] = true
		for _, l := range links[f] {
			if p := l.resolve(f); strings.HasSuffix(p, ".md") {
				walk(p)
			}
		}
	}
	walk(filepath.Clean(readmePath))
	for _, f := range files {
		f = filepath.Clean(f)
		if !reached[f] {
			t.Errorf("%s: no link leads there from README.md", f)
		}
		for _, l := range links[f] {
			p := l.resolve(f)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s:%d: link %q: %v", f, l.line, l.target, err)
				continue
			}
			if l.anchor == "" || !strings.HasSuffix(p, ".md") {
				continue
			}
			if anchors := headingAnchors(readDoc(t, p)); !slices.Contains(anchors, l.anchor) {
				t.Errorf("%s:%d: link %q: %s has no heading #%s (it has: %s)", f, l.line, l.target, p, l.anchor, strings.Join(anchors, ", "))
			}
		}
	}
}

// A docLink is a relative link of a markdown file: its path (empty for
// a link within the file) and anchor.
type docLink struct {
	target       string // as written
	path, anchor string
	line         int
}

// resolve returns the file l names, from the file from it is in.
func (l docLink) resolve(from string) string {
	if l.path == "" {
		return from
	}
	return filepath.Clean(filepath.Join(filepath.Dir(from), l.path))
}

var (
	// mdLink matches an inline link [text](target) or image ![alt](target);
	// the text may hold code spans.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpan matches an inline code span.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// scheme matches a link with a URL scheme (https:, mailto:).
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// markdownLinks returns the relative links of a markdown text, outside
// fenced code blocks and code spans.
func markdownLinks(s string) []docLink {
	var out []docLink
	for i, line := range proseLines(s) {
		if line == "" {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if scheme.MatchString(target) {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			out = append(out, docLink{target: target, path: path, anchor: anchor, line: i + 1})
		}
	}
	return out
}

// proseLines returns s's lines with those of fenced code blocks (and the
// fences) emptied, so that line numbers stay.
func proseLines(s string) []string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			lines[i] = ""
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown text: lower case, punctuation dropped, spaces as hyphens, a
// repeated one suffixed -1, -2...
func headingAnchors(s string) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range proseLines(s) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimLeft(l, "#")
		if text == "" || text[0] != ' ' {
			continue
		}
		// A link in a heading counts by its text.
		text = mdLink.ReplaceAllStringFunc(strings.TrimSpace(text), func(m string) string {
			return m[strings.Index(m, "[")+1 : strings.Index(m, "]")]
		})
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// TestDocsLinkChecker: the link checker itself, on a small manual.
func TestDocsLinkChecker(t *testing.T) {
	doc := "# Top\n\nSee [a](a.md#the-host-dcbx-agent---agent), [`b`](../b.md), [web](https://x.invalid/y.md), ![i](img.png \"t\")\n" +
		"`[not](code.md)` and\n```\n[fenced](f.md)\n```\n## The host DCBX agent (`--agent`)\n## Top\n## 1. Kubernetes: a *DaemonSet*\n"
	var got []string
	for _, l := range markdownLinks(doc) {
		got = append(got, l.path+"|"+l.anchor)
	}
	if want := []string{"a.md|the-host-dcbx-agent---agent", "../b.md|", "img.png|"}; !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
	if got, want := headingAnchors(doc), []string{"top", "the-host-dcbx-agent---agent", "top-1", "1-kubernetes-a-daemonset"}; !slices.Equal(got, want) {
		t.Errorf("anchors %q, want %q", got, want)
	}
}

// TestArchitectureImports: docs/architecture.md's "## Imports" block lists,
// for every package of the module, what it imports of the module outside
// its tests (on Linux), and nothing else: an import the map does not draw,
// or an arrow the code does not have, fails.
func TestArchitectureImports(t *testing.T) {
	doc := readDoc(t, "../../docs/architecture.md")
	_, after, ok := strings.Cut(doc, "\n## Imports\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Imports section")
	}
	_, block, ok := strings.Cut(after, "```\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("docs/architecture.md's ## Imports has no code block")
	}
	want := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkg, deps, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("docs/architecture.md imports line %q: want PACKAGE: IMPORTS", line)
		}
		want[pkg] = strings.Fields(deps)
	}
	got := moduleImports(t, "../..")
	for pkg, deps := range got {
		w, listed := want[pkg]
		if !listed {
			t.Errorf("package %s is not in docs/architecture.md's imports (it imports %v)", pkg, deps)
			continue
		}
		for _, d := range deps {
			if !slices.Contains(w, d) {
				t.Errorf("%s imports %s: docs/architecture.md does not draw it", pkg, d)
			}
		}
		for _, d := range w {
			if !slices.Contains(deps, d) {
				t.Errorf("docs/architecture.md says %s imports %s: it does not", pkg, d)
			}
		}
	}
	for pkg := range want {
		if _, ok := got[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package", pkg)
		}
	}
}

// moduleImports returns, for each package of the module at root (by its
// path below the module), the module's packages it imports outside its
// tests, as go/build selects files on this system.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	const module = "github.com/dcbtop/dcbtop/"
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		deps := []string{}
		for _, imp := range p.Imports {
			if d, ok := strings.CutPrefix(imp, module); ok {
				deps = append(deps, d)
			}
		}
		out[filepath.ToSlash(rel)] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocsReferToCode: what the manual names in code spans is in the code:
// a path ending in .go exists, and a name qualified by a package of the
// module (`engine.PreviewOperational`, `dcb.Resolve`) is declared in it.
func TestDocsReferToCode(t *testing.T) {
	chapters, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	decls := packageDecls(t, "../..")
	span := regexp.MustCompile("`([^`]+)`")
	path := regexp.MustCompile(`^[a-zA-Z0-9_.-]+(/[a-zA-Z0-9_.-]+)+\.go$`)
	qualified := regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)`)
	for _, f := range append([]string{readmePath, "../../testbed/casebook/README.md"}, chapters...) {
		for _, m := range span.FindAllStringSubmatch(readDoc(t, f), -1) {
			code := m[1]
			if path.MatchString(code) {
				if _, err := os.Stat(filepath.Join("../..", code)); err != nil {
					t.Errorf("%s names %s, which does not exist", filepath.Base(f), code)
				}
				continue
			}
			for _, q := range qualified.FindAllStringSubmatch(code, -1) {
				names, ok := decls[q[1]]
				if ok && !names[q[2]] {
					t.Errorf("%s names %s.%s (in %q): package %s declares no %s", filepath.Base(f), q[1], q[2], code, q[1], q[2])
				}
			}
		}
	}
}

// packageDecls returns, per package name of the module, the names its
// files declare at the top level (functions, types, variables, constants)
// and its methods, as "Method".
func packageDecls(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := out[f.Name.Name]
		if names == nil {
			names = map[string]bool{}
			out[f.Name.Name] = names
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				names[decl.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range decl.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(out, "main") // cmd/dcbtop's names are not qualified
	return out
}

// TestArchitectureEffects: docs/architecture.md's opening names every
// effect the host layer returns (the types of engine/host with an
// isEffect method), as `host.T`, and no other `host.T` there.
func TestArchitectureEffects(t *testing.T) {
	doc := readDoc(t, "../../docs/architecture.md")
	intro, _, ok := strings.Cut(doc, "```")
	if !ok {
		t.Fatal("docs/architecture.md has no code block after its opening")
	}
	files, err := filepath.Glob("../../engine/host/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var effects []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "isEffect" || len(fd.Recv.List) != 1 {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok {
				effects = append(effects, id.Name)
			}
		}
	}
	slices.Sort(effects)
	if len(effects) == 0 {
		t.Fatal("no type of engine/host has an isEffect method")
	}
	var named []string
	for _, m := range regexp.MustCompile("`host\\.([A-Z]\\w*)`").FindAllStringSubmatch(intro, -1) {
		named = append(named, m[1])
	}
	slices.Sort(named)
	named = slices.Compact(named)
	if !slices.Equal(effects, named) {
		t.Errorf("docs/architecture.md's opening names the effects %q; engine/host has %q", named, effects)
	}
}
