// SPDX-License-Identifier: Apache-2.0

// Package jsondoc reads a small JSON document that an operator wrote (a
// PARAMS file, a check policy, a control request) so that its reader can
// report every problem at once, each at its line and column, the way a
// compiler does.
//
// Read checks the document with encoding/json/jsontext (syntax, UTF-8)
// and builds a tree of Values that remember where each value, and each
// object member's key, starts. Read also enforces the limits of hostile
// input: MaxDepth, MaxMembers and MaxElements; a member given twice is a
// problem (encoding/json keeps the last silently, so a file saying two
// things would apply one of them). A reader then walks the tree, decodes
// each scalar with Doc.Leaf (encoding/json/v2's rules) and records what it
// refuses with Doc.Errorf; Doc.Err returns them as one *Error.
//
// It knows no document's schema: the walkers live with the types they
// fill (engine/dcb for PARAMS, engine/check for policies).
package jsondoc

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of every JSON document dcbtop reads from an
// operator or a client: PARAMS (a file, standard input, --local, the
// control socket) and policies. The real documents are three or four
// levels deep ({"ets": {"tsa": [...]}}, a control request wrapping PARAMS:
// four), so eight leaves room and refuses a hostile one early.
const MaxDepth = 8

// MaxMembers bounds the members of one object: the largest real one has
// eight (ets.min_bandwidth of a policy).
const MaxMembers = 64

// MaxElements bounds the elements of one array: the longest real one is an
// APP table (at most lldp.MaxAppEntries, 168, fit in a TLV).
const MaxElements = 256

// MaxValues bounds the values of one document: a PARAMS file with every
// feature and the longest APP table has under a thousand. It keeps the
// tree Read builds small whatever the input (65,536 objects in arrays of
// 256 would otherwise cost megabytes).
const MaxValues = 4096

// maxListed bounds the problems an Error lists; past it the error says
// how many more there are.
const maxListed = 20

// ErrTooDeep is the cause of an *Error for a document nested deeper than
// MaxDepth (errors.Is finds it).
var ErrTooDeep = fmt.Errorf("nested deeper than %d levels (a PARAMS file or policy is at most 4)", MaxDepth)

// A FieldError is one problem of a document, at its place.
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
	// error, a limit, an unknown member at the top).
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

// An Error is what a document is refused with: every problem found in it
// (not only the first), sorted by place. Its Error is Doc and ": "
// followed by the problems one a line, as FieldError.Error writes them,
// and "and N more" as a last line past 20:
//
//	parameters JSON: line 3, column 18: ets.tc_bandwidth[1]: 70% takes the sum past 100%: the TC bandwidths sum to 110%
//	line 5, column 26: pfc.enabled[0]: priority 9 is not 0-7
//
// A caller that names the file prints each of Errors on its own line
// after the file name, as compilers do. A syntax error or a limit of
// hostile input stops the reading: it is then the only problem listed.
type Error struct {
	// Doc names the document: "parameters JSON" or "policy".
	Doc string
	// Errors are the problems, by Line then Column, at most 20.
	Errors []FieldError
	// More counts the problems found past Errors.
	More int
	// cause is the sentinel some problems wrap (ErrTooDeep).
	cause error
}

