// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/diag"

	"github.com/google/go-cmp/cmp"

	"github.com/dcbtop/dcbtop/engine/lldp"
)

func TestParseParams(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Params
		err  string
	}{
		{name: "full", in: `{"ets":{"willing":true,"cbs":false,"max_tcs":8,"prio_tc":[0,0,0,1,0,0,0,0],"tc_bandwidth":[50,50,0,0,0,0,0,0],"tsa":["ets","ets","strict","strict","strict","strict","strict","strict"]},
			"pfc":{"willing":true,"mbc":false,"cap":8,"enabled":[3]},"app":[{"selector":"udp-port","protocol":4791,"priority":3}]}`,
			want: &Params{
				ETS: &ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2}},
				PFC: &PFC{Willing: true, Cap: 8, Enabled: 1 << 3},
				App: []App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}},
			}},
		{name: "partial: PFC only", in: `{"pfc":{"cap":8,"enabled":[3,4]}}`, want: &Params{PFC: &PFC{Cap: 8, Enabled: 1<<3 | 1<<4}}},
		{name: "max_tcs defaults to 8", in: `{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}`,
			want: &Params{ETS: &ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2, 2, 2, 2, 2, 2, 2, 2}}}},
		{name: "short array", in: `{"ets":{"prio_tc":[0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}`, err: "ets.prio_tc: want 8 values, got 2"},
		{name: "long array", in: `{"ets_reco":{"prio_tc":[0,0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}`, err: "ets_reco.prio_tc: want 8 values, got 9"},
		{name: "unknown field", in: `{"pfc":{"cap":8,"enable":[3]}}`, err: `pfc: unknown field "enable"`},
		{name: "bad TSA", in: `{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["fair","ets","ets","ets","ets","ets","ets","ets"]}}`, err: `unknown TSA "fair"`},
		{name: "bad selector", in: `{"app":[{"selector":"sctp","protocol":1,"priority":1}]}`, err: `unknown APP selector "sctp"`},
		{name: "bad priority in PFC", in: `{"pfc":{"cap":8,"enabled":[9]}}`, err: "pfc.enabled[0]: priority 9 is not 0-7"},
		{name: "trailing data", in: `{"pfc":{"cap":8}} {}`, err: "trailing data"},
		{name: "reco willing", in: `{"ets_reco":{"willing":true,"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}`, err: "ets_reco has no willing"},
		{name: "not JSON", in: `ets: 1`, err: "parameters JSON: line 1, column 1: invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseParams(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParamsRoundTripJSON(t *testing.T) {
	p := &Params{
		ETS:     &ETS{Willing: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{50, 50}, TSA: [8]lldp.TSA{2, 2, 0, 0, 0, 0, 0, 255}},
		ETSReco: &ETSReco{PrioTC: [8]uint8{0, 0, 0, 1}, TCBandwidth: [8]uint8{30, 70}, TSA: [8]lldp.TSA{2, 2}},
		PFC:     &PFC{Cap: 8, Enabled: 1<<3 | 1<<7},
		App:     []App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 3}},
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseParams(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParamsValidate(t *testing.T) {
	p := &Params{
		ETS: &ETS{MaxTCs: 8, TCBandwidth: [8]uint8{50, 40}, TSA: [8]lldp.TSA{2, 2}},
		PFC: &PFC{Cap: 1, Enabled: 1<<3 | 1<<4},
		App: []App{{Selector: lldp.AppSelDSCP, Protocol: 70, Priority: 3}},
	}
	err := p.Errors()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"sum to 90%", "capability is 1", "DSCP 70"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := (&Params{PFC: &PFC{Cap: 8, Enabled: 1 << 3}}).Errors(); err != nil {
		t.Errorf("valid params: %v", err)
	}
	// What the wire cannot carry but a PARAMS file can say.
	ranges := &Params{
		ETS: &ETS{MaxTCs: 9, TCBandwidth: [8]uint8{100}, TSA: [8]lldp.TSA{2}},
		App: []App{{Selector: lldp.AppSelDSCP, Protocol: 26, Priority: 8}},
	}
	var codes []diag.Code
	for _, d := range ranges.Validate() {
		codes = append(codes, d.Code)
	}
	for _, want := range []diag.Code{diag.CodeETSMaxTCsRange, diag.CodeAppPriorityRange} {
		if !slices.Contains(codes, want) {
			t.Errorf("Validate of max_tcs 9 and APP priority 8 gave codes %v, want %s among them", codes, want)
		}
	}
}

// The APP table is bounded by what one APP TLV carries: 168 entries fit,
// 169 are refused in words naming the limit.
func TestParamsAppLimit(t *testing.T) {
	if lldp.MaxAppEntries != 168 {
		t.Fatalf("MaxAppEntries = %d, want 168 ((511-5)/3)", lldp.MaxAppEntries)
	}
	app := func(n int) *Params {
		p := &Params{App: make([]App, n)}
		for i := range p.App {
			p.App[i] = App{Selector: lldp.AppSelUDP, Protocol: uint16(1000 + i), Priority: 3}
		}
		return p
	}
	if err := app(168).Errors(); err != nil {
		t.Errorf("168 entries: %v", err)
	}
	err := app(169).Errors()
	if err == nil || err.Error() != "app: 169 APP entries do not fit in one APP TLV (at most 168: its value is limited to 511 bytes)" {
		t.Errorf("169 entries: %v", err)
	}
	if _, merr := (&lldp.AppPriority{Entries: make([]lldp.AppEntry, 168)}).MarshalBinary(); merr != nil {
		t.Errorf("a 168-entry APP TLV does not marshal: %v", merr)
	}
}

func TestParamsMergeAndWilling(t *testing.T) {
	base := &Params{ETS: &ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}}, PFC: &PFC{Cap: 8}, App: []App{}}
	change := &Params{PFC: &PFC{Willing: true, Cap: 8, Enabled: 1 << 3}}
	got := base.Merge(change).WithWilling(false)
	want := &Params{ETS: &ETS{MaxTCs: 8, TCBandwidth: [8]uint8{100}}, PFC: &PFC{Cap: 8, Enabled: 1 << 3}, App: []App{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if base.PFC.Enabled != 0 || change.PFC.Willing != true {
		t.Error("Merge or WithWilling changed its inputs")
	}
	if (*Params)(nil).WithWilling(true) != nil {
		t.Error("nil.WithWilling is not nil")
	}
	if m := (*Params)(nil).Merge(nil); m == nil || m.Groups() != 0 {
		t.Errorf("nil.Merge(nil) = %+v", m)
	}
}

func TestParamsString(t *testing.T) {
	tests := []struct {
		p    *Params
		want string
	}{
		{nil, "nothing"},
		{&Params{ETS: &ETS{Willing: true, TCBandwidth: [8]uint8{50, 50}, PrioTC: [8]uint8{0, 0, 0, 1}}, PFC: &PFC{Willing: true, Enabled: 1<<3 | 1<<4},
			App: []App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}}},
			"willing, ETS 50/50/0/0/0/0/0/0 (prio→TC 00010000), PFC 3,4, APP udp-port 4791→3"},
		{&Params{PFC: &PFC{}, App: []App{}}, "not willing, PFC off, APP none"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestParamsDiff(t *testing.T) {
	pfc := &PFC{Cap: 8, Enabled: 1 << 3}
	cee := func(pg, pfc, app CEEFeature) *CEE {
		return &CEE{Control: true, Seq: 1, PG: &pg, PFC: &pfc, App: &app}
	}
	on := CEEFeature{Enable: true}
	willing := CEEFeature{Enable: true, Willing: true}
	tests := []struct {
		name string
		p, q *Params
		want Group
	}{
		{"both nil", nil, nil, 0},
		{"nil and empty", nil, &Params{}, 0},
		{"ETS appears", nil, &Params{ETS: localETS}, GroupETS},
		{"recommendation only", &Params{ETS: localETS}, &Params{ETS: localETS, ETSReco: remoteRec}, GroupETS},
		{"PFC value", &Params{PFC: pfc}, &Params{PFC: &PFC{Cap: 8}}, GroupPFC},
		{"empty APP table appears", &Params{}, &Params{App: []App{}}, GroupApp},
		{"equal copies", localSet(), localSet(), 0},
		{"CEE PG flags", &Params{PFC: pfc, CEE: cee(on, on, on)}, &Params{PFC: pfc, CEE: cee(willing, on, on)}, GroupETS},
		{"CEE PFC flags", &Params{PFC: pfc, CEE: cee(on, on, on)}, &Params{PFC: pfc, CEE: cee(on, willing, on)}, GroupPFC},
		{"CEE APP flags", &Params{PFC: pfc, CEE: cee(on, on, on)}, &Params{PFC: pfc, CEE: cee(on, on, willing)}, GroupApp},
		{"CEE feature appears", &Params{PFC: pfc}, &Params{PFC: pfc, CEE: &CEE{PFC: &on}}, GroupPFC},
		{"CEE sequence number only", &Params{CEE: cee(on, on, on)}, &Params{CEE: &CEE{Control: true, Seq: 2, PG: &on, PFC: &on, App: &on}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Diff(tt.q); got != tt.want {
				t.Errorf("p.Diff(q) = %03b, want %03b", got, tt.want)
			}
			if got := tt.q.Diff(tt.p); got != tt.want {
				t.Errorf("q.Diff(p) = %03b, want %03b", got, tt.want)
			}
		})
	}
}

// TestParamsUnmarshalSnapshot: UnmarshalJSON is ParseParams' decoder in
// the snapshot's form: a CEE peer's parameters (a strict_prio list, a
// null mbc, the cee object) round-trip, rules a received set breaks are
// kept as received, and what no snapshot holds is refused at its place.
// ParseParams still refuses the CEE markers an operator cannot set.
func TestParamsUnmarshalSnapshot(t *testing.T) {
	pgid := [8]uint8{0, 0, 0, 1, 15, 0, 0, 0}
	for _, p := range []*Params{
		{ETS: &ETS{FromCEE: true, MaxTCs: 8, PrioTC: [8]uint8{0, 0, 0, 1, 15}, TCBandwidth: [8]uint8{50, 50}},
			PFC: &PFC{FromCEE: true, Cap: 8, Enabled: 1 << 3}, App: []App{{Selector: lldp.AppSelUDP, Protocol: 4791, Priority: 3}},
			CEE: &CEE{OperVersion: 0, MaxVersion: 0, Seq: 7, Ack: 3, Control: true, PG: &CEEFeature{Enable: true, Willing: true},
				PFC: &CEEFeature{Enable: true, Error: true}, PGID: &pgid}},
		{ETS: &ETS{Willing: true, CBS: true, MaxTCs: 3, TCBandwidth: [8]uint8{200}}, ETSReco: &ETSReco{TCBandwidth: [8]uint8{100}},
			PFC: &PFC{Cap: 8, MBC: true, Enabled: 1<<3 | 1<<4}, App: []App{}},
		{},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got Params
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("UnmarshalJSON of %s: %v", b, err)
		}
		if diff := cmp.Diff(p, &got); diff != "" {
			t.Errorf("round trip through %s (-want +got):\n%s", b, diff)
		}
	}
	var p Params
	err := json.Unmarshal([]byte(`{"pfc":{"cap":8,"enable":[3]},"cee":{"seq":"x"}}`), &p)
	if err == nil || !strings.Contains(err.Error(), `line 1, column 17: pfc: unknown field "enable"`) || !strings.Contains(err.Error(), "cee.seq: want a sequence number") {
		t.Errorf("a snapshot's params with an unknown field and a bad seq: %v", err)
	}
	for _, doc := range []string{`{"cee":{"seq":1}}`, `{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"],"strict_prio":[3]}}`} {
		if _, err := ParseParams(strings.NewReader(doc)); err == nil {
			t.Errorf("ParseParams took %s, which only a peer sends", doc)
		}
	}
}
