// SPDX-License-Identifier: Apache-2.0

package assets

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A validator compiles a schema once, on first use.
type validator struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
	name   string
	doc    []byte
	id     string
	// refs are the schemas doc refers to, by ID.
	refs map[string][]byte
}

func (v *validator) validate(b []byte) error {
	v.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(v.doc))
		if err != nil {
			v.err = fmt.Errorf("%s: %w", v.name, err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(v.id, doc); err != nil {
			v.err = err
			return
		}
		for id, b := range v.refs {
			ref, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err == nil {
				err = c.AddResource(id, ref)
			}
			if err != nil {
				v.err = fmt.Errorf("%s: %w", id, err)
				return
			}
		}
		v.schema, v.err = c.Compile(v.id)
	})
	if v.err != nil {
		return v.err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return v.schema.Validate(doc)
}

var (
	// A snapshot's checks are check reports' results.
	snapshotValidator = validator{name: "snapshot.schema.json", doc: SnapshotSchema, id: SnapshotSchemaID, refs: map[string][]byte{CheckSchemaID: CheckSchema}}
	checkValidator    = validator{name: "check.schema.json", doc: CheckSchema, id: CheckSchemaID}
)

// ValidateSnapshot checks a snapshot JSON document against
// SnapshotSchema, for tests of any package that produces snapshots.
func ValidateSnapshot(b []byte) error { return snapshotValidator.validate(b) }

// ValidateCheck checks a `dcbtop check --json` report against
// CheckSchema.
func ValidateCheck(b []byte) error { return checkValidator.validate(b) }
