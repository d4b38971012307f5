// SPDX-License-Identifier: Apache-2.0

package check_test

import (
	"encoding/json"
	"testing"

	"github.com/dcbtop/dcbtop/engine/check"
	"github.com/dcbtop/dcbtop/engine/jsondoc/jsondoctest"
	"github.com/dcbtop/dcbtop/engine/lldp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// These targets use only the exported API: what an operator's file goes
// through. Seeds: the example of docs/check.md and those of the tests here,
// and in testdata/fuzz/<target> a document nested 10,000 levels deep.

// readmePolicy is the policy example of docs/check.md.
const readmePolicy = `{"pfc": {"enabled": [3]},
 "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}],
 "ets": {"min_bandwidth": {"3": 50}},
 "willing": false}`

// FuzzParsePolicy fuzzes ParsePolicy on any document. Invariants: no
// panic; allocation under 64 bytes per input byte plus 1 MiB; an error is
// a *JSONError of "policy" (checkJSONError); an accepted policy keeps the promises of
// ParsePolicy (priorities 0-7, known APP selectors, min_bandwidth keys
// "0" to "7" and shares of at most 100), and marshalled with json.Marshal
// it parses again to the same policy (an empty list or map being no list
// or map: json.Marshal omits an empty app, and the checks treat both
// alike).
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		readmePolicy,
		`{"pfc":{"enabled":[]},"app":[],"ets":{"min_bandwidth":{}},"willing":true}`,
		`{"pfc":null,"app":null,"ets":null,"willing":null}`,
		`{"pfc":{"enabled":[8]}}`,
		`{"pfc":{"enabled":[-1]}}`,
		`{"pfc":{"enabled":"Aw=="}}`,
		`{"pfc":{"enable":[3]}}`,
		`{"ets":{"min_bandwidth":{"x":5}}}`,
		`{"ets":{"min_bandwidth":{"03":5,"3":6}}}`,
		`{"ets":{"min_bandwidth":{"3":101}}}`,
		`{"app":[{"selector":"udp-port","protocol":4791,"priority":9}]}`,
		`{"app":[{"selector":"bogus","protocol":1,"priority":1}]}`,
		`{"app":[{"selector":0,"protocol":1,"priority":1}]}`,
		`{} {}`,
		`{"pfc":{"enabled":[3]},"pfc":{"enabled":[4]}}`,
		`[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var (
			p   *check.Policy
			err error
		)
		jsondoctest.CheckAllocated(t, jsondoctest.PerByte(len(b)), func() { p, err = check.ParsePolicy(b) })
		if err != nil {
			jsondoctest.CheckError(t, b, err, "policy", nil)
			return
		}
		checkPolicy(t, p)
		m, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal of %+v: %v", p, err)
		}
		p2, err := check.ParsePolicy(m)
		if err != nil {
			t.Fatalf("re-marshalled policy does not parse: %v\n%s", err, m)
		}
		if diff := cmp.Diff(p, p2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip through %s (-first +second):\n%s", m, diff)
		}
	})
}

// checkPolicy checks what ParsePolicy promises of a policy it accepts.
func checkPolicy(t *testing.T, p *check.Policy) {
	t.Helper()
	if p.PFC != nil {
		for _, prio := range p.PFC.Enabled {
			if prio < 0 || prio > 7 {
				t.Fatalf("accepted pfc.enabled priority %d", prio)
			}
		}
	}
	for _, a := range p.App {
		if a.Priority > 7 || a.Selector < lldp.AppSelEthertype || a.Selector > lldp.AppSelDSCP {
			t.Fatalf("accepted APP entry %+v", a)
		}
	}
	if p.ETS != nil {
		for k, v := range p.ETS.MinBandwidth {
			if len(k) != 1 || k[0] < '0' || k[0] > '7' || v > 100 {
				t.Fatalf("accepted min_bandwidth %q: %d", k, v)
			}
		}
	}
}
