// SPDX-License-Identifier: Apache-2.0

// Package assets holds what ships inside the dcbtop binary. For now that
// is the JSON Schema of the snapshot contract; the demo capture and the
// man page stay plain files in this directory.
package assets

import _ "embed"

// SnapshotSchema is the JSON Schema (draft 2020-12) of the snapshot that
// `dcbtop --json` prints: snapshot.schema.json in this directory, whose
// $id ends in dcbtop.snapshot/v2 like engine.SchemaVersion. Every object
// in it is closed, so a field added to the Go types without a schema
// change fails validation. Treat the slice as read-only.
//
//go:embed snapshot.schema.json
var SnapshotSchema []byte

// SnapshotSchemaID is the $id of SnapshotSchema, the URL to compile it
// under with a JSON Schema validator.
const SnapshotSchemaID = "urn:dcbtop:schema:dcbtop.snapshot/v2"

// CheckSchema is the JSON Schema (draft 2020-12) of the report `dcbtop
// check --json` prints: check.schema.json in this directory, whose $id ends
// in dcbtop.check/v1 like check.SchemaVersion. Treat the slice as
// read-only.
//
//go:embed check.schema.json
var CheckSchema []byte

// CheckSchemaID is the $id of CheckSchema.
const CheckSchemaID = "urn:dcbtop:schema:dcbtop.check/v1"
