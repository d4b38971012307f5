// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dcbtop/dcbtop/engine"
)

// scrape GETs srv once, failing unless the status is 200, and returns
// the body and the Content-Type.
func scrape(t *testing.T, srv *httptest.Server) (body, contentType string) {
	t.Helper()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d:\n%s", resp.StatusCode, b)
	}
	return string(b), resp.Header.Get("Content-Type")
}

// serve serves reg through Handler for the test's duration.
func serve(t *testing.T, reg *prometheus.Registry) *httptest.Server {
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorHandling: promhttp.ContinueOnError}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHandler scrapes a registry through Handler over HTTP.
func TestHandler(t *testing.T) {
	sc := scenarios()[0]
	c, _ := build(t, sc)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	body, ct := scrape(t, serve(t, reg))
	if !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q", ct)
	}
	for _, want := range []string{
		`dcbtop_build_info{goversion=`,
		`dcbtop_remote_valid{interface="eth0"} 1`,
		`# TYPE dcbtop_indications_total counter`,
		`promhttp_metric_handler_errors_total{cause="gathering"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %q:\n%s", want, body)
		}
	}
}

// TestConcurrentObserveCollect runs the wiring's Observe against scrapes
// (meaningful under -race).
func TestConcurrentObserveCollect(t *testing.T) {
	e := engine.New(engine.Config{})
	var mu sync.Mutex
	snap := e.Snapshot()
	c := New(func() engine.Snapshot { mu.Lock(); defer mu.Unlock(); return snap })
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 50 {
			f := frame(t, leafA, 120, swETS)
			if i%2 == 1 {
				f = frame(t, leafA, 120, swETS, swPFC)
			}
			c.Observe(e.Apply(rx("eth0", float64(i), f)))
			s := e.Snapshot()
			mu.Lock()
			snap = s
			mu.Unlock()
		}
	}()
	for range 20 {
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	got := gathered(t, c)
	if v := got[`dcbtop_indications_total{interface="eth0",reason="changed",status="QOS_REMOTE_PARAMETERS_CHANGE"}`]; v != 49 {
		t.Errorf("changed indications = %v, want 49", v)
	}
}

// scrapeNamed serves a collector of interfaces with the given names (no
// local source) and returns the body of its second scrape (the first
// primes promhttp's error counter).
func scrapeNamed(t *testing.T, names ...string) string {
	t.Helper()
	c := New(func() engine.Snapshot {
		s := engine.Snapshot{}
		for _, n := range names {
			s.Interfaces = append(s.Interfaces, engine.Interface{Name: n, LocalSource: engine.SourceNone})
		}
		return s
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	srv := serve(t, reg)
	scrape(t, srv)
	body, _ := scrape(t, srv)
	return body
}

// TestInvalidLabelValue checks that an interface name that is not UTF-8
// is exported with its invalid bytes written as \xNN (as labelValue
// does), alongside the other interfaces, and that nothing fails: before
// the escaping such a name failed its own samples (counted in
// promhttp_metric_handler_errors_total); TestSendInvalidMetric keeps that
// fallback for a sample that still cannot be built.
func TestInvalidLabelValue(t *testing.T) {
	body := scrapeNamed(t, "eth0", "bad\xff")
	for _, want := range []string{
		`dcbtop_remote_valid{interface="eth0"} 0`,
		`dcbtop_remote_valid{interface="bad\\xff"} 0`,
		`promhttp_metric_handler_errors_total{cause="gathering"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
}
