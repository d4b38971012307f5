// SPDX-License-Identifier: Apache-2.0

// Package snaptest checks and takes apart snapshots of the JSON contract
// in tests (of the runtime and of the command line).
package snaptest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/assets"
	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/diag"
)

// Decode decodes out, which must be exactly one snapshot of the
// JSON contract (no unknown field, the current schema version, valid
// against assets/snapshot.schema.json), and fails t otherwise; name says
// where out came from.
func Decode(t testing.TB, name, out string) engine.Snapshot {
	t.Helper()
	var s engine.Snapshot
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: stdout is not a snapshot: %v\n%s", name, err, out)
	}
	if dec.More() {
		t.Errorf("%s: more than one JSON value on stdout", name)
	}
	if s.Schema != engine.SchemaVersion {
		t.Errorf("%s: schema %q, want %q", name, s.Schema, engine.SchemaVersion)
	}
	if err := assets.ValidateSnapshot([]byte(out)); err != nil {
		t.Errorf("%s: snapshot does not match assets/snapshot.schema.json: %v", name, err)
	}
	CheckSeverities(t, name, s)
	return s
}

// CheckSeverities fails t for each diagnostic of s raised at a severity
// its row of diag.Catalogue does not name.
func CheckSeverities(t testing.TB, name string, s engine.Snapshot) {
	t.Helper()
	check := func(where string, ds []diag.Diagnostic) {
		for _, d := range ds {
			if set := diag.SeveritiesOf(d.Code); !set.Has(d.Severity) {
				t.Errorf("%s: %s: %s at %s, which diag.Catalogue gives as %q", name, where, d.Code, d.Severity, set)
			}
		}
	}
	check("host", s.Diagnostics)
	for _, in := range s.Interfaces {
		check(in.Name, in.Diagnostics)
	}
}

// Iface returns the named interface of a snapshot, failing t without it.
func Iface(t testing.TB, s engine.Snapshot, name string) engine.Interface {
	t.Helper()
	for _, in := range s.Interfaces {
		if in.Name == name {
			return in
		}
	}
	t.Fatalf("snapshot has no interface %s", name)
	return engine.Interface{}
}
