// SPDX-License-Identifier: Apache-2.0

package dcb

import (
	"errors"
	"strings"
	"testing"

	"github.com/dcbtop/dcbtop/engine/jsondoc"
	"github.com/google/go-cmp/cmp"
)

// errLines returns the lines of err's message, nil for nil.
func errLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestParamsErrorPlaces: a PARAMS error names the line and column (in
// runes) where the offending value starts, and every problem of the
// document is listed, by place.
func TestParamsErrorPlaces(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		valid bool // ParseValidParams rather than ParseParams
		want  []string
	}{
		{
			name: "a value at column 36 of line 1",
			in:   `{"pfc":{"willing":true, "enabled": "3"}, "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}]}`,
			want: []string{`parameters JSON: line 1, column 36: pfc.enabled: want a list of priorities 0-7, got "3"`},
		},
		{
			name: "truncated: the end of the input",
			in:   "{\n  \"pfc\": {\"cap\": 8,\n   \"enabled\": [3]}\n",
			want: []string{"parameters JSON: line 4, column 1: unexpected end of input (an object is not closed)"},
		},
		{
			name: "truncated in an array",
			in:   "{\"pfc\": {\"cap\": 8, \"enabled\": [3,",
			want: []string{"parameters JSON: line 1, column 34: unexpected end of input (an array is not closed)"},
		},
		{
			name: "truncated in a string",
			in:   "{\"pfc\": {\"ca",
			want: []string{"parameters JSON: line 1, column 13: unexpected end of input (a string is not closed)"},
		},
		{
			name: "empty",
			in:   " \n",
			want: []string{"parameters JSON: line 2, column 1: unexpected end of input (no JSON value)"},
		},
		{
			name: "a stray comma",
			in:   "{\n  \"pfc\": {\"cap\": 8,}\n}",
			want: []string{"parameters JSON: line 2, column 19: a comma before '}' (nothing follows it)"},
		},
		{
			name: "trailing data",
			in:   "{\"pfc\": {\"cap\": 8}}\n{}",
			want: []string{"parameters JSON: line 2, column 1: trailing data after the object"},
		},
		{
			name: "a bandwidth sum of 110 beside a priority of 9",
			in: `{
  "ets": {"willing": false, "max_tcs": 8,
          "prio_tc": [0,0,0,1,0,0,0,0],
          "tc_bandwidth": [40,70,0,0,0,0,0,0],
          "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "pfc": {"cap": 8, "enabled": [3, 9]}
}
`,
			want: []string{
				"parameters JSON: line 4, column 31: ets.tc_bandwidth[1]: 70% takes the sum past 100%: the TC bandwidths sum to 110%",
				"line 6, column 36: pfc.enabled[1]: priority 9 is not 0-7",
			},
		},
		{
			name: "a wrong type, an unknown field in an entry and at the top",
			in: `{
  "pfc": {"cap": 8,
          "enabled": "3"},
  "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3},
          {"selector": "dscp", "protocol": 26, "prio": 3}],
  "ecn": true
}`,
			want: []string{
				`parameters JSON: line 3, column 22: pfc.enabled: want a list of priorities 0-7, got "3"`,
				"line 5, column 48: app[1]: unknown field \"prio\" (want selector, protocol or priority)",
				"line 6, column 3: unknown field \"ecn\" (want ets, ets_reco, pfc or app)",
			},
		},
		{
			name: "columns count runes",
			in:   `{"ets_reco": "überall", "pfc": {"cap": "x"}}`,
			want: []string{
				`parameters JSON: line 1, column 14: ets_reco: want an object, got "überall"`,
				`line 1, column 40: pfc.cap: want a number 0-8, got "x"`,
			},
		},
		{
			name: "a key given twice, beside a type error",
			in:   "{\"pfc\": {\"cap\": 8},\n \"pfc\": {\"cap\": 300}}",
			want: []string{
				"parameters JSON: line 2, column 2: pfc: key given twice (first at line 1, column 2)",
				"line 2, column 17: pfc.cap: want a number 0-8, got 300",
			},
		},
		{
			name: "what cannot be set, a missing table",
			in: `{
  "ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [100,0,0,0,0,0,0,0],
          "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"],
          "strict_prio": [3]},
  "ets_reco": {"willing": true, "max_tcs": 8, "prio_tc": [0,0,0,0,0,0,0,0]},
  "cee": {"oper_version": 0}
}`,
			want: []string{
				`parameters JSON: line 4, column 26: ets.strict_prio: lists a CEE peer's strict-priority group and cannot be set; give strict priority with tsa "strict"`,
				"line 5, column 15: ets_reco.tc_bandwidth: missing (want 8 values)",
				"line 5, column 15: ets_reco.tsa: missing (want 8 values)",
				"line 5, column 27: ets_reco.willing: ets_reco has no willing (the recommendation TLV carries none)",
				"line 5, column 44: ets_reco.max_tcs: ets_reco has no max_tcs (the recommendation TLV carries none)",
				"line 6, column 10: cee: cannot be set: CEE parameters are only received from a CEE peer",
			},
		},
		{
			name: "arrays of the wrong length and bad elements",
			in: `{"ets": {"prio_tc": [0,0,0,"1",0,0,0,0,0],
         "tc_bandwidth": [100,0,0,0,0,0,0,-1],
         "tsa": ["fair",2,"ets","ets","ets","ets","ets","ets"]}}`,
			want: []string{
				"parameters JSON: line 1, column 21: ets.prio_tc: want 8 values, got 9",
				`line 1, column 28: ets.prio_tc[3]: want a traffic class 0-7, got "1"`,
				"line 2, column 43: ets.tc_bandwidth[7]: want a percentage 0-100, got -1",
				`line 3, column 18: ets.tsa[0]: unknown TSA "fair" (want strict, cbs, ets, vendor or unknown-N)`,
				"line 3, column 25: ets.tsa[1]: want a TSA name (strict, cbs, ets, vendor or unknown-N), got 2",
			},
		},
		{
			name: "not an object",
			in:   "[1, 2]",
			want: []string{"parameters JSON: line 1, column 1: want a PARAMS object, got an array"},
		},
		{
			name: "a document too deep: the one error",
			in:   `{"ets": [[[[[[[[1]]]]]]]], "pfc": 1}`,
			want: []string{"parameters JSON: line 1, column 16: nested deeper than 8 levels (a PARAMS file or policy is at most 4)"},
		},
		{
			name:  "the rules of Validate, each at its value",
			valid: true,
			in: `{
  "ets": {"willing": true, "max_tcs": 3,
          "prio_tc": [0,0,0,1,0,0,7,0],
          "tc_bandwidth": [50,40,0,0,0,0,0,0],
          "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"]},
  "pfc": {"cap": 1, "enabled": [3, 4]},
  "app": [{"selector": "dscp", "protocol": 64, "priority": 3},
          {"selector": "udp-port", "protocol": 4791, "priority": 3},
          {"selector": "udp-port", "protocol": 4791, "priority": 3}]
}`,
			want: []string{
				"parameters JSON: line 3, column 35: ets.prio_tc[6]: priority 6 maps to TC7, but Max TCs is 3 (TC0-TC2)",
				"line 4, column 27: ets.tc_bandwidth: TC bandwidths sum to 90%, want 100%",
				"line 6, column 32: pfc.enabled: 2 priorities have PFC enabled but the capability is 1",
				"line 7, column 44: app[0].protocol: entry 1: DSCP 64 is over 63",
				"line 9, column 11: app[2]: entry 3 repeats udp-port 4791 priority 3",
			},
		},
		{
			name:  "valid: no error",
			valid: true,
			in:    `{"pfc": {"cap": 8, "enabled": [3]}, "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}]}`,
		},
		{
			name: "ParseParams leaves the rules to the caller when nothing else is wrong",
			in:   `{"ets": {"prio_tc": [0,0,0,0,0,0,0,0], "tc_bandwidth": [50,40,0,0,0,0,0,0], "tsa": ["ets","ets","ets","ets","ets","ets","ets","ets"]}}`,
		},
		{
			name:  "ranges past 100 and 7",
			valid: true,
			in:    "{\"ets\": {\"max_tcs\": 9, \"prio_tc\": [0,0,0,0,0,0,0,0],\n  \"tc_bandwidth\": [100,101,0,0,0,0,0,0], \"tsa\": [\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"unknown-9\"]},\n \"app\": [{\"selector\": \"reserved-7\", \"protocol\": 1, \"priority\": 8}]}",
			want: []string{
				"parameters JSON: line 1, column 21: ets.max_tcs: max_tcs 9 is not 1-8",
				"line 2, column 24: ets.tc_bandwidth[1]: TC1 bandwidth 101% is over 100%",
				"line 2, column 24: ets.tc_bandwidth[1]: 101% takes the sum past 100%: the TC bandwidths sum to 201%",
				"line 2, column 92: ets.tsa[7]: TC7 uses reserved TSA 9",
				"line 3, column 23: app[0].selector: entry 1 uses reserved selector 7",
				"line 3, column 64: app[0].priority: APP priority 8 is not 0-7",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse := ParseParams
			if tt.valid {
				parse = ParseValidParams
			}
			_, err := parse(strings.NewReader(tt.in))
			if diff := cmp.Diff(tt.want, errLines(err)); diff != "" {
				t.Errorf("error lines (-want +got):\n%s", diff)
			}
			if err == nil {
				return
			}
			je, ok := errors.AsType[*jsondoc.Error](err)
			if !ok {
				t.Fatalf("%T is not a *jsondoc.Error", err)
			}
			if je.Doc != "parameters JSON" || len(je.Errors) != len(tt.want) || je.More != 0 {
				t.Errorf("JSONError %+v", je)
			}
		})
	}
}

