// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

// fullParams has every field of Params set, to a valid value.
func fullParams() *Params {
	return &Params{
		ETS:     &ETS{Willing: true, CBS: false, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
		ETSReco: &ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{40, 60}, TSA: [8]lldp.TSA{2, 2}},
		PFC:     &PFC{Willing: true, MBC: false, Cap: 8, Enabled: 1 << 3},
		App:     []App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}, {Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}},
		CEE: &CEE{OperVersion: 0, MaxVersion: 0, Seq: 1, Ack: 1, Control: true,
			PG:   &CEEFeature{Enable: true, Willing: true, OperVersion: 0, MaxVersion: 0},
			PFC:  &CEEFeature{Enable: true},
			App:  &CEEFeature{Enable: true},
			PGID: &[8]uint8{0, 0, 0, 1, 0, 0, 0, 0}},
	}
}

// A leaf is one field of Params: its path (for messages) and its index
// path through structs (pointers followed).
type leaf struct {
	name  string
	index []int
}

// leaves lists every leaf field of t (a struct): basic values, arrays and
// slices; pointers to structs are followed.
func leaves(t reflect.Type, prefix string, index []int) []leaf {
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		name, idx := prefix+f.Name, append(append([]int{}, index...), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			out = append(out, leaves(ft.Elem(), name+".", idx)...)
			continue
		}
		out = append(out, leaf{name, idx})
	}
	return out
}

// field returns the value of l in p (pointers followed; p must be full).
func (l leaf) field(p *Params) reflect.Value {
	v := reflect.ValueOf(p).Elem()
	for _, i := range l.index {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		v = v.Field(i)
	}
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return v
}

// mutate changes the value of l in p to another valid-looking one.
func mutate(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		v.SetUint(v.Uint() ^ 1)
	case reflect.Array, reflect.Slice:
		mutate(t, v.Index(0))
	case reflect.Struct: // an App entry
		mutate(t, v.Field(1))
	default:
		t.Fatalf("no mutation for %s", v.Kind())
	}
}

// TestParamsFieldsCovered fails when a field of Params (or of what it
// points to) is left out of Diff, Changes or Clone, or when Merge or
// Validate misses a feature: a new field must be handled everywhere.
func TestParamsFieldsCovered(t *testing.T) {
	// The CEE control numbers and PGID table are not parameters NDIS
	// counts (sequence numbers change with every handshake; PGID is
	// mapped into ETS): Diff and Changes ignore them on purpose.
	ignored := map[string]bool{"CEE.OperVersion": true, "CEE.MaxVersion": true, "CEE.Seq": true, "CEE.Ack": true, "CEE.Control": true, "CEE.PGID": true}
	ls := leaves(reflect.TypeOf(Params{}), "", nil)
	if len(ls) < 30 {
		t.Fatalf("only %d leaves found", len(ls))
	}
	for _, l := range ls {
		t.Run(l.name, func(t *testing.T) {
			base, changed := fullParams(), fullParams()
			mutate(t, l.field(changed))
			if reflect.DeepEqual(base, changed) {
				t.Fatal("mutation changed nothing")
			}
			d := base.Diff(changed)
			if ignored[l.name] {
				if d != 0 || len(base.Changes(changed)) != 0 {
					t.Errorf("an ignored field changed Diff (%v) or Changes (%v)", d, base.Changes(changed))
				}
			} else if d == 0 {
				t.Errorf("Diff misses %s", l.name)
			}
			var g Group
			for _, c := range base.Changes(changed) {
				g |= c.Group()
			}
			if g != d {
				t.Errorf("Changes groups %v, Diff %v", g, d)
			}
			// Clone copies deeply: changing the clone leaves the original.
			orig := fullParams()
			c := orig.Clone()
			if !reflect.DeepEqual(orig, c) {
				t.Fatalf("Clone differs from the original")
			}
			mutate(t, l.field(c))
			if !reflect.DeepEqual(orig, fullParams()) {
				t.Errorf("Clone shares %s with the original", l.name)
			}
		})
	}
	// Merge carries every feature a PARAMS file can give (CEE is only
	// received, never applied).
	full := fullParams()
	for _, f := range []string{"ETS", "ETSReco", "PFC", "App"} {
		change := &Params{}
		reflect.ValueOf(change).Elem().FieldByName(f).Set(reflect.ValueOf(full).Elem().FieldByName(f))
		got := (&Params{}).Merge(change)
		if !reflect.DeepEqual(reflect.ValueOf(got).Elem().FieldByName(f).Interface(), reflect.ValueOf(full).Elem().FieldByName(f).Interface()) {
			t.Errorf("Merge drops %s", f)
		}
	}
	if n := reflect.TypeOf(Params{}).NumField(); n != 5 {
		t.Errorf("Params has %d fields: update Merge, Validate and this test for the new one", n)
	}
	// Validate looks at every feature a PARAMS file can give.
	for f, bad := range map[string]*Params{
		"ets":      {ETS: &ETS{MaxTCs: 8, TCBandwidth: [8]uint8{50, 40}, TSA: [8]lldp.TSA{2, 2}}},
		"ets_reco": {ETSReco: &ETSReco{TCBandwidth: [8]uint8{50, 40}, TSA: [8]lldp.TSA{2, 2}}},
		"pfc":      {PFC: &PFC{Cap: 1, Enabled: 1<<3 | 1<<4}},
		"app":      {App: []App{{Selector: lldp.AppSelDSCP, Protocol: 64, Priority: 3}}},
	} {
		if err := bad.Errors(); err == nil || !strings.HasPrefix(err.Error(), f+": ") {
			t.Errorf("Validate of a bad %s: %v", f, err)
		}
	}
}
