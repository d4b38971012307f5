// SPDX-License-Identifier: Apache-2.0

package assets

import (
	"encoding/json"
	"testing"
)

// TestSnapshotSchemaHeader checks that the embedded schema is JSON with
// the draft and $id it is documented to have.
func TestSnapshotSchemaHeader(t *testing.T) {
	var s struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(SnapshotSchema, &s); err != nil {
		t.Fatalf("snapshot.schema.json: %v", err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.ID != SnapshotSchemaID {
		t.Errorf("$schema %q $id %q, want draft 2020-12 and %q", s.Schema, s.ID, SnapshotSchemaID)
	}
}
