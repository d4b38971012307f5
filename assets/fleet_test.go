// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"github.com/dcbtop/dcbtop/engine/verdict"

	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcbtop/dcbtop/engine/check"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
	"github.com/dcbtop/dcbtop/testbed"
)

// TestPromtoolRules checks the alerting rules with Prometheus's own
// tools: promtool check rules, and promtool test rules against series
// shaped like dcbtop's /metrics.
func TestPromtoolRules(t *testing.T) {
	testbed.RequireCommands(t, "promtool")
	for _, args := range [][]string{{"check", "rules", "dcbtop.rules.yml"}, {"test", "rules", "dcbtop.rules.test.yml"}} {
		cmd := exec.Command("promtool", args...)
		cmd.Dir = "prometheus"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// exported returns the names of the metrics dcbtop's collector exports.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	c := metrics.New(func() engine.Snapshot { return engine.Snapshot{} })
	ch := make(chan *prometheus.Desc, 256)
	go func() { c.Describe(ch); close(ch) }()
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	names := map[string]bool{}
	// dcbtop check --textfile's metrics too.
	mfs, err := metrics.NewCheckRegistry(check.Report{Exit: 2, Interfaces: []check.InterfaceReport{{Name: "eth0",
		Results: []verdict.Result{{Check: verdict.CheckPeer}}}}}, time.Now(), time.Now()).Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	for d := range ch {
		m := re.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		names[m[1]] = true
	}
	if len(names) < 30 {
		t.Fatalf("only %d metrics described: %v", len(names), names)
	}
	return names
}

// metricRe finds dcbtop metric names in PromQL.
var metricRe = regexp.MustCompile(`\bdcbtop_[a-z0-9_]+`)

// TestFleetAssetsNameExportedMetrics checks that every metric the rules,
// their tests and the Grafana dashboard name is one dcbtop exports, and
// that every dashboard query names one.
func TestFleetAssetsNameExportedMetrics(t *testing.T) {
	names := exported(t)
	check := func(where, text string) {
		t.Helper()
		for _, m := range metricRe.FindAllString(text, -1) {
			if !names[m] {
				t.Errorf("%s names %s, which dcbtop does not export", where, m)
			}
		}
	}
	for _, f := range []string{"prometheus/dcbtop.rules.yml", "prometheus/dcbtop.rules.test.yml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(metricRe.FindAllString(string(b), -1)) == 0 {
			t.Errorf("%s names no dcbtop metric", f)
		}
		check(f, string(b))
	}

	b, err := os.ReadFile("grafana/dcbtop.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("grafana/dcbtop.json: %v", err)
	}
	if len(dash.Panels) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	var used []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			ms := metricRe.FindAllString(q.Expr, -1)
			if len(ms) == 0 {
				t.Errorf("panel %q: query %q names no dcbtop metric", p.Title, q.Expr)
			}
			used = append(used, ms...)
			check("panel "+p.Title, q.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if s, ok := v.Query.(string); ok {
			check("variable "+v.Name, s)
		}
	}
	for _, must := range []string{"dcbtop_remote_valid", "dcbtop_dcbx_feature_mismatch", "dcbtop_pfc_pause_frames_total", "dcbtop_rdma_bytes_total"} {
		if !slices.Contains(used, must) {
			t.Errorf("the dashboard does not show %s", must)
		}
	}
}
