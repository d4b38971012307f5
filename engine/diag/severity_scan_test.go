// SPDX-License-Identifier: Apache-2.0

package diag_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"
)

// identName returns the name a selector or identifier spells
// (diag.SeverityWarning: SeverityWarning), "" for another expression.
func identName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// severityOf names the severity an expression spells
// (diag.SeverityWarning, SeverityError, lldp.LevelInfo, LevelError...).
func severityOf(e ast.Expr) (diag.Severity, bool) {
	switch strings.TrimPrefix(strings.TrimPrefix(identName(e), "Severity"), "Level") {
	case "Info":
		return diag.SeverityInfo, true
	case "Warning":
		return diag.SeverityWarning, true
	case "Error":
		return diag.SeverityError, true
	}
	return 0, false
}

// codeOf names the diagnostic code an expression spells
// (diag.CodePeerLost, CodeETSBandwidthSum in engine/lldp).
func codeOf(e ast.Expr, consts map[string]diag.Code) (diag.Code, bool) {
	c, ok := consts[identName(e)]
	return c, ok
}

// codeConsts returns the code constants declared in dirs by name: each
// Code... constant whose value is a string (engine/diag's that alias
// engine/lldp's have lldp's names).
func codeConsts(t *testing.T, dirs ...string) map[string]diag.Code {
	t.Helper()
	out := map[string]diag.Code{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				vs, ok := n.(*ast.ValueSpec)
				if !ok || len(vs.Names) != len(vs.Values) {
					return true
				}
				for i, name := range vs.Names {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(name.Name, "Code") {
						v, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						out[name.Name] = diag.Code(v)
					}
				}
				return true
			})
		}
	}
	return out
}

// A pkgScan resolves severities within one package's files.
type pkgScan struct {
	funcs map[string]*ast.FuncDecl
	// fields is every severity assigned to a field of that name
	// (x.f = diag.SeverityWarning) anywhere in the package.
	fields map[string]diag.Severities
}

// assigned returns every severity assigned in body to the name id, or
// to field names when id is "" and field is true, walking assignments
// whose right side is a constant severity or, position for position, a
// call of a function of the package (the severities it returns there).
func (p *pkgScan) assigned(body ast.Node, match func(ast.Expr) bool) diag.Severities {
	var out diag.Severities
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			if !match(l) {
				continue
			}
			switch {
			case len(as.Lhs) == len(as.Rhs):
				if s, ok := severityOf(as.Rhs[i]); ok {
					out |= diag.SeveritySet(s)
				}
			case len(as.Rhs) == 1:
				if call, ok := as.Rhs[0].(*ast.CallExpr); ok {
					out |= p.returned(call, i)
				}
			}
		}
		return true
	})
	return out
}

// returned is every constant severity a function of the package returns
// at result i (a result that is no severity constant, such as the 0 of
// a result that says nothing is wrong, is left out).
func (p *pkgScan) returned(call *ast.CallExpr, i int) diag.Severities {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || p.funcs[id.Name] == nil {
		return 0
	}
	var out diag.Severities
	ast.Inspect(p.funcs[id.Name].Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && i < len(r.Results) {
			if s, ok := severityOf(r.Results[i]); ok {
				out |= diag.SeveritySet(s)
			}
		}
		return !isFuncLit(n)
	})
	return out
}

func isFuncLit(n ast.Node) bool { _, ok := n.(*ast.FuncLit); return ok }

// resolve returns the severities e may hold in fn: a constant, a
// variable assigned in fn, or a field assigned in the package.
func (p *pkgScan) resolve(e ast.Expr, fn *ast.FuncDecl) diag.Severities {
	if s, ok := severityOf(e); ok {
		return diag.SeveritySet(s)
	}
	switch x := e.(type) {
	case *ast.Ident:
		return p.assigned(fn.Body, func(l ast.Expr) bool { id, ok := l.(*ast.Ident); return ok && id.Name == x.Name })
	case *ast.SelectorExpr:
		return p.fields[x.Sel.Name]
	}
	return 0
}

// raised scans the non-test Go files under root for every place a
// diagnostic (or a codec finding) is made with its code and severity:
// diag.Newf(code, sev, ...), lldp's finding(code, level, ...), and the
// literals Diagnostic{Code: code, Severity: sev} and Finding{Code: code,
// Level: level}. A severity that is a variable is every severity
// assigned to it in the function (pkgScan). It returns the severities
// found per code and the places it could not resolve.
func raised(t *testing.T, consts map[string]diag.Code, root string) (map[diag.Code]diag.Severities, []string) {
	t.Helper()
	got := map[diag.Code]diag.Severities{}
	var unresolved []string
	fset := token.NewFileSet()
	byDir := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, files := range byDir {
		p := &pkgScan{funcs: map[string]*ast.FuncDecl{}, fields: map[string]diag.Severities{}}
		for _, f := range files {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
					p.funcs[fn.Name.Name] = fn
				}
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok || len(as.Lhs) != len(as.Rhs) {
					return true
				}
				for i, l := range as.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok {
						if s, ok := severityOf(as.Rhs[i]); ok {
							p.fields[sel.Sel.Name] |= diag.SeveritySet(s)
						}
					}
				}
				return true
			})
		}
		for _, f := range files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				note := func(codeExpr, sevExpr ast.Expr) {
					code, ok := codeOf(codeExpr, consts)
					if !ok {
						return
					}
					if s := p.resolve(sevExpr, fn); s != 0 {
						got[code] |= s
						return
					}
					unresolved = append(unresolved, fset.Position(sevExpr.Pos()).String()+" "+string(code))
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					switch x := n.(type) {
					case *ast.CallExpr:
						if name := identName(x.Fun); (name == "Newf" || name == "finding") && len(x.Args) >= 2 {
							note(x.Args[0], x.Args[1])
						}
					case *ast.CompositeLit:
						var codeExpr, sevExpr ast.Expr
						for _, el := range x.Elts {
							kv, ok := el.(*ast.KeyValueExpr)
							if !ok {
								continue
							}
							switch k, _ := kv.Key.(*ast.Ident); {
							case k == nil:
							case k.Name == "Code":
								codeExpr = kv.Value
							case k.Name == "Severity" || k.Name == "Level":
								sevExpr = kv.Value
							}
						}
						if codeExpr != nil && sevExpr != nil {
							note(codeExpr, sevExpr)
						}
					}
					return true
				})
			}
		}
	}
	return got, unresolved
}

// TestCatalogueSeverities: the Catalogue's severities of a code are the
// severities the code is raised at anywhere in the engine (its rules
// and the codec's findings), read off the source: a rule that raises a
// code at a severity its row does not name, or a row that names one no
// rule raises, fails.
func TestCatalogueSeverities(t *testing.T) {
	got, unresolved := raised(t, codeConsts(t, ".", "../lldp"), "..")
	for _, u := range unresolved {
		t.Errorf("%s: a severity the scan cannot resolve (a constant, or a variable assigned constants in the function)", u)
	}
	if len(got) < 60 {
		t.Fatalf("the scan found %d codes raised, want every one of the Catalogue's %d", len(got), len(diag.Catalogue))
	}
	for _, e := range diag.Catalogue {
		if g := got[e.Code]; g != e.Severities {
			t.Errorf("%s: raised at %v, the Catalogue says %v", e.Code, g, e.Severities)
		}
	}
}
