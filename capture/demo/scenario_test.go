// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine"
)

func mustLoad(t *testing.T) *Scenario {
	t.Helper()
	sc, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return sc
}

func TestLoadEmbedded(t *testing.T) {
	sc := mustLoad(t)
	if got := sc.Duration(); got != 120*time.Second {
		t.Errorf("Duration = %v, want 2m0s", got)
	}
	if sc.Host.MAC != DefaultHostMAC || !sc.Host.Willing || sc.Host.Params.PFC == nil || !sc.Host.Params.PFC.Willing {
		t.Errorf("Host = %+v, want the default MAC, willing, with PFC (willing bit set)", sc.Host)
	}
	actions := map[Action]int{}
	for i, st := range sc.Steps {
		actions[st.Action]++
		if st.Comment == "" {
			t.Errorf("step %d has no comment", i+1)
		}
	}
	for _, a := range []Action{ActionStart, ActionSet, ActionSilence, ActionResume, ActionShutdown, ActionNote} {
		if actions[a] == 0 {
			t.Errorf("the scenario never uses %s", a)
		}
	}
	l1, ok := sc.Switch("leaf-1")
	if !ok {
		t.Fatal("no leaf-1")
	}
	if l1.TxInterval != time.Second || l1.Willing || l1.Params.PFC.Enabled != 1<<3 || len(l1.Params.App) != 2 || l1.Params.ETSReco == nil {
		t.Errorf("leaf-1 = %+v", l1)
	}
	// The TTLs are short, so that the demo shows expiry within seconds.
	for _, name := range []string{"leaf-1", "leaf-2"} {
		c, _ := sc.Switch(name)
		if ttl := 4*c.TxInterval + time.Second; ttl < 5*time.Second || ttl > 9*time.Second {
			t.Errorf("%s TTL %v, want 5-9 s", name, ttl)
		}
	}
}