// Error lists the problems, one a line, after Doc.
func (e *Error) Error() string {
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

// Unwrap returns ErrTooDeep for a document refused for its depth.
func (e *Error) Unwrap() error { return e.cause }

// LineCol returns the 1-based line and column (in runes) of byte offset
// off in b; an offset past the end is the end.
func LineCol(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	before := b[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[start:]) + 1
}

// A Kind is the kind of a Value, as jsontext names it: '{', '[', '"',
// '0' (a number), 't', 'f' or 'n'.
type Kind = jsontext.Kind

// A Value is one value of a document and where it starts.
type Value struct {
	// Off is the byte offset of the value's first byte, End the offset
	// just past its last.
	Off, End int
	// Kind says what it is.
	Kind Kind
	// Members are an object's members, in document order (a repeated
	// key appears twice); Elems an array's elements.
	Members []Member
	Elems   []*Value
	// raw is a scalar's text.
	raw []byte
}

// A Member is one member of an object.
type Member struct {
	Key string
	// KeyOff is the byte offset of the key's opening quote.
	KeyOff int
	Value  *Value
}

// Null reports whether v is null.
func (v *Value) Null() bool { return v.Kind == 'n' }

// Object reports whether v is an object.
func (v *Value) Object() bool { return v.Kind == '{' }

// Array reports whether v is an array.
func (v *Value) Array() bool { return v.Kind == '[' }

// A Doc is a document being read: its bytes, the problems found so far,
// and where the values of interest are.
type Doc struct {
	b     []byte
	errs  []docErr
	total int
	// full: errs was trimmed to maxListed problems, the last at cut; a
	// problem past cut cannot be listed and is only counted.
	full  bool
	cut   int
	cause error
	// pos maps the paths of values a walker placed to their offsets (rule
	// errors found after decoding are placed with it).
	pos map[string]int
}

type docErr struct {
	off       int
	path, msg string
}

// Read checks b and returns its tree. The root is nil when the document
// cannot be walked: a syntax error or a limit (the Doc then holds that one
// problem). Repeated keys are recorded as problems and kept in the tree.
func Read(b []byte) (*Doc, *Value) {
	d := &Doc{b: b, pos: map[string]int{}}
	r := reader{d: d, dec: jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))}
	root := r.value("")
	if root == nil {
		return d, nil
	}
	if off := r.next(); r.dec.PeekKind() != 0 || off < len(b) {
		what := "value"
		if root.Object() {
			what = "object"
		}
		d.Errorf(off, "", "trailing data after the %s", what)
		return d, nil
	}
	return d, root
}

// A reader builds the tree from the decoder's tokens.
type reader struct {
	d      *Doc
	dec    *jsontext.Decoder
	values int
}

// next returns the offset of the next token: past the white space and the
// separator after the last one read.
func (r *reader) next() int {
	b, i := r.d.b, int(r.dec.InputOffset())
	for i < len(b) && strings.IndexByte(" \t\r\n,:", b[i]) >= 0 {
		i++
	}
	return i
}

// value reads the value at path, or records why it cannot and returns nil.
func (r *reader) value(path string) *Value {
	off := r.next()
	if r.values++; r.values > MaxValues {
		r.d.Errorf(off, path, "more than %d values in one document", MaxValues)
		return nil
	}
	k := r.dec.PeekKind()
	switch k {
	case '{', '[':
		if r.dec.StackDepth() == MaxDepth {
			r.d.cause = ErrTooDeep
			r.d.Errorf(off, "", "%v", ErrTooDeep)
			return nil
		}
		if _, err := r.dec.ReadToken(); err != nil {
			r.syntax(err)
			return nil
		}
		v := &Value{Off: off, Kind: k}
		if k == '{' {
			v = r.object(v, path)
		} else {
			v = r.array(v, path)
		}
		if v != nil {
			v.End = int(r.dec.InputOffset())
		}
		return v
	}
	if _, err := r.dec.ReadValue(); err != nil {
		r.syntax(err)
		return nil
	}
	end := int(r.dec.InputOffset())
	return &Value{Off: off, End: end, Kind: k, raw: r.d.b[off:end]}
}

// object reads the members of the object v at path, up to its '}'.
func (r *reader) object(v *Value, path string) *Value {
	for r.dec.PeekKind() != '}' {
		off := r.next()
		tok, err := r.dec.ReadToken()
		if err != nil {
			r.syntax(err)
			return nil
		}
		key := tok.String()
		if len(v.Members) == MaxMembers {
			r.d.Errorf(off, path, "more than %d members in one object", MaxMembers)
			return nil
		}
		if i := slices.IndexFunc(v.Members, func(m Member) bool { return m.Key == key }); i >= 0 {
			line, col := LineCol(r.d.b, v.Members[i].KeyOff)
			r.d.Errorf(off, MemberPath(path, key), "key given twice (first at line %d, column %d)", line, col)
		}
		x := r.value(MemberPath(path, key))
		if x == nil {
			return nil
		}
		v.Members = append(v.Members, Member{Key: key, KeyOff: off, Value: x})
	}
	return r.close(v)
}

