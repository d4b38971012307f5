// SPDX-License-Identifier: Apache-2.0

package jsondoc

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineCol: lines and columns are 1-based, columns in runes, an
// offset past the end the end.
func TestLineCol(t *testing.T) {
	b := []byte("ab\n\tü€x\n")
	for _, tt := range []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2}, {6, 2, 3}, {9, 2, 4}, {10, 2, 5}, {11, 3, 1}, {99, 3, 1}, {-1, 1, 1},
	} {
		if line, col := LineCol(b, tt.off); line != tt.line || col != tt.col {
			t.Errorf("LineCol(%d) = %d, %d; want %d, %d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

// errText returns the text of d's problems as document "x", "" for none.
func errText(d *Doc) string {
	if err := d.Err("x"); err != nil {
		return err.Error()
	}
	return ""
}

// TestReadProblems: what makes a document unreadable is its only
// problem, at the byte it is at (the end of the input for a truncated
// one); repeated keys are problems of a document that can still be
// walked.
func TestReadProblems(t *testing.T) {
	tests := []struct {
		name, in string
		walked   bool
		want     string
	}{
		{"valid", `{"a": [1, "two", null, {"b": true}]}`, true, ""},
		{"truncated object", "{\n  \"pfc\": {\"cap\": 8,\n   \"enabled\": [3]}\n", false, "x: line 4, column 1: unexpected end of input (an object is not closed)"},
		{"truncated array", `{"pfc": {"cap": 8, "enabled": [3,`, false, "x: line 1, column 34: unexpected end of input (an array is not closed)"},
		{"truncated string", `{"pfc": {"ca`, false, "x: line 1, column 13: unexpected end of input (a string is not closed)"},
		{"truncated literal", `tru`, false, "x: line 1, column 4: unexpected end of input (a value is not complete)"},
		{"empty", " \n", false, "x: line 2, column 1: unexpected end of input (no JSON value)"},
		{"a comma before a brace", "{\n  \"pfc\": {\"cap\": 8,}\n}", false, "x: line 2, column 19: a comma before '}' (nothing follows it)"},
		{"a comma before a bracket", `[1, 2, ]`, false, "x: line 1, column 6: a comma before ']' (nothing follows it)"},
		{"a missing comma", `[1 2]`, false, "x: line 1, column 4: invalid character '2' after array element (expecting ',' or ']')"},
		{"trailing object", "{\"pfc\": {\"cap\": 8}}\n{}", false, "x: line 2, column 1: trailing data after the object"},
		{"trailing garbage", `[1] x`, false, "x: line 1, column 5: trailing data after the value"},
		{"invalid UTF-8", "{\"a\": \"\xff\"}", false, "x: line 1, column 8: invalid UTF-8"},
		{"a repeated key is walked", "{\"ets\":{\"willing\":true,\n \"willing\":false}}", true, "x: line 2, column 2: ets.willing: key given twice (first at line 1, column 9)"},
	}
	for _, tt := range tests {
		d, root := Read([]byte(tt.in))
		if (root != nil) != tt.walked {
			t.Errorf("%s: root %v, want walked %v", tt.name, root, tt.walked)
		}
		if got := errText(d); got != tt.want {
			t.Errorf("%s: %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestReadTree: the tree holds each value's kind and place, each key's
// place, and a repeated key twice.
func TestReadTree(t *testing.T) {
	d, root := Read([]byte("{\"a\": [1, \"x\"],\n \"a\": null}"))
	if root == nil {
		t.Fatal(errText(d))
	}
	type node struct {
		Off  int
		Kind string
	}
	var got []node
	var walk func(v *Value)
	walk = func(v *Value) {
		got = append(got, node{v.Off, string(rune(v.Kind))})
		for _, m := range v.Members {
			got = append(got, node{m.KeyOff, "key " + m.Key})
			walk(m.Value)
		}
		for _, e := range v.Elems {
			walk(e)
		}
	}
	walk(root)
	want := []node{{0, "{"}, {1, "key a"}, {6, "["}, {7, "0"}, {10, "\""}, {17, "key a"}, {22, "n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

// deep returns n levels of open, then closes them.
func deep(open, close string, n int) []byte {
	return []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
}

// TestDepth: past MaxDepth both readers refuse the document with the
// place and ErrTooDeep; brackets in strings do not count.
func TestDepth(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string // "" when the depth is fine
	}{
		{"8 arrays", deep("[", "]", 8), ""},
		{"9 arrays", deep("[", "]", 9), "line 1, column 9: nested deeper than 8 levels"},
		{"brackets in strings do not count", []byte(`{"ets":"[[[[[[[[[[[[[[[[[["}`), ""},
		{"escaped quote in a string", []byte(`{"a":"\"[[[[[[[[[[[[["}`), ""},
		{"second line", []byte("{\n  \"a\": [[[[[[[[[1]]]]]]]]]}"), "line 2, column 15: nested deeper than 8 levels"},
		{"60,000 levels arriving", []byte(`{"op":"apply","params":{"ets":` + strings.Repeat("[", 60000)), "line 1, column 37: nested deeper than 8 levels"},
	}
	for _, tt := range tests {
		d, root := Read(tt.in)
		err := d.Err("x")
		_, rerr := ReadValue(bytes.NewReader(tt.in))
		if tt.want == "" {
			if root == nil || err != nil || rerr != nil {
				t.Errorf("%s: Read %v, ReadValue %v", tt.name, err, rerr)
			}
			continue
		}
		if root != nil || !errors.Is(err, ErrTooDeep) || err.Error() != "x: "+tt.want+" (a PARAMS file or policy is at most 4)" {
			t.Errorf("%s: Read = %v, want %q", tt.name, err, tt.want)
		}
		if !errors.Is(rerr, ErrTooDeep) || !strings.HasPrefix(rerr.Error(), tt.want) {
			t.Errorf("%s: ReadValue = %v, want %q", tt.name, rerr, tt.want)
		}
	}
}

// TestReadValue: one value of a stream, its text exact, whatever
// follows it; an empty stream is io.EOF.
func TestReadValue(t *testing.T) {
	v, err := ReadValue(strings.NewReader(" {\"op\": \"get\"}\n{\"next\": 1}"))
	if err != nil || string(v) != `{"op": "get"}` {
		t.Errorf("ReadValue = %q, %v", v, err)
	}
	if _, err := ReadValue(strings.NewReader("  ")); err != io.EOF {
		t.Errorf("ReadValue of nothing = %v, want io.EOF", err)
	}
	if _, err := ReadValue(strings.NewReader(`{"op": `)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadValue of a cut value = %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestLimits: an object of more than MaxMembers members, an array of
// more than MaxElements elements and a document of more than MaxValues
// values stop the reading at the first value past the limit.
func TestLimits(t *testing.T) {
	var members strings.Builder
	members.WriteString("{")
	for i := range MaxMembers + 1 {
		if i > 0 {
			members.WriteString(",")
		}
		members.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	members.WriteString("}")
	row := "[" + strings.Repeat("1,", 255) + "1]"
	tests := []struct{ name, in, want string }{
		{"members", members.String(), "more than 64 members in one object"},
		{"elements", "[" + strings.Repeat("1,", MaxElements) + "1]", "line 1, column 514: more than 256 elements in one array"},
		{"values", "[" + strings.Repeat(row+",", 20) + row + "]", "[15][239]: more than 4096 values in one document"},
	}
	for _, tt := range tests {
		d, root := Read([]byte(tt.in))
		if got := errText(d); root != nil || !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: %q, want one problem ending %q", tt.name, got, tt.want)
		}
	}
}

// TestDuplicateKeyPaths: the path of a duplicate names its place through
// arrays and objects, and its position is the second key's, beside the
// first's.
func TestDuplicateKeyPaths(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"app":[{"priority":3},{"priority":3,"priority":4}]}`, `x: line 1, column 38: app[1].priority: key given twice (first at line 1, column 25)`},
		{`[{"a":1},{"b":{"c":1,"c":2}}]`, `x: line 1, column 22: [1].b.c: key given twice (first at line 1, column 16)`},
		{`{"a":{"é":1,"é":2}}`, `x: line 1, column 13: a["é"]: key given twice (first at line 1, column 7)`},
	}
	for _, tt := range tests {
		d, root := Read([]byte(tt.in))
		if got := errText(d); root == nil || got != tt.want {
			t.Errorf("Read(%s) = %v, %q; want %s", tt.in, root != nil, got, tt.want)
		}
	}
}

// TestLeaf: a scalar decodes with encoding/json/v2's rules; what does
// not fit is "want X, got Y" at the value, and a type's own refusal its
// own words.
func TestLeaf(t *testing.T) {
	d, root := Read([]byte(`[300, "3", 1.5, true, "ok", "no", null]`))
	if root == nil {
		t.Fatal(errText(d))
	}
	var u uint8
	for i := range 4 {
		if d.Leaf(root.Elems[i], IndexPath("", i), "a number 0-8", &u) {
			t.Errorf("element %d decoded into a uint8", i)
		}
	}
	var w word
	if !d.Leaf(root.Elems[4], "[4]", "a word", &w) || w != "ok" {
		t.Errorf("a known word: %q", w)
	}
	d.Leaf(root.Elems[5], "[5]", "a word", &w)
	var p *uint8
	if !d.Leaf(root.Elems[6], "[6]", "a number", &p) || p != nil {
		t.Errorf("null into a pointer: %v", p)
	}
	want := strings.Join([]string{
		"x: line 1, column 2: [0]: want a number 0-8, got 300",
		`line 1, column 7: [1]: want a number 0-8, got "3"`,
		"line 1, column 12: [2]: want a number 0-8, got 1.5",
		"line 1, column 17: [3]: want a number 0-8, got true",
		`line 1, column 29: [5]: unknown word "no"`,
	}, "\n")
	if got := errText(d); got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

// A word is a type with its own UnmarshalText.
type word string

func (w *word) UnmarshalText(b []byte) error {
	if string(b) != "ok" {
		return errors.New("unknown word " + strconv.Quote(string(b)))
	}
	*w = word(b)
	return nil
}

// TestErrorList: problems are listed by place, at most 20, with how many
// more; Errors and the text agree.
func TestErrorList(t *testing.T) {
	var sb strings.Builder
	for i := range 30 {
		sb.WriteString("{}\n")
		_ = i
	}
	d, root := Read([]byte("[" + strings.Repeat("1,\n", 29) + "1]"))
	if root == nil {
		t.Fatal(errText(d))
	}
	for i := len(root.Elems) - 1; i >= 0; i-- { // recorded out of order
		d.Errorf(root.Elems[i].Off, IndexPath("", i), "bad")
	}
	err := d.Err("x")
	e, ok := errors.AsType[*Error](err)
	if !ok || len(e.Errors) != 20 || e.More != 10 || e.Errors[0] != (FieldError{Line: 1, Column: 2, Path: "[0]", Msg: "bad"}) ||
		e.Errors[19] != (FieldError{Line: 20, Column: 1, Path: "[19]", Msg: "bad"}) {
		t.Fatalf("%+v", e)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[0] != "x: line 1, column 2: [0]: bad" || lines[20] != "and 10 more" {
		t.Errorf("text:\n%s", err)
	}
}

// TestHostileMemory: documents up to a megabyte that once cost memory
// quadratic in their depth, or a string per element, are read with at
// most 4 MiB allocated in all (with the race detector on).
func TestHostileMemory(t *testing.T) {
	const big = 1 << 20
	obj := `{"a":1,"a":2},`
	row := "[" + strings.Repeat(obj, 255) + obj[:len(obj)-1] + "]"
	docs := map[string][]byte{
		"65k objects repeating a key": []byte(`{"app":[` + strings.Repeat(row+",", 255) + row + "]}"),
		"1 MiB of [":                  bytes.Repeat([]byte("["), big),
		"1 MiB of {\"a\":":            bytes.Repeat([]byte(`{"a":`), big/5),
		"one array of 512k items":     []byte("[" + strings.Repeat("1,", big/2-2) + "1]"),
		"many small objects":          []byte("[" + strings.Repeat(`{"a":1},`, big/8-1) + "1]"),
	}
	for name, in := range docs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, root := Read(in)
		runtime.ReadMemStats(&after)
		if root != nil {
			t.Errorf("%s: read whole", name)
		}
		total := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes allocated: %s", name, total, strings.SplitN(errText(d), "\n", 2)[0])
		if total > 4<<20 {
			t.Errorf("%s (%d bytes): %d bytes allocated", name, len(in), total)
		}
	}
}