// The scenario covers what the brief asks for, in this order.
func TestScenarioStory(t *testing.T) {
	sc := mustLoad(t)
	var got []string
	for _, st := range sc.Steps {
		for _, e := range st.Expect {
			got = append(got, string(e.Reason)+" "+groupNames(e.Flags&(engine.FlagETSChanged|engine.FlagPFCChanged|engine.FlagClassificationChanged)))
		}
	}
	want := []string{
		"first-receipt ETS, PFC, APP",
		"changed PFC",
		"changed ETS",
		"changed PFC",
		"changed PFC",
		"multi-peer ETS, PFC, APP",
		"first-receipt ETS, PFC, APP",
		"ttl-expired ETS, PFC, APP",
		"first-receipt ETS, PFC, APP",
		"shutdown ETS, PFC, APP",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("expected indications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseErrors(t *testing.T) {
	const params = `{"pfc":{"cap":8,"enabled":[3]}}`
	start := func(extra string) string {
		return `{"at_s":1,"switch":"s1","action":"start","comment":"c","chassis_mac":"02:00:00:00:00:01","port":"swp1","params":` + params + extra + `}`
	}
	doc := func(steps ...string) string {
		return `{"duration_s":10,"steps":[` + strings.Join(steps, ",") + `]}`
	}
	for _, tc := range []struct {
		name, json, want string
	}{
		{"unknown field", `{"duration_s":10,"bogus":1,"steps":[]}`, `unknown field "bogus"`},
		{"no duration", `{"steps":[]}`, "duration_s is missing"},
		{"no steps", `{"duration_s":10,"steps":[]}`, "no steps"},
		{"trailing", doc(start("")) + "{}", "trailing data"},
		{"step after end", doc(`{"at_s":10,"action":"note","comment":"c"}`), "not within the scenario's 10s"},
		{"out of order", doc(start(""), `{"at_s":0.5,"action":"note","comment":"c"}`), "step 2 (at 0.5s, note): at_s is before"},
		{"no comment", doc(`{"at_s":1,"action":"note"}`), "comment is missing"},
		{"unknown action", doc(`{"at_s":1,"switch":"s1","action":"explode","comment":"c"}`), `unknown action "explode"`},
		{"set before start", doc(`{"at_s":1,"switch":"s1","action":"set","willing":true,"comment":"c"}`), "s1 cannot set: it is not started"},
		{"resume without silence", doc(start(""), `{"at_s":2,"switch":"s1","action":"resume","comment":"c"}`), "s1 cannot resume: it is transmitting"},
		{"start twice", doc(start(""), start("")), "s1 cannot start: it is transmitting"},
		{"set nothing", doc(start(""), `{"at_s":2,"switch":"s1","action":"set","comment":"c"}`), "set changes nothing"},
		{"silence with params", doc(start(""), `{"at_s":2,"switch":"s1","action":"silence","params":`+params+`,"comment":"c"}`), "silence does not take params"},
		{"set with port", doc(start(""), `{"at_s":2,"switch":"s1","action":"set","port":"x","willing":true,"comment":"c"}`), "set does not take port"},
		{"bad MAC", doc(strings.Replace(start(""), "02:00:00:00:00:01", "01:00:5e:00:00:01", 1)), "chassis_mac: 01:00:5e:00:00:01 is not a unicast MAC"},
		{"host MAC", doc(strings.Replace(start(""), "02:00:00:00:00:01", "02:dc:b0:00:00:fe", 1)), "is the host's MAC"},
		{"no port", doc(strings.Replace(start(""), `"port":"swp1",`, "", 1)), "port is missing"},
		{"no params", doc(strings.Replace(start(""), `,"params":`+params, "", 1)), "params is missing"},
		{"tx interval", doc(start(`,"tx_interval_s":0.5`)), "tx_interval_s 0.5 is not a whole number"},
		{"willing in params", doc(strings.Replace(start(""), `"cap":8`, `"willing":true,"cap":8`, 1)), `give the Willing state with "willing"`},
		{"bad PFC", doc(strings.Replace(start(""), `"cap":8`, `"cap":1,"x":1`, 1)), `unknown field "x"`},
		{"PFC over cap", doc(strings.Replace(start(""), `"cap":8,"enabled":[3]`, `"cap":1,"enabled":[3,4]`, 1)), "2 priorities have PFC enabled but the capability is 1"},
		{"ETS sum", doc(start(""), `{"at_s":2,"switch":"s1","action":"set","comment":"c","params":{"ets":{"prio_tc":[0,0,0,0,0,0,0,0],"tc_bandwidth":[50,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}}`), "sum to 50%"},
		{"short array", doc(start(""), `{"at_s":2,"switch":"s1","action":"set","comment":"c","params":{"ets_reco":{"prio_tc":[0],"tc_bandwidth":[100,0,0,0,0,0,0,0],"tsa":["ets","ets","ets","ets","ets","ets","ets","ets"]}}}`), "want 8 values"},
		{"shared MSAP", doc(start(""), strings.Replace(start(""), `"s1"`, `"s2"`, 1)), "two switches cannot share an MSAP"},
		{"bad reason", doc(start(`,"expect":[{"reason":"gone"}]`)), `reason "gone" is not a remote reason`},
		{"bad flag", doc(start(`,"expect":[{"reason":"changed","flags":["PFC_BROKEN"]}]`)), `unknown flag "PFC_BROKEN"`},
		{"note names unknown switch", doc(start(""), `{"at_s":2,"switch":"s9","action":"note","comment":"c"}`), `switch "s9", which no step starts`},
		{"empty nic", doc(`{"at_s":1,"action":"note","comment":"c","nic":{}}`), "nic changes nothing"},
		{"nic field", doc(`{"at_s":1,"action":"note","comment":"c","nic":{"pfc":true}}`), `unknown field "pfc"`},
		{"nic ToS", doc(`{"at_s":1,"action":"note","comment":"c","nic":{"tos":256}}`), "nic.tos"},
		{"host params", `{"duration_s":10,"host":{"params":{"pfc":{"cap":9,"enabled":[]}}},"steps":[` + start("") + `]}`, "scenario: host: params: pfc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	sc, err := Parse(strings.NewReader(`{"duration_s":10,"steps":[
		{"at_s":0,"switch":"s1","action":"start","comment":"c","chassis_mac":"02:00:00:00:00:01","port":"swp1","params":{"pfc":{"cap":8,"enabled":[3]}}},
		{"at_s":1,"switch":"s1","action":"silence","comment":"c"},
		{"at_s":2,"switch":"s1","action":"set","willing":true,"comment":"c"},
		{"at_s":3,"switch":"s1","action":"shutdown","comment":"c"},
		{"at_s":4,"switch":"s1","action":"start","comment":"again","chassis_mac":"02:00:00:00:00:01","port":"swp1","params":{"app":[]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Steps[0].Start
	if c.TxInterval != 30*time.Second || c.SystemName != "s1" || c.Willing || c.ReactDelay != 0 {
		t.Errorf("start defaults = %+v", c)
	}
	if sc.Host.MAC != DefaultHostMAC || !sc.Host.Willing || sc.Host.Params.ETS == nil || !sc.Host.Params.ETS.Willing {
		t.Errorf("host defaults = %+v", sc.Host)
	}
	if w := sc.Steps[2].Willing; w == nil || !*w || sc.Steps[2].Params != nil {
		t.Errorf("set step = %+v", sc.Steps[2])
	}
}
