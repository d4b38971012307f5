package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxListedErrors bounds the problems a JSONError lists; past it the
// error says how many more there are.
const maxListedErrors = 20

// A FieldError is one problem of a JSON document an operator wrote (PARAMS,
// a policy), at its place.
type FieldError struct {
	// Line and Column locate the start of the offending value, or of the
	// key of an unknown or repeated member, or the byte a syntax error is
	// at (the end of the input for a truncated one). Both are 1-based;
	// Column counts runes (UTF-8 characters, a tab being one) from the
	// start of the line, so that it matches what an editor shows.
	Line, Column int
	// Path names the value: "ets.tc_bandwidth[1]", "app[2].selector",
	// "ets.min_bandwidth[\"3\"]"; for an unknown member, the object it is
	// in (Msg names the member); "" for the document as a whole (a syntax
	// error, the depth limit, an unknown member at the top).
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error returns "line 3, column 18: ets.tc_bandwidth[1]: Msg", without
// the path when there is none.
func (e FieldError) Error() string {
	s := "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": "
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg
}

// A JSONError is what ParseParams, ParseValidParams and ParsePolicy refuse
// a document with: every problem found in it (not only the first), sorted
// by place. Its Error is Doc and ": " followed by the problems one a line,
// as FieldError.Error writes them, and "and N more" as a last line past
// maxListedErrors (20):
//
//	parameters JSON: line 3, column 18: ets.tc_bandwidth[1]: 70% takes the sum past 100%: the TC bandwidths sum to 110%
//	line 5, column 26: pfc.enabled[0]: priority 9 is not 0-7
//
// A caller that names the file prints each of Errors on its own line
// after the file name, as compilers do. A syntax error or a limit of
// hostile input (MaxJSONDepth, the members of an object, the elements of
// an array) stops the reading: it is then the only problem listed.
type JSONError struct {
	// Doc names the document: "parameters JSON" or "policy".
	Doc string
	// Errors are the problems, by Line then Column, at most 20.
	Errors []FieldError
	// More counts the problems found past Errors.
	More int
	// cause is the sentinel some problems wrap (ErrJSONTooDeep).
	cause error
}

// Error lists the problems, one a line, after Doc.
func (e *JSONError) Error() string {
	var sb strings.Builder
	sb.WriteString(e.Doc)
	sb.WriteString(": ")
	for i, f := range e.Errors {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(f.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&sb, "\nand %d more", e.More)
	}
	return sb.String()
}

// Unwrap returns the sentinel error of the problem, if any: ErrJSONTooDeep.
func (e *JSONError) Unwrap() error { return e.cause }

// lineCol returns the 1-based line and column (in runes) of byte offset
// off in b.
func lineCol(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	before := b[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[start:]) + 1
}

// A jsonDoc is a JSON document being read by hand: its bytes, the problems
// found so far by byte offset, and where the values of interest start.
// Its walking methods (members, elements, end) assume valid JSON within
// the limits of MaxJSONDepth, maxObjectMembers and maxArrayElements,
// which readJSONDoc checks first.
type jsonDoc struct {
	b     []byte
	errs  []docErr
	total int
	// full: errs was trimmed to maxListedErrors problems, the last at
	// cut; a problem past cut cannot be listed and is only counted.
	full  bool
	cut   int
	cause error
	// pos maps the path of each value walked to its offset (rule errors
	// found after decoding are placed with it).
	pos map[string]int
}

type docErr struct {
	off       int
	path, msg string
}

// errorf records a problem at byte offset off.
func (d *jsonDoc) errorf(off int, path, format string, a ...any) {
	d.total++
	if !d.listable(off) {
		return
	}
	d.errs = append(d.errs, docErr{off, path, fmt.Sprintf(format, a...)})
	if len(d.errs) >= 4*maxListedErrors {
		d.trim()
	}
}

// listable reports whether a problem at offset off may still be listed.
func (d *jsonDoc) listable(off int) bool { return !d.full || off <= d.cut }

// trim sorts the problems by offset, keeping the order of those at one
// offset, and drops all but the first maxListedErrors.
func (d *jsonDoc) trim() {
	slices.SortStableFunc(d.errs, func(a, b docErr) int { return a.off - b.off })
	if len(d.errs) >= maxListedErrors {
		d.errs = d.errs[:maxListedErrors]
		d.full, d.cut = true, d.errs[maxListedErrors-1].off
	}
}

// err returns the problems as a *JSONError of document doc, or nil.
func (d *jsonDoc) err(doc string) error {
	if d.total == 0 {
		return nil
	}
	d.trim()
	e := &JSONError{Doc: doc, More: d.total - len(d.errs), cause: d.cause}
	for _, x := range d.errs {
		line, col := lineCol(d.b, x.off)
		e.Errors = append(e.Errors, FieldError{Line: line, Column: col, Path: x.path, Msg: x.msg})
	}
	return e
}

// readJSONDoc checks b before any decoding: MaxJSONDepth, the syntax, and
// the members and elements of every container (duplicateKeys), recording
// what is wrong. It reports whether the document can be walked: false
// after a syntax error or a limit, true (perhaps with repeated keys
// recorded) otherwise.
func readJSONDoc(b []byte) (*jsonDoc, bool) {
	d := &jsonDoc{b: b}
	if off, err := jsonDepth(b); err != nil {
		d.cause = ErrJSONTooDeep
		d.errorf(off, "", "%v", ErrJSONTooDeep)
		return d, false
	}
	if !json.Valid(b) {
		d.syntaxError()
		return d, false
	}
	if !duplicateKeys(d) {
		return d, false
	}
	d.pos = map[string]int{}
	return d, true
}

// syntaxError records why b is not JSON, where: the offending byte, the
// end of the input when it is cut short.
func (d *jsonDoc) syntaxError() {
	var v struct{}
	err := json.Unmarshal(d.b, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		d.errorf(0, "", "not JSON") // json.Valid and Unmarshal disagree
		return
	}
	off := int(se.Offset) - 1 // the byte it stopped at
	switch msg := se.Error(); {
	case strings.HasPrefix(msg, "unexpected end of JSON input"):
		d.errorf(len(d.b), "", "unexpected end of input (%s)", d.unclosed())
	case strings.HasSuffix(msg, "after top-level value"):
		what := "value"
		if i := d.ws(0); i < len(d.b) && d.b[i] == '{' {
			what = "object"
		}
		d.errorf(off, "", "trailing data after the %s", what)
	default:
		d.errorf(off, "", "%s", msg)
	}
}

// unclosed says what is open at the end of a truncated document.
func (d *jsonDoc) unclosed() string {
	var stack [MaxJSONDepth]byte
	depth, inString, escaped, seen := 0, false, false, false
	for _, c := range d.b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString, seen = true, true
		case c == '{' || c == '[':
			if depth < len(stack) {
				stack[depth] = c
			}
			depth++
		case c == '}' || c == ']':
			depth = max(depth-1, 0)
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			seen = true
		}
		seen = seen || depth > 0
	}
	switch {
	case inString:
		return "a string is not closed"
	case depth > 0 && stack[min(depth, len(stack))-1] == '{':
		return "an object is not closed"
	case depth > 0:
		return "an array is not closed"
	case !seen:
		return "no JSON value"
	}
	return "a value is not complete"
}

