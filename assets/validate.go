package assets

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// ValidateSnapshot checks a snapshot JSON document against
// SnapshotSchema, for tests of any package that produces snapshots.
func ValidateSnapshot(b []byte) error {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SnapshotSchema))
		if err != nil {
			schemaErr = fmt.Errorf("snapshot.schema.json: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(SnapshotSchemaID, doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile(SnapshotSchemaID)
	})
	if schemaErr != nil {
		return schemaErr
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return schema.Validate(v)
}
