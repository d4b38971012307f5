// SPDX-License-Identifier: Apache-2.0

package hostfs

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// An OpKind is one of the FS operations.
type OpKind uint8

// The operations, as a recording numbers them (docs/recording.md).
const (
	OpStat     OpKind = 1
	OpReadDir  OpKind = 2
	OpReadlink OpKind = 3
	OpReadFile OpKind = 4
)

// String names the operation as os does in its errors.
func (k OpKind) String() string {
	switch k {
	case OpStat:
		return "stat"
	case OpReadDir:
		return "readdir"
	case OpReadlink:
		return "readlink"
	case OpReadFile:
		return "read"
	}
	return fmt.Sprintf("op%d", uint8(k))
}

// An Op is one operation of an FS and its result: what a recording keeps
// of a read.
type Op struct {
	Kind OpKind
	Name string
	// Info is Stat's answer, Names ReadDir's, Data ReadFile's (the bytes
	// read) and Readlink's (the target).
	Info  Info
	Names []string
	Data  []byte
	// Err is the operation's error, nil for none.
	Err error
}

// Recording returns an FS that reads fsys and hands each operation and
// its result to rec, in the order they are made, before returning it.
func Recording(fsys FS, rec func(Op)) FS { return recFS{fsys: fsys, rec: rec} }

type recFS struct {
	fsys FS
	rec  func(Op)
}

func (r recFS) Stat(name string) (Info, error) {
	i, err := r.fsys.Stat(name)
	r.rec(Op{Kind: OpStat, Name: name, Info: i, Err: err})
	return i, err
}

func (r recFS) ReadDir(name string) ([]string, error) {
	n, err := r.fsys.ReadDir(name)
	r.rec(Op{Kind: OpReadDir, Name: name, Names: slices.Clone(n), Err: err})
	return n, err
}

func (r recFS) Readlink(name string) (string, error) {
	t, err := r.fsys.Readlink(name)
	r.rec(Op{Kind: OpReadlink, Name: name, Data: []byte(t), Err: err})
	return t, err
}

func (r recFS) ReadFile(name string, limit int64) ([]byte, error) {
	b, err := r.fsys.ReadFile(name, limit)
	r.rec(Op{Kind: OpReadFile, Name: name, Data: slices.Clone(b), Err: err})
	return b, err
}

// ErrNotRecorded is a Replay's answer for an operation the recording does
// not hold: the replayed run asked for something the live one never read.
var ErrNotRecorded = errors.New("not in the recording")

// A Replay is an FS that answers from recorded operations: for each
// operation and name, the latest one added. It may be used from several
// goroutines.
type Replay struct {
	mu  sync.Mutex
	ops map[opKey]Op
}

type opKey struct {
	kind OpKind
	name string
}

// NewReplay returns a Replay holding no operation.
func NewReplay() *Replay { return &Replay{ops: map[opKey]Op{}} }

// Add makes op the answer to its operation on its name.
func (r *Replay) Add(op Op) {
	r.mu.Lock()
	r.ops[opKey{op.Kind, op.Name}] = op
	r.mu.Unlock()
}

// Reset forgets every operation.
func (r *Replay) Reset() {
	r.mu.Lock()
	clear(r.ops)
	r.mu.Unlock()
}

func (r *Replay) get(kind OpKind, name string) (Op, error) {
	r.mu.Lock()
	op, ok := r.ops[opKey{kind, name}]
	r.mu.Unlock()
	if !ok {
		return Op{}, fmt.Errorf("%s %s: %w", kind, name, ErrNotRecorded)
	}
	return op, op.Err
}

// Stat answers as recorded.
func (r *Replay) Stat(name string) (Info, error) {
	op, err := r.get(OpStat, name)
	return op.Info, err
}

// ReadDir answers as recorded.
func (r *Replay) ReadDir(name string) ([]string, error) {
	op, err := r.get(OpReadDir, name)
	return slices.Clone(op.Names), err
}

// Readlink answers as recorded.
func (r *Replay) Readlink(name string) (string, error) {
	op, err := r.get(OpReadlink, name)
	return string(op.Data), err
}

// ReadFile answers as recorded, cut to limit+1 bytes.
func (r *Replay) ReadFile(name string, limit int64) ([]byte, error) {
	op, err := r.get(OpReadFile, name)
	b := op.Data
	if limit >= 0 && int64(len(b)) > limit+1 {
		b = b[:limit+1]
	}
	return slices.Clone(b), err
}

var _ FS = (*Replay)(nil)
