// SPDX-License-Identifier: Apache-2.0

// Package jsondoctest holds the invariants of documents read with
// engine/jsondoc to account in tests and fuzz targets: what reading may
// allocate, and what a refusal must look like.
package jsondoctest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dcbtop/dcbtop/engine/jsondoc"
)

// PerByte is what reading any document may allocate: 64 bytes per
// byte of an n-byte document plus 1 MiB.
func PerByte(n int) uint64 { return 64*uint64(n) + 1<<20 }

// CheckAllocated runs parse and fails t when it allocates more than limit
// bytes in all (runtime/metrics: runtime.ReadMemStats stops the world,
// 60 µs a call).
func CheckAllocated(t testing.TB, limit uint64, parse func()) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	parse()
	metrics.Read(s)
	if got := s[0].Value.Uint64() - before; got > limit {
		t.Fatalf("allocated %d bytes (limit %d)", got, limit)
	}
}

// CheckError fails t unless err is sentinel (when not nil) or a
// *jsondoc.Error of document doc about the input b: 1 to 20 problems,
// sorted by place, each within b (a line at most one past its last
// newline, a column at most one past its line's runes), with a path and
// message of printable characters only (what a terminal shows as
// written), and an Error listing them one a line.
func CheckError(t testing.TB, b []byte, err error, doc string, sentinel error) {
	t.Helper()
	if sentinel != nil && errors.Is(err, sentinel) {
		return
	}
	je, ok := errors.AsType[*jsondoc.Error](err)
	if !ok {
		t.Fatalf("error %q (%T) is not a *jsondoc.Error", err, err)
	}
	if je.Doc != doc || len(je.Errors) == 0 || len(je.Errors) > 20 || je.More < 0 || je.More > 0 && len(je.Errors) != 20 {
		t.Fatalf("jsondoc.Error %+v", je)
	}
	lines := bytes.Split(b, []byte("\n"))
	var text []string
	for i, f := range je.Errors {
		if f.Line < 1 || f.Line > len(lines) || f.Column < 1 || f.Column > utf8.RuneCount(lines[f.Line-1])+1 {
			t.Fatalf("problem %d at line %d, column %d: outside the input (%d lines)\n%s", i, f.Line, f.Column, len(lines), err)
		}
		if i > 0 && (f.Line < je.Errors[i-1].Line || f.Line == je.Errors[i-1].Line && f.Column < je.Errors[i-1].Column) {
			t.Fatalf("problems out of order:\n%s", err)
		}
		if s := f.Path + f.Msg; f.Msg == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
			t.Fatalf("problem %d: path %q, message %q", i, f.Path, f.Msg)
		}
		text = append(text, f.Error())
	}
	if je.More > 0 {
		text = append(text, fmt.Sprintf("and %d more", je.More))
	}
	if want := doc + ": " + strings.Join(text, "\n"); err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}

// HostileDocs returns documents of about size bytes each that once cost
// memory quadratic in their depth (40 KB of '[' took 3.9 GB in a
// duplicate-key pass) or a string per element: a reader must refuse each
// with little allocated.
func HostileDocs(size int) map[string][]byte {
	many := []byte("[" + strings.Repeat("1,", size/2-2) + "1]")
	var keys bytes.Buffer
	keys.WriteString("{")
	for i := 0; keys.Len() < size-16; i++ {
		if i > 0 {
			keys.WriteString(",")
		}
		fmt.Fprintf(&keys, `"k%s%d":1`, strings.Repeat("x", i%7), i)
	}
	keys.WriteString("}")
	// 65,536 objects that each repeat a key, in arrays of 256.
	obj := `{"a":1,"a":2},`
	row := "[" + strings.Repeat(obj, 255) + obj[:len(obj)-1] + "]"
	repeats := []byte(`{"app":[` + strings.Repeat(row+",", 255) + row + "]}")
	// 256 APP entries of 63 unknown members each: 16,128 problems.
	var entry strings.Builder
	entry.WriteString(`{"priority":3`)
	for i := range 63 {
		fmt.Fprintf(&entry, `,"%d":1`, i)
	}
	entry.WriteString("}")
	unknown := []byte(`{"app":[` + strings.Repeat(entry.String()+",", 255) + entry.String() + "]}")
	return map[string][]byte{
		"65k objects repeating a key": repeats,
		"16k unknown members":         unknown,
		"[ to the size":               bytes.Repeat([]byte("["), size),
		"{\"a\": to the size":         bytes.Repeat([]byte(`{"a":`), size/5),
		"arrays 9 deep, closed":       []byte(strings.Repeat("[", 9) + strings.Repeat("]", 9)),
		"objects in arrays":           bytes.Repeat([]byte(`[{"a":`), size/6),
		"one array of many items":     many,
		"an object of many keys":      keys.Bytes(),
		"many small objects":          []byte("[" + strings.Repeat(`{"a":1},`, size/8-1) + "1]"),
		"an APP table of junk":        []byte(`{"app":[` + strings.Repeat(`{"a":1},`, size/8-2) + `{}]}`),
		"an APP table too long":       []byte(`{"app":[` + strings.Repeat(`{"priority":3,"selector":"udp-port","protocol":4791},`, size/53-1) + `{}]}`),
	}
}
