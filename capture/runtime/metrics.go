package runtime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"

	"github.com/dcbtop/dcbtop/engine"
	"github.com/dcbtop/dcbtop/engine/metrics"
)

// The endpoint's limits, so that idle or slow clients cannot pile up
// descriptors: a scrape is one small request, answered from a snapshot in
// memory. Variables for the tests.
var (
	metricsMaxConns          = 32               // connections served at once; more wait in the backlog
	metricsIdleTimeout       = 60 * time.Second // a keep-alive connection with no request (Prometheus scrapes every 15-60 s)
	metricsReadHeaderTimeout = 5 * time.Second
	metricsReadTimeout       = 10 * time.Second
	metricsWriteTimeout      = 30 * time.Second
)

// serveMetrics starts the Prometheus endpoint of --metrics on addr, on a
// registry of its own, reading the latest snapshot the engine's goroutine
// published to feed. It returns the collector (to count indications) and a
// stop function.
func serveMetrics(addr string, feed *Feed, version, revision string) (*metrics.Collector, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics %s: %w", addr, errors.Unwrap(err))
	}
	col := metrics.New(func() engine.Snapshot {
		s, _ := feed.Snapshot()
		return s
	}, metrics.WithBuildInfo(version, revision))
	reg := prometheus.NewRegistry()
	if err := reg.Register(col); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(reg))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "dcbtop: metrics at /metrics")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsReadHeaderTimeout, ReadTimeout: metricsReadTimeout,
		WriteTimeout: metricsWriteTimeout, IdleTimeout: metricsIdleTimeout, MaxHeaderBytes: 16 << 10}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(netutil.LimitListener(ln, metricsMaxConns)) // ErrServerClosed after Shutdown
	}()
	return col, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	}, nil
}
