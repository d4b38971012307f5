package engine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/lldp"
)

// These targets use only the exported API: what an operator's file goes
// through. Seeds: the examples of docs/agent.md and docs/check.md and of
// the tests here, and in testdata/fuzz/<target> a document nested 10,000
// levels deep.

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

// readmePolicy is the policy example of docs/check.md.
const readmePolicy = `{"pfc": {"enabled": [3]},
 "app": [{"selector": "udp-port", "protocol": 4791, "priority": 3}],
 "ets": {"min_bandwidth": {"3": 50}},
 "willing": false}`

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
			p   *engine.Params
			err error
		)
		checkAllocated(t, len(b), func() { p, err = engine.ParseParams(bytes.NewReader(b)) })
		_, verr := engine.ParseValidParams(bytes.NewReader(b))
		if verr != nil {
			checkJSONError(t, b, verr, "parameters JSON", engine.ErrParamsTooLarge)
		}
		if err != nil {
			checkJSONError(t, b, err, "parameters JSON", engine.ErrParamsTooLarge)
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
		p2, err := engine.ParseParams(bytes.NewReader(m))
		if err != nil {
			t.Fatalf("re-marshalled parameters do not parse: %v\n%s", err, m)
		}
		if diff := cmp.Diff(p, p2); diff != "" {
			t.Fatalf("round trip through %s (-first +second):\n%s", m, diff)
		}
	})
}

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
			p   *engine.Policy
			err error
		)
		checkAllocated(t, len(b), func() { p, err = engine.ParsePolicy(b) })
		if err != nil {
			checkJSONError(t, b, err, "policy", nil)
			return
		}
		checkPolicy(t, p)
		m, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal of %+v: %v", p, err)
		}
		p2, err := engine.ParsePolicy(m)
		if err != nil {
			t.Fatalf("re-marshalled policy does not parse: %v\n%s", err, m)
		}
		if diff := cmp.Diff(p, p2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip through %s (-first +second):\n%s", m, diff)
		}
	})
}

// checkPolicy checks what ParsePolicy promises of a policy it accepts.
func checkPolicy(t *testing.T, p *engine.Policy) {
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

// checkAllocated runs parse, which reads an n-byte document, and checks
// that it allocates under 64 bytes per byte plus 1 MiB
// (runtime/metrics: runtime.ReadMemStats stops the world, 60 µs a call).
func checkAllocated(t *testing.T, n int, parse func()) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	parse()
	metrics.Read(s)
	if got, limit := s[0].Value.Uint64()-before, 64*uint64(n)+1<<20; got > limit {
		t.Fatalf("allocated %d bytes for a %d-byte document (limit %d)", got, n, limit)
	}
}

// checkJSONError checks that err is sentinel or a *engine.JSONError of
// document doc about the input b: 1 to 20 problems, sorted by place, each
// within b (a line at most one past its last newline, a column at most
// one past its line's runes), with a path and message free of control
// characters, and an Error listing them one a line.
func checkJSONError(t *testing.T, b []byte, err error, doc string, sentinel error) {
	t.Helper()
	if sentinel != nil && errors.Is(err, sentinel) {
		return
	}
	je, ok := errors.AsType[*engine.JSONError](err)
	if !ok {
		t.Fatalf("error %q (%T) is not a *JSONError", err, err)
	}
	if je.Doc != doc || len(je.Errors) == 0 || len(je.Errors) > 20 || je.More < 0 || je.More > 0 && len(je.Errors) != 20 {
		t.Fatalf("JSONError %+v", je)
	}
	lines := bytes.Split(b, []byte("\n"))
	var text []string
	for i, f := range je.Errors {
		if f.Line < 1 || f.Line > len(lines) || f.Column < 1 || f.Column > utf8.RuneCount(lines[f.Line-1])+1 {
			t.Fatalf("problem %d at line %d, column %d: outside the input (%d lines)\n%s", i, f.Line, f.Column, len(lines), err)
		}
		if i > 0 && (f.Line < je.Errors[i-1].Line || f.Line == je.Errors[i-1].Line && f.Column < je.Errors[i-1].Column) {
			t.Fatalf("problems out of order:\n%s", err)
		}
		if f.Msg == "" || engine.Sanitize(f.Path+f.Msg) != f.Path+f.Msg || strings.ContainsAny(f.Path+f.Msg, "\n\r\t") {
			t.Fatalf("problem %d: path %q, message %q", i, f.Path, f.Msg)
		}
		text = append(text, f.Error())
	}
	if je.More > 0 {
		text = append(text, fmt.Sprintf("and %d more", je.More))
	}
	if want := doc + ": " + strings.Join(text, "\n"); err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}