// array reads the elements of the array v at path, up to its ']'.
func (r *reader) array(v *Value, path string) *Value {
	for r.dec.PeekKind() != ']' {
		if len(v.Elems) == MaxElements {
			r.d.Errorf(r.next(), path, "more than %d elements in one array", MaxElements)
			return nil
		}
		x := r.value(IndexPath(path, len(v.Elems)))
		if x == nil {
			return nil
		}
		v.Elems = append(v.Elems, x)
	}
	return r.close(v)
}

// close reads the end of the container v.
func (r *reader) close(v *Value) *Value {
	if _, err := r.dec.ReadToken(); err != nil {
		r.syntax(err)
		return nil
	}
	return v
}

// syntax records why the document is not JSON, where: the offending
// byte, the end of the input when it is cut short.
func (r *reader) syntax(err error) {
	d := r.d
	se, ok := errors.AsType[*jsontext.SyntacticError](err)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		d.Errorf(len(d.b), "", "unexpected end of input (%s)", r.unclosed())
	case !ok:
		d.Errorf(r.next(), "", "%v", err)
	default:
		off := int(se.ByteOffset)
		msg := se.Err.Error()
		if rest := bytes.TrimLeft(d.b[min(off+1, len(d.b)):], " \t\r\n"); off < len(d.b) && d.b[off] == ',' && len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
			msg = fmt.Sprintf("a comma before '%c' (nothing follows it)", rest[0])
		}
		d.Errorf(off, "", "%s", msg)
	}
}

// unclosed says what is open at the end of a truncated document.
func (r *reader) unclosed() string {
	rest := bytes.TrimLeft(r.d.b[min(int(r.dec.InputOffset()), len(r.d.b)):], " \t\r\n,:")
	n := r.dec.StackDepth()
	open, _ := r.dec.StackIndex(n)
	switch {
	case len(rest) > 0 && rest[0] == '"':
		return "a string is not closed"
	case n > 0 && open == '{':
		return "an object is not closed"
	case n > 0:
		return "an array is not closed"
	case len(rest) == 0:
		return "no JSON value"
	}
	return "a value is not complete"
}

// Errorf records a problem at byte offset off.
func (d *Doc) Errorf(off int, path, format string, a ...any) {
	d.total++
	if d.full && off > d.cut {
		return
	}
	d.errs = append(d.errs, docErr{off, path, fmt.Sprintf(format, a...)})
	if len(d.errs) >= 4*maxListed {
		d.trim()
	}
}

// Total counts the problems recorded so far.
func (d *Doc) Total() int { return d.total }

// trim sorts the problems by offset, keeping the order of those at one
// offset, and drops all but the first maxListed.
func (d *Doc) trim() {
	slices.SortStableFunc(d.errs, func(a, b docErr) int { return a.off - b.off })
	if len(d.errs) >= maxListed {
		d.errs = d.errs[:maxListed]
		d.full, d.cut = true, d.errs[maxListed-1].off
	}
}

// Err returns the problems as an *Error of document doc, or nil.
func (d *Doc) Err(doc string) error {
	if d.total == 0 {
		return nil
	}
	d.trim()
	e := &Error{Doc: doc, More: d.total - len(d.errs), cause: d.cause}
	for _, x := range d.errs {
		line, col := LineCol(d.b, x.off)
		e.Errors = append(e.Errors, FieldError{Line: line, Column: col, Path: x.path, Msg: x.msg})
	}
	return e
}

// Place remembers that the value at path is v, for At.
func (d *Doc) Place(path string, v *Value) { d.pos[path] = v.Off }

// At returns the offset of the value placed at path.
func (d *Doc) At(path string) (int, bool) {
	off, ok := d.pos[path]
	return off, ok
}

