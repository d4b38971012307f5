// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"reflect"
	"testing"

	"github.com/dcbtop/dcbtop/testbed/schematest"
)

// TestParamsSchemaCoversTypes holds the parameters' JSON forms to the
// snapshot's schema (schematest.CheckTypes).
func TestParamsSchemaCoversTypes(t *testing.T) {
	schematest.CheckTypes(t, map[string]reflect.Type{
		"params":      reflect.TypeFor[Params](),
		"ets":         reflect.TypeFor[etsWire](),
		"ets_reco":    reflect.TypeFor[ETSReco](),
		"pfc":         reflect.TypeFor[pfcWire](),
		"app":         reflect.TypeFor[App](),
		"cee":         reflect.TypeFor[CEE](),
		"cee_feature": reflect.TypeFor[CEEFeature](),
		"resolution":  reflect.TypeFor[Resolution](),
		"choice":      reflect.TypeFor[Choice](),
	})
}
