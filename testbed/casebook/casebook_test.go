// SPDX-License-Identifier: Apache-2.0

package casebook

import (
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/verdict"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine"
)

var update = flag.Bool("update", false, "rewrite each case's outcome.golden and README.md's table")

// An Expect is a case's expect.json (README.md), written before dcbtop
// ran on the case.
type Expect struct {
	Written   string   `json:"written"`
	Interface string   `json:"interface"`
	Diagnosis string   `json:"diagnosis"`
	Named     []Item   `json:"named"`
	Hinted    []Item   `json:"hinted"`
	NeverOK   []string `json:"never_ok"`
	Needs     string   `json:"needs"`
	Score     string   `json:"score"`
}

// An Item is one thing dcbtop says: a check's verdict, a hop's worst
// verdict, or a diagnostic (of a severity).
type Item struct {
	Check      string `json:"check,omitempty"`
	Hop        string `json:"hop,omitempty"`
	Diagnostic string `json:"diagnostic,omitempty"`
	Verdict    string `json:"verdict,omitempty"`
	Severity   string `json:"severity,omitempty"`
}

// The scores.
const (
	scoreNamed    = "named"
	scoreHinted   = "hinted"
	scoreMissed   = "missed"
	scoreCalledOK = "called-ok"
	scoreNeeds    = "needs-input"
)

// said is what dcbtop said about an interface: each check's verdict,
// each hop's worst verdict, each diagnostic's severities.
type said struct {
	checks map[string]string
	hops   map[string]string
	diags  map[string][]string
	lines  []string // the outcome, one fact a line
}

func hear(in *engine.Interface) said { return hearWith(in, check.Options{}) }

// hearWith is hear with the check's options (a replay's: dcbtop check -r).
func hearWith(in *engine.Interface, o check.Options) said {
	s := said{checks: map[string]string{}, hops: map[string]string{}, diags: map[string][]string{}}
	for _, r := range check.Run(in, o) {
		s.checks[string(r.Check)] = r.Verdict.String()
		s.lines = append(s.lines, fmt.Sprintf("check %-14s %-8s %s", r.Check, r.Verdict, engine.Sanitize(r.Summary)))
	}
	if in.Counters != nil {
		for _, p := range in.Counters.RoCEPaths {
			for _, h := range p.Hops {
				if v, ok := s.hops[string(h.Hop)]; !ok || h.Verdict.Worse(lossless.PathVerdict(v)) {
					s.hops[string(h.Hop)] = string(h.Verdict)
				}
				s.lines = append(s.lines, fmt.Sprintf("hop   %s/%d %-8s %-7s %s", p.Device, p.Port, h.Hop, h.Verdict, engine.Sanitize(h.Reason)))
			}
		}
	}
	for _, d := range in.Diagnostics {
		s.diags[string(d.Code)] = append(s.diags[string(d.Code)], d.Severity.String())
		s.lines = append(s.lines, fmt.Sprintf("diag  %-24s %-7s %s", d.Code, d.Severity, engine.Sanitize(d.Message)))
	}
	return s
}

// holds reports whether dcbtop said it.
func (s said) holds(it Item) bool {
	switch {
	case it.Check != "":
		return s.checks[it.Check] == it.Verdict
	case it.Hop != "":
		return s.hops[it.Hop] == it.Verdict
	case it.Diagnostic != "":
		sev, ok := s.diags[it.Diagnostic]
		return ok && (it.Severity == "" || slices.Contains(sev, it.Severity))
	}
	return false
}

// score judges what was said against what was expected: named when every
// named item holds; called-ok when a check where the root cause lives says
// OK; hinted when a hint holds; missed otherwise.
func score(x Expect, s said) string {
	named := len(x.Named) > 0
	for _, it := range x.Named {
		named = named && s.holds(it)
	}
	switch {
	case named:
		return scoreNamed
	case slices.ContainsFunc(x.NeverOK, func(c string) bool { return s.checks[c] == "OK" }):
		return scoreCalledOK
	case slices.ContainsFunc(x.Hinted, s.holds):
		return scoreHinted
	}
	return scoreMissed
}

