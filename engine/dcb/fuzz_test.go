// SPDX-License-Identifier: Apache-2.0

package dcb_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dcbtop/dcbtop/engine/dcb"
	"github.com/dcbtop/dcbtop/engine/jsondoc/jsondoctest"
	"github.com/google/go-cmp/cmp"
)

// These targets use only the exported API: what an operator's file goes
// through. Seeds: the example of docs/agent.md and those of the tests here,
// and in testdata/fuzz/<target> a document nested 10,000 levels deep.

// readmeParams is the PARAMS example of docs/agent.md ("The host DCBX
// agent").
const readmeParams = `{
  "ets": { "willing": false, "cbs": false, "max_tcs": 8,
           "prio_tc": [0,0,0,1,0,0,0,0], "tc_bandwidth": [50,50,0,0,0,0,0,0],
           "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"] },
  "ets_reco": { "prio_tc": [0,0,0,1,0,0,0,0], "tc_bandwidth": [50,50,0,0,0,0,0,0],
                "tsa": ["ets","ets","strict","strict","strict","strict","strict","strict"] },
  "pfc": { "willing": false, "mbc": false, "cap": 8, "enabled": [3] },
  "app": [ { "selector": "udp-port", "protocol": 4791, "priority": 3 },
           { "selector": "dscp", "protocol": 26, "priority": 3 } ]
}`

// FuzzParseParams fuzzes ParseParams and ParseValidParams on any
// document. Invariants: no panic; allocation under 64 bytes per input byte
// plus 1 MiB; an error is ErrParamsTooLarge or a *JSONError (checkJSONError:
// every place within the input, sorted, one problem a line); accepted
// parameters can be validated, ParseValidParams accepts them exactly when
// Validate finds no error, and marshalled with json.Marshal they parse
// again to the same parameters.
func FuzzParseParams(f *testing.F) {
	const tables = `"prio_tc":[0,0,0,1,0,0,0,0],"tc_bandwidth":[50,50,0,0,0,0,0,0],"tsa":["ets","ets","strict","strict","strict","strict","strict","strict"]`
	for _, s := range []string{
		readmeParams,
		`{"pfc":{"cap":8,"enabled":[3,4]}}`,
		`{"ets":{"willing":true,"cbs":true,"max_tcs":3,` + tables + `,"strict_prio":[]},"ets_reco":{` + tables + `,"strict_prio":null}}`,
		`{"ets":{` + tables + `,"strict_prio":[3]}}`,
		`{"ets":{"prio_tc":[0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}`,
		`{"ets_reco":{"willing":true,` + tables + `}}`,
		`{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["fair",2,"ets","ets","ets","ets","ets","vendor"]}}`,
		`{"pfc":{"willing":true,"mbc":null,"cap":8,"enabled":[9]}}`,
		`{"pfc":{"cap":8,"enable":[3]}}`,
		`{"app":[{"selector":"sctp","protocol":1,"priority":1},{"selector":"dscp","protocol":26,"priority":3}],"cee":null}`,
		`{"app":[],"cee":{"oper_version":0}}`,
		`{"pfc":{"cap":8}} {}`,
		`{"pfc":{"cap":8},"pfc":{"cap":4}}`,
		`ets: 1`,
		"\ufeff{}",
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var (
			p   *dcb.Params
			err error
		)
		jsondoctest.CheckAllocated(t, jsondoctest.PerByte(len(b)), func() { p, err = dcb.ParseParams(bytes.NewReader(b)) })
		_, verr := dcb.ParseValidParams(bytes.NewReader(b))
		if verr != nil {
			jsondoctest.CheckError(t, b, verr, "parameters JSON", dcb.ErrParamsTooLarge)
		}
		if err != nil {
			jsondoctest.CheckError(t, b, err, "parameters JSON", dcb.ErrParamsTooLarge)
			if verr == nil {
				t.Fatalf("ParseValidParams accepts what ParseParams refuses: %v", err)
			}
			return
		}
		if (p.Errors() == nil) != (verr == nil) {
			t.Fatalf("ParseValidParams: %v, but Errors: %v", verr, p.Errors())
		}
		m, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal of %+v: %v", p, err)
		}
		p2, err := dcb.ParseParams(bytes.NewReader(m))
		if err != nil {
			t.Fatalf("re-marshalled parameters do not parse: %v\n%s", err, m)
		}
		if diff := cmp.Diff(p, p2); diff != "" {
			t.Fatalf("round trip through %s (-first +second):\n%s", m, diff)
		}
		// The snapshot's form reads back what it wrote, with the same
		// decoder.
		var p3 dcb.Params
		if err := json.Unmarshal(m, &p3); err != nil {
			t.Fatalf("UnmarshalJSON of %s: %v", m, err)
		}
		if diff := cmp.Diff(p, &p3); diff != "" {
			t.Fatalf("UnmarshalJSON of %s (-ParseParams +UnmarshalJSON):\n%s", m, diff)
		}
	})
}