// ws returns the offset of the first byte at or after i that is not
// white space.
func (d *jsonDoc) ws(i int) int {
	for i < len(d.b) {
		switch d.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// strEnd returns the offset just past the string starting at i.
func (d *jsonDoc) strEnd(i int) int {
	for i++; i < len(d.b); i++ {
		switch d.b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(d.b)
}

// end returns the offset just past the value starting at i.
func (d *jsonDoc) end(i int) int {
	if i >= len(d.b) {
		return len(d.b)
	}
	switch d.b[i] {
	case '"':
		return d.strEnd(i)
	case '{', '[':
		depth := 0
		for ; i < len(d.b); i++ {
			switch d.b[i] {
			case '"':
				i = d.strEnd(i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(d.b)
	}
	for i < len(d.b) && !strings.ContainsRune(",}] \t\r\n", rune(d.b[i])) {
		i++
	}
	return i
}

// key decodes the JSON string starting at i.
func (d *jsonDoc) key(i int) string {
	raw := d.b[i:d.strEnd(i)]
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid JSON: cannot fail
	return s
}

// members calls fn with each member of the object starting at i: its
// key, the key's offset and the value's.
func (d *jsonDoc) members(i int, fn func(key string, k, v int)) {
	for i = d.ws(i + 1); i < len(d.b) && d.b[i] == '"'; {
		k := i
		v := d.ws(d.ws(d.strEnd(k)) + 1) // past the colon
		fn(d.key(k), k, v)
		if i = d.ws(d.end(v)); i < len(d.b) && d.b[i] == ',' {
			i = d.ws(i + 1)
		}
	}
}

// elements calls fn with the index and offset of each element of the
// array starting at i, and returns how many there are.
func (d *jsonDoc) elements(i int, fn func(n, v int)) int {
	n := 0
	for i = d.ws(i + 1); i < len(d.b) && d.b[i] != ']'; n++ {
		fn(n, i)
		if i = d.ws(d.end(i)); i < len(d.b) && d.b[i] == ',' {
			i = d.ws(i + 1)
		}
	}
	return n
}

// is reports whether the value at v starts with c: '{', '[', '"', 'n'.
func (d *jsonDoc) is(v int, c byte) bool { return v < len(d.b) && d.b[v] == c }

// describe renders the value at v for a message: a number or literal as
// written, a string quoted and cut to 24 characters, "an object", "an
// array".
func (d *jsonDoc) describe(v int) string {
	if v >= len(d.b) {
		return "nothing"
	}
	switch d.b[v] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		_ = json.Unmarshal(d.b[v:d.end(v)], &s)
		n := 0
		for i := range s {
			if n++; n > 24 {
				s = s[:i] + "…"
				break
			}
		}
		return strconv.Quote(s)
	}
	s := string(d.b[v:d.end(v)])
	if len(s) > 24 {
		s = s[:24] + "…"
	}
	return Sanitize(s)
}

// leaf decodes the scalar value at v into ptr with encoding/json's rules
// (null leaves it as it is), recording a failure at v as "want WANT, got
// X" or in the words of the type's UnmarshalText ("unknown TSA ...").
// It reports whether the value decoded.
func (d *jsonDoc) leaf(v int, path, want string, ptr any) bool {
	if !d.is(v, '{') && !d.is(v, '[') {
		err := json.Unmarshal(d.b[v:d.end(v)], ptr)
		if err == nil {
			return true
		}
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
			d.errorf(v, path, "%s", Sanitize(err.Error()))
			return false
		}
	}
	d.errorf(v, path, "want %s, got %s", want, d.describe(v))
	return false
}

// wantObject reports whether the value at v is an object, recording
// "want an object" when it is not null either. What it records is at v.
func (d *jsonDoc) wantObject(v int, path, what string) bool {
	if d.is(v, '{') {
		d.pos[path] = v
		return true
	}
	if !d.is(v, 'n') {
		d.errorf(v, path, "want %s, got %s", what, d.describe(v))
	}
	return false
}

// unknown records the unknown member key of the object at path, at the
// key (offset k): `pfc: unknown field "delay" (want ...)`.
func (d *jsonDoc) unknown(k int, path, key, want string) {
	d.errorf(k, path, "unknown field %s (want %s)", strconv.Quote(Sanitize(key)), want)
}

// isIdent reports whether a key can follow a dot in a path: lower-case
// letters, digits and underscores, not starting with a digit.
func isIdent(key string) bool {
	for i, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return key != ""
}

// member returns the path of member key of the value at path: "ets.tsa",
// or `ets.min_bandwidth["3"]` for a key that is not a plain name.
func member(path, key string) string {
	if !isIdent(key) {
		return mapKey(path, key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapKey returns the path of member key of the map at path:
// `ets.min_bandwidth["3"]`.
func mapKey(path, key string) string { return path + "[" + strconv.Quote(Sanitize(key)) + "]" }

// index returns the path of element i of the array at path: "app[2]".
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