// TestCaseBook runs every case and fails when a case's outcome changes:
// its score (expect.json "score", recorded) or, line by line, what dcbtop
// says (outcome.golden, rewritten with -update). README.md's table lists
// the cases with their scores.
func TestCaseBook(t *testing.T) {
	dirs, err := filepath.Glob("testdata/[0-9]*")
	if err != nil || len(dirs) < 20 {
		t.Fatalf("%d cases (%v), want at least 20", len(dirs), err)
	}
	var rows []string
	counts := map[string]int{}
	for _, dir := range dirs {
		var x Expect
		if err := readJSON(filepath.Join(dir, "expect.json"), &x); err != nil {
			t.Fatal(err)
		}
		title, link := caseTitle(t, dir)
		got := scoreNeeds
		if x.Needs == "" {
			in, err := Run(dir)
			if err != nil {
				t.Errorf("%s: %v", dir, err)
				continue
			}
			if in.Name != x.Interface {
				t.Errorf("%s: expect.json names %s, host.json %s", dir, x.Interface, in.Name)
			}
			s := hear(&in)
			got = score(x, s)
			golden(t, filepath.Join(dir, "outcome.golden"), strings.Join(s.lines, "\n")+"\n")
		}
		if got != x.Score {
			t.Errorf("%s: scored %s, recorded %s (expect.json)", dir, got, x.Score)
		}
		counts[got]++
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", filepath.Base(dir)[:2], title, link, got))
	}
	table := fmt.Sprintf("%d cases: %d named, %d hinted, %d missed, %d called ok, %d need an input dcbtop cannot take yet.\n\n",
		len(dirs), counts[scoreNamed], counts[scoreHinted], counts[scoreMissed], counts[scoreCalledOK], counts[scoreNeeds]) +
		"| # | Case | Thread | Score |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	readmeTable(t, "README.md", table)
	score := fmt.Sprintf("%d incidents from public threads", len(dirs))
	score2 := fmt.Sprintf("Score at this release: %d\nnamed, %d hinted, %d missed, %d called ok, %d needing an input dcbtop cannot\ntake yet",
		counts[scoreNamed], counts[scoreHinted], counts[scoreMissed], counts[scoreCalledOK], counts[scoreNeeds])
	projectScore(t, "../../README.md", score, score2)
}

// scoreRe finds the case book's score in the project's README.
var scoreRe = regexp.MustCompile(`(?s)(\d+ incidents from public threads).*?(Score at this release: \d+\s+named, \d+ hinted, \d+ missed, \d+ called ok, \d+ needing an input dcbtop cannot\s+take yet)`)

// projectScore checks (or, with -update, rewrites) the case book's
// count and score in the project's README.
func projectScore(t *testing.T, path, count, score string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := scoreRe.FindSubmatchIndex(b)
	if m == nil {
		t.Fatalf("%s does not state the case book's score", path)
	}
	got := string(b[m[2]:m[3]]) + " / " + string(b[m[4]:m[5]])
	want := count + " / " + score
	if got == want {
		return
	}
	if !*update {
		t.Errorf("%s states the case book as %q, it is %q (go test ./testbed/casebook -update)", path, got, want)
		return
	}
	out := string(b[:m[2]]) + count + string(b[m[3]:m[4]]) + score + string(b[m[5]:])
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

var titleLine = regexp.MustCompile(`(?m)^# (.+)$`)
var sourceLine = regexp.MustCompile(`(?m)^Source: (https://\S+)`)

// caseTitle returns a case's title and source link from its case.md.
func caseTitle(t *testing.T, dir string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "case.md"))
	if err != nil {
		t.Fatal(err)
	}
	title, src := titleLine.FindSubmatch(b), sourceLine.FindSubmatch(b)
	if title == nil || src == nil {
		t.Fatalf("%s/case.md: no title or Source: link", dir)
	}
	for _, h := range []string{"## What the operator saw", "## The thread's diagnosis", "## How it is rebuilt", "## Expected (written before running dcbtop)"} {
		if !strings.Contains(string(b), h) {
			t.Errorf("%s/case.md lacks %q", dir, h)
		}
	}
	return strings.ReplaceAll(string(title[1]), "|", "/"), string(src[1])
}

