// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/dcbtop/dcbtop/assets"
)

// sourceCodes returns every diagnostic code written in the non-test Go
// files of dir: the string constants named Code* and the string literals
// given as Code: in a composite literal.
func sourceCodes(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if strings.HasPrefix(id.Name, "Code") && i < len(n.Values) {
						add(n.Values[i])
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Code" {
					add(n.Value)
				}
			}
			return true
		})
	}
	return out
}

// TestDiagnosticCodesComplete checks that the code label's bounded set
// holds every diagnostic code the engine and the codec can produce, so a
// new code is exported under its own name rather than as "other".
func TestDiagnosticCodesComplete(t *testing.T) {
	known := labelStrings(diagnosticCodes())
	var found []string
	for _, dir := range []string{"..", "../diag", "../dcb", "../lldp", "../agent"} {
		found = append(found, sourceCodes(t, dir)...)
	}
	if len(found) < 30 {
		t.Fatalf("found only %d codes in the sources; is the scan broken? %v", len(found), found)
	}
	for _, c := range found {
		if !slices.Contains(known, c) {
			t.Errorf("diagnostic code %q is produced by the engine but not in diagnosticCodes()", c)
		}
	}
	for _, c := range known {
		if !slices.Contains(found, c) {
			t.Errorf("diagnosticCodes() lists %q, which no engine source produces", c)
		}
	}
	seen := map[string]bool{}
	for _, c := range known {
		if seen[c] {
			t.Errorf("%q listed twice", c)
		}
		seen[c] = true
	}
}

// TestDiagnosticCodesInSchema checks that the snapshot schema's enum of
// diagnostic codes is the code label's bounded set.
func TestDiagnosticCodesInSchema(t *testing.T) {
	var schema struct {
		Defs struct {
			Diagnostic struct {
				Properties struct {
					Code struct {
						Enum []string `json:"enum"`
					} `json:"code"`
				} `json:"properties"`
			} `json:"diagnostic"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(assets.SnapshotSchema, &schema); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(schema.Defs.Diagnostic.Properties.Code.Enum))
	want := slices.Sorted(slices.Values(labelStrings(diagnosticCodes())))
	if !slices.Equal(got, want) {
		t.Errorf("assets/snapshot.schema.json $defs/diagnostic code enum:\n%v\nwant the codes the engine produces:\n%v", got, want)
	}
}

// Every diagnostic code names the rule it comes from (the screen's
// diagnostic detail shows it).
func TestDiagnosticRules(t *testing.T) {
	for _, c := range diagnosticCodes() {
		if diag.Rule(c) == "" {
			t.Errorf("no rule for %s (engine/diag/catalogue.go)", c)
		}
	}
}
