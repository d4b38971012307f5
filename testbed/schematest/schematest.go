// SPDX-License-Identifier: Apache-2.0

// Package schematest holds Go types to the snapshot's JSON Schema
// (assets/snapshot.schema.json) in tests: each package that owns types of
// the snapshot checks its own, so that a field no scenario happens to
// emit is still caught.
package schematest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/assets"
)

// objectSchema is the part of a JSON Schema object definition that
// CheckTypes compares with the Go types.
type objectSchema struct {
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	Required             []string                   `json:"required"`
	Properties           map[string]json.RawMessage `json:"properties"`
}

// CheckTypes compares, type by type, the JSON fields of the Go types
// with the schema's properties: types maps a name under $defs ("" for the
// top-level object) to the Go type encoded there. Every field must be in
// the schema, required unless it is omitempty, and every definition must
// refuse additional properties.
func CheckTypes(t *testing.T, types map[string]reflect.Type) {
	t.Helper()
	var schema struct {
		objectSchema
		Defs map[string]objectSchema `json:"$defs"`
	}
	if err := json.Unmarshal(assets.SnapshotSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for def, typ := range types {
		t.Run(typ.Name(), func(t *testing.T) {
			obj := schema.objectSchema
			if def != "" {
				var ok bool
				if obj, ok = schema.Defs[def]; !ok {
					t.Fatalf("no $defs/%s", def)
				}
			}
			if string(obj.AdditionalProperties) != "false" {
				t.Errorf("$defs/%s: additionalProperties must be false", def)
			}
			var fields, required []string
			for f := range typ.Fields() {
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				fields = append(fields, name)
				if !strings.Contains(opts, "omitempty") {
					required = append(required, name)
				}
			}
			var props []string
			for p := range obj.Properties {
				props = append(props, p)
			}
			slices.Sort(fields)
			slices.Sort(props)
			slices.Sort(required)
			slices.Sort(obj.Required)
			if !slices.Equal(fields, props) {
				t.Errorf("$defs/%s properties %v, Go fields %v", def, props, fields)
			}
			if !slices.Equal(required, obj.Required) {
				t.Errorf("$defs/%s required %v, Go fields without omitempty %v", def, obj.Required, required)
			}
		})
	}
}