// golden compares got with the file at path, or rewrites it (-update).
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./testbed/casebook -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: what dcbtop says changed (-was +now):\n%s", path, diff)
	}
}

// The README's table sits between these lines.
const (
	tableStart = "<!-- cases: go test ./testbed/casebook -update -->\n"
	tableEnd   = "<!-- end of cases -->\n"
)

// readmeTable checks (or, with -update, rewrites) the table of cases in
// the README.
func readmeTable(t *testing.T, path, table string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no table markers", path)
	}
	cur := s[i+len(tableStart) : j]
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(tableStart)]+table+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(cur, table); diff != "" {
		t.Errorf("%s's table of cases is stale (-readme +now):\n%s", path, diff)
	}
}

// TestCaseRecordings records every case that runs as `dcbtop -w` would
// have on the case's host (Record: the DCB netlink replies of its NIC
// byte for byte, the ethtool netlink PAUSE reply, its sysfs files and
// ethtool answers, the peer's LLDPDU) and replays the recording as
// `dcbtop -r` does (Replay): what dcbtop says of the replay is what it
// says of the case, line for line.
func TestCaseRecordings(t *testing.T) {
	n := 0
	for dir, x := range runnableCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "case.pcapng")
			live, err := Record(dir, path)
			if err != nil {
				t.Fatal(err)
			}
			replayed, err := Replay(path, x.Interface)
			if err != nil {
				t.Fatal(err)
			}
			// Judged as dcbtop check -r judges a replay.
			if diff := cmp.Diff(hear(&live).lines, hearWith(&replayed, check.Options{Replay: true}).lines); diff != "" {
				t.Errorf("the replay of the case's recording says otherwise (-case +replay):\n%s", diff)
			}
		})
		n++
	}
	if n < 20 {
		t.Errorf("%d cases recorded, want at least 20", n)
	}
}

// TestCaseCollateral holds what dcbtop says around each case's root
// cause, on every case that runs: no check is OK while a fact it judges
// was not read or its evidence says something it judges is unknown, and
// no finding blames a side whose facts it did not read (issue 43: at
// 7737732 link-pause said OK beside "rx unknown, tx unknown", and
// roce-pfc blamed a peer that sent no DCBX). What the snapshot carries
// (Interface.Checks, the one evaluation every surface reads) is what
// dcbtop check says.
func TestCaseCollateral(t *testing.T) {
	unknownWords := regexp.MustCompile(`\bunknown\b|\bnot read\b|\bnot known\b`)
	for dir := range runnableCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := Run(dir)
			if err != nil {
				t.Fatal(err)
			}
			res := check.Run(&in, check.Options{})
			if diff := cmp.Diff(res, in.Checks); diff != "" {
				t.Errorf("the snapshot's checks are not dcbtop check's (-check +snapshot):\n%s", diff)
			}
			for _, r := range res {
				for _, side := range r.Blames {
					if !slices.ContainsFunc(r.Facts, func(f verdict.Fact) bool { return f.Side == side && f.Read }) {
						t.Errorf("%s %s blames the %s, whose facts it did not read: %+v", r.Check, r.Verdict, side, r.Facts)
					}
				}
				if r.Verdict != verdict.OK {
					continue
				}
				if u := r.Unread(); len(u) > 0 {
					t.Errorf("%s is OK with facts not read: %q", r.Check, u)
				}
				for _, e := range r.Evidence {
					if unknownWords.MatchString(e) {
						t.Errorf("%s is OK beside the evidence %q", r.Check, e)
					}
				}
			}
		})
	}
}

// runnableCases yields each case that runs (needs no input dcbtop cannot
// take yet) with its expect.json.
func runnableCases(t *testing.T) iter.Seq2[string, Expect] {
	dirs, err := filepath.Glob("testdata/[0-9]*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases (%v)", err)
	}
	return func(yield func(string, Expect) bool) {
		for _, dir := range dirs {
			var x Expect
			if err := readJSON(filepath.Join(dir, "expect.json"), &x); err != nil {
				t.Fatal(err)
			}
			if x.Needs != "" {
				continue
			}
			if !yield(dir, x) {
				return
			}
		}
	}
}
