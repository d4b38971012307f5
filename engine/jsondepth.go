package engine

import (
	"fmt"
	"io"
)

// MaxJSONDepth bounds the nesting of every JSON document dcbtop reads from
// an operator or a client: PARAMS (a file, standard input, --local, the
// control socket) and policies. The real documents are three or four
// levels deep ({"ets": {"tsa": [...]}}, a control request wrapping
// PARAMS: four), so eight leaves room and refuses a hostile one before
// any per-level work (encoding/json itself allows 10,000 levels).
const MaxJSONDepth = 8

// ErrJSONTooDeep is the error CheckJSONDepth and a DepthReader return;
// the returned error wraps it with the place.
var ErrJSONTooDeep = fmt.Errorf("nested deeper than %d levels (a PARAMS file or policy is at most 4)", MaxJSONDepth)

// A depthScanner follows the nesting of JSON text fed to it in pieces,
// outside strings, with constant memory: no per-level state is kept.
type depthScanner struct {
	depth    int
	inString bool
	escaped  bool
	line     int // 1-based line of the next byte
	col      int // runes of the line before the next byte
}

// feed scans b and returns an error at the first byte that opens a
// container past MaxJSONDepth, and that byte's offset in b. Text that is
// not JSON is left to the decoder: the scanner only counts brackets
// outside strings. Columns count runes: a byte continuing a UTF-8
// sequence does not count.
func (s *depthScanner) feed(b []byte) (int, error) {
	if s.line == 0 {
		s.line = 1
	}
	for i, c := range b {
		if c&0xc0 != 0x80 {
			s.col++
		}
		switch {
		case s.inString:
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '[' || c == '{':
			s.depth++
			if s.depth > MaxJSONDepth {
				return i, fmt.Errorf("line %d, column %d: %w", s.line, s.col, ErrJSONTooDeep)
			}
		case c == ']' || c == '}':
			if s.depth > 0 {
				s.depth--
			}
		case c == '\n':
			s.line, s.col = s.line+1, 0
		}
	}
	return 0, nil
}

// CheckJSONDepth returns an error naming the line and column (1-based,
// the column in runes) where the JSON text b nests deeper than
// MaxJSONDepth, or nil. It allocates nothing but the error and reads b
// once.
func CheckJSONDepth(b []byte) error {
	_, err := jsonDepth(b)
	return err
}

// jsonDepth is CheckJSONDepth, also returning the offset of the byte
// that opens a container too deep; the error's line and column are those
// of lineCol (an invalid UTF-8 byte being a rune).
func jsonDepth(b []byte) (int, error) {
	var s depthScanner
	off, err := s.feed(b)
	if err != nil {
		line, col := lineCol(b, off)
		err = fmt.Errorf("line %d, column %d: %w", line, col, ErrJSONTooDeep)
	}
	return off, err
}

// A DepthReader passes a JSON stream through, failing the read that
// would deliver a container opened past MaxJSONDepth, so that a decoder
// reading from it never sees such text.
type DepthReader struct {
	R io.Reader
	s depthScanner
}

// Read reads from R and checks what it read.
func (d *DepthReader) Read(p []byte) (int, error) {
	n, err := d.R.Read(p)
	if _, derr := d.s.feed(p[:n]); derr != nil {
		return 0, derr
	}
	return n, err
}