// TestJSONErrorFields: the error's fields say what its text says; past 20
// problems it says how many more.
func TestJSONErrorFields(t *testing.T) {
	_, err := ParseParams(strings.NewReader("{\n \"pfc\": {\"cap\": -1}}"))
	je, ok := errors.AsType[*jsondoc.Error](err)
	if !ok {
		t.Fatalf("%v (%T)", err, err)
	}
	want := &jsondoc.Error{Doc: "parameters JSON", Errors: []jsondoc.FieldError{{Line: 2, Column: 17, Path: "pfc.cap", Msg: "want a number 0-8, got -1"}}}
	if diff := cmp.Diff(want, je, cmp.AllowUnexported(jsondoc.Error{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	var sb strings.Builder
	sb.WriteString(`{"app": [`)
	for i := range 30 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		sb.WriteString(`{"selector": "udp-port", "protocol": 1, "priority": 3, "x": 1}`)
	}
	sb.WriteString("]}")
	_, err = ParseParams(strings.NewReader(sb.String()))
	lines := errLines(err)
	if len(lines) != 21 || lines[20] != "and 10 more" ||
		lines[0] != `parameters JSON: line 1, column 65: app[0]: unknown field "x" (want selector, protocol or priority)` ||
		lines[19] != `line 20, column 56: app[19]: unknown field "x" (want selector, protocol or priority)` {
		t.Errorf("30 problems:\n%s", err)
	}
	if je, ok := errors.AsType[*jsondoc.Error](err); !ok || len(je.Errors) != 20 || je.More != 10 {
		t.Errorf("30 problems: %+v", je)
	}
}
