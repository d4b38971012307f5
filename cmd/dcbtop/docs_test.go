package main

// The manual is README.md, a first screen, and its chapters in docs/.
// These tests hold the README to its size and every relative link of the
// manual to a file (and a heading) that exists.

import (
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