// Describe renders v for a message: a number or literal as written, a
// string quoted (strconv.Quote: control and invisible characters escaped,
// safe for a terminal) and cut to 24 characters, "an object", "an array".
func Describe(v *Value) string {
	switch v.Kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		_ = json.Unmarshal(v.raw, &s)
		n := 0
		for i := range s {
			if n++; n > 24 {
				s = s[:i] + "…"
				break
			}
		}
		return strconv.Quote(s)
	}
	s := string(v.raw)
	if len(s) > 24 {
		s = s[:24] + "…"
	}
	return s
}

// Leaf decodes the scalar v into ptr with encoding/json/v2's rules (null
// sets the zero value), recording a failure at v as "want WANT, got X" or
// in the words of the type's UnmarshalText ("unknown TSA ..."). It
// reports whether the value decoded.
func (d *Doc) Leaf(v *Value, path, want string, ptr any) bool {
	if v.Kind != '{' && v.Kind != '[' {
		err := json.Unmarshal(v.raw, ptr)
		if err == nil {
			return true
		}
		// The type's own refusal (an unknown name), not a kind or range
		// that does not fit the Go type. The types' UnmarshalText quote
		// what they refuse (%q), so the message is safe to show.
		if se, ok := errors.AsType[*json.SemanticError](err); ok && se.Err != nil && v.Kind == '"' {
			d.Errorf(v.Off, path, "%s", se.Err.Error())
			return false
		}
	}
	d.Errorf(v.Off, path, "want %s, got %s", want, Describe(v))
	return false
}

// WantObject reports whether v is an object, recording "want WHAT, got
// X" when it is not null either, and placing it at path.
func (d *Doc) WantObject(v *Value, path, what string) bool {
	if v.Object() {
		d.Place(path, v)
		return true
	}
	if !v.Null() {
		d.Errorf(v.Off, path, "want %s, got %s", what, Describe(v))
	}
	return false
}

// Unknown records the unknown member m of the object at path, at its key:
// `pfc: unknown field "delay" (want ...)`.
func (d *Doc) Unknown(m Member, path, want string) {
	d.Errorf(m.KeyOff, path, "unknown field %s (want %s)", strconv.Quote(m.Key), want)
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

// MemberPath returns the path of member key of the value at path:
// "ets.tsa", or `ets.min_bandwidth["3"]` for a key that is not a plain
// name.
func MemberPath(path, key string) string {
	if !isIdent(key) {
		return MapKeyPath(path, key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// MapKeyPath returns the path of member key of the map at path:
// `ets.min_bandwidth["3"]`.
func MapKeyPath(path, key string) string {
	return path + "[" + strconv.Quote(key) + "]"
}

// IndexPath returns the path of element i of the array at path: "app[2]".
func IndexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// ReadValue reads one JSON value from the stream r (a connection, a
// pipe) and returns its text, refusing as the bytes arrive a value nested
// deeper than MaxDepth, before any work per level: the error then says
// where (line and column in the stream) and wraps ErrTooDeep. A syntax
// error says where too; io.EOF means r ended before any value, and
// another error of r (a timeout, io.ErrUnexpectedEOF) is returned as it
// is. Bound r's size beforehand (io.LimitedReader).
func ReadValue(r io.Reader) (jsontext.Value, error) {
	var seen bytes.Buffer
	dec := jsontext.NewDecoder(io.TeeReader(r, &seen))
	for {
		if dec.PeekKind() == '{' || dec.PeekKind() == '[' {
			if dec.StackDepth() == MaxDepth {
				b := seen.Bytes()
				off := int(dec.InputOffset())
				for off < len(b) && strings.IndexByte(" \t\r\n,:", b[off]) >= 0 {
					off++
				}
				line, col := LineCol(b, off)
				return nil, fmt.Errorf("line %d, column %d: %w", line, col, ErrTooDeep)
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok && !errors.Is(err, io.ErrUnexpectedEOF) {
				line, col := LineCol(seen.Bytes(), int(se.ByteOffset))
				return nil, fmt.Errorf("line %d, column %d: %s", line, col, se.Err)
			}
			return nil, err
		}
		if dec.StackDepth() == 0 {
			return jsontext.Value(bytes.TrimSpace(seen.Bytes()[:dec.InputOffset()])), nil
		}
	}
}
