// SPDX-License-Identifier: Apache-2.0

package check

import (
	"encoding/json"

	"github.com/dcbtop/dcbtop/assets"
	"github.com/dcbtop/dcbtop/engine/verdict"
	"github.com/google/go-cmp/cmp"

	"slices"
	"testing"

	"github.com/dcbtop/dcbtop/engine"

	"github.com/dcbtop/dcbtop/engine/lossless"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// TestCheckAreas: every diagnostic code belongs to one check, every check
// but the policy has codes, and a check is never better than a finding of
// its area: an error diagnostic makes it CRITICAL, a warning WARNING, an
// informational one changes nothing; a hop's error, warning or unknown
// does the same through its check. At 54a24de `pauses` said OK beside
// pfc-stall and `ecn` OK beside ecn-never-marked.
func TestCheckAreas(t *testing.T) {
	diagCheck := map[diag.Code]verdict.Name{}
	for _, e := range diag.Catalogue {
		if _, twice := diagCheck[e.Code]; twice {
			t.Errorf("diag.Catalogue has %s twice", e.Code)
		}
		diagCheck[e.Code] = e.Check
	}
	for _, code := range diag.Codes() {
		if diag.CheckOf(code) == "" {
			t.Errorf("diagnostic %s belongs to no check", code)
		}
	}
	covered := map[verdict.Name]bool{}
	for code, c := range diagCheck {
		if diag.Rule(code) == "" {
			t.Errorf("diag.Catalogue has %s without its rule", code)
		}
		if !slices.Contains(verdict.Names, c) {
			t.Errorf("%s belongs to %q, not a check", code, c)
		}
		covered[c] = true
	}
	for _, c := range verdict.Names {
		if !covered[c] && c != verdict.CheckPolicy {
			t.Errorf("check %s is blind: no diagnostic belongs to it", c)
		}
	}
	for _, h := range lossless.RoCEHops {
		if _, ok := hopCheck[h]; !ok {
			t.Errorf("hop %s belongs to no check", h)
		}
	}
	for code, owner := range diagCheck {
		base := engine.Interface{Name: "eth0"}
		before := verdicts(Run(&base, Options{}))[owner]
		for _, tt := range []struct {
			sev  diag.Severity
			want verdict.Verdict
		}{{diag.SeverityError, verdict.Critical}, {diag.SeverityWarning, verdict.Warning}} {
			in := engine.Interface{Name: "eth0", Diagnostics: []diag.Diagnostic{{Code: code, Severity: tt.sev, Message: "the finding", Action: "the fix"}}}
			for _, r := range Run(&in, Options{}) {
				if r.Check != owner {
					continue
				}
				if want := before.Worst(tt.want); r.Verdict != want {
					t.Errorf("%s %s: %s is %s (%q), want %s", tt.sev, code, r.Check, r.Verdict, r.Summary, want)
				}
				if worse(tt.want, before) && (r.Summary != "the finding" || r.Fix != "the fix") {
					t.Errorf("%s %s: %s says %q (fix %q), want the finding", tt.sev, code, r.Check, r.Summary, r.Fix)
				}
				if !slices.Contains(r.Evidence, "diagnostic "+string(code)) {
					t.Errorf("%s %s: %s's evidence %q lacks it", tt.sev, code, r.Check, r.Evidence)
				}
			}
		}
		bare := engine.Interface{Name: "eth0"}
		info := engine.Interface{Name: "eth0", Diagnostics: []diag.Diagnostic{{Code: code, Severity: diag.SeverityInfo, Message: "a note"}}}
		if got, want := verdicts(Run(&info, Options{})), verdicts(Run(&bare, Options{})); !mapsEqual(got, want) {
			t.Errorf("info %s changed verdicts: %v, want %v", code, got, want)
		}
	}
	for h, owner := range hopCheck {
		for _, v := range []lossless.PathVerdict{lossless.PathError, lossless.PathWarning, lossless.PathUnknown} {
			in := engine.Interface{Name: "eth0", Counters: &lossless.Counters{RoCEPaths: []lossless.RoCEPath{{Device: "mlx5_0", Port: 1,
				Hops: []lossless.PathHop{{Hop: h, Verdict: v, Reason: "the hop's reason"}}, Worst: v}}}}
			for _, r := range Run(&in, Options{}) {
				if r.Check == owner && (r.Verdict.Worst(pathVerdict(v)) != r.Verdict) {
					t.Errorf("hop %s %s: %s is %s, want at least %s", h, v, r.Check, r.Verdict, pathVerdict(v))
				}
			}
		}
	}
}

func mapsEqual(a, b map[verdict.Name]verdict.Verdict) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCheckTable: every check of verdict.Names has its method (run),
// and a check's method names its results by that check.
func TestCheckTable(t *testing.T) {
	for _, n := range verdict.Names {
		c := checker{in: &engine.Interface{Name: "x0"}}
		if n == verdict.CheckPolicy {
			continue // needs a policy; one result per rule
		}
		if !c.run(n) {
			t.Errorf("%s has no method in checker.run", n)
		}
		for _, r := range c.out {
			if r.Check != n {
				t.Errorf("%s's method made a result of %s", n, r.Check)
			}
		}
	}
	if (&checker{}).run("no-such-check") {
		t.Error("run took a name that is no check")
	}
}

// TestCheckSchemaNames: the report schema's enum of checks is
// verdict.Names, in order.
func TestCheckSchemaNames(t *testing.T) {
	var schema struct {
		Defs struct {
			Check struct {
				Enum []verdict.Name `json:"enum"`
			} `json:"check"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(assets.CheckSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(verdict.Names, schema.Defs.Check.Enum); diff != "" {
		t.Errorf("assets/check.schema.json $defs/check enum (-verdict.Names +schema):\n%s", diff)
	}
}
