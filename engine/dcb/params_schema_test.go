// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/dcbtop/dcbtop/testbed/schematest"
)

// etsWire and pfcWire are the JSON forms of ETS and PFC that MarshalJSON
// writes (appendJSON): TestWireForms holds the two together.
type (
	etsWire struct {
		Willing     bool        `json:"willing"`
		CBS         *bool       `json:"cbs"`
		MaxTCs      uint8       `json:"max_tcs"`
		PrioTC      [8]uint8    `json:"prio_tc"`
		TCBandwidth [8]uint8    `json:"tc_bandwidth"`
		TSA         [8]lldp.TSA `json:"tsa"`
		StrictPrio  *PrioSet    `json:"strict_prio"`
	}
	pfcWire struct {
		Willing bool    `json:"willing"`
		MBC     *bool   `json:"mbc"`
		Cap     uint8   `json:"cap"`
		Enabled PrioSet `json:"enabled"`
	}
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

// TestWireForms: MarshalJSON writes, in order, the members of the JSON
// forms the schema is held to (etsWire, pfcWire; Params, ETSReco, CEE
// and CEEFeature as encoding/json would write them), for IEEE and CEE
// parameters alike.
func TestWireForms(t *testing.T) {
	pgid := [8]uint8{1, 2}
	ieee := Params{ETS: &ETS{MaxTCs: 8}, ETSReco: &ETSReco{}, PFC: &PFC{Cap: 8}, App: []App{{}}}
	cee := Params{ETS: &ETS{FromCEE: true}, PFC: &PFC{FromCEE: true},
		CEE: &CEE{PG: &CEEFeature{}, PFC: &CEEFeature{}, App: &CEEFeature{}, PGID: &pgid}}
	for _, p := range []Params{ieee, cee} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		check := func(path string, typ reflect.Type, raw []byte) {
			t.Helper()
			var want []string
			for f := range typ.Fields() {
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name != "-" && !(strings.Contains(opts, "omitempty") && p.CEE == nil) {
					want = append(want, name)
				}
			}
			if got := keys(t, raw); !slices.Equal(got, want) {
				t.Errorf("%s: members %v, want %v (%s)", path, got, want, raw)
			}
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		check("params", reflect.TypeFor[Params](), b)
		check("ets", reflect.TypeFor[etsWire](), top["ets"])
		check("pfc", reflect.TypeFor[pfcWire](), top["pfc"])
		if p.ETSReco != nil {
			check("ets_reco", reflect.TypeFor[ETSReco](), top["ets_reco"])
			var apps []json.RawMessage
			if err := json.Unmarshal(top["app"], &apps); err != nil {
				t.Fatal(err)
			}
			check("app", reflect.TypeFor[App](), apps[0])
		}
		if p.CEE != nil {
			check("cee", reflect.TypeFor[CEE](), top["cee"])
			var c map[string]json.RawMessage
			if err := json.Unmarshal(top["cee"], &c); err != nil {
				t.Fatal(err)
			}
			check("cee.pg", reflect.TypeFor[CEEFeature](), c["pg"])
		}
	}
}

// keys returns the member names of the JSON object raw, in order.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		t.Fatalf("not an object: %s (%v)", raw, err)
	}
	var out []string
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.String())
		if err := dec.SkipValue(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
